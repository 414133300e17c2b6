/* nway: the N-way comparison of sm-compare --candidates DIR (docs/compare.md,
 * "N candidates"): DIR is an sm-suite --candidates run; each candidate's folder
 * is read as a side and compared with the baseline's exactly as sm-compare A B
 * would (comparison_build), so two candidates give today's A/B numbers. Per
 * candidate: the capacity at the SLO with its bracket, the latency at the SLO's
 * percentile at the last rate that held (the candidate's own records there),
 * tokens/s and USD per million tokens at capacity (its own price from
 * candidates.json), the quiz, the requests each rests on; the ratios to the
 * baseline; the Pareto front and the recommendation (pareto.h). A candidate whose
 * folder cannot be read, whose search found no rate within the SLO, that cannot be
 * compared with the baseline or that has no price is kept, with why, and left out
 * of the choice. */
#ifndef SM_NWAY_H
#define SM_NWAY_H

#include <stdbool.h>
#include <stddef.h>

#include "candfile.h"
#include "cmp.h"
#include "pareto.h"
#include "quizfile.h"
#include "slo.h"
#include "warnings.h"

enum nway_error { NWAY_OK = 0, NWAY_ERR_NOMEM = -1, NWAY_ERR_INPUT = -3 };

struct nway_opts {
    const char *dir;           /* the sm-suite --candidates folder */
    const char *baseline;      /* a label, or NULL: the first candidate */
    const struct slo_set *slo; /* --slo given, or NULL: candidates.json's */
    bool allow_mixed;
    double margin;             /* the quiz's margin (cmp_opts) */
    const struct quizfile *qz; /* may be NULL */
};

/* A ratio to the baseline with the range its brackets allow (NAN: unbounded). */
struct nway_ratio {
    bool ok;
    enum openloop_cmp_rel rel; /* the capacity's: how the value bounds the ratio */
    double v, lo, hi;
};

struct nway_cand {
    struct candfile_cand f;
    char excluded[320]; /* "" or why it is left out of the choice */
    bool read;          /* side holds its records */
    bool compared;      /* m holds the comparison with the baseline */
    struct side side;
    struct cmp m; /* the baseline (b) against this candidate (c); the baseline against itself */
    struct openloop_cmp_cap cap;
    long sent, ok;                 /* the open-loop requests the capacity rests on */
    double lat;                    /* the SLO's metric at its percentile at cap.pass, seconds */
    size_t lat_n;                  /* the successful requests behind lat */
    double usd, usd_lo, usd_hi;    /* per million tokens at capacity; at the bracket's ends */
    long quiz_correct, quiz_total; /* quiz_total 0: no quiz */
    struct nway_ratio r_cap, r_lat, r_usd; /* to the baseline */
};

struct nway {
    struct candfile file;
    struct slo_set slo;  /* the SLOs used; slo.s[0] is the one the table reads */
    char slo_text[96];   /* "p90 TTFT <= 1 s" */
    struct nway_cand *c; /* owned, file.n of them */
    size_t n, base;
    struct pareto_item items[PARETO_MAX];
    struct pareto_result pr;
};

/* Reads o->dir and builds w. Returns 0, or NWAY_ERR_INPUT with one line in err
 * (no candidates.json or a bad one, an unknown baseline, no SLO, a baseline that
 * cannot be read or has no open-loop run), or NWAY_ERR_NOMEM. Warnings go to warn.
 * The caller frees w with nway_free, also after an error. */
__attribute__((warn_unused_result)) int nway_build(struct nway *w, const struct nway_opts *o,
                                                   struct warnings *warn, struct buf *err);
void nway_free(struct nway *w);

#endif
