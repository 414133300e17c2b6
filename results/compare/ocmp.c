#include "ocmp.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmp.h"
#include "estim.h"
#include "fmt.h"

#define OCMP_MAX_RATES ((size_t)2 * ORATE_MAX_RATES)

const enum stream_metric ocmp_order[STREAM_METRICS] = {STREAM_E2E, STREAM_TTFT, STREAM_TPOT,
                                                       STREAM_ITL};

const char *ocmp_rel_text(enum ocmp_rel rel) {
    static const char *const text[] = {"", "", ">=", ">", "<=", "<"};
    return text[rel];
}

/* A bounded figure after prefix: v with decimals (< 0: significant digits),
 * or "n/a" when there is none. */
static void ocmp_bound(const char *prefix, enum ocmp_rel rel, double v, int decimals, char *out,
                       size_t cap) {
    char num[FMT_CELL];
    if (rel == OCMP_NONE || !isfinite(v)) {
        snprintf(out, cap, "n/a");
        return;
    }
    if (decimals < 0)
        fmt_sig(v, num, sizeof num);
    else
        fmt_num(v, decimals, num, sizeof num);
    snprintf(out, cap, "%s%s", prefix, num);
}

void ocmp_bound_text(enum ocmp_rel rel, double v, int decimals, char *out, size_t cap) {
    char mark[8];
    snprintf(mark, sizeof mark, "%s%s", ocmp_rel_text(rel), rel == OCMP_EQ ? "" : " ");
    ocmp_bound(mark, rel, v, decimals, out, cap);
}

const struct ocmp_point *ocmp_point(const struct ocmp_side *x, double rate) {
    for (size_t i = 0; i < x->n; i++)
        if (x->p[i].rate == rate) return &x->p[i];
    return NULL;
}

size_t ocmp_rates(const struct ocmp *o, double *out, size_t cap) {
    size_t n = 0;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < o->x[k].n && n < cap; i++) {
            double r = o->x[k].p[i].rate;
            size_t j = 0;
            while (j < n && out[j] != r) j++;
            if (j < n) continue;
            for (j = n++; j > 0 && out[j - 1] > r; j--) out[j] = out[j - 1];
            out[j] = r;
        }
    return n;
}

/* ---- whether the SLOs apply ---- */

/* The first open-loop input of side s that did not stream, or NULL. */
static const struct src *ocmp_unstreamed(const struct side *s) {
    for (size_t i = 0; i < s->in.n; i++)
        if (s->in.srcs[i].rate && !s->in.srcs[i].streamed) return &s->in.srcs[i];
    return NULL;
}

static int ocmp_applies(const struct cmp *m, struct buf *err) {
    const struct slo_set *set = &m->open.slo;
    if (!slo_any(set)) return 0;
    if (!m->b->rate.n && !m->c->rate.n)
        return buf_fail(err, CMP_ERR_INPUT,
                        "--slo and --max-error-rate judge open-loop runs (rate.lua), and neither "
                        "side has one");
    for (size_t i = 0; i < set->n; i++) {
        char key[48];
        if (set->s[i].metric == STREAM_E2E) continue;
        for (int k = 0; k < 2; k++) {
            const struct side *s = k ? m->c : m->b;
            const struct src *u = ocmp_unstreamed(s);
            if (!u) continue;
            slo_key(&set->s[i], key, sizeof key);
            return buf_fail(err, CMP_ERR_INPUT,
                            "--slo %s: the %s %s did not stream its replies (%s): it has no %s "
                            "(measure with sm-stream)",
                            key, s->role, u->path, u->client ? u->client : "wrk",
                            slo_metric_text(set->s[i].metric));
        }
    }
    return 0;
}

/* ---- one side's points ---- */

static void ocmp_lat(const struct stream_sample *x, enum stream_metric k, struct ocmp_lat *out) {
    memset(out, 0, sizeof *out);
    out->ok = x->n > 0 && x->total > 0;
    out->requests = x->requests;
    out->tokens = k == STREAM_ITL ? x->total : 0;
    for (int i = 0; out->ok && i < STREAM_QUANTILES; i++)
        out->q[i] = estim_cquantile(x->x, x->n, x->total, stream_quantiles[i]);
}

