/* candfile: the candidates.json that sm-suite --candidates writes in its run
 * folder (docs/result-format.md, "candidates.json"), as sm-compare --candidates
 * reads it: the SLO the capacities were searched at, and per candidate its label,
 * its folder (under the run folder), its instance and its price. The figures are
 * computed again from each candidate's own records; the file's are not trusted. */
#ifndef SM_CANDFILE_H
#define SM_CANDFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

#define CANDFILE_NAME      "candidates.json"
#define CANDFILE_MAX       16      /* candidates (sm-suite's limit) */
#define CANDFILE_SIZE_MAX  1048576 /* bytes of the file */
#define CANDFILE_LABEL_MAX 64

enum candfile_error {
    CANDFILE_OK = 0,
    CANDFILE_ERR_NOMEM = -1,
    CANDFILE_ERR_INPUT = -3, /* not a candidates file, or a member is wrong: err says where */
};

struct candfile_cand {
    char label[CANDFILE_LABEL_MAX + 1];
    char folder[CANDFILE_LABEL_MAX + 1]; /* under the run folder */
    char instance_type[48];              /* "" when not given */
    int instance_count;
    double usd_per_hour; /* price x count; NAN: no price */
};

struct candfile {
    char slo[64]; /* the SLO searched at ("ttft:p90:1"), "" for none */
    struct candfile_cand c[CANDFILE_MAX];
    size_t n;
};

/* Parses the text of a candidates file (name names it in messages). Returns 0,
 * or CANDFILE_ERR_INPUT with one line in err naming the file, the candidate and
 * the member, or CANDFILE_ERR_NOMEM. */
__attribute__((warn_unused_result)) int
candfile_parse(const char *text, size_t len, const char *name, struct candfile *f, struct buf *err);

/* Reads DIR/candidates.json: as candfile_parse; a folder without the file is
 * CANDFILE_ERR_INPUT ("DIR: no candidates.json: not an sm-suite --candidates
 * folder"). */
__attribute__((warn_unused_result)) int candfile_read(const char *dir, struct candfile *f,
                                                      struct buf *err);

#endif
