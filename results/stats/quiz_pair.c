#include "quiz_pair.h"

#include <math.h>
#include <stdlib.h>

#include "estim.h"
#include "quiz_plan.h"

void quiz_pair_bootstrap(struct quiz_pair *q, double level, uint64_t seed) {
    double d[QUIZ_PAIR_BOOT];
    struct estim_rng r;
    if (q->n <= 0) {
        q->lo = q->hi = NAN;
        return;
    }
    double pb = (double)q->b / (double)q->n, pbc = (double)(q->b + q->c) / (double)q->n;
    estim_rng_seed(&r, seed);
    for (int k = 0; k < QUIZ_PAIR_BOOT; k++) {
        long b = 0, c = 0;
        for (long i = 0; i < q->n; i++) {
            double u = estim_rng_unit(&r);
            b += u < pb;
            c += u >= pb && u < pbc;
        }
        d[k] = (double)(c - b) / (double)q->n;
    }
    estim_sort(d, QUIZ_PAIR_BOOT);
    q->lo = estim_quantile(d, QUIZ_PAIR_BOOT, (1 - level) / 2);
    q->hi = estim_quantile(d, QUIZ_PAIR_BOOT, 1 - (1 - level) / 2);
}

/* TOST's p: the larger of the two one-sided tests' at the margin. */
static double quiz_pair_tost(const struct quiz_pair *q, double margin) {
    double n = (double)q->n, psi = q->psi < 3 / n ? 3 / n : q->psi;
    if (psi > 1) psi = 1;
    double var = (psi - q->diff * q->diff) / n;
    if (!(var > 0)) return 1;
    double se = sqrt(var);
    double p_lo = 1 - estim_t_cdf((q->diff + margin) / se, INFINITY);
    double p_hi = 1 - estim_t_cdf((margin - q->diff) / se, INFINITY);
    return p_lo > p_hi ? p_lo : p_hi;
}

void quiz_pair_tests(struct quiz_pair *q, double margin) {
    q->verdict = QUIZ_PAIR_EMPTY;
    q->more = -1;
    if (q->n <= 0) {
        q->diff = q->psi = q->lo = q->hi = NAN;
        q->p_diff = q->p_equiv = q->p_diff_adj = q->p_equiv_adj = 1;
        return;
    }
    q->diff = (double)(q->c - q->b) / (double)q->n;
    q->psi = (double)(q->b + q->c) / (double)q->n;
    q->lo = q->hi = NAN;
    q->p_diff = q->p_diff_adj = estim_mcnemar((unsigned)q->b, (unsigned)q->c);
    q->p_equiv = q->p_equiv_adj = quiz_pair_tost(q, margin);
}

void quiz_pair_holm(const double *p, double *adj, size_t m) {
    size_t *order = malloc((m ? m : 1) * sizeof *order);
    double *out = malloc((m ? m : 1) * sizeof *out);
    if (!order || !out) { /* the Bonferroni bound, which needs no room */
        for (size_t i = 0; i < m; i++) adj[i] = p[i] * (double)m > 1 ? 1 : p[i] * (double)m;
        free(order);
        free(out);
        return;
    }
    for (size_t i = 0; i < m; i++) order[i] = i;
    for (size_t i = 1; i < m; i++) /* insertion sort by p: m is a handful of families */
        for (size_t j = i; j > 0 && p[order[j]] < p[order[j - 1]]; j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    double run = 0;
    for (size_t k = 0; k < m; k++) {
        double v = (double)(m - k) * p[order[k]];
        if (v > 1) v = 1;
        if (v < run) v = run; /* step-down: never below an earlier one */
        run = v;
        out[order[k]] = v;
    }
    for (size_t i = 0; i < m; i++) adj[i] = out[i];
    free(order);
    free(out);
}

void quiz_pair_judge(struct quiz_pair *qs, size_t m, double margin, double alpha, double power) {
    if (m == 0) return;
    double *p = calloc(m * 2, sizeof *p);
    if (p) {
        for (size_t i = 0; i < m; i++) {
            p[i] = qs[i].p_diff;
            p[m + i] = qs[i].p_equiv;
        }
        quiz_pair_holm(p, p, m);
        quiz_pair_holm(p + m, p + m, m);
    }
    for (size_t i = 0; i < m; i++) {
        struct quiz_pair *q = &qs[i];
        q->p_diff_adj = p ? p[i] : 1;
        q->p_equiv_adj = p ? p[m + i] : 1;
        q->more = -1;
        if (q->n <= 0) {
            q->verdict = QUIZ_PAIR_EMPTY;
            continue;
        }
        if (q->p_diff_adj < alpha) {
            q->verdict = QUIZ_PAIR_DIFFERENT;
            continue;
        }
        if (q->p_equiv_adj < alpha) {
            q->verdict = QUIZ_PAIR_EQUIVALENT;
            continue;
        }
        q->verdict = QUIZ_PAIR_INCONCLUSIVE;
        double a = alpha / (double)m,
               psi = q->psi < 3.0 / (double)q->n ? 3.0 / (double)q->n : q->psi;
        long need;
        if (fabs(q->diff) < margin)
            need = quiz_plan_items_equiv(margin, q->diff, psi, a, power);
        else {
            struct quiz_plan pl = {fabs(q->diff), power, alpha, psi, (unsigned)m};
            need = psi >= fabs(q->diff) ? quiz_plan_items(&pl) : -1;
        }
        q->more = need < 0 ? -1 : need > q->n ? need - q->n : 0;
    }
    free(p);
}

void quiz_pair_analyse(struct quiz_pair *q, double margin, double alpha, uint64_t seed) {
    quiz_pair_tests(q, margin);
    if (q->n > 0) quiz_pair_bootstrap(q, 1 - alpha, seed);
}

const char *quiz_pair_verdict_name(enum quiz_pair_verdict v) {
    switch (v) {
    case QUIZ_PAIR_DIFFERENT:
        return "different";
    case QUIZ_PAIR_EQUIVALENT:
        return "equivalent";
    case QUIZ_PAIR_INCONCLUSIVE:
        return "inconclusive";
    case QUIZ_PAIR_EMPTY:
        break;
    }
    return "no items";
}
