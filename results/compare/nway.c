#include "nway.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comparison.h"
#include "guard.h"
#include "inputs.h"

#define NWAY_ERR_MAX 4096

/* The baseline's index, or an error naming the labels there are. */
static int nway_find_base(struct nway *w, const char *dir, const char *label, struct buf *err) {
    w->base = 0;
    if (!label) return 0;
    for (size_t i = 0; i < w->file.n; i++)
        if (strcmp(w->file.c[i].label, label) == 0) {
            w->base = i;
            return 0;
        }
    char labels[1200] = "";
    for (size_t i = 0; i < w->file.n; i++) {
        size_t len = strlen(labels);
        snprintf(labels + len, sizeof labels - len, "%s%s", i ? ", " : "", w->file.c[i].label);
    }
    return buf_fail(err, NWAY_ERR_INPUT, "--baseline %.64s: no such candidate in %s/%s (%s)", label,
                    dir, CANDFILE_NAME, labels);
}

/* The SLOs: those given, else candidates.json's. */
static int nway_slo(struct nway *w, const struct nway_opts *o, struct buf *err) {
    if (o->slo && o->slo->n) {
        w->slo = *o->slo;
    } else {
        if (o->slo)
            w->slo = *o->slo;
        else
            slo_init(&w->slo);
        if (!w->file.slo[0])
            return buf_fail(err, NWAY_ERR_INPUT,
                            "%s/%s names no SLO: give the one the capacities were searched at "
                            "(--slo METRIC:pQ:SECONDS)",
                            o->dir, CANDFILE_NAME);
        struct buf e;
        buf_init(&e, NWAY_ERR_MAX);
        int rc = slo_parse(&w->slo, w->file.slo, &e);
        if (rc < 0)
            buf_fail(err, NWAY_ERR_INPUT, "%s/%s: slo: %s", o->dir, CANDFILE_NAME, buf_str(&e));
        buf_free(&e);
        if (rc < 0) return NWAY_ERR_INPUT;
    }
    slo_text(&w->slo.s[0], w->slo_text, sizeof w->slo_text);
    return 0;
}

/* Reads candidate c's folder into its side; why in e. */
static int nway_read(const struct nway *w, const struct nway_opts *o, struct nway_cand *c,
                     struct warnings *warn, struct buf *e) {
    char path[4200];
    char *paths[1] = {path};
    struct inputs in = {0};
    snprintf(path, sizeof path, "%s/%s", o->dir, c->f.folder);
    int rc = inputs_read(paths, 1, NULL, o->qz, &w->slo, &in, warn, e);
    if (rc == 0)
        rc = side_build(&c->side, c == &w->c[w->base] ? "baseline" : "candidate", &in, warn, e);
    c->read = rc == 0;
    inputs_free(&in);
    return rc;
}

/* The requests of x's rounds. */
static void nway_count(const struct openloop_cmp_side *x, long *sent, long *ok) {
    *sent = *ok = 0;
    for (size_t i = 0; i < x->n; i++) {
        *sent += x->p[i].r->tally.sent;
        *ok += x->p[i].r->tally.ok;
    }
}

/* USD per million tokens when serving rate requests/s of tpr tokens each. */
static double nway_usd(double usd_per_hour, double rate, double tpr) {
    double tokens = rate * tpr;
    return isfinite(usd_per_hour) && tokens > 0 ? usd_per_hour * 1e6 / (3600 * tokens) : NAN;
}

