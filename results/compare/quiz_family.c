#include "quiz_family.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src.h"

static const struct src_quiz_item *quiz_family_find(const struct src_quiz *q, const char *id) {
    for (size_t i = 0; i < q->n; i++)
        if (strcmp(q->items[i].id, id) == 0) return &q->items[i];
    return NULL;
}

static struct quiz_family_row *quiz_family_row(struct quiz_family *f, const char *kind) {
    if (!kind || !*kind) kind = "(none)";
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->rows[i].kind, kind) == 0) return &f->rows[i];
    if (f->n == QUIZ_FAMILY_MAX) return &f->rows[QUIZ_FAMILY_MAX - 1];
    if (f->n == QUIZ_FAMILY_MAX - 1) kind = "other";
    struct quiz_family_row *r = &f->rows[f->n++];
    r->kind = kind;
    return r;
}

/* The bootstrap's seed of a family: from its name, so a family's interval
 * does not depend on the order of the records or on the other families. */
static uint64_t quiz_family_seed(const char *kind) {
    uint64_t h = QUIZ_FAMILY_SEED;
    for (const unsigned char *p = (const unsigned char *)kind; *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    return h;
}

static int quiz_family_by_kind(const void *a, const void *b) {
    return strcmp(((const struct quiz_family_row *)a)->kind,
                  ((const struct quiz_family_row *)b)->kind);
}

static void quiz_family_count(struct quiz_pair *q, bool x, bool y) {
    q->n++;
    q->right_b += x;
    q->right_c += y;
    q->b += x && !y;
    q->c += y && !x;
}

void quiz_family_build(struct quiz_family *f, const struct src_quiz *x, const struct src_quiz *y,
                       double margin, double alpha, double power) {
    memset(f, 0, sizeof *f);
    f->margin = margin;
    f->alpha = alpha;
    f->power = power;
    f->all.kind = "all";
    for (size_t i = 0; x && y && i < x->n; i++) {
        const struct src_quiz_item *a = &x->items[i], *b = quiz_family_find(y, a->id);
        if (!b || !a->text || !b->text || a->correct < 0 || b->correct < 0) continue;
        quiz_family_count(&quiz_family_row(f, a->kind)->q, a->correct, b->correct);
        quiz_family_count(&f->all.q, a->correct, b->correct);
    }
    if (f->all.q.n < QUIZ_FAMILY_MIN_ITEMS) return;
    f->have = true;
    qsort(f->rows, f->n, sizeof *f->rows,
          quiz_family_by_kind); /* the same table in any record order */
    for (size_t i = 0; i < f->n; i++)
        quiz_pair_analyse(&f->rows[i].q, margin, alpha, quiz_family_seed(f->rows[i].kind));
    struct quiz_pair q[QUIZ_FAMILY_MAX]; /* Holm over the families together */
    for (size_t i = 0; i < f->n; i++) q[i] = f->rows[i].q;
    quiz_pair_judge(q, f->n, margin, alpha, power);
    for (size_t i = 0; i < f->n; i++) f->rows[i].q = q[i];
    quiz_pair_analyse(&f->all.q, margin, alpha, quiz_family_seed(f->all.kind));
    quiz_pair_judge(&f->all.q, 1, margin, alpha, power);
}

int quiz_family_verdict(const struct quiz_family *f, const struct quiz_family_row *r,
                        struct buf *out) {
    const struct quiz_pair *q = &r->q;
    switch (q->verdict) {
    case QUIZ_PAIR_EQUIVALENT:
        return buf_addf(out, "equivalent within %g points", f->margin * 100);
    case QUIZ_PAIR_INCONCLUSIVE:
        if (q->more < 0) return buf_adds(out, "inconclusive");
        return buf_addf(out, "inconclusive: %ld more items needed", q->more);
    default:
        return buf_adds(out, quiz_pair_verdict_name(q->verdict));
    }
}