/* The SLO verdicts of point p. */
static void ocmp_checks(const struct ocmp *o, struct ocmp_point *p) {
    const struct slo_set *set = &o->slo;
    p->held = true;
    for (size_t i = 0; i < set->n; i++) {
        const struct stream_sample *x = &p->r->stream.s[set->s[i].metric];
        struct ocmp_check *c = &p->check[i];
        c->have = x->n > 0 && x->total > 0;
        c->v = c->have ? estim_cquantile(x->x, x->n, x->total, set->s[i].q) : NAN;
        c->ok = c->have && c->v <= set->s[i].bound;
        p->held &= c->ok;
    }
    p->err.have = isfinite(p->errors);
    p->err.v = p->errors;
    p->err.ok = p->err.have && p->errors <= set->max_error;
    p->att.have = isfinite(p->attainment);
    p->att.v = p->attainment;
    p->att.ok = p->att.have && p->attainment >= set->attain;
    if (set->attain_given) p->held = p->att.ok; /* the criterion instead of the percentiles */
    p->held &= p->err.ok;
}

static void ocmp_point_of(const struct ocmp *o, const struct side *s, const struct orate_round *r,
                          struct ocmp_point *p) {
    memset(p, 0, sizeof *p);
    p->r = r;
    p->rate = r->rate;
    p->arrival = orate_arrival_rate(r);
    p->completion = orate_completion_rate(r);
    p->tokens = orate_tokens_rate(r);
    p->goodput = o->any_slo ? orate_goodput(r) : NAN;
    p->errors = orate_error_share(r);
    p->attainment = o->slo.n ? orate_attainment(r) : NAN;
    p->late_share = orate_late_share(r);
    p->late_p99 = orate_late_p99(r);
    for (int k = 0; k < STREAM_METRICS; k++)
        ocmp_lat(&r->stream.s[k], (enum stream_metric)k, &p->lat[k]);
    if (p->lat[STREAM_ITL].ok &&
        !climit_itl(r->stream.gaps, r->stream.burst, p->itl_why, sizeof p->itl_why))
        p->lat[STREAM_ITL].ok = false; /* a gap of a burst says nothing: no ITL, nor its SLO */
    climit_judge(&s->client, p->late_share, p->limited, sizeof p->limited);
    if (o->any_slo) ocmp_checks(o, p);
}

/* ---- capacity ---- */

/* Where the straight line through (r0, v0) and (r1, v1) reaches bound, for v0
 * <= bound < v1; r0 when v1 is unknown. */
static double ocmp_cross(double r0, double v0, double r1, double v1, double bound) {
    if (!isfinite(v1) || !(v1 > v0)) return r0;
    return r0 + (r1 - r0) * (bound - v0) / (v1 - v0);
}

/* The rate between points a (held) and f (failed) at which the first of f's
 * failed SLOs is reached; *by: which. */
static double ocmp_between(const struct ocmp *o, const struct ocmp_point *a,
                           const struct ocmp_point *f, int *by) {
    double best = f->rate;
    *by = -2;
    if (o->slo.attain_given && !f->att.ok) { /* the share missing an SLO grows with the rate */
        best = ocmp_cross(a->rate, 1 - a->att.v, f->rate, f->att.have ? 1 - f->att.v : NAN,
                          1 - o->slo.attain);
        *by = -3;
    }
    for (size_t i = 0; !o->slo.attain_given && i < o->slo.n; i++) {
        if (f->check[i].ok) continue;
        double r = ocmp_cross(a->rate, a->check[i].v, f->rate,
                              f->check[i].have ? f->check[i].v : NAN, o->slo.s[i].bound);
        if (*by == -2 || r < best) {
            best = r;
            *by = (int)i;
        }
    }
    if (!f->err.ok) {
        double r =
            ocmp_cross(a->rate, a->err.v, f->rate, f->err.have ? f->err.v : NAN, o->slo.max_error);
        if (*by == -2 || r < best) {
            best = r;
            *by = -1;
        }
    }
    return best;
}

/* The first failed SLO of point f, for "limited by". */
static int ocmp_first_failed(const struct ocmp *o, const struct ocmp_point *f) {
    if (o->slo.attain_given && !f->att.ok) return -3;
    for (size_t i = 0; !o->slo.attain_given && i < o->slo.n; i++)
        if (!f->check[i].ok) return (int)i;
    return f->err.ok ? -2 : -1;
}

