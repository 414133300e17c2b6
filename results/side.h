/* side: one side's figures, merged over all of its inputs.
 *
 * Several runs of one measurement on a side (A-B-A re-measures, several
 * client machines) are pooled: the decode walls of every run, the batches of
 * every run at a level. Each run's own figure is kept for the agreement table.
 * Settings that differ within a side are an error. */
#ifndef SM_SIDE_H
#define SM_SIDE_H

#include <stdbool.h>

#include "diag.h"
#include "inputs.h"
#include "src.h"

/* A figure, or why there is none. */
struct val {
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
    const char *prompt;
    bool medians_only; /* only compare.py figures */
    double *ws, *wl;   /* walls at the shortest and the longest length */
    size_t ns, nl;
    struct val rate, fixed;       /* the reference's two-length figures */
    struct val med_s, med_l;      /* median walls */
    struct val ls_rate, ls_fixed; /* least squares over every reply (3+ lengths) */
    struct tally tally;
};

struct side_level {
    int c;
    bool steady;
    long max_tokens;
    const struct src *first;
    double *tps; /* pooled batch throughputs */
    size_t nb;
    double *lat; /* pooled request walls (in no particular order) */
    size_t nlat;
    bool no_counts;
    struct val tput, p50, p90, p99;
    struct tally tally;
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
    const struct quiz_part *quiz; /* the first quiz input's */
    const struct src *quiz_src;
    struct side_run *runs;
    size_t nruns;
    double scale_lo, scale_hi; /* the smallest and largest time_scale of its inputs */
};

/* Computes the figures of in (which the side takes over). */
__attribute__((warn_unused_result)) int side_build(struct side *s, const char *role,
                                                   struct inputs *in, struct diag *d);
void side_free(struct side *s);
/* The decode rate and fixed cost of walls ws (short) and wl (long), for the
 * lengths S < L; returns false when the long replies are not slower. */
bool side_rate(int S, int L, double med_s, double med_l, double *rate, double *fixed);
/* Sets v->ok false with the reason. */
__attribute__((format(printf, 2, 3))) void val_none(struct val *v, const char *fmt, ...);
void val_set(struct val *v, double x);

#endif
