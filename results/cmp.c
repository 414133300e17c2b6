#include "cmp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

#define BOOT_WORK        10000000.0 /* resamples x sample size above which fewer resamples are drawn */
#define BOOT_MIN         200
#define MEASURE_DECIMALS 3 /* compare.py rounds its medians to 3 decimals */

static int oom(struct diag *d) {
    return diag_error(d, "out of memory");
}

double cmp_round(double v, int decimals) {
    if (decimals < 0) return v;
    double f = pow(10, decimals);
    return round(v * f) / f;
}

const struct row *cmp_row(const struct cmp *m, const char *name) {
    for (size_t i = 0; i < m->nrows; i++)
        if (strcmp(m->rows[i].name, name) == 0) return &m->rows[i];
    return NULL;
}

/* ---- settings that must match ---- */

static void levels_text(const struct side *s, char *out, size_t cap) {
    size_t k = 0;
    out[0] = '\0';
    for (size_t i = 0; i < s->nlv && k < cap; i++)
        k += (size_t)snprintf(out + k, cap - k, "%s%d", i ? ", " : "", s->lv[i].c);
}

static int check_decode(const struct side *b, const struct side *c, struct diag *d) {
    const struct side_decode *x = &b->dec, *y = &c->dec;
    if (!x->have || !y->have || !x->nlengths || !y->nlengths) return 0;
    if (x->nlengths != y->nlengths ||
        memcmp(x->lengths, y->lengths, x->nlengths * sizeof x->lengths[0]) != 0) {
        char a[200] = "", e[200] = "";
        for (size_t i = 0, k = 0; i < y->nlengths; i++)
            k += (size_t)snprintf(a + k, sizeof a - k, "%s%d", i ? ", " : "", y->lengths[i]);
        for (size_t i = 0, k = 0; i < x->nlengths; i++)
            k += (size_t)snprintf(e + k, sizeof e - k, "%s%d", i ? ", " : "", x->lengths[i]);
        return diag_error(d, "%s: decode lengths [%s] differ from the baseline's [%s] (%s)",
                          y->first->path, a, e, x->first->path);
    }
    if (x->repeats > 0 && y->repeats > 0 && x->repeats != y->repeats)
        diag_warn(d, "decode repeats differ: baseline %ld, candidate %ld", x->repeats, y->repeats);
    if (x->prompt && y->prompt && strcmp(x->prompt, y->prompt) != 0)
        diag_warn(d, "%s: decode prompt differs from the baseline's (%s)", y->first->path,
                  x->first->path);
    return 0;
}

static int check_levels(const struct side *b, const struct side *c, struct diag *d) {
    if (!b->nlv || !c->nlv) return 0;
    char lb[300], lc[300];
    levels_text(b, lb, sizeof lb);
    levels_text(c, lc, sizeof lc);
    if (strcmp(lb, lc) != 0)
        return diag_error(d, "%s: concurrency levels %s differ from the baseline's %s (%s)",
                          c->lv[0].first->path, lc, lb, b->lv[0].first->path);
    for (size_t i = 0; i < b->nlv; i++) {
        const struct side_level *x = &b->lv[i], *y = &c->lv[i];
        if (x->steady != y->steady)
            return diag_error(d, "%s: c%d was measured %s, the baseline %s (%s)", y->first->path,
                              y->c, y->steady ? "in steady mode" : "in batches",
                              x->steady ? "in steady mode" : "in batches", x->first->path);
        if (x->max_tokens >= 0 && y->max_tokens >= 0 && x->max_tokens != y->max_tokens)
            return diag_error(d,
                              "%s: c%d asked for %ld tokens per request, the baseline for %ld "
                              "(%s)",
                              y->first->path, y->c, y->max_tokens, x->max_tokens, x->first->path);
    }
    return 0;
}

static const struct quiz_item *find_item(const struct quiz_part *q, const char *id) {
    for (size_t i = 0; i < q->n; i++)
        if (strcmp(q->items[i].id, id) == 0) return &q->items[i];
    return NULL;
}

