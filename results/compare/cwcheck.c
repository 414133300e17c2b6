#include "cwcheck.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double cwcheck_period(const struct src *s) {
    return CWCHECK_PERIOD_S / (s->time_scale > 0 ? s->time_scale : 1);
}

/* The client's requests of every step of s in the periods [b0, b1). */
static void cwcheck_client(struct cwcheck_row *r, const struct side *s) {
    double b0 = r->b0, b1 = r->b1, sum = 0;
    size_t n = 0;
    for (size_t i = 0; i < s->in.n; i++) {
        const struct src *f = &s->in.srcs[i];
        for (size_t k = 0; k < f->ncalls; k++) {
            const struct src_call *c = &f->calls[k];
            bool surely = c->start >= b0 + CWCHECK_CLOCK_S && c->end < b1 - CWCHECK_CLOCK_S;
            bool maybe = c->end >= b0 - CWCHECK_CLOCK_S && c->start < b1 + CWCHECK_CLOCK_S;
            bool ok = c->status >= 200 && c->status < 300;
            bool e4 = c->status >= 400 && c->status < 500 && c->status != 403;
            bool e5 = c->status >= 500 && c->status < 600;
            if (c->status == 403 || !maybe) continue; /* a refused signature reaches no variant */
            r->requests.lo += surely && c->status != 0;
            r->requests.hi++;
            r->answered.lo += surely && ok;
            r->answered.hi += ok;
            r->client_4xx.lo += surely && e4;
            r->client_4xx.hi += e4;
            r->client_5xx.lo += surely && e5;
            r->client_5xx.hi += e5;
            if (ok && c->start >= b0 && c->start < b1) {
                sum += c->wall;
                n++;
            }
        }
    }
    r->client_ms = n ? 1e3 * sum / (double)n : NAN;
}

/* CloudWatch's figures over the periods. */
static void cwcheck_server(struct cwcheck_row *r, const struct cwside *cw, size_t *points) {
    double eps = (r->b1 - r->b0) * 1e-9, t0 = r->b0 - eps, t1 = r->b1 - eps;
    size_t n_model, n_over;
    r->invocations = cwside_sum(cw, CWDOC_INVOCATIONS, t0, t1, points, NULL);
    r->errors_4xx = cwside_sum(cw, CWDOC_ERRORS_4XX, t0, t1, NULL, NULL);
    r->errors_5xx = cwside_sum(cw, CWDOC_ERRORS_5XX, t0, t1, NULL, NULL);
    r->model_errors = cwside_sum(cw, CWDOC_MODEL_ERRORS, t0, t1, NULL, NULL);
    double model = cwside_sum(cw, CWDOC_MODEL_LATENCY_SUM, t0, t1, NULL, NULL);
    double model_n = cwside_sum(cw, CWDOC_MODEL_LATENCY_N, t0, t1, &n_model, NULL);
    double over = cwside_sum(cw, CWDOC_OVERHEAD_SUM, t0, t1, NULL, NULL);
    double over_n = cwside_sum(cw, CWDOC_OVERHEAD_N, t0, t1, &n_over, NULL);
    r->latency = n_model && n_over && model_n > 0 && over_n > 0;
    if (r->latency) {
        r->model_ms = model / model_n / 1e3;
        r->overhead_ms = over / over_n / 1e3;
        r->latency_n = (size_t)model_n;
        r->added_ms = r->client_ms - r->model_ms - r->overhead_ms;
    }
    (void)cwside_sum(cw, CWDOC_GPU, t0, t1, NULL, &r->gpu);
    (void)cwside_sum(cw, CWDOC_GPU_MEMORY, t0, t1, NULL, &r->gpu_memory);
    (void)cwside_sum(cw, CWDOC_CPU, t0, t1, NULL, &r->cpu);
    (void)cwside_sum(cw, CWDOC_MEMORY, t0, t1, NULL, &r->memory);
}

static bool cwcheck_outside(double v, const struct cwcheck_range *x) {
    return v < (double)x->lo - 1e-9 || v > (double)x->hi + 1e-9;
}

static void cwcheck_step(struct cwcheck_row *r, const struct side *s) {
    const struct src *f = r->src;
    double p = cwcheck_period(f);
    r->w0 = r->w1 = f->calls[0].start;
    for (size_t k = 0; k < f->ncalls; k++) {
        r->w0 = fmin(r->w0, f->calls[k].start);
        r->w1 = fmax(r->w1, f->calls[k].end);
    }
    r->b0 = floor(r->w0 / p) * p;
    r->b1 = (floor(r->w1 / p) + 1) * p;
    size_t points = 0;
    cwcheck_client(r, s);
    cwcheck_server(r, &s->in.cw, &points);
    if (!points) {
        snprintf(r->why, sizeof r->why,
                 "CloudWatch has no Invocations for its %.4g s of periods (fetched before they "
                 "were published?)",
                 r->b1 - r->b0);
        return;
    }
    r->ok = true;
    r->lost = cwcheck_outside(r->invocations, &r->requests);
    r->unseen = cwcheck_outside(r->invocations - r->errors_4xx - r->errors_5xx, &r->answered);
}

static int cwcheck_cmp(const void *a, const void *b) {
    const struct cwcheck_row *x = a, *y = b;
    return (x->w0 > y->w0) - (x->w0 < y->w0);
}

int cwcheck_side(struct cwcheck *x, const struct side *s, struct buf *err) {
    if (!cwside_has_metrics(&s->in.cw)) return CWCHECK_OK;
    size_t first = x->n;
    for (size_t i = 0; i < s->in.n; i++) {
        const struct src *f = &s->in.srcs[i];
        if (!f->ncalls) continue;
        struct cwcheck_row *rows = realloc(x->rows, (x->n + 1) * sizeof *rows);
        if (!rows) return buf_fail(err, CWCHECK_ERR_NOMEM, "out of memory");
        x->rows = rows;
        struct cwcheck_row *r = &x->rows[x->n++];
        memset(r, 0, sizeof *r);
        r->side = s;
        r->src = f;
        cwcheck_step(r, s);
    }
    if (x->n - first > 1) qsort(x->rows + first, x->n - first, sizeof *x->rows, cwcheck_cmp);
    return CWCHECK_OK;
}

void cwcheck_free(struct cwcheck *x) {
    free(x->rows);
    x->rows = NULL;
    x->n = 0;
}
