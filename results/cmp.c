#include "cmp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "notes.h"
#include "qplan.h"
#include "scmp.h"
#include "verdict.h"

#define CMP_MEASURE_DECIMALS 3 /* compare.py rounds its medians to 3 decimals */
#define CMP_MAX_LEVELS       256

static const char cmp_method_decode[] =
    "Welch t-interval of the difference of mean walls; Fieller for the ratio";
static const char cmp_method_fixed[] =
    "t-interval of the least-squares intercept; Fieller for the ratio";
static const char cmp_method_batches[] =
    "order statistics of the batches (median); Bonett-Price for the ratio of medians";

double cmp_round(double v, int decimals) {
    if (decimals < 0) return v;
    double f = pow(10, decimals);
    return round(v * f) / f;
}

const struct cmp_row *cmp_row(const struct cmp *m, const char *name) {
    for (size_t i = 0; i < m->nrows; i++)
        if (strcmp(m->rows[i].name, name) == 0) return &m->rows[i];
    return NULL;
}

struct cmp_row *cmp_add_row(struct cmp *m, const char *name, enum cmp_group g, int decimals) {
    struct cmp_row *r = realloc(m->rows, (m->nrows + 1) * sizeof *r);
    if (!r) return NULL;
    m->rows = r;
    r = &r[m->nrows++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    r->group = g;
    r->decimals = decimals;
    interval_none(&r->ci_b, "no interval for this figure");
    r->ci_c = r->ci_r = r->ci_b;
    return r;
}

void cmp_set_ratio(struct cmp_row *r) {
    if (r->no_ratio) return;
    if (!r->b.ok || !r->c.ok) {
        side_val_none(&r->ratio, "n/a on the %s side", r->b.ok ? "candidate" : "baseline");
        return;
    }
    if (!(r->b.v > 0)) {
        side_val_none(&r->ratio, "the baseline is 0");
        return;
    }
    side_val_set(&r->ratio, r->c.v / r->b.v);
}

/* ---- facts ---- */

static void cmp_fact_val(struct side_val *v, const struct side *s, const struct facts_fact *f) {
    if (f->have) {
        side_val_set(v, f->value);
        return;
    }
    if (!s->in.have_facts)
        side_val_none(v, "no vLLM start-up log for the %s (--facts-%s LOG)", s->role, s->role);
    else
        side_val_none(v, "not in the %s's start-up log", s->role);
}

static int cmp_fact_rows(struct cmp *m) {
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
        struct cmp_row *r = cmp_add_row(m, facts[i].name, CMP_MAIN, -1);
        if (!r) return -1;
        const char *fb = (const char *)&m->b->in.facts + facts[i].off;
        const char *fc = (const char *)&m->c->in.facts + facts[i].off;
        cmp_fact_val(&r->b, m->b, (const struct facts_fact *)fb);
        cmp_fact_val(&r->c, m->c, (const struct facts_fact *)fc);
        r->no_ratio = facts[i].no_ratio;
        r->server_fact = true;
        cmp_set_ratio(r);
    }
    return 0;
}

/* ---- decode ---- */

/* The decode intervals of one side (rate, fixed cost) and their sample size. */
static size_t cmp_decode_fig(const struct side *s, struct interval_fig *rate, struct interval *rci,
                             struct interval_fig *fixed, struct interval *fci) {
    const struct side_decode *dc = &s->dec;
    static const struct interval_fig none = {.ok = false};
    *rate = *fixed = none;
    if (!dc->have || dc->nlengths < 2) {
        interval_none(rci, "no decode walls");
    } else if (dc->medians_only) {
        interval_none(rci, "compare.py: no interval");
    } else {
        interval_decode(dc->lengths[0], dc->lengths[dc->nlengths - 1], dc->ws, dc->ns, dc->wl,
                        dc->nl, s->bias_hi, rate, rci, fixed, fci);
        return dc->ns < dc->nl ? dc->ns : dc->nl;
    }
    snprintf(rate->why, sizeof rate->why, "%s", rci->why);
    *fixed = *rate;
    *fci = *rci;
    return 0;
}

