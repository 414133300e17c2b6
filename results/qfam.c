#include "qfam.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src.h"

static const struct src_quiz_item *qfam_find(const struct src_quiz *q, const char *id) {
    for (size_t i = 0; i < q->n; i++)
        if (strcmp(q->items[i].id, id) == 0) return &q->items[i];
    return NULL;
}

static struct qfam_row *qfam_row(struct qfam *f, const char *kind) {
    if (!kind || !*kind) kind = "(none)";
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->rows[i].kind, kind) == 0) return &f->rows[i];
    if (f->n == QFAM_MAX) return &f->rows[QFAM_MAX - 1];
    if (f->n == QFAM_MAX - 1) kind = "other";
    struct qfam_row *r = &f->rows[f->n++];
    r->kind = kind;
    return r;
}

/* The bootstrap's seed of a family: from its name, so a family's interval
 * does not depend on the order of the records or on the other families. */
static uint64_t qfam_seed(const char *kind) {
    uint64_t h = QFAM_SEED;
    for (const unsigned char *p = (const unsigned char *)kind; *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    return h;
}

static int qfam_by_kind(const void *a, const void *b) {
    return strcmp(((const struct qfam_row *)a)->kind, ((const struct qfam_row *)b)->kind);
}

static void qfam_count(struct qpair *q, bool x, bool y) {
    q->n++;
    q->right_b += x;
    q->right_c += y;
    q->b += x && !y;
    q->c += y && !x;
}

void qfam_build(struct qfam *f, const struct src_quiz *x, const struct src_quiz *y, double margin,
                double alpha, double power) {
    memset(f, 0, sizeof *f);
    f->margin = margin;
    f->alpha = alpha;
    f->power = power;
    f->all.kind = "all";
    for (size_t i = 0; x && y && i < x->n; i++) {
        const struct src_quiz_item *a = &x->items[i], *b = qfam_find(y, a->id);
        if (!b || !a->text || !b->text || a->correct < 0 || b->correct < 0) continue;
        qfam_count(&qfam_row(f, a->kind)->q, a->correct, b->correct);
        qfam_count(&f->all.q, a->correct, b->correct);
    }
    if (f->all.q.n < QFAM_MIN_ITEMS) return;
    f->have = true;
    qsort(f->rows, f->n, sizeof *f->rows, qfam_by_kind); /* the same table in any record order */
    for (size_t i = 0; i < f->n; i++)
        qpair_analyse(&f->rows[i].q, margin, alpha, qfam_seed(f->rows[i].kind));
    struct qpair q[QFAM_MAX]; /* Holm over the families together */
    for (size_t i = 0; i < f->n; i++) q[i] = f->rows[i].q;
    qpair_judge(q, f->n, margin, alpha, power);
    for (size_t i = 0; i < f->n; i++) f->rows[i].q = q[i];
    qpair_analyse(&f->all.q, margin, alpha, qfam_seed(f->all.kind));
    qpair_judge(&f->all.q, 1, margin, alpha, power);
}

int qfam_verdict(const struct qfam *f, const struct qfam_row *r, struct buf *out) {
    const struct qpair *q = &r->q;
    switch (q->verdict) {
    case QPAIR_EQUIVALENT:
        return buf_addf(out, "equivalent within %g points", f->margin * 100);
    case QPAIR_INCONCLUSIVE:
        if (q->more < 0) return buf_adds(out, "inconclusive");
        return buf_addf(out, "inconclusive: %ld more items needed", q->more);
    default:
        return buf_adds(out, qpair_verdict_name(q->verdict));
    }
}