static void ocmp_capacity(const struct ocmp *o, struct ocmp_side *x, const struct cmp_opts *opts) {
    struct ocmp_cap *c = &x->cap;
    double tokens = 0, ok = 0;
    size_t f = 0;
    memset(c, 0, sizeof *c);
    c->v = c->pass = c->fail = c->tokens = c->usd = c->tokens_per_request = NAN;
    c->by = -2;
    if (!o->any_slo || !x->n) return;
    while (f < x->n && x->p[f].held) f++;
    for (size_t i = f + 1; i < x->n; i++) c->nonmonotone |= x->p[i].held;
    if (f == x->n) {
        c->rel = OCMP_GE;
        c->v = c->pass = x->p[x->n - 1].rate;
    } else if (f == 0) {
        c->rel = OCMP_LT;
        c->v = c->fail = x->p[0].rate;
        c->by = ocmp_first_failed(o, &x->p[0]);
    } else {
        c->rel = OCMP_EQ;
        c->pass = x->p[f - 1].rate;
        c->fail = x->p[f].rate;
        c->v = ocmp_between(o, &x->p[f - 1], &x->p[f], &c->by);
    }
    for (size_t i = 0; i < x->n; i++) {
        tokens += x->p[i].r->tokens;
        ok += (double)x->p[i].r->tally.ok;
    }
    if (ok > 0 && tokens > 0) {
        c->tokens_per_request = tokens / ok;
        c->tokens = c->v * c->tokens_per_request;
        if (opts->have_price) c->usd = opts->price * 1e6 / (3600 * c->tokens);
    }
}

/* The ratio c / b of two bounded capacities. */
static void ocmp_ratio(struct ocmp *o) {
    static const enum ocmp_rel table[3][3] = {
        /* c \ b:   EQ         GE         LT */
        /* EQ */ {OCMP_EQ, OCMP_LE, OCMP_GT},
        /* GE */ {OCMP_GE, OCMP_NONE, OCMP_GT},
        /* LT */ {OCMP_LT, OCMP_LT, OCMP_NONE},
    };
    const struct ocmp_cap *b = &o->x[0].cap, *c = &o->x[1].cap;
    o->ratio_rel = OCMP_NONE;
    o->ratio = NAN;
    if (!o->any_slo) {
        snprintf(o->ratio_why, sizeof o->ratio_why, "no SLO given (--slo, --max-error-rate)");
        return;
    }
    if (b->rel == OCMP_NONE || c->rel == OCMP_NONE) {
        snprintf(o->ratio_why, sizeof o->ratio_why, "no open-loop run on the %s side",
                 b->rel == OCMP_NONE ? "baseline" : "candidate");
        return;
    }
    int ib = b->rel == OCMP_EQ ? 0 : b->rel == OCMP_GE ? 1 : 2;
    int ic = c->rel == OCMP_EQ ? 0 : c->rel == OCMP_GE ? 1 : 2;
    o->ratio_rel = table[ic][ib];
    if (o->ratio_rel == OCMP_NONE) {
        snprintf(o->ratio_why, sizeof o->ratio_why, "both capacities are bounded the same way: %s",
                 b->rel == OCMP_GE ? "every rate held on both sides" : "no rate held on either");
        return;
    }
    o->ratio = c->v / b->v;
}

/* ---- warnings ---- */

static void ocmp_warn_side(const struct ocmp *o, const struct ocmp_side *x, struct warnings *w) {
    for (size_t i = 0; i < x->n; i++) {
        const struct ocmp_point *p = &x->p[i];
        if (p->late_share > 0.01)
            warnings_add(w,
                         "%s at %g requests/s: %.1f%% of the successful requests left more than "
                         "%d ms after their intended start on the client's clock (p99 %.3g s in "
                         "real time): the client could not keep the schedule (more connections, "
                         "-c, may help); their latency counts from the intended start anyway",
                         x->name, p->rate, 100 * p->late_share, ORATE_LATE_US / 1000, p->late_p99);
    }
    for (size_t k = 0; o->any_slo && k < o->slo.n; k++) {
        const struct slo *s = &o->slo.s[k];
        double need = ceil(1 / (1 - s->q) - 1e-9);
        char rates[300] = "", text[80];
        size_t n = 0;
        for (size_t i = 0; i < x->n && n < sizeof rates; i++) {
            const struct ocmp_point *p = &x->p[i];
            size_t have = p->r->stream.s[s->metric].requests;
            if ((double)have >= need) continue;
            n += (size_t)snprintf(rates + n, sizeof rates - n, "%s%g (%zu)", n ? ", " : "", p->rate,
                                  have);
        }
        if (!n) continue;
        slo_text(s, text, sizeof text);
        warnings_add(w,
                     "%s: %s: at %s requests/s (requests in parentheses) fewer than %.0f "
                     "requests give the p%g, which is then close to their largest value",
                     x->name, text, rates, need, s->pct);
    }
    if (x->cap.nonmonotone)
        warnings_add(w,
                     "%s: the SLOs held again at a rate above the first that failed them (%g "
                     "requests/s): the capacity is read below that first failure",
                     x->name, x->cap.fail);
}

