/* quiz_pair: the paired analysis of two sides' scores on the same quiz items.
 *
 * Of n items both sides answered (and whose correctness is known), b were
 * right only on the baseline and c only on the candidate; the difference in
 * accuracy is d = (c - b) / n (the candidate's minus the baseline's).
 *
 *   - McNemar's exact test of d = 0 (estim_mcnemar).
 *   - A paired-bootstrap interval of d: items drawn with replacement, both
 *     sides' answers to an item kept together; the percentile interval of
 *     QUIZ_PAIR_BOOT resamples, from a seed (no hidden randomness).
 *   - TOST, two one-sided tests of |d| >= margin (Schuirmann 1987), each a
 *     normal test with the paired variance (psi - d^2) / n, psi the share of
 *     discordant items; psi is taken at least 3 / n (the "rule of three" upper
 *     bound when none or few disagree), so a short run never looks
 *     equivalent for lack of disagreement.
 *   - Across families, Holm's step-down correction (Holm 1979), applied to the
 *     McNemar p-values and to the TOST p-values apart.
 *
 * The verdict: "different" when the adjusted McNemar p is below alpha;
 * "equivalent" within the margin when the adjusted TOST p is; otherwise
 * "inconclusive" with the items a run would need (quiz_plan.h) if the observed
 * difference and discordance held. */
#ifndef SM_QUIZ_PAIR_H
#define SM_QUIZ_PAIR_H

#include <stddef.h>
#include <stdint.h>

#define QUIZ_PAIR_BOOT 2000 /* bootstrap resamples */

enum quiz_pair_verdict {
    QUIZ_PAIR_DIFFERENT,
    QUIZ_PAIR_EQUIVALENT,
    QUIZ_PAIR_INCONCLUSIVE,
    QUIZ_PAIR_EMPTY
};

struct quiz_pair {
    long n, b, c;           /* in: items, right only on the baseline, only on the candidate */
    long right_b, right_c;  /* in: items right on each side (for the accuracies) */
    double diff;            /* c - b over n */
    double lo, hi;          /* the paired-bootstrap interval of diff */
    double psi;             /* the observed share of discordant items */
    double p_diff, p_equiv; /* McNemar's and TOST's p-values */
    double p_diff_adj, p_equiv_adj; /* after Holm across the set */
    enum quiz_pair_verdict verdict;
    long more; /* inconclusive: items more per family a run would need (-1: no number) */
};

/* The interval of q's difference at level (0.95: 95%) from seed. */
void quiz_pair_bootstrap(struct quiz_pair *q, double level, uint64_t seed);

/* Fills q's difference, discordance and unadjusted p-values (no interval). */
void quiz_pair_tests(struct quiz_pair *q, double margin);

/* quiz_pair_tests and the bootstrap interval at 1 - alpha from seed. */
void quiz_pair_analyse(struct quiz_pair *q, double margin, double alpha, uint64_t seed);

/* Holm's adjustment of p[0..m) into adj[0..m) (adj may be p). */
void quiz_pair_holm(const double *p, double *adj, size_t m);

/* Adjusts the p-values of qs[0..m) by Holm and sets their verdicts; power is
 * the one "more items" plans for. */
void quiz_pair_judge(struct quiz_pair *qs, size_t m, double margin, double alpha, double power);

/* "different", "equivalent", "inconclusive" or "no items". */
const char *quiz_pair_verdict_name(enum quiz_pair_verdict v);

#endif