/* Candidate c's own figures, from its comparison with the baseline. */
static void nway_figures(const struct nway *w, struct nway_cand *c) {
    const struct openloop_cmp_side *x = &c->m.open.x[1];
    const struct cmp_row *q = cmp_row(&c->m, "quality_correct");
    c->cap = x->cap;
    nway_count(x, &c->sent, &c->ok);
    c->lat = c->usd = c->usd_lo = c->usd_hi = NAN;
    if (q && q->c.ok && q->c_total > 0) {
        c->quiz_correct = (long)q->c.v;
        c->quiz_total = q->c_total;
    }
    const struct openloop_cmp_point *p =
        isfinite(c->cap.pass) ? openloop_cmp_point(x, c->cap.pass) : NULL;
    if (p && p->check[0].have) {
        c->lat = p->check[0].v;
        c->lat_n = p->lat[w->slo.s[0].metric].requests;
    }
    double tpr = c->cap.tokens_per_request;
    bool held = c->cap.rel == OPENLOOP_CMP_EQ || c->cap.rel == OPENLOOP_CMP_GE;
    c->usd = held ? nway_usd(c->f.usd_per_hour, c->cap.v, tpr) : NAN;
    c->usd_hi = held ? nway_usd(c->f.usd_per_hour, c->cap.pass, tpr) : NAN;
    c->usd_lo = c->cap.rel == OPENLOOP_CMP_EQ ? nway_usd(c->f.usd_per_hour, c->cap.fail, tpr) : NAN;
    if (c->cap.rel == OPENLOOP_CMP_NONE)
        snprintf(c->excluded, sizeof c->excluded, "no open-loop run: no capacity at the SLO");
    else if (c->cap.rel == OPENLOOP_CMP_LT && c->cap.by == -1)
        snprintf(c->excluded, sizeof c->excluded,
                 "it had errors: more than %g%% of the requests failed at every rate (capacity "
                 "< %g requests/s)",
                 w->slo.max_error * 100, c->cap.v);
    else if (c->cap.rel == OPENLOOP_CMP_LT)
        snprintf(c->excluded, sizeof c->excluded,
                 "its search failed: no rate met %s (capacity < %g requests/s)", w->slo_text,
                 c->cap.v);
    else if (!isfinite(c->f.usd_per_hour))
        snprintf(c->excluded, sizeof c->excluded, "no price (candidates.json's usd_per_hour)");
    else if (!isfinite(c->usd))
        snprintf(c->excluded, sizeof c->excluded, "no successful request: no tokens per second");
}

/* c / b with the range of [clo, chi] / [blo, bhi] (NAN ends: unbounded). */
static void nway_div(struct nway_ratio *r, double c, double clo, double chi, double b, double blo,
                     double bhi) {
    r->ok = isfinite(c) && isfinite(b) && b > 0;
    r->v = r->ok ? c / b : NAN;
    r->lo = isfinite(clo) && isfinite(bhi) && bhi > 0 ? clo / bhi : NAN;
    r->hi = isfinite(chi) && isfinite(blo) && blo > 0 ? chi / blo : NAN;
}

static void nway_ratios(struct nway_cand *c, const struct nway_cand *b) {
    const struct openloop_cmp_cap *cc = &c->cap, *bc = &b->cap;
    nway_div(&c->r_cap, cc->v, cc->pass, cc->fail, bc->v, bc->pass, bc->fail);
    c->r_cap.rel = c->m.open.ratio_rel;
    c->r_cap.ok = c->m.open.ratio_rel != OPENLOOP_CMP_NONE;
    c->r_cap.v = c->r_cap.ok ? c->m.open.ratio : NAN;
    nway_div(&c->r_lat, c->lat, NAN, NAN, b->lat, NAN, NAN);
    nway_div(&c->r_usd, c->usd, c->usd_lo, c->usd_hi, b->usd, b->usd_lo, b->usd_hi);
    /* the cost is price / capacity: its ratio bounds the other way */
    static const enum openloop_cmp_rel inverse[] = {OPENLOOP_CMP_NONE, OPENLOOP_CMP_EQ,
                                                    OPENLOOP_CMP_LE,   OPENLOOP_CMP_LT,
                                                    OPENLOOP_CMP_GE,   OPENLOOP_CMP_GT};
    c->r_usd.rel = inverse[c->r_cap.rel];
    c->r_usd.ok = c->r_usd.ok && c->r_cap.ok;
    if (!c->r_usd.ok) c->r_usd.v = NAN;
}