/* ---- rows (CSV) ---- */

static void ocmp_val(struct side_val *v, const struct ocmp_side *x, double rate, double value,
                     const char *what) {
    if (!x->n)
        side_val_none(v, "no open-loop run on the %s side", x->s->role);
    else if (!ocmp_point(x, rate))
        side_val_none(v, "%g requests/s not measured on the %s side", rate, x->s->role);
    else if (!isfinite(value))
        side_val_none(v, "%s", what);
    else
        side_val_set(v, value);
}

/* A figure of a point (arg: which). */
typedef double ocmp_pick(const struct ocmp_point *p, int arg);

static double ocmp_pick_field(const struct ocmp_point *p, int arg) {
    const double *f[] = {&p->arrival,    &p->completion, &p->tokens,     &p->goodput,
                         &p->attainment, &p->errors,     &p->late_share, &p->late_p99};
    return *f[arg];
}

static double ocmp_pick_lat(const struct ocmp_point *p, int arg) {
    const struct ocmp_lat *l = &p->lat[arg / STREAM_QUANTILES];
    return l->ok ? l->q[arg % STREAM_QUANTILES] : NAN;
}

static double ocmp_pick_held(const struct ocmp_point *p, int arg) {
    (void)arg;
    return p->held ? 1 : 0;
}

/* One row of rate: each side's value pick(p, arg), the ratio unless no_ratio. */
static int ocmp_row(struct cmp *m, double rate, const char *what, int decimals, ocmp_pick *pick,
                    int arg, const char *none, bool no_ratio) {
    char name[128];
    snprintf(name, sizeof name, "rate_%g_%s", rate, what);
    struct cmp_row *r = cmp_add_row(m, name, CMP_OPEN, decimals);
    if (!r) return -1;
    r->no_ratio = no_ratio;
    for (int k = 0; k < 2; k++) {
        const struct ocmp_side *x = &m->open.x[k];
        const struct ocmp_point *p = ocmp_point(x, rate);
        struct side_val *v = k ? &r->c : &r->b;
        ocmp_val(v, x, rate, p ? pick(p, arg) : NAN, none);
        if (p && !v->ok && pick == ocmp_pick_lat && arg / STREAM_QUANTILES == STREAM_ITL &&
            p->itl_why[0])
            side_val_none(v, "%s", p->itl_why);
        if (p) *(k ? &r->tc : &r->tb) = &p->r->tally;
        if (p && v->ok &&
            !no_ratio) /* each rate on its own sends (the client's lateness: its own) */
            snprintf(k ? r->limited_c : r->limited_b, CLIMIT_WHY, "%s", p->limited);
    }
    cmp_set_ratio(r);
    return 0;
}

static int ocmp_rate_rows(struct cmp *m, double rate) {
    static const struct {
        const char *what;
        int decimals;
        const char *none;
        bool no_ratio; /* a share, or the client's own lateness */
    } fields[] = {
        {"arrivals_per_second", 2, "no arrivals", false},
        {"completions_per_second", 2, "no successful request", false},
        {"tokens_per_second", 2, "no successful request", false},
        {"goodput_per_second", 2, "no SLO given", false},
        {"slo_attainment", 4, "no request", true},
        {"failed_share", 4, "no request", true},
        {"late_share", 4, "no record with t_intended_us", true},
        {"late_p99_seconds", 4, "no record with t_intended_us", true},
    };
    for (int i = 0; i < (int)(sizeof fields / sizeof fields[0]); i++) {
        if ((i == 3 && !m->open.any_slo) || (i == 4 && !m->open.slo.n)) continue;
        if (ocmp_row(m, rate, fields[i].what, fields[i].decimals, ocmp_pick_field, i,
                     fields[i].none, fields[i].no_ratio) < 0)
            return -1;
    }
    for (int j = 0; j < STREAM_METRICS; j++) {
        enum stream_metric k = ocmp_order[j];
        if (k != STREAM_E2E && !m->open.streamed) continue;
        for (int q = 0; q < STREAM_QUANTILES; q++) {
            char what[48];
            snprintf(what, sizeof what, "%s_p%.0f_seconds", stream_name(k),
                     100 * stream_quantiles[q]);
            if (ocmp_row(m, rate, what, k == STREAM_ITL || k == STREAM_TPOT ? 4 : 3, ocmp_pick_lat,
                         (int)k * STREAM_QUANTILES + q, "no value", false) < 0)
                return -1;
        }
    }
    return m->open.any_slo ? ocmp_row(m, rate, "slos_held", 0, ocmp_pick_held, 0, "no value", true)
                           : 0;
}

