/* quiz_family: the paired analysis of a quiz by family (an item's "kind": arith,
 * extract, format for generated quizzes, mul, add, cap for the reference).
 *
 * Over the items both sides answered and whose correctness is known, each
 * family gets quiz_pair.h's figures (McNemar, the 95% paired-bootstrap interval of
 * the difference, TOST at the margin) and Holm's correction across the
 * families; "all" is the whole quiz, unadjusted. Rows are in the order of
 * their kinds' names and each family's bootstrap seed comes from QUIZ_FAMILY_SEED and
 * its name, so a report is the same every time it is made, in whatever order
 * the records come. Shown
 * only from QUIZ_FAMILY_MIN_ITEMS items both answered: below, no family could be
 * shown equivalent and McNemar's line says what the quiz can show. */
#ifndef SM_QUIZ_FAMILY_H
#define SM_QUIZ_FAMILY_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "quiz_pair.h"

struct src_quiz;

#define QUIZ_FAMILY_MIN_ITEMS 100
#define QUIZ_FAMILY_MAX       16 /* families kept apart; more are pooled as "other" */
#define QUIZ_FAMILY_SEED      20260925u

struct quiz_family_row {
    const char *kind; /* the items' kind (they outlive the analysis), or "all", "other" */
    struct quiz_pair q;
};

struct quiz_family {
    bool have; /* enough items for the analysis */
    double margin, alpha, power;
    struct quiz_family_row rows[QUIZ_FAMILY_MAX];
    size_t n;
    struct quiz_family_row all;
};

/* Analyses the quizzes x (baseline) and y (candidate) at margin (0.02: 2
 * points), level alpha and, for "more items", power. */
void quiz_family_build(struct quiz_family *f, const struct src_quiz *x, const struct src_quiz *y,
                       double margin, double alpha, double power);

/* The row's verdict as a report says it: "different", "equivalent within 2
 * points", "inconclusive: 812 more items needed". */
__attribute__((warn_unused_result)) int
quiz_family_verdict(const struct quiz_family *f, const struct quiz_family_row *r, struct buf *out);

#endif