static int check_quiz(const struct side *b, const struct side *c, struct diag *d) {
    const struct quiz_part *x = b->quiz, *y = c->quiz;
    if (!x || !y) return 0;
    const char *pb = b->quiz_src->path, *pc = c->quiz_src->path;
    if (x->name && y->name && strcmp(x->name, y->name) != 0)
        return diag_error(d, "%s: quiz \"%s\" differs from the baseline's \"%s\" (%s)", pc, y->name,
                          x->name, pb);
    if (x->sha && y->sha && strcmp(x->sha, y->sha) != 0)
        return diag_error(d, "%s: quiz file sha256 differs from the baseline's (%s)", pc, pb);
    if (x->questions != y->questions)
        return diag_error(d, "%s: quiz of %ld questions, the baseline's has %ld (%s)", pc,
                          y->questions, x->questions, pb);
    size_t common = 0;
    for (size_t i = 0; i < x->n; i++) common += find_item(y, x->items[i].id) != NULL;
    if (x->n && y->n && !common)
        return diag_error(d, "%s: no quiz question in common with the baseline (%s)", pc, pb);
    if (x->max_tokens >= 0 && y->max_tokens >= 0 && x->max_tokens != y->max_tokens)
        diag_warn(d, "quiz max_tokens differ: baseline %ld, candidate %ld", x->max_tokens,
                  y->max_tokens);
    return 0;
}

/* ---- rows ---- */

static struct row *add_row(struct cmp *m, const char *name, enum row_group g, int decimals) {
    struct row *r = realloc(m->rows, (m->nrows + 1) * sizeof *r);
    if (!r) return NULL;
    m->rows = r;
    r = &r[m->nrows++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    r->group = g;
    r->decimals = decimals;
    return r;
}

static void set_ratio(struct row *r) {
    if (r->no_ratio) return;
    if (!r->b.ok || !r->c.ok) {
        val_none(&r->ratio, "n/a on the %s side", r->b.ok ? "candidate" : "baseline");
        return;
    }
    double b = cmp_round(r->b.v, r->decimals), c = cmp_round(r->c.v, r->decimals);
    if (!(b > 0)) {
        val_none(&r->ratio, "the baseline is 0");
        return;
    }
    val_set(&r->ratio, cmp_round(c / b, 2));
}

static void fact_val(struct val *v, const struct side *s, const struct fact *f) {
    if (f->have) {
        val_set(v, f->value);
        return;
    }
    if (!s->in.have_facts)
        val_none(v, "no vLLM start-up log for the %s (--facts-%s LOG)", s->role, s->role);
    else
        val_none(v, "not in the %s's start-up log", s->role);
}

static int add_fact_rows(struct cmp *m) {
    static const struct {
        const char *name;
        size_t off;
        bool no_ratio;
    } facts[] = {
        {"weights_gib", offsetof(struct facts, weights_gib), false},
        {"kv_cache_tokens", offsetof(struct facts, kv_cache_tokens), false},
        {"load_seconds", offsetof(struct facts, load_seconds), true},
    };
    for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++) {
        struct row *r = add_row(m, facts[i].name, ROW_MAIN, -1);
        if (!r) return -1;
        fact_val(&r->b, m->b, (const struct fact *)((const char *)&m->b->in.facts + facts[i].off));
        fact_val(&r->c, m->c, (const struct fact *)((const char *)&m->c->in.facts + facts[i].off));
        r->no_ratio = facts[i].no_ratio;
        set_ratio(r);
    }
    return 0;
}

/* ---- bootstrap ---- */

/* B bootstrap decode rates of one side (NAN where a resample gives none). */
static double *boot_decode(const struct side *s, struct stats_rng *rng, long B) {
    const struct side_decode *dc = &s->dec;
    double *out = malloc((size_t)B * sizeof *out);
    double *rs = malloc(dc->ns * sizeof *rs), *rl = malloc(dc->nl * sizeof *rl);
    int S = dc->lengths[0], L = dc->lengths[dc->nlengths - 1];
    for (long i = 0; out && rs && rl && i < B; i++) {
        double rate, fixed;
        stats_resample(rng, dc->ws, dc->ns, rs);
        stats_resample(rng, dc->wl, dc->nl, rl);
        out[i] = side_rate(S, L, stats_median(rs, dc->ns), stats_median(rl, dc->nl), &rate, &fixed)
                     ? rate
                     : NAN;
    }
    free(rs);
    free(rl);
    if (!rs || !rl) {
        free(out);
        return NULL;
    }
    return out;
}