/* One capacity row: each side's figure, its bound in the note. */
static int ocmp_cap_row(struct cmp *m, const char *name, int decimals, int which) {
    struct cmp_row *r = cmp_add_row(m, name, CMP_OPEN, decimals);
    size_t k = 0;
    if (!r) return -1;
    for (int s = 0; s < 2; s++) {
        const struct ocmp_cap *c = &m->open.x[s].cap;
        struct side_val *v = s ? &r->c : &r->b;
        double x = which == 0 ? c->v : which == 1 ? c->tokens : c->usd;
        enum ocmp_rel rel = c->rel;
        if (which == 2 && (rel == OCMP_GE || rel == OCMP_LT)) /* a cost falls as capacity grows */
            rel = rel == OCMP_GE ? OCMP_LE : OCMP_GT;
        if (c->rel == OCMP_NONE)
            side_val_none(v, "no open-loop run on the %s side", s ? "candidate" : "baseline");
        else if (!isfinite(x))
            side_val_none(v, "no tokens were served");
        else
            side_val_set(v, x);
        if (v->ok && rel != OCMP_EQ && k < sizeof r->note)
            k += (size_t)snprintf(r->note + k, sizeof r->note - k, "%s%s: %s the value",
                                  k ? "; " : "", s ? "candidate" : "baseline",
                                  rel == OCMP_GE   ? "at least"
                                  : rel == OCMP_LE ? "at most"
                                  : rel == OCMP_GT ? "more than"
                                                   : "less than");
    }
    r->no_ratio = which != 0;
    if (which == 0 && m->open.ratio_rel == OCMP_NONE)
        side_val_none(&r->ratio, "%s", m->open.ratio_why);
    else if (which == 0)
        side_val_set(&r->ratio, m->open.ratio);
    if (which == 0 && m->open.ratio_rel != OCMP_EQ && m->open.ratio_rel != OCMP_NONE &&
        k < sizeof r->note)
        snprintf(r->note + k, sizeof r->note - k, "%sratio: %s the value", k ? "; " : "",
                 m->open.ratio_rel == OCMP_GE   ? "at least"
                 : m->open.ratio_rel == OCMP_LE ? "at most"
                 : m->open.ratio_rel == OCMP_GT ? "more than"
                                                : "less than");
    return 0;
}

static int ocmp_rows(struct cmp *m) {
    double rates[OCMP_MAX_RATES];
    size_t n = ocmp_rates(&m->open, rates, OCMP_MAX_RATES);
    for (size_t i = 0; i < n; i++)
        if (ocmp_rate_rows(m, rates[i]) < 0) return -1;
    if (!m->open.any_slo) return 0;
    if (ocmp_cap_row(m, "capacity_requests_per_second", 2, 0) < 0 ||
        ocmp_cap_row(m, "capacity_tokens_per_second", 2, 1) < 0)
        return -1;
    return m->opts.have_price ? ocmp_cap_row(m, "capacity_usd_per_million_tokens", 2, 2) : 0;
}

/* ---- building ---- */

static int ocmp_side_build(struct ocmp *o, int k, const struct side *s, const char *name,
                           const struct cmp_opts *opts) {
    struct ocmp_side *x = &o->x[k];
    x->s = s;
    x->name = name;
    if (s->rate.n && !(x->p = calloc(s->rate.n, sizeof *x->p))) return -1;
    x->n = s->rate.n;
    for (size_t i = 0; i < x->n; i++) {
        ocmp_point_of(o, s, &s->rate.r[i], &x->p[i]);
        x->streamed |= s->rate.r[i].streamed;
    }
    ocmp_capacity(o, x, opts);
    return 0;
}

