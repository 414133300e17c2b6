/* side: one side's figures, merged over all of its inputs.
 *
 * Several runs of one measurement on a side (A-B-A re-measures, several
 * client machines) are pooled: the decode walls of every run, the batches of
 * every run at a level. Each run's own figure is kept for the agreement table.
 * Decode lengths or a level's mode and tokens that differ within a side are an
 * error (guard.h checks the rest: clients, settings, time scales). */
#ifndef SM_SIDE_H
#define SM_SIDE_H

#include <stdbool.h>

#include "buf.h"
#include "climit.h"
#include "inputs.h"
#include "openloop.h"
#include "src.h"
#include "warnings.h"

enum side_err { SIDE_OK = 0, SIDE_ERR_NOMEM = -1, SIDE_ERR_INPUT = -3 };

/* A figure, or why there is none. */
struct side_val {
    bool ok;
    double v;
    char why[160];
};

struct side_decode {
    bool have;                    /* some input measured decode */
    const struct src *first;      /* the first decode input, for messages */
    int lengths[SRC_MAX_LENGTHS]; /* ascending */
    size_t nlengths;
    long repeats;
    bool medians_only; /* only compare.py figures */
    double *ws, *wl;   /* walls at the shortest and the longest length (real seconds) */
    size_t ns, nl;
    struct side_val rate, fixed;       /* the reference's two-length figures */
    struct side_val med_s, med_l;      /* median walls */
    struct side_val ls_rate, ls_fixed; /* least squares over every reply (3+ lengths) */
    bool streamed;                     /* some decode input streamed its replies */
    struct stream_meas stream;         /* pooled, finished (stream.h) */
    struct src_tally tally;
};

struct side_level {
    int c;
    bool steady;
    long max_tokens;
    bool measure;            /* the batches are compare.py's (timed through the aws CLI) */
    const struct src *first; /* the first input of the level, for messages */
    double *tps;             /* pooled throughputs of the batches used */
    double *bwall;           /* their walls, real seconds (NAN from compare.py) */
    size_t nb;
    long batches, batches_failed, batches_short; /* over the inputs */
    double *lat;                                 /* pooled request walls (in no particular order) */
    size_t nlat;
    bool no_counts;
    struct side_val tput, p50, p90, p99;
    bool streamed;             /* some input of the level streamed its replies */
    struct stream_meas stream; /* pooled, finished (stream.h) */
    struct src_tally tally;
};

/* One input's own figure, for the agreement table. */
struct side_run {
    const struct src *src;
    char what[48];
    double v;
};

struct side {
    const char *role; /* "baseline" or "candidate" */
    const char *name; /* the label of its first input (or the role) */
    struct inputs in;
    struct side_decode dec;
    struct side_level *lv; /* ascending concurrency */
    size_t nlv;
    const struct src_quiz *quiz; /* the first quiz input's */
    const struct src *quiz_src;
    struct openloop rate; /* open-loop rounds of every input, pooled by rate, finished */
    struct side_run *runs;
    size_t nruns;
    double scale_lo, scale_hi; /* the smallest and largest time_scale of its inputs */
    double bias_hi;            /* the largest time_scale of inputs converted with the client's share
                                  multiplied (src.scale_biased): the bias bound's; 1 when none */
    struct climit_run client;  /* its inputs' clients, merged (climit.h) */
    double late_share;         /* of an open-loop rate's sends, late: the highest (NAN: none) */
    char limited[CLIMIT_WHY];  /* "" or why its client limited its figures (climit_judge) */
};

/* Computes the figures of in (which the side takes over). Returns 0, or a
 * negative enum side_err with one line in err; warnings go to w. The caller
 * frees s with side_free, also after an error. */
__attribute__((warn_unused_result)) int side_build(struct side *s, const char *role,
                                                   struct inputs *in, struct warnings *w,
                                                   struct buf *err);
void side_free(struct side *s);
/* The decode rate and fixed cost of the median walls med_s and med_l of the
 * lengths S < L; returns false when the long replies are not slower. */
bool side_rate(int S, int L, double med_s, double med_l, double *rate, double *fixed);
/* Sets v->ok false with the reason. */
__attribute__((format(printf, 2, 3))) void side_val_none(struct side_val *v, const char *fmt, ...);
/* Sets the value (not finite: none, with the reason). */
void side_val_set(struct side_val *v, double x);

#endif