/* Reads and compares candidate i with the baseline; a failure leaves it out with why
 * (the baseline's is the whole run's error). */
static int nway_one(struct nway *w, const struct nway_opts *o, size_t i, struct warnings *warn,
                    struct buf *err) {
    struct nway_cand *c = &w->c[i], *b = &w->c[w->base];
    struct cmp_opts co = {false, 0, &w->slo, o->margin};
    struct buf e;
    buf_init(&e, NWAY_ERR_MAX);
    const char *what = "cannot be read";
    int rc = i == w->base ? 0 : nway_read(w, o, c, warn, &e);
    if (rc == 0 && i != w->base) {
        what = "does not compare with the baseline";
        rc = guard_check(&b->side, &c->side, o->allow_mixed, warn, &e);
    }
    if (rc == 0) {
        what = "cannot be compared";
        rc = comparison_build(&c->m, &b->side, &c->side, &co, &e);
        c->compared = rc == 0;
    }
    if (rc == CMP_ERR_NOMEM)
        rc = buf_fail(err, NWAY_ERR_NOMEM, "out of memory");
    else if (rc < 0 && i == w->base)
        rc = buf_fail(err, NWAY_ERR_INPUT, "baseline %s %s: %s", c->f.label, what, buf_str(&e));
    else if (rc < 0)
        snprintf(c->excluded, sizeof c->excluded, "%s: %s", what, buf_str(&e));
    buf_free(&e);
    if (rc < 0 && i == w->base) return rc;
    if (c->compared) nway_figures(w, c);
    return rc == NWAY_ERR_NOMEM ? rc : 0;
}

int nway_build(struct nway *w, const struct nway_opts *o, struct warnings *warn, struct buf *err) {
    memset(w, 0, sizeof *w);
    int rc = candfile_read(o->dir, &w->file, err);
    if (rc < 0) return rc == CANDFILE_ERR_NOMEM ? NWAY_ERR_NOMEM : NWAY_ERR_INPUT;
    if (nway_find_base(w, o->dir, o->baseline, err) < 0 || nway_slo(w, o, err) < 0)
        return NWAY_ERR_INPUT;
    w->n = w->file.n;
    if (!(w->c = calloc(w->n, sizeof *w->c))) return buf_fail(err, NWAY_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < w->n; i++) {
        struct nway_cand *c = &w->c[i];
        c->f = w->file.c[i];
        c->lat = c->usd = c->usd_lo = c->usd_hi = NAN;
    }
    struct nway_cand *b = &w->c[w->base];
    struct buf e;
    buf_init(&e, NWAY_ERR_MAX);
    rc = nway_read(w, o, b, warn, &e);
    if (rc < 0)
        buf_fail(err, rc == BUF_ERR_NOMEM ? NWAY_ERR_NOMEM : NWAY_ERR_INPUT,
                 "baseline %s cannot be read: %s", b->f.label, buf_str(&e));
    buf_free(&e);
    if (rc < 0) return rc == BUF_ERR_NOMEM ? NWAY_ERR_NOMEM : NWAY_ERR_INPUT;
    if ((rc = nway_one(w, o, w->base, warn, err)) < 0) return rc;
    for (size_t i = 0; i < w->n; i++)
        if (i != w->base && (rc = nway_one(w, o, i, warn, err)) < 0) return rc;
    for (size_t i = 0; i < w->n; i++) {
        struct nway_cand *c = &w->c[i];
        if (c->compared) nway_ratios(c, b);
        w->items[i] =
            (struct pareto_item){c->excluded[0] != '\0', c->usd, c->usd_lo, c->usd_hi, c->lat};
    }
    pareto_choose(w->items, w->n, &w->pr);
    return 0;
}

void nway_free(struct nway *w) {
    for (size_t i = 0; w->c && i < w->n; i++) {
        cmp_free(&w->c[i].m);
        if (w->c[i].read) side_free(&w->c[i].side);
    }
    free(w->c);
    memset(w, 0, sizeof *w);
}