int ocmp_build(struct cmp *m, struct warnings *w, struct buf *err) {
    struct ocmp *o = &m->open;
    memset(o, 0, sizeof *o);
    if (m->opts.slo)
        o->slo = *m->opts.slo;
    else
        slo_init(&o->slo);
    o->any_slo = slo_any(&o->slo);
    int rc = ocmp_applies(m, err);
    if (rc < 0) return rc;
    o->have = m->b->rate.n || m->c->rate.n;
    if (!o->have) return 0;
    if (ocmp_side_build(o, 0, m->b, m->bname, &m->opts) < 0 ||
        ocmp_side_build(o, 1, m->c, m->cname, &m->opts) < 0)
        return buf_fail(err, CMP_ERR_NOMEM, "out of memory");
    o->streamed = o->x[0].streamed || o->x[1].streamed;
    ocmp_ratio(o);
    for (int k = 0; k < 2; k++) ocmp_warn_side(o, &o->x[k], w);
    if (ocmp_rows(m) < 0) return buf_fail(err, CMP_ERR_NOMEM, "out of memory");
    return 0;
}

void ocmp_free(struct ocmp *o) {
    for (int k = 0; k < 2; k++) free(o->x[k].p);
    memset(o, 0, sizeof *o);
}

/* ---- text ---- */

void ocmp_slo_phrase(const struct ocmp *o, char *out, size_t cap) {
    size_t k = 0;
    out[0] = '\0';
    for (size_t i = 0; i < o->slo.n && k < cap; i++) {
        char t[80];
        slo_text(&o->slo.s[i], t, sizeof t);
        k += (size_t)snprintf(out + k, cap - k, "%s%s",
                              i ? (i + 1 == o->slo.n ? " and " : ", ") : "", t);
    }
    if (o->slo.attain_given && k < cap)
        k += (size_t)snprintf(out + k, cap - k, ", all met at once by at least %g%% of requests,",
                              100 * o->slo.attain);
    if (k < cap)
        snprintf(out + k, cap - k, "%sat most %g%% failed", k ? " with " : "",
                 100 * o->slo.max_error);
}

void ocmp_verdict_cell(const struct ocmp *o, const struct ocmp_point *p, char *out, size_t cap) {
    size_t k = 0;
    if (p->held) {
        snprintf(out, cap, "held");
        return;
    }
    k = (size_t)snprintf(out, cap, "failed:");
    if (o->slo.attain_given && !p->att.ok && k < cap)
        k += (size_t)snprintf(out + k, cap - k, " %.1f%% met every SLO", 100 * p->att.v);
    for (size_t i = 0; !o->slo.attain_given && i < o->slo.n && k < cap; i++) {
        const struct slo *s = &o->slo.s[i];
        char v[FMT_CELL];
        if (p->check[i].ok) continue;
        fmt_sig(p->check[i].v, v, sizeof v);
        k += (size_t)snprintf(out + k, cap - k, "%s p%g %s %s%s", k > 7 ? "," : "", s->pct,
                              stream_name(s->metric), p->check[i].have ? v : "n/a",
                              p->check[i].have ? " s" : "");
    }
    if (!p->err.ok && k < cap)
        snprintf(out + k, cap - k, "%s %.1f%% failed", k > 7 ? "," : "", 100 * p->err.v);
}

/* A bounded figure in words: "4.34", "at least 8", "less than 1". */
static void ocmp_bound_words(enum ocmp_rel rel, double v, int decimals, char *out, size_t cap) {
    static const char *const words[] = {"",           "",         "at least ",
                                        "more than ", "at most ", "less than "};
    ocmp_bound(words[rel], rel, v, decimals, out, cap);
}

void ocmp_verdict(const struct cmp *m, char *out, size_t cap) {
    const struct ocmp *o = &m->open;
    const struct ocmp_cap *b = &o->x[0].cap, *c = &o->x[1].cap;
    char phrase[600], vb[FMT_CELL], vc[FMT_CELL], ratio[FMT_CELL];
    out[0] = '\0';
    if (!o->have || !o->any_slo) return;
    ocmp_slo_phrase(o, phrase, sizeof phrase);
    ocmp_bound_words(b->rel, b->v, 2, vb, sizeof vb);
    ocmp_bound_words(c->rel, c->v, 2, vc, sizeof vc);
    const char *at = o->slo.n ? "At" : "With"; /* "With at most 1% failed" */
    if (o->ratio_rel == OCMP_NONE) {
        snprintf(out, cap, "%s %s, %s serves %s requests/s and %s %s (no ratio: %s).", at, phrase,
                 m->cname, vc, m->bname, vb, o->ratio_why);
        return;
    }
    ocmp_bound_words(o->ratio_rel, o->ratio, -1, ratio, sizeof ratio);
    snprintf(out, cap, "%s %s, %s serves %s requests/s vs %s for %s (%sx).", at, phrase, m->cname,
             vc, vb, m->bname, ratio);
}
