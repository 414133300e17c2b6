/* interval: the 95% intervals of sm-compare's figures, or why there is none.
 *
 * - A throughput (the median of batch throughputs) gets a distribution-free
 *   interval for the population median (order statistics, interpolated) from
 *   INTERVAL_MIN_BATCHES batches; the ratio of two sides Bonett and Price's
 *   interval for a ratio of medians from INTERVAL_MIN_BATCHES_RATIO per side.
 * - The decode rate (L - S over the difference of the mean walls of two
 *   lengths) gets Welch's t-interval for that difference; the per-call cost
 *   (the intercept of the least-squares line of wall on tokens) the line's
 *   t-interval; their ratios Fieller's interval. They need INTERVAL_MIN_WALLS
 *   replies of each length.
 * - A quantile of a streaming figure (TTFT, ITL, TPOT, end-to-end latency)
 *   gets Woodruff's interval over the sample's clusters (the batches, whose
 *   requests share the server's steps; the requests of a measurement that ran
 *   one at a time), from INTERVAL_MIN_CLUSTERS, with Korn and Graubard's
 *   effective sample deciding how far t(m - 1) widens it; the ratio of two
 *   sides the log ratio of the quantiles +- t x their standard errors
 *   (Woodruff's interval's width on the log scale), degrees of freedom by
 *   Welch-Satterthwaite.
 * A smaller sample gets no interval ("n = 2: no interval"). A time of a
 * time-scaled run may read up to time_scale x INTERVAL_SCALED_BIAS_S too long
 * (the client's and the loopback's own time, timer wake-ups): its intervals
 * are widened by what that can do to the figure. docs/compare.md says why each
 * method and what it assumes; tests/results/test_results_coverage.c checks
 * that each holds its level under the emulator's timing model. */
#ifndef SM_INTERVAL_H
#define SM_INTERVAL_H

#include <stdbool.h>
#include <stddef.h>

#include "estim.h"

#define INTERVAL_LEVEL             0.95
#define INTERVAL_MIN_BATCHES       5     /* [x(1), x(5)] holds the median 93.75% of the time */
#define INTERVAL_MIN_BATCHES_RATIO 8     /* fewer under- or over-cover (docs/compare.md) */
#define INTERVAL_MIN_WALLS         5     /* replies of each length: fewer cover under 93% */
#define INTERVAL_MIN_CLUSTERS      8     /* batches (or requests) of a streaming figure */
#define INTERVAL_SCALED_BIAS_S     0.001 /* real seconds a time-scaled run's time may read long */

enum interval_kind {
    INTERVAL_MEDIAN,  /* the figure is a median of samples */
    INTERVAL_NORMAL,  /* the figure is norm.est, or k / norm.est */
    INTERVAL_CLUSTER, /* the figure is a quantile of a clustered sample */
};

/* A figure's estimate for intervals. Relative bias bounds: the truth lies
 * within [figure x (1 - down), figure x (1 + up)] of what was measured. */
struct interval_fig {
    bool ok;
    char why[96]; /* when !ok: why there is no interval */
    enum interval_kind kind;
    double log_median, log_se; /* INTERVAL_MEDIAN, INTERVAL_CLUSTER (the quantile's log) */
    size_t n;                  /* INTERVAL_MEDIAN: the batches; INTERVAL_CLUSTER: the clusters */
    double df;                 /* INTERVAL_CLUSTER: the degrees of freedom of log_se */
    struct estim_norm norm;    /* INTERVAL_NORMAL */
    bool inverse;              /* the figure is k / norm.est (a rate from a difference of times) */
    double k;
    double up, down; /* the bias bounds (0 in real time) */
};

/* An interval, or why there is none. */
struct interval {
    bool ok;
    double lo, hi;
    char why[96];
};

/* The throughput of batches x[0..n) (the figure is their median). scale: the
 * runs' time_scale; wall: the median batch wall in real seconds (for the bias
 * bound). */
void interval_batches(const double *x, size_t n, double scale, double wall,
                      struct interval_fig *fig, struct interval *ci);
/* The decode rate (L - S) / (mean wall L - mean wall S) and the per-call cost
 * mean wall S - S / rate of walls ws (length S) and wl (length L), seconds. */
void interval_decode(int S, int L, const double *ws, size_t ns, const double *wl, size_t nl,
                     double scale, struct interval_fig *rate, struct interval *rate_ci,
                     struct interval_fig *fixed, struct interval *fixed_ci);
/* The q-quantile of the sorted clustered sample x[0..n) (weights summing to
 * total, clusters 0 to m - 1) with Woodruff's interval: the share of the
 * sample at or below the quantile has a standard error over the clusters
 * (estim_cshare); the sample's quantiles at q -+ t(m - 1) x that error are the
 * interval. It needs INTERVAL_MIN_CLUSTERS clusters and both shares within 0
 * and 1 (a p99 of few clusters gets none). up, down: the relative bias bounds. */
void interval_quantile(const struct estim_cval *x, size_t n, uint32_t m, uint64_t total, double q,
                       double up, double down, struct interval_fig *fig, struct interval *ci);
/* The interval of c / b (candidate over baseline) of two figures of one kind. */
void interval_ratio(const struct interval_fig *b, const struct interval_fig *c,
                    struct interval *ci);
/* f(ci) for a decreasing f(x) = k / x (a cost from a rate, 1 / a ratio). */
void interval_inverse(const struct interval *in, double k, struct interval *out);
/* Sets why (printf format) and ok false. */
__attribute__((format(printf, 2, 3))) void interval_none(struct interval *ci, const char *fmt, ...);

#endif