static int cmp_decode_detail(struct cmp *m, const struct interval_fig *fixed,
                             const struct interval *fci) {
    const struct side_decode *x = &m->b->dec, *y = &m->c->dec;
    const struct side_decode *d = x->have ? x : y;
    const struct cmp_row *rate = cmp_row(m, "decode_tokens_per_second");
    size_t nb = rate ? rate->nb : 0, nc = rate ? rate->nc : 0;
    int S = d->nlengths ? d->lengths[0] : 0, L = d->nlengths ? d->lengths[d->nlengths - 1] : 0;
    bool same = !x->have || !y->have ||
                (x->nlengths == y->nlengths &&
                 memcmp(x->lengths, y->lengths, x->nlengths * sizeof x->lengths[0]) == 0);
    char ws[64], wl[64];
    snprintf(ws, sizeof ws, "wall_%d_median_seconds", S);
    snprintf(wl, sizeof wl, "wall_%d_median_seconds", L);
    const struct {
        const char *name;
        const struct side_val *b, *c;
        int decimals;
        bool want;
    } more[] = {
        {"per_call_fixed_cost_seconds", &x->fixed, &y->fixed, 3, true},
        {ws, &x->med_s, &y->med_s, 3, L > S && S > 0 && same},
        {wl, &x->med_l, &y->med_l, 3, L > S && S > 0 && same},
        {"least_squares_tokens_per_second", &x->ls_rate, &y->ls_rate, 2,
         x->nlengths > 2 || y->nlengths > 2},
        {"least_squares_fixed_cost_seconds", &x->ls_fixed, &y->ls_fixed, 3,
         x->nlengths > 2 || y->nlengths > 2},
    };
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
        struct cmp_row *r;
        if (!more[i].want) continue;
        if (!(r = cmp_add_row(m, more[i].name, CMP_DECODE, more[i].decimals))) return -1;
        r->b = *more[i].b;
        r->c = *more[i].c;
        r->tb = &x->tally;
        r->tc = &y->tally;
        cmp_set_ratio(r);
        if (i > 0) continue;
        r->fig_b = fixed[0];
        r->fig_c = fixed[1];
        r->nb = nb;
        r->nc = nc;
        r->ci_b = fci[0];
        r->ci_c = fci[1];
        interval_ratio(&fixed[0], &fixed[1], &r->ci_r);
        r->method = cmp_method_fixed;
    }
    return 0;
}

static int cmp_decode_rows(struct cmp *m) {
    const struct side_decode *x = &m->b->dec, *y = &m->c->dec;
    struct interval_fig fixed[2];
    struct interval fci[2];
    struct cmp_row *r = cmp_add_row(m, "decode_tokens_per_second", CMP_MAIN,
                                    x->medians_only && y->medians_only ? CMP_MEASURE_DECIMALS : 2);
    if (!r) return -1;
    r->b = x->rate;
    r->c = y->rate;
    r->tb = x->have ? &x->tally : NULL;
    r->tc = y->have ? &y->tally : NULL;
    cmp_set_ratio(r);
    r->nb = cmp_decode_fig(m->b, &r->fig_b, &r->ci_b, &fixed[0], &fci[0]);
    r->nc = cmp_decode_fig(m->c, &r->fig_c, &r->ci_c, &fixed[1], &fci[1]);
    interval_ratio(&r->fig_b, &r->fig_c, &r->ci_r);
    r->method = cmp_method_decode;
    if (!x->have && !y->have) return 0;
    return cmp_decode_detail(m, fixed, fci);
}

/* ---- levels ---- */

static const struct side_level *cmp_level_of(const struct side *s, int c) {
    for (size_t i = 0; i < s->nlv; i++)
        if (s->lv[i].c == c) return &s->lv[i];
    return NULL;
}

