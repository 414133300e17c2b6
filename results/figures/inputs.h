/* inputs: finds and reads every input of one side.
 *
 * A path is a run directory (every result file, every journal without its
 * result file, every compare.py measure file and every vLLM log in it, and
 * the CloudWatch documents *.logs.json and *.metrics.json in it or in its
 * cloudwatch/ folder) or a file. Bad input in a named file is an error; a
 * JSON file of another kind in a directory is left out with a warning. A log
 * gives the container's start-up facts and its throughput lines (srvlog.h);
 * so do CloudWatch's log events (cloudwatch_side.h), read as `aws logs tail` prints
 * them, and when they hold throughput lines those are the ones kept (their
 * times are finer than a log file's). */
#ifndef SM_INPUTS_H
#define SM_INPUTS_H

#include <stdbool.h>

#include "buf.h"
#include "cloudwatch_side.h"
#include "facts.h"
#include "quizfile.h"
#include "slo.h"
#include "src.h"
#include "specdec.h"
#include "srvlog.h"
#include "warnings.h"

enum inputs_err {
    INPUTS_OK = 0,
    INPUTS_ERR_NOMEM = -1,
    INPUTS_ERR_READ = -2,
    INPUTS_ERR_INPUT = -3
};

struct inputs {
    struct src *srcs; /* owned, in the order found (directories sorted by name) */
    size_t n;
    struct facts facts; /* merged: compare.py load_facts, then logs, then --facts-* */
    bool have_facts;
    struct srvlog log;         /* the throughput lines of every log of the side */
    struct specdec spec;       /* vLLM's speculative-decoding lines, pooled the same way */
    size_t nlogs;              /* logs read */
    struct cloudwatch_side cw; /* CloudWatch's log events and metrics, finished */
    char cw_path[512];         /* the first CloudWatch document's folder, "" without one */
};

/* Reads the paths of one side, and facts_log (--facts-ROLE, may be NULL). qz
 * (may be NULL) scores compare.py replies; slo (may be NULL) decides which
 * requests of an open-loop run were good. Returns 0, or a negative code (of
 * inputs_err, or of the reader that failed) with one line in err; warnings go
 * to w. The caller frees *out with inputs_free, also after an error. */
__attribute__((warn_unused_result)) int
inputs_read(char *const *paths, size_t npaths, const char *facts_log, const struct quizfile *qz,
            const struct slo_set *slo, struct inputs *out, struct warnings *w, struct buf *err);
void inputs_free(struct inputs *in);

#endif
