#include "openloop_cmp.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estim.h"

const enum stream_metric openloop_cmp_order[STREAM_METRICS] = {STREAM_E2E, STREAM_TTFT, STREAM_TPOT,
                                                               STREAM_ITL};

const struct openloop_cmp_point *openloop_cmp_point(const struct openloop_cmp_side *x,
                                                    double rate) {
    for (size_t i = 0; i < x->n; i++)
        if (x->p[i].rate == rate) return &x->p[i];
    return NULL;
}

size_t openloop_cmp_rates(const struct openloop_cmp *o, double *out, size_t cap) {
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
static const struct src *openloop_cmp_unstreamed(const struct side *s) {
    for (size_t i = 0; i < s->in.n; i++)
        if (s->in.srcs[i].rate && !s->in.srcs[i].streamed) return &s->in.srcs[i];
    return NULL;
}

static int openloop_cmp_applies(const struct openloop_cmp *o, const struct side *b,
                                const struct side *c, struct buf *err) {
    const struct slo_set *set = &o->slo;
    if (!slo_any(set)) return 0;
    if (!b->rate.n && !c->rate.n)
        return buf_fail(err, OPENLOOP_CMP_ERR_INPUT,
                        "--slo and --max-error-rate judge open-loop runs (rate.lua), and neither "
                        "side has one");
    for (size_t i = 0; i < set->n; i++) {
        char key[48];
        if (set->s[i].metric == STREAM_E2E) continue;
        for (int k = 0; k < 2; k++) {
            const struct side *s = k ? c : b;
            const struct src *u = openloop_cmp_unstreamed(s);
            if (!u) continue;
            slo_key(&set->s[i], key, sizeof key);
            return buf_fail(err, OPENLOOP_CMP_ERR_INPUT,
                            "--slo %s: the %s %s did not stream its replies (%s): it has no %s "
                            "(measure with sm-stream)",
                            key, s->role, u->path, u->client ? u->client : "wrk",
                            slo_metric_text(set->s[i].metric));
        }
    }
    return 0;
}

/* ---- one side's points ---- */

static void openloop_cmp_lat(const struct stream_sample *x, enum stream_metric k,
                             struct openloop_cmp_lat *out) {
    memset(out, 0, sizeof *out);
    out->ok = x->n > 0 && x->total > 0;
    out->requests = x->requests;
    out->tokens = k == STREAM_ITL ? x->total : 0;
    for (int i = 0; out->ok && i < STREAM_QUANTILES; i++)
        out->q[i] = estim_cquantile(x->x, x->n, x->total, stream_quantiles[i]);
}

/* The SLO verdicts of point p. */
static void openloop_cmp_checks(const struct openloop_cmp *o, struct openloop_cmp_point *p) {
    const struct slo_set *set = &o->slo;
    p->held = true;
    for (size_t i = 0; i < set->n; i++) {
        const struct stream_sample *x = &p->r->stream.s[set->s[i].metric];
        struct openloop_cmp_check *c = &p->check[i];
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

static void openloop_cmp_point_of(const struct openloop_cmp *o, const struct side *s,
                                  const struct openloop_round *r, struct openloop_cmp_point *p) {
    memset(p, 0, sizeof *p);
    p->r = r;
    p->rate = r->rate;
    p->arrival = openloop_arrival_rate(r);
    p->completion = openloop_completion_rate(r);
    p->tokens = openloop_tokens_rate(r);
    p->goodput = o->any_slo ? openloop_goodput(r) : NAN;
    p->errors = openloop_error_share(r);
    p->attainment = o->slo.n ? openloop_attainment(r) : NAN;
    p->late_share = openloop_late_share(r);
    p->late_p99 = openloop_late_p99(r);
    for (int k = 0; k < STREAM_METRICS; k++)
        openloop_cmp_lat(&r->stream.s[k], (enum stream_metric)k, &p->lat[k]);
    if (p->lat[STREAM_ITL].ok &&
        !climit_itl(r->stream.gaps, r->stream.burst, p->itl_why, sizeof p->itl_why))
        p->lat[STREAM_ITL].ok = false; /* a gap of a burst says nothing: no ITL, nor its SLO */
    climit_judge(&s->client, p->late_share, p->limited, sizeof p->limited);
    if (o->any_slo) openloop_cmp_checks(o, p);
}

/* ---- capacity ---- */

/* Where the straight line through (r0, v0) and (r1, v1) reaches bound, for v0
 * <= bound < v1; r0 when v1 is unknown. */
static double openloop_cmp_cross(double r0, double v0, double r1, double v1, double bound) {
    if (!isfinite(v1) || !(v1 > v0)) return r0;
    return r0 + (r1 - r0) * (bound - v0) / (v1 - v0);
}

/* The rate between points a (held) and f (failed) at which the first of f's
 * failed SLOs is reached; *by: which. */
static double openloop_cmp_between(const struct openloop_cmp *o, const struct openloop_cmp_point *a,
                                   const struct openloop_cmp_point *f, int *by) {
    double best = f->rate;
    *by = -2;
    if (o->slo.attain_given && !f->att.ok) { /* the share missing an SLO grows with the rate */
        best = openloop_cmp_cross(a->rate, 1 - a->att.v, f->rate, f->att.have ? 1 - f->att.v : NAN,
                                  1 - o->slo.attain);
        *by = -3;
    }
    for (size_t i = 0; !o->slo.attain_given && i < o->slo.n; i++) {
        if (f->check[i].ok) continue;
        double r = openloop_cmp_cross(a->rate, a->check[i].v, f->rate,
                                      f->check[i].have ? f->check[i].v : NAN, o->slo.s[i].bound);
        if (*by == -2 || r < best) {
            best = r;
            *by = (int)i;
        }
    }
    if (!f->err.ok) {
        double r = openloop_cmp_cross(a->rate, a->err.v, f->rate, f->err.have ? f->err.v : NAN,
                                      o->slo.max_error);
        if (*by == -2 || r < best) {
            best = r;
            *by = -1;
        }
    }
    return best;
}

/* The first failed SLO of point f, for "limited by". */
static int openloop_cmp_first_failed(const struct openloop_cmp *o,
                                     const struct openloop_cmp_point *f) {
    if (o->slo.attain_given && !f->att.ok) return -3;
    for (size_t i = 0; !o->slo.attain_given && i < o->slo.n; i++)
        if (!f->check[i].ok) return (int)i;
    return f->err.ok ? -2 : -1;
}

static void openloop_cmp_capacity(const struct openloop_cmp *o, struct openloop_cmp_side *x,
                                  const struct openloop_cmp_opts *opts) {
    struct openloop_cmp_cap *c = &x->cap;
    double tokens = 0, ok = 0;
    size_t f = 0;
    memset(c, 0, sizeof *c);
    c->v = c->pass = c->fail = c->tokens = c->usd = c->tokens_per_request = NAN;
    c->by = -2;
    if (!o->any_slo || !x->n) return;
    while (f < x->n && x->p[f].held) f++;
    for (size_t i = f + 1; i < x->n; i++) c->nonmonotone |= x->p[i].held;
    if (f == x->n) {
        c->rel = OPENLOOP_CMP_GE;
        c->v = c->pass = x->p[x->n - 1].rate;
    } else if (f == 0) {
        c->rel = OPENLOOP_CMP_LT;
        c->v = c->fail = x->p[0].rate;
        c->by = openloop_cmp_first_failed(o, &x->p[0]);
    } else {
        c->rel = OPENLOOP_CMP_EQ;
        c->pass = x->p[f - 1].rate;
        c->fail = x->p[f].rate;
        c->v = openloop_cmp_between(o, &x->p[f - 1], &x->p[f], &c->by);
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
static void openloop_cmp_ratio(struct openloop_cmp *o) {
    static const enum openloop_cmp_rel table[3][3] = {
        /* c \ b:   EQ         GE         LT */
        /* EQ */ {OPENLOOP_CMP_EQ, OPENLOOP_CMP_LE, OPENLOOP_CMP_GT},
        /* GE */ {OPENLOOP_CMP_GE, OPENLOOP_CMP_NONE, OPENLOOP_CMP_GT},
        /* LT */ {OPENLOOP_CMP_LT, OPENLOOP_CMP_LT, OPENLOOP_CMP_NONE},
    };
    const struct openloop_cmp_cap *b = &o->x[0].cap, *c = &o->x[1].cap;
    o->ratio_rel = OPENLOOP_CMP_NONE;
    o->ratio = NAN;
    if (!o->any_slo) {
        o->ratio_none = OPENLOOP_CMP_NORATIO_NO_SLO;
        return;
    }
    if (b->rel == OPENLOOP_CMP_NONE || c->rel == OPENLOOP_CMP_NONE) {
        o->ratio_none = b->rel == OPENLOOP_CMP_NONE ? OPENLOOP_CMP_NORATIO_NO_RUN_B
                                                    : OPENLOOP_CMP_NORATIO_NO_RUN_C;
        return;
    }
    int ib = b->rel == OPENLOOP_CMP_EQ ? 0 : b->rel == OPENLOOP_CMP_GE ? 1 : 2;
    int ic = c->rel == OPENLOOP_CMP_EQ ? 0 : c->rel == OPENLOOP_CMP_GE ? 1 : 2;
    o->ratio_rel = table[ic][ib];
    if (o->ratio_rel == OPENLOOP_CMP_NONE) {
        o->ratio_none = b->rel == OPENLOOP_CMP_GE ? OPENLOOP_CMP_NORATIO_ALL_HELD
                                                  : OPENLOOP_CMP_NORATIO_NONE_HELD;
        return;
    }
    o->ratio = c->v / b->v;
}

/* ---- building ---- */

static int openloop_cmp_side_build(struct openloop_cmp *o, int k, const struct side *s,
                                   const char *name, const struct openloop_cmp_opts *opts) {
    struct openloop_cmp_side *x = &o->x[k];
    x->s = s;
    x->name = name;
    if (s->rate.n && !(x->p = calloc(s->rate.n, sizeof *x->p))) return -1;
    x->n = s->rate.n;
    for (size_t i = 0; i < x->n; i++) {
        openloop_cmp_point_of(o, s, &s->rate.r[i], &x->p[i]);
        x->streamed |= s->rate.r[i].streamed;
    }
    openloop_cmp_capacity(o, x, opts);
    return 0;
}

int openloop_cmp_build(struct openloop_cmp *o, const struct side *b, const struct side *c,
                       const char *const names[2], const struct openloop_cmp_opts *opts,
                       struct buf *err) {
    memset(o, 0, sizeof *o);
    if (opts->slo)
        o->slo = *opts->slo;
    else
        slo_init(&o->slo);
    o->any_slo = slo_any(&o->slo);
    o->have_price = opts->have_price;
    o->price = opts->price;
    int rc = openloop_cmp_applies(o, b, c, err);
    if (rc < 0) return rc;
    o->have = b->rate.n || c->rate.n;
    if (!o->have) return 0;
    if (openloop_cmp_side_build(o, 0, b, names[0], opts) < 0 ||
        openloop_cmp_side_build(o, 1, c, names[1], opts) < 0)
        return buf_fail(err, OPENLOOP_CMP_ERR_NOMEM, "out of memory");
    o->streamed = o->x[0].streamed || o->x[1].streamed;
    openloop_cmp_ratio(o);
    return 0;
}

const char *openloop_cmp_noratio_why(enum openloop_cmp_noratio why) {
    static const char *const text[] = {
        "",
        "no SLO given (--slo, --max-error-rate)",
        "no open-loop run on the baseline side",
        "no open-loop run on the candidate side",
        "both capacities are bounded the same way: every rate held on both sides",
        "both capacities are bounded the same way: no rate held on either",
    };
    return text[why];
}

void openloop_cmp_free(struct openloop_cmp *o) {
    for (int k = 0; k < 2; k++) free(o->x[k].p);
    memset(o, 0, sizeof *o);
}