/* B bootstrap medians of x. */
static double *boot_median(const double *x, size_t n, struct stats_rng *rng, long B) {
    double *out = malloc((size_t)B * sizeof *out), *r = malloc(n * sizeof *r);
    for (long i = 0; out && r && i < B; i++) {
        stats_resample(rng, x, n, r);
        out[i] = stats_median(r, n);
    }
    free(r);
    if (!r) {
        free(out);
        return NULL;
    }
    return out;
}

/* The 95% interval of the finite values of v (a and b: c = b / a when both are given). */
static void interval(struct ci *ci, const double *a, const double *b, long B) {
    double *ok = malloc((size_t)B * sizeof *ok);
    long n = 0;
    for (long i = 0; ok && i < B; i++) {
        double v = b ? b[i] / a[i] : a[i];
        if (isfinite(v)) ok[n++] = v;
    }
    ci->ok = ok && n >= B * 95 / 100 && n >= 20;
    ci->resamples = B;
    if (ci->ok) stats_interval95(ok, (size_t)n, &ci->lo, &ci->hi);
    free(ok);
}

/* Fewer resamples for very large samples, at least BOOT_MIN. */
static long resamples_for(long B, size_t n) {
    double cap = BOOT_WORK / (double)(n ? n : 1);
    return cap < B ? (cap < BOOT_MIN ? BOOT_MIN : (long)cap) : B;
}

/* Sets the row's intervals from B bootstrap values of each side (NULL: none)
 * and frees them; want_*: the values were asked for (NULL then means out of memory). */
static int set_intervals(struct row *r, double *vb, double *vc, bool want_b, bool want_c, long B) {
    int rc = (want_b && !vb) || (want_c && !vc) ? -1 : 0;
    if (!rc && vb) interval(&r->ci_b, vb, NULL, B);
    if (!rc && vc) interval(&r->ci_c, vc, NULL, B);
    if (!rc && vb && vc) interval(&r->ci_r, vb, vc, B);
    free(vb);
    free(vc);
    return rc;
}

static bool boot_decode_ok(const struct side_decode *x) {
    return x->have && !x->medians_only && x->ns >= 2 && x->nl >= 2 && x->nlengths >= 2;
}

static int decode_intervals(struct cmp *m, struct row *r, struct stats_rng *rng) {
    bool bx = boot_decode_ok(&m->b->dec), by = boot_decode_ok(&m->c->dec);
    long B = m->opts.resamples;
    double *vb = bx ? boot_decode(m->b, rng, B) : NULL;
    double *vc = by ? boot_decode(m->c, rng, B) : NULL;
    return set_intervals(r, vb, vc, bx, by, B);
}

static int level_intervals(struct row *r, const struct side_level *x, const struct side_level *y,
                           struct stats_rng *rng, long B0) {
    bool bx = x && x->nb >= 2, by = y && y->nb >= 2;
    long B = resamples_for(resamples_for(B0, bx ? x->nb : 0), by ? y->nb : 0);
    double *vb = bx ? boot_median(x->tps, x->nb, rng, B) : NULL;
    double *vc = by ? boot_median(y->tps, y->nb, rng, B) : NULL;
    return set_intervals(r, vb, vc, bx, by, B);
}

/* ---- decode and levels ---- */

