#include "interval.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void interval_none(struct interval *ci, const char *fmt, ...) {
    va_list ap;
    ci->ok = false;
    ci->lo = ci->hi = 0;
    va_start(ap, fmt);
    vsnprintf(ci->why, sizeof ci->why, fmt, ap);
    va_end(ap);
}

static void interval_fig_none(struct interval_fig *fig, struct interval *ci, const char *why) {
    fig->ok = false;
    snprintf(fig->why, sizeof fig->why, "%s", why);
    interval_none(ci, "%s", why);
}

static void interval_set(struct interval *ci, double lo, double hi) {
    ci->ok = isfinite(lo) && isfinite(hi);
    ci->lo = lo;
    ci->hi = hi;
    if (!ci->ok) interval_none(ci, "no finite interval");
}

/* The bias bound of a time-scaled run on a time of t seconds (real units). */
static double interval_bias(double scale, double t) {
    return scale != 1 && t > 0 ? scale * INTERVAL_SCALED_BIAS_S / t : 0;
}

void interval_batches(const double *x, size_t n, double scale, double wall,
                      struct interval_fig *fig, struct interval *ci) {
    char why[96];
    double *s = n >= INTERVAL_MIN_BATCHES ? malloc(n * sizeof *s) : NULL;
    *fig = (struct interval_fig){.ok = true, .kind = INTERVAL_MEDIAN, .n = n};
    if (!s) {
        snprintf(why, sizeof why,
                 n < INTERVAL_MIN_BATCHES ? "n = %zu: no interval" : "out of memory", n);
        interval_fig_none(fig, ci, why);
        return;
    }
    memcpy(s, x, n * sizeof *s);
    estim_sort(s, n);
    double lo, hi, achieved, med = estim_quantile(s, n, 0.5);
    if (!(med > 0) || estim_log_median_se(s, n, &fig->log_se) < 0) {
        free(s);
        interval_fig_none(fig, ci, "a batch served no tokens");
        return;
    }
    fig->log_median = log(med);
    fig->up = interval_bias(scale, wall); /* long times read as lower throughput */
    estim_median_ci(s, n, INTERVAL_LEVEL, &lo, &hi, &achieved);
    free(s);
    interval_set(ci, lo, hi * (1 + fig->up));
}

/* The decode rate's figure and interval from the difference of mean walls d. */
static void interval_rate(int S, int L, const struct estim_norm *d, double scale,
                          struct interval_fig *rate, struct interval *ci) {
    double lo, hi;
    *rate = (struct interval_fig){
        .ok = true, .kind = INTERVAL_NORMAL, .norm = *d, .inverse = true, .k = L - S};
    if (!(d->est > 0)) {
        interval_fig_none(rate, ci, "the long replies were not slower");
        return;
    }
    estim_t_interval(d, INTERVAL_LEVEL, &lo, &hi);
    if (!(lo > 0)) {
        interval_fig_none(rate, ci, "the walls do not separate the two lengths");
        return;
    }
    rate->up = rate->down = interval_bias(scale, d->est);
    interval_set(ci, (L - S) / hi * (1 - rate->down), (L - S) / lo * (1 + rate->up));
}

void interval_decode(int S, int L, const double *ws, size_t ns, const double *wl, size_t nl,
                     double scale, struct interval_fig *rate, struct interval *rate_ci,
                     struct interval_fig *fixed, struct interval *fixed_ci) {
    struct estim_norm ms, ml;
    char why[96];
    size_t n = ns < nl ? ns : nl;
    if (n < INTERVAL_MIN_WALLS || L <= S || estim_mean(ws, ns, &ms) < 0 ||
        estim_mean(wl, nl, &ml) < 0) {
        snprintf(why, sizeof why, "n = %zu: no interval", n);
        *rate = *fixed = (struct interval_fig){.ok = false};
        interval_fig_none(rate, rate_ci, why);
        interval_fig_none(fixed, fixed_ci, why);
        return;
    }
    struct estim_norm d = estim_lincomb(1, &ml, -1, &ms);
    interval_rate(S, L, &d, scale, rate, rate_ci);
    /* fixed = mean S - S (mean L - mean S) / (L - S): the intercept of the least-squares
     * line of wall on tokens, with the line's pooled scatter (df ns + nl - 2) */
    double span = L - S, lo, hi, a = L / span, b = S / span;
    double pooled =
        (ms.var * (double)ns * (double)(ns - 1) + ml.var * (double)nl * (double)(nl - 1)) /
        (double)(ns + nl - 2);
    *fixed = (struct interval_fig){.ok = true, .kind = INTERVAL_NORMAL};
    fixed->norm.est = a * ms.est - b * ml.est;
    fixed->norm.var = pooled * (a * a / (double)ns + b * b / (double)nl);
    fixed->norm.df = (double)(ns + nl - 2);
    fixed->down = interval_bias(scale, fixed->norm.est); /* long times read as a higher cost */
    estim_t_interval(&fixed->norm, INTERVAL_LEVEL, &lo, &hi);
    interval_set(fixed_ci, lo * (1 - fixed->down), hi);
}

/* The degrees of freedom whose t quantile at the interval's level is about
 * mult (INFINITY when mult is the normal one's or less): the Cornish-Fisher
 * expansion t = z + a / df + b / df^2 solved for df. */
