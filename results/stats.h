/* stats: the few statistics sm-compare needs, with the randomness injected.
 *
 * Nothing here reads a clock or a global random source: the bootstrap draws
 * from a caller-seeded generator, so a report is the same on every run. */
#ifndef SM_STATS_H
#define SM_STATS_H

#include <stddef.h>
#include <stdint.h>

/* A seeded pseudo-random generator (splitmix64). */
struct stats_rng {
    uint64_t state;
};

void stats_rng_seed(struct stats_rng *r, uint64_t seed);
uint64_t stats_rng_next(struct stats_rng *r);
/* A uniform index in [0, n), n > 0. */
size_t stats_rng_below(struct stats_rng *r, size_t n);

/* Sorts x ascending in place. */
void stats_sort(double *x, size_t n);
/* The median of x (n > 0); reorders x. */
double stats_median(double *x, size_t n);
/* The q-quantile (0..1) of sorted x by linear interpolation between closest
 * ranks (the usual "type 7"), n > 0. */
double stats_quantile(const double *sorted, size_t n, double q);
/* The same quantile of unsorted x in linear time; reorders x. */
double stats_quantile_select(double *x, size_t n, double q);
/* Fills out with n values drawn with replacement from x (n > 0). */
void stats_resample(struct stats_rng *r, const double *x, size_t n, double *out);
/* The central 95% of the n values (sorts them): the 2.5% and 97.5% quantiles. */
void stats_interval95(double *vals, size_t n, double *lo, double *hi);
/* Least squares y = a + b x; returns -1 when x has no spread (n < 2). */
__attribute__((warn_unused_result)) int stats_linfit(const double *x, const double *y, size_t n,
                                                     double *a, double *b);
/* Two-sided exact McNemar p for b and c discordant pairs (1 when b + c == 0). */
double stats_mcnemar(unsigned b, unsigned c);

#endif
