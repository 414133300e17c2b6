#include "xcheck.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XCHECK_SHIFTS 11 /* positions tried across the log's time resolution */

static double xcheck_overlap(double a0, double a1, double b0, double b1) {
    double lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
    return hi > lo ? hi - lo : 0;
}

/* The tokens p's replies generated in [t0, t1], each spread evenly over its
 * generation: its wall time after the per-call cost (wall-clock seconds). */
static double xcheck_tokens(const struct src_level *p, double fixed, double t0, double t1) {
    double sum = 0;
    for (size_t i = 0; i < p->nspans; i++) {
        const struct src_span *sp = &p->spans[i];
        double from = sp->start + fixed < sp->end ? sp->start + fixed : sp->start;
        double len = sp->end - from;
        if (len > 0)
            sum += sp->tokens * xcheck_overlap(from, sp->end, t0, t1) / len;
        else if (sp->end > t0 && sp->end <= t1)
            sum += sp->tokens;
    }
    return sum;
}

static int xcheck_add(struct xcheck *x, const struct xcheck_row *r) {
    struct xcheck_row *p = realloc(x->rows, (x->n + 1) * sizeof *p);
    if (!p) return -1;
    x->rows = p;
    x->rows[x->n++] = *r;
    return 0;
}

/* The log lines whose whole interval lies in [w0, w1] for every shift in
 * [smin, smax]: marks them in use[], returns how many. */
static size_t xcheck_lines(const struct srvlog *log, double dt, double smin, double smax, double w0,
                           double w1, bool *use) {
    size_t n = 0;
    for (size_t i = 0; i < log->n; i++) {
        double t = log->lines[i].t;
        use[i] = t - dt + smin >= w0 && t + smax <= w1;
        n += use[i];
    }
    return n;
}

/* The client's figure over the lines in use, shifted by shift seconds. */
static double xcheck_client(const struct srvlog *log, const bool *use, size_t nused, double dt,
                            const struct src_level *p, double fixed, double shift, double scale) {
    double tokens = 0;
    for (size_t i = 0; i < log->n; i++)
        if (use[i])
            tokens +=
                xcheck_tokens(p, fixed, log->lines[i].t + shift - dt, log->lines[i].t + shift);
    return tokens / ((double)nused * dt * scale);
}

static void xcheck_compare(struct xcheck_row *r, const struct side *s, const struct src_level *p,
                           double dt, bool *use) {
    const struct srvlog *log = &s->in.log;
    double res = 0, scale = r->src->time_scale;
    for (size_t i = 0; i < log->n; i++)
        if (log->lines[i].res > res) res = log->lines[i].res;
    double smin = -XCHECK_CLOCK_S, smax = res + XCHECK_CLOCK_S;
    size_t n = xcheck_lines(log, dt, smin, smax, p->wall_first, p->wall_last, use);
    if (!n) {
        snprintf(r->why, sizeof r->why,
                 "no whole log interval (%.3g s) inside the step's %.3g s (log times to %g s)", dt,
                 p->wall_last - p->wall_first, res);
        return;
    }
    double fixed = s->dec.fixed.ok && s->dec.fixed.v > 0 ? s->dec.fixed.v / scale : 0;
    double server = 0;
    for (size_t i = 0; i < log->n; i++) server += use[i] ? log->lines[i].gen_tps : 0;
    r->server = server / (double)n;
    r->client_lo = INFINITY;
    r->client_hi = -INFINITY;
    for (int k = 0; k < XCHECK_SHIFTS; k++) {
        double shift = smin + (smax - smin) * k / (XCHECK_SHIFTS - 1);
        double v = xcheck_client(log, use, n, dt, p, fixed, shift, scale);
        r->client_lo = fmin(r->client_lo, v);
        r->client_hi = fmax(r->client_hi, v);
    }
    r->client = xcheck_client(log, use, n, dt, p, fixed, res / 2, scale);
    r->ok = true;
    r->lines = n;
    r->seconds = (double)n * dt * scale;
    r->differs = r->server < r->client_lo * (1 - XCHECK_TOLERANCE) ||
                 r->server > r->client_hi * (1 + XCHECK_TOLERANCE);
}

/* Sorts the rows from first on by concurrency (a side's files come by name). */
static void xcheck_sort(struct xcheck *x, size_t first) {
    for (size_t i = first + 1; i < x->n; i++)
        for (size_t k = i; k > first && x->rows[k - 1].c > x->rows[k].c; k--) {
            struct xcheck_row t = x->rows[k];
            x->rows[k] = x->rows[k - 1];
            x->rows[k - 1] = t;
        }
}

int xcheck_side(struct xcheck *x, const struct side *s, struct buf *err) {
    const struct srvlog *log = &s->in.log;
    size_t first = x->n;
    if (!log->n) return XCHECK_OK;
    double dt = srvlog_interval(log);
    bool *use = malloc(log->n * sizeof *use);
    if (!use) return buf_fail(err, XCHECK_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < s->in.n; i++)
        for (size_t k = 0; k < s->in.srcs[i].nlevels; k++) {
            const struct src_level *p = &s->in.srcs[i].levels[k];
            struct xcheck_row r = {.side = s, .src = &s->in.srcs[i], .c = p->c};
            if (s->in.srcs[i].kind == SRC_MEASURE) continue;
            if (!(p->wall_last > p->wall_first))
                snprintf(r.why, sizeof r.why, "its records carry no wall-clock times");
            else if (!(dt > 0))
                snprintf(r.why, sizeof r.why, "the log holds too few throughput lines");
            else
                xcheck_compare(&r, s, p, dt, use);
            if (xcheck_add(x, &r) < 0) {
                free(use);
                return buf_fail(err, XCHECK_ERR_NOMEM, "out of memory");
            }
        }
    free(use);
    xcheck_sort(x, first);
    return XCHECK_OK;
}

void xcheck_free(struct xcheck *x) {
    free(x->rows);
    x->rows = NULL;
    x->n = 0;
}