static double interval_df_of(double mult) {
    double z = estim_t_quantile(0.5 + INTERVAL_LEVEL / 2, INFINITY), d = mult - z;
    double a = (z * z * z + z) / 4, b = (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / 96;
    if (!(d > 1e-12)) return INFINITY;
    return 2 * b / (sqrt(a * a + 4 * b * d) - a);
}

/* The fewest independent observations that give quantile q a distribution-free
 * interval at the level: neither q^n nor (1 - q)^n above its tail. */
static double interval_fewest(double q) {
    return ceil(log((1 - INTERVAL_LEVEL) / 2) / log(q > 0.5 ? q : 1 - q));
}

void interval_quantile(const struct estim_cval *x, size_t n, uint32_t m, uint64_t total, double q,
                       double up, double down, struct interval_fig *fig, struct interval *ci) {
    char why[96];
    double se, p = 0.5 + INTERVAL_LEVEL / 2;
    *fig =
        (struct interval_fig){.ok = true, .kind = INTERVAL_CLUSTER, .n = m, .up = up, .down = down};
    snprintf(why, sizeof why, "n = %u: no interval", (unsigned)m);
    if (m < INTERVAL_MIN_CLUSTERS || !n || !total) {
        interval_fig_none(fig, ci, why);
        return;
    }
    double v = estim_cquantile(x, n, total, q);
    if (estim_cshare_se(x, n, m, v, q, &se) < 0) {
        interval_fig_none(fig, ci, "out of memory");
        return;
    }
    /* Korn and Graubard: the effective sample n_eff = q (1 - q) / se^2, its
     * variance known to m - 1 degrees of freedom */
    double neff = se > 0 ? q * (1 - q) / (se * se) : INFINITY;
    double tm = estim_t_quantile(p, m - 1.0), tn = estim_t_quantile(p, fmax(neff, m) - 1);
    double mult = estim_t_quantile(p, INFINITY) * tm / tn;
    double plo = q - mult * se, phi = q + mult * se;
    if (plo < 0 || phi > 1 || neff * (tn / tm) * (tn / tm) < interval_fewest(q)) {
        snprintf(why, sizeof why, "n = %u: too few for an interval of p%g", (unsigned)m, 100 * q);
        interval_fig_none(fig, ci, why);
        return;
    }
    double lo = estim_cquantile(x, n, total, plo), hi = estim_cquantile(x, n, total, phi);
    interval_set(ci, fmax(0, lo * (1 - down)), hi * (1 + up));
    if (!(lo > 0) || !(v > 0)) {
        fig->ok = false;
        snprintf(fig->why, sizeof fig->why, "the interval reaches 0");
        return;
    }
    fig->log_median = log(v);
    fig->log_se = (log(hi) - log(lo)) / (2 * mult);
    fig->df = interval_df_of(mult);
}

void interval_ratio(const struct interval_fig *b, const struct interval_fig *c,
                    struct interval *ci) {
    double lo = 0, hi = 0, k = 1;
    if (!b->ok || !c->ok) {
        interval_none(ci, "%s", !b->ok ? b->why : c->why);
        return;
    }
    int rc = 0;
    if (b->kind != c->kind) {
        rc = -1;
    } else if (b->kind == INTERVAL_MEDIAN &&
               (b->n < INTERVAL_MIN_BATCHES_RATIO || c->n < INTERVAL_MIN_BATCHES_RATIO)) {
        interval_none(ci, "n = %zu: no interval for the ratio (%d batches per side needed)",
                      b->n < c->n ? b->n : c->n, INTERVAL_MIN_BATCHES_RATIO);
        return;
    } else if (b->kind == INTERVAL_MEDIAN) { /* Bonett and Price: the log of the ratio */
        double z = estim_t_quantile(0.5 + INTERVAL_LEVEL / 2, INFINITY);
        double se = sqrt(b->log_se * b->log_se + c->log_se * c->log_se);
        lo = exp(c->log_median - b->log_median - z * se);
        hi = exp(c->log_median - b->log_median + z * se);
    } else if (b->kind == INTERVAL_CLUSTER) { /* the log ratio of two quantiles */
        double u = b->log_se * b->log_se, v = c->log_se * c->log_se;
        double t = estim_t_quantile(0.5 + INTERVAL_LEVEL / 2, estim_ws_df(u, b->df, v, c->df));
        lo = exp(c->log_median - b->log_median - t * sqrt(u + v));
        hi = exp(c->log_median - b->log_median + t * sqrt(u + v));
    } else if (b->inverse && c->inverse) { /* (kc / Nc) / (kb / Nb) */
        rc = estim_fieller(&b->norm, &c->norm, INTERVAL_LEVEL, &lo, &hi);
        k = c->k / b->k;
    } else {
        rc = estim_fieller(&c->norm, &b->norm, INTERVAL_LEVEL, &lo, &hi);
    }
    if (rc < 0 || !(b->down < 1)) {
        interval_none(ci, "the interval has no upper end");
        return;
    }
    if (!(c->down < 1)) { /* a ratio is never below 0: the bias bound swamps the figure */
        interval_none(ci, "the time scale's bias bound is larger than the figure");
        return;
    }
    interval_set(ci, k * lo * (1 - c->down) / (1 + b->up), k * hi * (1 + c->up) / (1 - b->down));
}

void interval_inverse(const struct interval *in, double k, struct interval *out) {
    if (!in->ok) {
        *out = *in;
        return;
    }
    if (!(in->lo > 0)) {
        interval_none(out, "the interval reaches 0");
        return;
    }
    interval_set(out, k / in->hi, k / in->lo);
}
