/* quiz_plan: how many quiz items a paired A/B needs, before the run and after it.
 *
 * Both sides answer the same items, so only the discordant items (right on one
 * side, wrong on the other) carry the difference: with a discordance rate psi
 * and a difference in accuracy delta, McNemar's test needs (Connor 1987,
 * "Sample size for testing differences in proportions for the paired-sample
 * design", Biometrics 43:207-211, eq. 3)
 *
 *     n = ( z(1 - alpha/2) sqrt(psi) + z(power) sqrt(psi - delta^2) )^2 / delta^2
 *
 * items, and n items give the power
 *
 *     Phi( (delta sqrt(n) - z(1 - alpha/2) sqrt(psi)) / sqrt(psi - delta^2) ).
 *
 * With several families tested at once, each is planned at alpha / families:
 * the level Holm's procedure uses for the smallest p-value, so the plan holds
 * whichever family carries the difference. The equivalence test (TOST at a
 * margin) needs, when the true difference is d (|d| < margin),
 *
 *     n = ( z(1 - alpha) + z(power) )^2 (psi - d^2) / (margin - |d|)^2
 *
 * (the normal approximation of each one-sided test; the power of the worse
 * of the two, which is conservative). Pure: no I/O. */
#ifndef SM_QUIZ_PLAN_H
#define SM_QUIZ_PLAN_H

#include <stdbool.h>

#include "buf.h"

enum quiz_plan_err { QUIZ_PLAN_OK = 0, QUIZ_PLAN_ERR_INPUT = -1 };

#define QUIZ_PLAN_POWER       0.80 /* the default power */
#define QUIZ_PLAN_ALPHA       0.05 /* the default level (two-sided) */
#define QUIZ_PLAN_DISCORDANCE 0.10 /* the default assumed discordance rate */
#define QUIZ_PLAN_MARGIN      0.02 /* the default equivalence margin */
#define QUIZ_PLAN_ITEMS_MAX   10000000L

struct quiz_plan {
    double detect;      /* the difference in accuracy to find, 0 < detect < 1 */
    double power;       /* 0 < power < 1 */
    double alpha;       /* the two-sided level of the whole plan */
    double discordance; /* the assumed share of items the sides disagree on */
    unsigned families;  /* families tested at once (>= 1) */
};

/* The defaults, with detect 0.03 and one family. */
void quiz_plan_defaults(struct quiz_plan *p);

/* Checks p; one line naming the bad value in err (QUIZ_PLAN_ERR_INPUT). */
__attribute__((warn_unused_result)) int quiz_plan_check(const struct quiz_plan *p, struct buf *err);

/* Items needed per family (a checked plan), at most QUIZ_PLAN_ITEMS_MAX. */
long quiz_plan_items(const struct quiz_plan *p);

/* The power of n items per family under p's assumptions. */
double quiz_plan_power(const struct quiz_plan *p, long n);

/* Items needed by the equivalence test at margin with difference d and
 * discordance psi, at one-sided level alpha and power; -1 when |d| >= margin
 * (no number of items shows it). */
long quiz_plan_items_equiv(double margin, double d, double psi, double alpha, double power);

/* Parses "3%", "0.03" or "3 %" style shares: a percentage when it ends in %,
 * else a fraction; false when it is no number in (0, 1). */
bool quiz_plan_share(const char *s, double *out);

#endif
