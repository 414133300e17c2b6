#include "quiz_cmp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estim.h"
#include "quiz_family.h"

static const struct src_quiz_item *quiz_cmp_find(const struct src_quiz *q, const char *id) {
    for (size_t i = 0; i < q->n; i++)
        if (strcmp(q->items[i].id, id) == 0) return &q->items[i];
    return NULL;
}

static bool quiz_cmp_answered(const struct src_quiz_item *it) {
    return it && it->text;
}

static const char *quiz_cmp_right(const struct src_quiz_item *x, const struct src_quiz_item *y) {
    if (!quiz_cmp_answered(x) || !quiz_cmp_answered(y)) return "unanswered";
    if (x->correct < 0 || y->correct < 0) return "unknown";
    return x->correct && y->correct ? "both"
           : x->correct             ? "baseline"
           : y->correct             ? "candidate"
                                    : "neither";
}

static int quiz_cmp_add_dis(struct quiz_cmp *q, const struct src_quiz_item *x,
                            const struct src_quiz_item *y) {
    struct quiz_cmp_dis *p = realloc(q->dis, (q->ndis + 1) * sizeof *p);
    if (!p) return -1;
    q->dis = p;
    p = &p[q->ndis++];
    p->id = x ? x->id : y->id;
    p->expected = x && x->expected ? x->expected : y ? y->expected : NULL;
    p->bi = x;
    p->ci = y;
    p->right = quiz_cmp_right(x, y);
    return 0;
}

/* Counts one question asked of the baseline (a), the candidate (b) or both. */
static int quiz_cmp_question(struct quiz_cmp *q, const struct src_quiz_item *a,
                             const struct src_quiz_item *b, bool *known) {
    q->asked++;
    q->unanswered_b += !quiz_cmp_answered(a);
    q->unanswered_c += !quiz_cmp_answered(b);
    if (!a || !b || !a->text || !b->text) return 0;
    q->both++;
    if (strcmp(a->text, b->text) == 0) {
        q->identical++;
        return 0;
    }
    if (quiz_cmp_add_dis(q, a, b) < 0) return -1;
    q->ndiffer++;
    if (a->correct < 0 || b->correct < 0)
        *known = false;
    else if (a->correct && !b->correct)
        q->mc_b++;
    else if (!a->correct && b->correct)
        q->mc_c++;
    return 0;
}

/* The questions one side left unanswered, after the disagreements. */
static int quiz_cmp_unanswered(struct quiz_cmp *q, const struct src_quiz *x,
                               const struct src_quiz *y) {
    for (size_t i = 0; i < x->n; i++) {
        const struct src_quiz_item *b = quiz_cmp_find(y, x->items[i].id);
        if ((!quiz_cmp_answered(&x->items[i]) || !quiz_cmp_answered(b)) &&
            quiz_cmp_add_dis(q, &x->items[i], b) < 0)
            return -1;
    }
    for (size_t i = 0; i < y->n; i++)
        if (!quiz_cmp_find(x, y->items[i].id) && quiz_cmp_add_dis(q, NULL, &y->items[i]) < 0)
            return -1;
    return 0;
}

/* The one-sided disagreements McNemar's exact test needs for p < 0.05 (at most 1000). */
static unsigned quiz_cmp_mcnemar_need(void) {
    unsigned need = 1;
    while (estim_mcnemar(need, 0) >= 0.05 && need < 1000) need++;
    return need;
}

int quiz_cmp_build(struct quiz_cmp *q, const struct side *b, const struct side *c,
                   struct buf *err) {
    const struct src_quiz *x = b->quiz, *y = c->quiz;
    bool known = true;
    memset(q, 0, sizeof *q);
    if (!x || !y) {
        snprintf(q->why, sizeof q->why, "no quiz on the %s side",
                 !x && !y ? "baseline or the candidate"
                 : !x     ? "baseline"
                          : "candidate");
        return QUIZ_CMP_OK;
    }
    q->have = true;
    /* every baseline question, then those only the candidate asked */
    for (size_t i = 0; i < x->n; i++)
        if (quiz_cmp_question(q, &x->items[i], quiz_cmp_find(y, x->items[i].id), &known) < 0)
            return buf_fail(err, QUIZ_CMP_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < y->n; i++)
        if (!quiz_cmp_find(x, y->items[i].id) &&
            quiz_cmp_question(q, NULL, &y->items[i], &known) < 0)
            return buf_fail(err, QUIZ_CMP_ERR_NOMEM, "out of memory");
    if (quiz_cmp_unanswered(q, x, y) < 0) return buf_fail(err, QUIZ_CMP_ERR_NOMEM, "out of memory");
    if (!known) return QUIZ_CMP_OK; /* which replies are right is unknown: no test */
    q->have_mcnemar = true;
    q->mc_p = estim_mcnemar(q->mc_b, q->mc_c);
    q->mc_need = quiz_cmp_mcnemar_need();
    return QUIZ_CMP_OK;
}

void quiz_cmp_free(struct quiz_cmp *q) {
    free(q->dis);
    memset(q, 0, sizeof *q);
}
