/* quiz_cmp: the two sides' quiz answers compared.
 *
 * A question whose request failed (or that a side never asked) is unanswered
 * on that side: it counts in neither side's score nor in the comparison.
 * Identical answers (byte for byte) and McNemar's exact test use only the
 * questions both sides answered; the disagreements list those with different
 * answers, then the questions one side left unanswered. */
#ifndef SM_QUIZ_CMP_H
#define SM_QUIZ_CMP_H

#include <stdbool.h>

#include "buf.h"
#include "side.h"

enum quiz_cmp_err { QUIZ_CMP_OK = 0, QUIZ_CMP_ERR_NOMEM = -1 };

struct quiz_cmp_dis {
    const char *id, *expected;           /* expected may be NULL */
    const struct src_quiz_item *bi, *ci; /* NULL where a side did not ask it */
    const char *right; /* "baseline", "candidate", "both", "neither", "unknown" or "unanswered" */
};

struct quiz_cmp {
    bool have;     /* both sides have a quiz */
    char why[200]; /* else why not */
    long asked;    /* questions asked of either side */
    long both;     /* questions both sides answered */
    long unanswered_b, unanswered_c;
    long identical; /* of both */
    struct quiz_cmp_dis *dis;
    size_t ndis, ndiffer; /* all listed; those answered by both */
    bool have_mcnemar;    /* false when have: which replies are right is unknown */
    unsigned mc_b, mc_c;  /* questions only the baseline / only the candidate got right */
    double mc_p;
    unsigned mc_need; /* one-sided disagreements the test needs for p < 0.05 */
};

/* Compares the quizzes of b and c; q refers to their items, which must
 * outlive it. Returns 0, or QUIZ_CMP_ERR_NOMEM with "out of memory" in err. */
__attribute__((warn_unused_result)) int quiz_cmp_build(struct quiz_cmp *q, const struct side *b,
                                                       const struct side *c, struct buf *err);
void quiz_cmp_free(struct quiz_cmp *q);

#endif
