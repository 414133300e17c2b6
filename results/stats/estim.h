/* estim: the statistics sm-compare needs (medians, quantiles, Student's t,
 * Welch-Satterthwaite, Fieller, McNemar), pure C with the randomness injected.
 *
 * Nothing here reads a clock or a global random source. An interval is built
 * from a normal-theory estimate (struct estim_norm): a value, the variance of
 * that value, and its degrees of freedom (n - 1 for the mean of n values; for
 * sums and differences of independent estimates the Welch-Satterthwaite
 * approximation). docs/compare.md says which figure uses which method. */
#ifndef SM_ESTIM_H
#define SM_ESTIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A seeded pseudo-random generator (splitmix64), for tests and simulations. */
struct estim_rng {
    uint64_t state;
};

void estim_rng_seed(struct estim_rng *r, uint64_t seed);
uint64_t estim_rng_next(struct estim_rng *r);
/* A uniform double in [0, 1). */
double estim_rng_unit(struct estim_rng *r);

/* Sorts x ascending in place. */
void estim_sort(double *x, size_t n);
/* The median of x (n > 0); reorders x. */
double estim_median(double *x, size_t n);
/* The median of x (n > 0) without changing x; NAN when out of memory. */
double estim_median_of(const double *x, size_t n);
/* The q-quantile (0..1) of sorted x by linear interpolation between closest
 * ranks (the usual "type 7"), n > 0. */
double estim_quantile(const double *sorted, size_t n, double q);
/* The same quantile of unsorted x in linear time; reorders x. */
double estim_quantile_select(double *x, size_t n, double q);
/* Least squares y = a + b x; returns -1 when x has no spread (n < 2). */
__attribute__((warn_unused_result)) int estim_linfit(const double *x, const double *y, size_t n,
                                                     double *a, double *b);
/* Two-sided exact McNemar p for b and c discordant pairs (1 when b + c == 0). */
double estim_mcnemar(unsigned b, unsigned c);

/* Student's t distribution with df > 0 degrees of freedom (df may be
 * fractional; INFINITY gives the normal distribution). */
double estim_t_cdf(double t, double df);
/* The t with estim_t_cdf(t, df) == p, 0 < p < 1. */
double estim_t_quantile(double p, double df);

/* P(B <= k) for B binomial with n trials of probability 1/2. */
double estim_binom_half_cdf(long k, long n);
/* A distribution-free interval for the population median of sorted x: order
 * statistics, interpolated between two of them (Hettmansperger and Sheather)
 * to reach level when the sample allows it. *achieved is the level reached:
 * level itself, or less when even [x(1), x(n)] covers less (n < 6 at 95%). */
void estim_median_ci(const double *sorted, size_t n, double level, double *lo, double *hi,
                     double *achieved);
/* The standard error of the log of the median of sorted x (all > 0) from the
 * order statistics around it (Bonett and Price). Returns -1 when n < 2 or a
 * value is not positive. */
__attribute__((warn_unused_result)) int estim_log_median_se(const double *sorted, size_t n,
                                                            double *se);

/* A value of a clustered, weighted sample: it stands for w equal observations
 * of cluster cl. The clusters are the sample's independent units (a batch of
 * simultaneous requests, or one request); observations within one need not be. */
struct estim_cval {
    double v;
    uint32_t w;  /* observations (>= 1) */
    uint32_t cl; /* its cluster */
};

/* Sorts x by value. */
void estim_csort(struct estim_cval *x, size_t n);
/* The q-quantile (0..1) of sorted x with every value repeated w times, as
 * estim_quantile computes it ("type 7"); total is the sum of the weights (> 0). */
double estim_cquantile(const struct estim_cval *sorted, size_t n, uint64_t total, double q);
/* The standard error over m clusters (x's cl from 0 to m - 1) of the share of
 * x's weight below t (values equal to t count half), where the share should
 * be q: the clusters' estimating functions u_c = y_c - q t_c (y_c the
 * cluster's weight below t, t_c its whole weight) give the linearised variance
 * m / (m - 1) sum_c u_c^2 / total^2. Returns -1 when m < 2 or out of memory. */
__attribute__((warn_unused_result)) int estim_cshare_se(const struct estim_cval *x, size_t n,
                                                        uint32_t m, double t, double q, double *se);
/* The degrees of freedom of a sum of two variances u and v with dfs du and dv
 * (Welch-Satterthwaite; INFINITY when both are 0). */
double estim_ws_df(double u, double du, double v, double dv);

/* An estimate with a normal-theory standard error. */
struct estim_norm {
    double est; /* the value */
    double var; /* the variance of est (0: no spread was seen) */
    double df;  /* degrees of freedom of var (INFINITY when var is 0) */
};

/* The mean of n >= 2 values, its variance s^2 / n and df n - 1. Returns -1 when n < 2. */
__attribute__((warn_unused_result)) int estim_mean(const double *x, size_t n,
                                                   struct estim_norm *out);
/* a x + b y of independent x and y, df by Welch-Satterthwaite. */
struct estim_norm estim_lincomb(double a, const struct estim_norm *x, double b,
                                const struct estim_norm *y);
/* The two-sided interval est +- t(df) sqrt(var) at level (e.g. 0.95). */
void estim_t_interval(const struct estim_norm *x, double level, double *lo, double *hi);
/* Fieller's interval for num / den of independent estimates, df of num + ratio^2 den
 * by Welch-Satterthwaite. Returns -1 when den is not clearly away from 0 (the
 * interval would be unbounded) or is 0. */
__attribute__((warn_unused_result)) int estim_fieller(const struct estim_norm *num,
                                                      const struct estim_norm *den, double level,
                                                      double *lo, double *hi);

#endif