static int add_decode_rows(struct cmp *m, struct stats_rng *rng) {
    const struct side_decode *x = &m->b->dec, *y = &m->c->dec;
    struct row *r = add_row(m, "decode_tokens_per_second", ROW_MAIN,
                            x->medians_only && y->medians_only ? MEASURE_DECIMALS : 2);
    if (!r) return -1;
    r->b = x->rate;
    r->c = y->rate;
    set_ratio(r);
    if (decode_intervals(m, r, rng) < 0) return -1;
    int S = x->have ? x->lengths[0] : y->lengths[0];
    int L = x->have ? x->lengths[x->nlengths ? x->nlengths - 1 : 0]
                    : y->lengths[y->nlengths ? y->nlengths - 1 : 0];
    char ws[64], wl[64];
    snprintf(ws, sizeof ws, "wall_%d_median_seconds", S);
    snprintf(wl, sizeof wl, "wall_%d_median_seconds", L);
    const struct {
        const char *name;
        const struct val *b, *c;
        int decimals;
        bool want;
    } more[] = {
        {"per_call_fixed_cost_seconds", &x->fixed, &y->fixed, 3, true},
        {ws, &x->med_s, &y->med_s, 3, L > S && S > 0},
        {wl, &x->med_l, &y->med_l, 3, L > S && S > 0},
        {"least_squares_tokens_per_second", &x->ls_rate, &y->ls_rate, 2,
         x->nlengths > 2 || y->nlengths > 2},
        {"least_squares_fixed_cost_seconds", &x->ls_fixed, &y->ls_fixed, 3,
         x->nlengths > 2 || y->nlengths > 2},
    };
    if (!x->have && !y->have) return 0;
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
        if (!more[i].want) continue;
        if (!(r = add_row(m, more[i].name, ROW_DECODE, more[i].decimals))) return -1;
        r->b = *more[i].b;
        r->c = *more[i].c;
        set_ratio(r);
    }
    return 0;
}

static const struct side_level *level_of(const struct side *s, int c) {
    for (size_t i = 0; i < s->nlv; i++)
        if (s->lv[i].c == c) return &s->lv[i];
    return NULL;
}

/* The union of both sides' levels, ascending. */
static size_t all_levels(const struct cmp *m, int *out, size_t cap) {
    size_t n = 0;
    for (int side = 0; side < 2; side++) {
        const struct side *s = side ? m->c : m->b;
        for (size_t i = 0; i < s->nlv && n < cap; i++) {
            size_t k = 0;
            while (k < n && out[k] != s->lv[i].c) k++;
            if (k < n) continue;
            for (k = n++; k > 0 && out[k - 1] > s->lv[i].c; k--) out[k] = out[k - 1];
            out[k] = s->lv[i].c;
        }
    }
    return n;
}

static void level_val(struct val *v, const struct side *s, const struct side_level *l,
                      const struct val *pick, int c) {
    if (l)
        *v = *pick;
    else
        val_none(v, "c%d not measured on the %s side", c, s->role);
}

static bool from_measure(const struct side_level *x, const struct side_level *y) {
    return (!x || x->first->kind == SRC_MEASURE) && (!y || y->first->kind == SRC_MEASURE);
}

static int add_level_rows(struct cmp *m, struct stats_rng *rng) {
    int lv[256];
    size_t n = all_levels(m, lv, 256);
    for (size_t i = 0; i < n; i++) {
        const struct side_level *x = level_of(m->b, lv[i]), *y = level_of(m->c, lv[i]);
        char name[64];
        snprintf(name, sizeof name, "load_c%d_tokens_per_second", lv[i]);
        struct row *r = add_row(m, name, ROW_MAIN, from_measure(x, y) ? MEASURE_DECIMALS : 2);
        if (!r) return -1;
        r->load_c = lv[i];
        level_val(&r->b, m->b, x, x ? &x->tput : NULL, lv[i]);
        level_val(&r->c, m->c, y, y ? &y->tput : NULL, lv[i]);
        set_ratio(r);
        if (level_intervals(r, x, y, rng, m->opts.resamples) < 0) return -1;
    }
    return 0;
}

static int add_latency_rows(struct cmp *m) {
    int lv[256];
    size_t n = all_levels(m, lv, 256);
    for (size_t i = 0; i < n; i++) {
        const struct side_level *x = level_of(m->b, lv[i]), *y = level_of(m->c, lv[i]);
        static const char *const pname[] = {"p50", "p90", "p99"};
        for (int p = 0; p < 3; p++) {
            char name[64];
            snprintf(name, sizeof name, "latency_c%d_%s_seconds", lv[i], pname[p]);
            struct row *r = add_row(m, name, ROW_LATENCY, 3);
            if (!r) return -1;
            const struct val *vx = x ? (p == 0 ? &x->p50 : p == 1 ? &x->p90 : &x->p99) : NULL;
            const struct val *vy = y ? (p == 0 ? &y->p50 : p == 1 ? &y->p90 : &y->p99) : NULL;
            level_val(&r->b, m->b, x, vx, lv[i]);
            level_val(&r->c, m->c, y, vy, lv[i]);
            set_ratio(r);
        }
    }
    return 0;
}

