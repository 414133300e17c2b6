/* qplan: how many quiz items a paired A/B needs, before the run and after it.
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
#ifndef SM_QPLAN_H
#define SM_QPLAN_H

#include <stdbool.h>

#include "buf.h"

enum qplan_err { QPLAN_OK = 0, QPLAN_ERR_INPUT = -1 };

#define QPLAN_POWER       0.80 /* the default power */
#define QPLAN_ALPHA       0.05 /* the default level (two-sided) */
#define QPLAN_DISCORDANCE 0.10 /* the default assumed discordance rate */
#define QPLAN_MARGIN      0.02 /* the default equivalence margin */
#define QPLAN_ITEMS_MAX   10000000L

struct qplan {
    double detect;      /* the difference in accuracy to find, 0 < detect < 1 */
    double power;       /* 0 < power < 1 */
    double alpha;       /* the two-sided level of the whole plan */
    double discordance; /* the assumed share of items the sides disagree on */
    unsigned families;  /* families tested at once (>= 1) */
};

/* The defaults, with detect 0.03 and one family. */
void qplan_defaults(struct qplan *p);

/* Checks p; one line naming the bad value in err (QPLAN_ERR_INPUT). */
__attribute__((warn_unused_result)) int qplan_check(const struct qplan *p, struct buf *err);

/* Items needed per family (a checked plan), at most QPLAN_ITEMS_MAX. */
long qplan_items(const struct qplan *p);

/* The power of n items per family under p's assumptions. */
double qplan_power(const struct qplan *p, long n);

/* Items needed by the equivalence test at margin with difference d and
 * discordance psi, at one-sided level alpha and power; -1 when |d| >= margin
 * (no number of items shows it). */
long qplan_items_equiv(double margin, double d, double psi, double alpha, double power);

/* Parses "3%", "0.03" or "3 %" style shares: a percentage when it ends in %,
 * else a fraction; false when it is no number in (0, 1). */
bool qplan_share(const char *s, double *out);

#endif
