#include "openrows.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "openloop_cmp.h"
#include "side.h"
#include "stream.h"

static void openrows_val(struct side_val *v, const struct openloop_cmp_side *x, double rate,
                         double value, const char *what) {
    if (!x->n)
        side_val_none(v, "no open-loop run on the %s side", x->s->role);
    else if (!openloop_cmp_point(x, rate))
        side_val_none(v, "%g requests/s not measured on the %s side", rate, x->s->role);
    else if (!isfinite(value))
        side_val_none(v, "%s", what);
    else
        side_val_set(v, value);
}

/* A figure of a point (arg: which). */
typedef double openrows_pick(const struct openloop_cmp_point *p, int arg);

static double openrows_pick_field(const struct openloop_cmp_point *p, int arg) {
    const double *f[] = {&p->arrival,    &p->completion, &p->tokens,     &p->goodput,
                         &p->attainment, &p->errors,     &p->late_share, &p->late_p99};
    return *f[arg];
}

static double openrows_pick_lat(const struct openloop_cmp_point *p, int arg) {
    const struct openloop_cmp_lat *l = &p->lat[arg / STREAM_QUANTILES];
    return l->ok ? l->q[arg % STREAM_QUANTILES] : NAN;
}

static double openrows_pick_held(const struct openloop_cmp_point *p, int arg) {
    (void)arg;
    return p->held ? 1 : 0;
}

/* One row of rate: each side's value pick(p, arg), the ratio unless no_ratio. */
static int openrows_row(struct cmp *m, double rate, const char *what, int decimals,
                        openrows_pick *pick, int arg, const char *none, bool no_ratio) {
    char name[128];
    snprintf(name, sizeof name, "rate_%g_%s", rate, what);
    struct cmp_row *r = cmp_add_row(m, name, CMP_OPEN, decimals);
    if (!r) return -1;
    r->no_ratio = no_ratio;
    for (int k = 0; k < 2; k++) {
        const struct openloop_cmp_side *x = &m->open.x[k];
        const struct openloop_cmp_point *p = openloop_cmp_point(x, rate);
        struct side_val *v = k ? &r->c : &r->b;
        openrows_val(v, x, rate, p ? pick(p, arg) : NAN, none);
        if (p && !v->ok && pick == openrows_pick_lat && arg / STREAM_QUANTILES == STREAM_ITL &&
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

static int openrows_rate_rows(struct cmp *m, double rate) {
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
        if (openrows_row(m, rate, fields[i].what, fields[i].decimals, openrows_pick_field, i,
                         fields[i].none, fields[i].no_ratio) < 0)
            return -1;
    }
    for (int j = 0; j < STREAM_METRICS; j++) {
        enum stream_metric k = openloop_cmp_order[j];
        if (k != STREAM_E2E && !m->open.streamed) continue;
        for (int q = 0; q < STREAM_QUANTILES; q++) {
            char what[48];
            snprintf(what, sizeof what, "%s_p%.0f_seconds", stream_name(k),
                     100 * stream_quantiles[q]);
            if (openrows_row(m, rate, what, k == STREAM_ITL || k == STREAM_TPOT ? 4 : 3,
                             openrows_pick_lat, (int)k * STREAM_QUANTILES + q, "no value",
                             false) < 0)
                return -1;
        }
    }
    return m->open.any_slo
               ? openrows_row(m, rate, "slos_held", 0, openrows_pick_held, 0, "no value", true)
               : 0;
}

/* The bound a capacity's relation makes of its value. */
static enum cmp_bound openrows_bound(enum openloop_cmp_rel rel) {
    return rel == OPENLOOP_CMP_GE   ? CMP_AT_LEAST
           : rel == OPENLOOP_CMP_LE ? CMP_AT_MOST
           : rel == OPENLOOP_CMP_GT ? CMP_MORE_THAN
           : rel == OPENLOOP_CMP_LT ? CMP_LESS_THAN
                                    : CMP_EXACT;
}

/* One capacity row: each side's figure, and whether it is a bound. */
static int openrows_cap_row(struct cmp *m, const char *name, int decimals, int which) {
    struct cmp_row *r = cmp_add_row(m, name, CMP_OPEN, decimals);
    if (!r) return -1;
    for (int s = 0; s < 2; s++) {
        const struct openloop_cmp_cap *c = &m->open.x[s].cap;
        struct side_val *v = s ? &r->c : &r->b;
        double x = which == 0 ? c->v : which == 1 ? c->tokens : c->usd;
        enum openloop_cmp_rel rel = c->rel;
        if (which == 2 &&
            (rel == OPENLOOP_CMP_GE || rel == OPENLOOP_CMP_LT)) /* a cost falls as capacity grows */
            rel = rel == OPENLOOP_CMP_GE ? OPENLOOP_CMP_LE : OPENLOOP_CMP_GT;
        if (c->rel == OPENLOOP_CMP_NONE)
            side_val_none(v, "no open-loop run on the %s side", s ? "candidate" : "baseline");
        else if (!isfinite(x))
            side_val_none(v, "no tokens were served");
        else
            side_val_set(v, x);
        if (v->ok) *(s ? &r->bound_c : &r->bound_b) = openrows_bound(rel);
    }
    r->no_ratio = which != 0;
    if (which == 0 && m->open.ratio_rel == OPENLOOP_CMP_NONE)
        side_val_none(&r->ratio, "%s", openloop_cmp_noratio_why(m->open.ratio_none));
    else if (which == 0)
        side_val_set(&r->ratio, m->open.ratio);
    if (which == 0 && r->ratio.ok) r->bound_ratio = openrows_bound(m->open.ratio_rel);
    return 0;
}

int openrows_add(struct cmp *m) {
    double rates[OPENLOOP_CMP_MAX_RATES];
    size_t n = openloop_cmp_rates(&m->open, rates, OPENLOOP_CMP_MAX_RATES);
    for (size_t i = 0; i < n; i++)
        if (openrows_rate_rows(m, rates[i]) < 0) return -1;
    if (!m->open.any_slo) return 0;
    if (openrows_cap_row(m, "capacity_requests_per_second", 2, 0) < 0 ||
        openrows_cap_row(m, "capacity_tokens_per_second", 2, 1) < 0)
        return -1;
    return m->opts.have_price ? openrows_cap_row(m, "capacity_usd_per_million_tokens", 2, 2) : 0;
}