/* USD per million output tokens at tps tokens per second. */
static double cost(double price, double tps) {
    return price / (tps * 3600) * 1e6;
}

static void cost_val(struct val *v, const struct val *tput, double price) {
    if (!tput->ok)
        *v = *tput;
    else if (!(tput->v > 0))
        val_none(v, "no tokens were served");
    else
        val_set(v, cost(price, tput->v));
}

static void cost_ci(struct ci *out, const struct ci *in, double price) {
    *out = *in;
    out->ok = in->ok && in->lo > 0;
    if (!out->ok) return;
    out->lo = cost(price, in->hi);
    out->hi = cost(price, in->lo);
}

static int add_cost_rows(struct cmp *m) {
    size_t n = m->nrows;
    for (size_t i = 0; m->opts.have_price && i < n; i++) {
        const struct row *t = &m->rows[i];
        if (!t->load_c) continue;
        char name[64];
        snprintf(name, sizeof name, "cost_c%d_usd_per_million_tokens", t->load_c);
        struct row *r = add_row(m, name, ROW_COST, 2);
        if (!r) return -1;
        t = &m->rows[i];
        cost_val(&r->b, &t->b, m->opts.price);
        cost_val(&r->c, &t->c, m->opts.price);
        set_ratio(r);
        cost_ci(&r->ci_b, &t->ci_b, m->opts.price);
        cost_ci(&r->ci_c, &t->ci_c, m->opts.price);
        r->ci_r.ok = t->ci_r.ok && t->ci_r.lo > 0;
        r->ci_r.lo = r->ci_r.ok ? 1 / t->ci_r.hi : 0;
        r->ci_r.hi = r->ci_r.ok ? 1 / t->ci_r.lo : 0;
        r->ci_r.resamples = t->ci_r.resamples;
    }
    return 0;
}

/* ---- quiz ---- */

static void quiz_val(struct val *v, long *total, const struct side *s) {
    if (!s->quiz) {
        val_none(v, "no quiz on the %s side", s->role);
        return;
    }
    val_set(v, (double)s->quiz->correct);
    *total = s->quiz->questions;
}

static int add_quiz_rows(struct cmp *m) {
    struct row *r = add_row(m, "quality_correct", ROW_MAIN, 0);
    if (!r) return -1;
    r->no_ratio = true;
    quiz_val(&r->b, &r->b_total, m->b);
    quiz_val(&r->c, &r->c_total, m->c);
    for (int side = 0; side < 2; side++) {
        const struct quiz_part *q = side ? m->c->quiz : m->b->quiz;
        for (size_t i = 0; q && i < q->nkinds; i++) {
            char name[64];
            snprintf(name, sizeof name, "quality_%s_correct", q->kinds[i].kind);
            if (cmp_row(m, name)) continue;
            if (!(r = add_row(m, name, ROW_KIND, 0))) return -1;
            r->no_ratio = true;
            for (int k = 0; k < 2; k++) {
                const struct side *s = k ? m->c : m->b;
                struct val *v = k ? &r->c : &r->b;
                long *total = k ? &r->c_total : &r->b_total;
                const struct kind_score *ks = NULL;
                for (size_t j = 0; s->quiz && j < s->quiz->nkinds; j++)
                    if (strcmp(s->quiz->kinds[j].kind, q->kinds[i].kind) == 0)
                        ks = &s->quiz->kinds[j];
                if (ks) {
                    val_set(v, (double)ks->correct);
                    *total = ks->total;
                } else {
                    val_none(v, "no %s questions on the %s side", q->kinds[i].kind, s->role);
                }
            }
        }
    }
    return 0;
}

/* 1 right, 0 wrong (a failed or missing reply is wrong), -1 unknown. */
static int right(const struct quiz_item *it) {
    return it && it->text ? it->correct : 0;
}

static const char *right_of(const struct quiz_item *x, const struct quiz_item *y) {
    int a = right(x), b = right(y);
    if (a < 0 || b < 0) return "unknown";
    return a && b ? "both" : a ? "baseline" : b ? "candidate" : "neither";
}