/* The union of both sides' levels, ascending. */
static size_t cmp_all_levels(const struct cmp *m, int *out, size_t cap) {
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

static void cmp_level_val(struct side_val *v, const struct side *s, const struct side_level *l,
                          const struct side_val *pick, int c) {
    if (l)
        *v = *pick;
    else
        side_val_none(v, "c%d not measured on the %s side", c, s->role);
}

/* A level's interval on one side; returns the batches it rests on. */
static size_t cmp_level_fig(const struct side *s, const struct side_level *l,
                            struct interval_fig *fig, struct interval *ci) {
    *fig = (struct interval_fig){.ok = false};
    if (!l || !l->nb) {
        interval_none(ci, "no batches");
    } else if (l->measure) {
        interval_none(ci, "compare.py: no interval");
    } else {
        double wall = estim_median_of(l->bwall, l->nb);
        interval_batches(l->tps, l->nb, s->bias_hi, wall, fig, ci);
        return l->nb;
    }
    snprintf(fig->why, sizeof fig->why, "%s", ci->why);
    return 0;
}

static bool cmp_from_measure(const struct side_level *x, const struct side_level *y) {
    return (!x || x->measure) && (!y || y->measure);
}

static int cmp_level_rows(struct cmp *m) {
    int lv[CMP_MAX_LEVELS];
    size_t n = cmp_all_levels(m, lv, CMP_MAX_LEVELS);
    for (size_t i = 0; i < n; i++) {
        const struct side_level *x = cmp_level_of(m->b, lv[i]), *y = cmp_level_of(m->c, lv[i]);
        char name[64];
        snprintf(name, sizeof name, "load_c%d_tokens_per_second", lv[i]);
        struct cmp_row *r =
            cmp_add_row(m, name, CMP_MAIN, cmp_from_measure(x, y) ? CMP_MEASURE_DECIMALS : 2);
        if (!r) return -1;
        r->load_c = lv[i];
        cmp_level_val(&r->b, m->b, x, x ? &x->tput : NULL, lv[i]);
        cmp_level_val(&r->c, m->c, y, y ? &y->tput : NULL, lv[i]);
        r->tb = x ? &x->tally : NULL;
        r->tc = y ? &y->tally : NULL;
        cmp_set_ratio(r);
        r->nb = cmp_level_fig(m->b, x, &r->fig_b, &r->ci_b);
        r->nc = cmp_level_fig(m->c, y, &r->fig_c, &r->ci_c);
        interval_ratio(&r->fig_b, &r->fig_c, &r->ci_r);
        r->method = cmp_method_batches;
    }
    return 0;
}

static int cmp_latency_rows(struct cmp *m) {
    static const char *const pname[] = {"p50", "p90", "p99"};
    int lv[CMP_MAX_LEVELS];
    size_t n = cmp_all_levels(m, lv, CMP_MAX_LEVELS);
    for (size_t i = 0; i < n; i++) {
        const struct side_level *x = cmp_level_of(m->b, lv[i]), *y = cmp_level_of(m->c, lv[i]);
        for (int p = 0; p < 3; p++) {
            char name[64];
            snprintf(name, sizeof name, "latency_c%d_%s_seconds", lv[i], pname[p]);
            struct cmp_row *r = cmp_add_row(m, name, CMP_LATENCY, 3);
            if (!r) return -1;
            const struct side_val *vx = x ? (p == 0 ? &x->p50 : p == 1 ? &x->p90 : &x->p99) : NULL;
            const struct side_val *vy = y ? (p == 0 ? &y->p50 : p == 1 ? &y->p90 : &y->p99) : NULL;
            cmp_level_val(&r->b, m->b, x, vx, lv[i]);
            cmp_level_val(&r->c, m->c, y, vy, lv[i]);
            r->tb = x ? &x->tally : NULL;
            r->tc = y ? &y->tally : NULL;
            cmp_set_ratio(r);
        }
    }
    return 0;
}

/* USD per million output tokens at tps tokens per second. */
static double cmp_cost(double price, double tps) {
    return price / (tps * 3600) * 1e6;
}

static void cmp_cost_val(struct side_val *v, const struct side_val *tput, double price) {
    if (!tput->ok)
        *v = *tput;
    else if (!(tput->v > 0))
        side_val_none(v, "no tokens were served");
    else
        side_val_set(v, cmp_cost(price, tput->v));
}

static int cmp_cost_rows(struct cmp *m) {
    size_t n = m->nrows;
    for (size_t i = 0; m->opts.have_price && i < n; i++) {
        if (!m->rows[i].load_c) continue;
        char name[64];
        snprintf(name, sizeof name, "cost_c%d_usd_per_million_tokens", m->rows[i].load_c);
        struct cmp_row *r = cmp_add_row(m, name, CMP_COST, 2);
        if (!r) return -1;
        const struct cmp_row *t = &m->rows[i];
        double k = cmp_cost(m->opts.price, 1);
        cmp_cost_val(&r->b, &t->b, m->opts.price);
        cmp_cost_val(&r->c, &t->c, m->opts.price);
        r->tb = t->tb;
        r->tc = t->tc;
        r->nb = t->nb;
        r->nc = t->nc;
        cmp_set_ratio(r);
        interval_inverse(&t->ci_b, k, &r->ci_b);
        interval_inverse(&t->ci_c, k, &r->ci_c);
        interval_inverse(&t->ci_r, 1, &r->ci_r);
        r->method = "the throughput's intervals, inverted";
    }
    return 0;
}

/* ---- quiz ---- */

static void cmp_quiz_val(struct cmp_row *r, const struct side *s, int k) {
    struct side_val *v = k ? &r->c : &r->b;
    if (!s->quiz) {
        side_val_none(v, "no quiz on the %s side", s->role);
        return;
    }
    side_val_set(v, (double)s->quiz->correct);
    *(k ? &r->c_total : &r->b_total) = s->quiz->answered;
    *(k ? &r->c_unanswered : &r->b_unanswered) = s->quiz->questions - s->quiz->answered;
    *(k ? &r->tc : &r->tb) = &s->quiz->tally;
}

/* One side's score of one kind, or why none. */
static void cmp_kind_val(struct cmp_row *r, const struct side *s, const char *kind, int k) {
    const struct src_kind_score *ks = NULL;
    for (size_t j = 0; s->quiz && j < s->quiz->nkinds; j++)
        if (strcmp(s->quiz->kinds[j].kind, kind) == 0) ks = &s->quiz->kinds[j];
    if (!ks) {
        side_val_none(k ? &r->c : &r->b, "no %s questions on the %s side", kind, s->role);
        return;
    }
    side_val_set(k ? &r->c : &r->b, (double)ks->correct);
    *(k ? &r->c_total : &r->b_total) = ks->answered;
    *(k ? &r->c_unanswered : &r->b_unanswered) = ks->total - ks->answered;
}

static int cmp_quiz_rows(struct cmp *m) {
    struct cmp_row *r = cmp_add_row(m, "quality_correct", CMP_MAIN, 0);
    if (!r) return -1;
    r->no_ratio = true;
    cmp_quiz_val(r, m->b, 0);
    cmp_quiz_val(r, m->c, 1);
    for (int side = 0; side < 2; side++) {
        const struct src_quiz *q = side ? m->c->quiz : m->b->quiz;
        for (size_t i = 0; q && i < q->nkinds; i++) {
            char name[64];
            snprintf(name, sizeof name, "quality_%s_correct", q->kinds[i].kind);
            if (cmp_row(m, name)) continue;
            if (!(r = cmp_add_row(m, name, CMP_KIND, 0))) return -1;
            r->no_ratio = true;
            cmp_kind_val(r, m->b, q->kinds[i].kind, 0);
            cmp_kind_val(r, m->c, q->kinds[i].kind, 1);
        }
    }
    return 0;
}

/* ---- notes ---- */

/* How the time-scaled inputs of one side were converted. */
static size_t cmp_scale_part(const struct side *s, const char *who, char *out, size_t cap) {
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

static void cmp_scale_note(struct cmp *m) {
    const struct side *b = m->b, *c = m->c;
    bool sb = b->scale_lo != 1 || b->scale_hi != 1, sc = c->scale_lo != 1 || c->scale_hi != 1;
    char *o = m->scale_note;
    size_t cap = sizeof m->scale_note, k;
    if (!sb && !sc) return;
    k = (size_t)snprintf(o, cap, "Times and rates are in real units: ");
    if (sb && sc && b->scale_lo == c->scale_lo && b->scale_hi == c->scale_hi)
        k += cmp_scale_part(b, "both sides", o + k, cap - k);
    else if (sb && sc) {
        k += cmp_scale_part(b, "the baseline", o + k, cap - k);
        if (k < cap) k += (size_t)snprintf(o + k, cap - k, "; ");
        if (k < cap) k += cmp_scale_part(c, "the candidate", o + k, cap - k);
    } else
        k += cmp_scale_part(sb ? b : c, sb ? "the baseline" : "the candidate", o + k, cap - k);
    if (k < cap) snprintf(o + k, cap - k, ".");
}

static void cmp_names(struct cmp *m) {
    bool same = strcmp(m->b->name, m->c->name) == 0;
    snprintf(m->bname, sizeof m->bname, same ? "%s (baseline)" : "%s", m->b->name);
    snprintf(m->cname, sizeof m->cname, same ? "%s (candidate)" : "%s", m->c->name);
}

/* Marks every measured value a side's client limited (climit.h) with why: an
 * open-loop rate's rows are ocmp's (each rate judged on its own sends); the
 * quiz's scores and the server's facts (weights, KV cache, load time, read from
 * its start-up log) are not the client's timing. */
static void cmp_mark_client(struct cmp *m) {
    for (size_t i = 0; i < m->nrows; i++) {
        struct cmp_row *r = &m->rows[i];
        if (r->group == CMP_KIND || r->server_fact || strncmp(r->name, "quality", 7) == 0 ||
            (r->group == CMP_OPEN && strncmp(r->name, "rate_", 5) == 0))
            continue;
        for (int k = 0; k < 2; k++) {
            const struct side *s = k ? m->c : m->b;
            char *lim = k ? r->limited_c : r->limited_b;
            if ((k ? r->c.ok : r->b.ok) && s->limited[0] && !lim[0])
                snprintf(lim, CLIMIT_WHY, "%s", s->limited);
        }
    }
}

bool cmp_row_limited(const struct cmp_row *r) {
    return r->limited_b[0] || r->limited_c[0];
}

/* Side k's connection times over its inputs (conntime.h). */
static int cmp_conn(struct cmp *m, int k) {
    const struct side *s = k ? m->c : m->b;
    const struct conntime **parts = s->in.n ? malloc(s->in.n * sizeof *parts) : NULL;
    if (s->in.n && !parts) return -1;
    for (size_t i = 0; i < s->in.n; i++) parts[i] = &s->in.srcs[i].conn;
    int rc = conntime_summarize(parts, s->in.n, &m->conn[k]);
    free(parts);
    return rc;
}

int cmp_build(struct cmp *m, const struct side *b, const struct side *c, const struct cmp_opts *o,
              struct warnings *w, struct buf *err) {
    memset(m, 0, sizeof *m);
    m->b = b;
    m->c = c;
    m->opts = *o;
    cmp_names(m);
    if (cmp_fact_rows(m) < 0 || cmp_decode_rows(m) < 0 || cmp_level_rows(m) < 0 ||
        cmp_quiz_rows(m) < 0 || cmp_latency_rows(m) < 0 || cmp_cost_rows(m) < 0 ||
        scmp_rows(m, w) < 0)
        return buf_fail(err, CMP_ERR_NOMEM, "out of memory");
    int rc = ocmp_build(m, w, err);
    if (rc < 0) return rc;
    rc = qcmp_build(&m->quiz, b, c, m->bname, m->cname, err);
    qfam_build(&m->fam, b->quiz, c->quiz, o->margin > 0 ? o->margin : QPLAN_MARGIN, QPLAN_ALPHA,
               QPLAN_POWER);
    if (rc < 0 || (rc = xcheck_side(&m->xc, b, err)) < 0 || (rc = xcheck_side(&m->xc, c, err)) < 0)
        return rc;
    if ((rc = cwcheck_side(&m->cw, b, err)) < 0 || (rc = cwcheck_side(&m->cw, c, err)) < 0)
        return rc;
    if (cmp_conn(m, 0) < 0 || cmp_conn(m, 1) < 0)
        return buf_fail(err, CMP_ERR_NOMEM, "out of memory");
    cmp_scale_note(m);
    cmp_mark_client(m);
    notes_add(m, w);
    verdict_build(m, m->verdict, sizeof m->verdict);
    return CMP_OK;
}

void cmp_free(struct cmp *m) {
    free(m->rows);
    ocmp_free(&m->open);
    qcmp_free(&m->quiz);
    xcheck_free(&m->xc);
    cwcheck_free(&m->cw);
    memset(m, 0, sizeof *m);
}

const char *cmp_itl_unit(const struct cmp *m, int k) {
    bool token = m->itl_token[k] > 0, chunk = m->itl_chunk[k] > 0;
    return token && chunk ? "token and chunk" : token ? "token" : chunk ? "chunk" : NULL;
}