static int add_dis(struct cmp *m, const struct quiz_item *x, const struct quiz_item *y) {
    struct disagreement *p = realloc(m->dis, (m->ndis + 1) * sizeof *p);
    if (!p) return -1;
    m->dis = p;
    p = &p[m->ndis++];
    p->id = x ? x->id : y->id;
    p->expected = x && x->expected ? x->expected : y ? y->expected : NULL;
    p->bi = x;
    p->ci = y;
    p->right = right_of(x, y);
    return 0;
}

static void mcnemar_text(struct cmp *m) {
    unsigned n = m->mc_b + m->mc_c, need = 1;
    while (stats_mcnemar(need, 0) >= 0.05 && need < 1000) need++;
    int k = snprintf(m->mc_text, sizeof m->mc_text,
                     "McNemar's exact test: %u question%s only %s got right, %u only %s: "
                     "p = %.3f. ",
                     m->mc_b, m->mc_b == 1 ? "" : "s", m->bname, m->mc_c, m->cname, m->mc_p);
    snprintf(m->mc_text + k, sizeof m->mc_text - (size_t)k,
             "%s %ld questions can show only a large gap (at least %u one-sided "
             "disagreements are needed for p < 0.05); an equal score does not show equal "
             "quality, which would take hundreds of questions.",
             m->mc_p < 0.05 ? "The difference in correct answers is unlikely to be chance."
             : n == 0       ? "No question separates the two."
                            : "No evidence of a difference in accuracy.",
             m->qtotal, need);
}

/* Counts one question asked of the baseline (a), the candidate (b) or both. */
static int compare_question(struct cmp *m, const struct quiz_item *a, const struct quiz_item *b,
                            bool *known) {
    m->qtotal++;
    if (a && b && a->text && b->text && strcmp(a->text, b->text) == 0) {
        m->identical++;
        return 0;
    }
    if (add_dis(m, a, b) < 0) return -1;
    if (!a || !b || !a->text || !b->text) return 0;
    if (a->correct < 0 || b->correct < 0)
        *known = false;
    else if (a->correct && !b->correct)
        m->mc_b++;
    else if (!a->correct && b->correct)
        m->mc_c++;
    return 0;
}

static int compare_quiz(struct cmp *m) {
    const struct quiz_part *x = m->b->quiz, *y = m->c->quiz;
    if (!x || !y) {
        snprintf(m->quiz_why, sizeof m->quiz_why, "no quiz on the %s side",
                 !x && !y ? "baseline or the candidate"
                 : !x     ? "baseline"
                          : "candidate");
        return 0;
    }
    m->have_quiz = true;
    bool known = true;
    /* every baseline question, then those only the candidate asked */
    for (size_t i = 0; i < x->n; i++)
        if (compare_question(m, &x->items[i], find_item(y, x->items[i].id), &known) < 0) return -1;
    for (size_t i = 0; i < y->n; i++)
        if (!find_item(x, y->items[i].id) && compare_question(m, NULL, &y->items[i], &known) < 0)
            return -1;
    if (!known) {
        snprintf(m->mc_text, sizeof m->mc_text,
                 "McNemar's test: n/a (which replies are right is unknown; a compare.py file "
                 "needs the quiz file, --quiz FILE).");
        return 0;
    }
    m->have_mcnemar = true;
    m->mc_p = stats_mcnemar(m->mc_b, m->mc_c);
    mcnemar_text(m);
    return 0;
}

/* ---- notes ---- */

/* How the time-scaled inputs of one side were converted. */
static size_t scale_part(const struct side *s, const char *who, char *out, size_t cap) {
    if (s->scale_lo == s->scale_hi)
        return (size_t)snprintf(out, cap,
                                "%s ran %g times faster than real time (rates divided by %g, "
                                "times multiplied by %g)",
                                who, s->scale_lo, s->scale_lo, s->scale_lo);
    return (size_t)snprintf(out, cap,
                            "%s's files ran %g to %g times faster than real time, each converted "
                            "by its own time_scale",
                            who, s->scale_lo, s->scale_hi);
}

static void scale_note(struct cmp *m) {
    const struct side *b = m->b, *c = m->c;
    bool sb = b->scale_lo != 1 || b->scale_hi != 1, sc = c->scale_lo != 1 || c->scale_hi != 1;
    char *o = m->scale_note;
    size_t cap = sizeof m->scale_note, k;
    if (!sb && !sc) return;
    k = (size_t)snprintf(o, cap, "Times and rates are in real units: ");
    if (sb && sc && b->scale_lo == c->scale_lo && b->scale_hi == c->scale_hi)
        k += scale_part(b, "both sides", o + k, cap - k);
    else if (sb && sc) {
        k += scale_part(b, "the baseline", o + k, cap - k);
        if (k < cap) k += (size_t)snprintf(o + k, cap - k, "; ");
        if (k < cap) k += scale_part(c, "the candidate", o + k, cap - k);
    } else
        k += scale_part(sb ? b : c, sb ? "the baseline" : "the candidate", o + k, cap - k);
    if (k < cap) snprintf(o + k, cap - k, ".");
}

static void verdict(struct cmp *m) {
    size_t k = 0, cap = sizeof m->verdict;
    char *v = m->verdict;
    const struct row *r = cmp_row(m, "decode_tokens_per_second");
#define ADD(...) (k += (k < cap ? (size_t)snprintf(v + k, cap - k, __VA_ARGS__) : 0))
    if (r && r->ratio.ok) {
        ADD("%s decodes %.2fx as fast as %s", m->cname, r->ratio.v, m->bname);
        if (r->ci_r.ok)
            ADD(" (95%% interval %.2f to %.2f%s)", r->ci_r.lo, r->ci_r.hi,
                r->ci_r.lo <= 1 && r->ci_r.hi >= 1 ? ": no clear difference" : "");
        ADD(". ");
    }
    double lo = 0, hi = 0;
    int n = 0, clo = 0, chi = 0;
    for (size_t i = 0; i < m->nrows; i++) {
        int c = m->rows[i].load_c;
        if (!c || !m->rows[i].ratio.ok) continue;
        double x = m->rows[i].ratio.v;
        if (!n || x < lo) {
            lo = x;
            clo = c;
        }
        if (!n || x > hi) {
            hi = x;
            chi = c;
        }
        n++;
    }
    if (n == 1) ADD("Under load it serves %.2fx the tokens per second (c%d). ", lo, clo);
    if (n > 1)
        ADD("Under load it serves %.2fx (c%d) to %.2fx (c%d) the tokens per second. ", lo, clo, hi,
            chi);
    if ((r = cmp_row(m, "weights_gib")) && r->ratio.ok)
        ADD("Its weights take %.2fx the memory. ", r->ratio.v);
    if (m->have_quiz && (r = cmp_row(m, "quality_correct")) && r->b.ok && r->c.ok)
        ADD("Quiz: %.0f/%ld against %.0f/%ld, %ld of %ld answers identical%s.", r->c.v, r->c_total,
            r->b.v, r->b_total, m->identical, m->qtotal,
            m->have_mcnemar
                ? (m->mc_p < 0.05 ? ", a significant difference" : ", no significant difference")
                : "");
    if (!k) ADD("Nothing measured on both sides.");
#undef ADD
    while (k > 0 && k <= cap && v[k - 1] == ' ') v[--k] = '\0';
}

static void names(struct cmp *m) {
    bool same = strcmp(m->b->name, m->c->name) == 0;
    snprintf(m->bname, sizeof m->bname, same ? "%s (baseline)" : "%s", m->b->name);
    snprintf(m->cname, sizeof m->cname, same ? "%s (candidate)" : "%s", m->c->name);
}

int cmp_build(struct cmp *m, const struct side *b, const struct side *c, const struct cmp_opts *o,
              struct diag *d) {
    struct stats_rng rng;
    memset(m, 0, sizeof *m);
    m->b = b;
    m->c = c;
    m->opts = *o;
    stats_rng_seed(&rng, o->seed);
    names(m);
    if (check_decode(b, c, d) < 0 || check_levels(b, c, d) < 0 || check_quiz(b, c, d) < 0)
        return -1;
    if (add_fact_rows(m) < 0 || add_decode_rows(m, &rng) < 0 || add_level_rows(m, &rng) < 0 ||
        add_quiz_rows(m) < 0 || add_latency_rows(m) < 0 || add_cost_rows(m) < 0 ||
        compare_quiz(m) < 0)
        return oom(d);
    scale_note(m);
    verdict(m);
    return 0;
}

void cmp_free(struct cmp *m) {
    free(m->rows);
    free(m->dis);
    memset(m, 0, sizeof *m);
}
