#include "cloudwatch_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double cloudwatch_check_period(const struct src *s) {
    return CLOUDWATCH_CHECK_PERIOD_S / (s->time_scale > 0 ? s->time_scale : 1);
}

/* The client's requests of every step of s in the periods [b0, b1). */
static void cloudwatch_check_client(struct cloudwatch_check_row *r, const struct side *s) {
    double b0 = r->b0, b1 = r->b1, sum = 0;
    size_t n = 0;
    for (size_t i = 0; i < s->in.n; i++) {
        const struct src *f = &s->in.srcs[i];
        for (size_t k = 0; k < f->ncalls; k++) {
            const struct src_call *c = &f->calls[k];
            bool surely =
                c->start >= b0 + CLOUDWATCH_CHECK_CLOCK_S && c->end < b1 - CLOUDWATCH_CHECK_CLOCK_S;
            bool maybe =
                c->end >= b0 - CLOUDWATCH_CHECK_CLOCK_S && c->start < b1 + CLOUDWATCH_CHECK_CLOCK_S;
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
static void cloudwatch_check_server(struct cloudwatch_check_row *r,
                                    const struct cloudwatch_side *cw, size_t *points) {
    double eps = (r->b1 - r->b0) * 1e-9, t0 = r->b0 - eps, t1 = r->b1 - eps;
    size_t n_model, n_over;
    r->invocations = cloudwatch_side_sum(cw, CWDOC_INVOCATIONS, t0, t1, points, NULL);
    r->errors_4xx = cloudwatch_side_sum(cw, CWDOC_ERRORS_4XX, t0, t1, NULL, NULL);
    r->errors_5xx = cloudwatch_side_sum(cw, CWDOC_ERRORS_5XX, t0, t1, NULL, NULL);
    r->model_errors = cloudwatch_side_sum(cw, CWDOC_MODEL_ERRORS, t0, t1, NULL, NULL);
    double model = cloudwatch_side_sum(cw, CWDOC_MODEL_LATENCY_SUM, t0, t1, NULL, NULL);
    double model_n = cloudwatch_side_sum(cw, CWDOC_MODEL_LATENCY_N, t0, t1, &n_model, NULL);
    double over = cloudwatch_side_sum(cw, CWDOC_OVERHEAD_SUM, t0, t1, NULL, NULL);
    double over_n = cloudwatch_side_sum(cw, CWDOC_OVERHEAD_N, t0, t1, &n_over, NULL);
    r->latency = n_model && n_over && model_n > 0 && over_n > 0;
    if (r->latency) {
        r->model_ms = model / model_n / 1e3;
        r->overhead_ms = over / over_n / 1e3;
        r->latency_n = (size_t)model_n;
        r->added_ms = r->client_ms - r->model_ms - r->overhead_ms;
    }
    (void)cloudwatch_side_sum(cw, CWDOC_GPU, t0, t1, NULL, &r->gpu);
    (void)cloudwatch_side_sum(cw, CWDOC_GPU_MEMORY, t0, t1, NULL, &r->gpu_memory);
    (void)cloudwatch_side_sum(cw, CWDOC_CPU, t0, t1, NULL, &r->cpu);
    (void)cloudwatch_side_sum(cw, CWDOC_MEMORY, t0, t1, NULL, &r->memory);
}

static bool cloudwatch_check_outside(double v, const struct cloudwatch_check_range *x) {
    return v < (double)x->lo - 1e-9 || v > (double)x->hi + 1e-9;
}

static void cloudwatch_check_step(struct cloudwatch_check_row *r, const struct side *s) {
    const struct src *f = r->src;
    double p = cloudwatch_check_period(f);
    r->w0 = r->w1 = f->calls[0].start;
    for (size_t k = 0; k < f->ncalls; k++) {
        r->w0 = fmin(r->w0, f->calls[k].start);
        r->w1 = fmax(r->w1, f->calls[k].end);
    }
    r->b0 = floor(r->w0 / p) * p;
    r->b1 = (floor(r->w1 / p) + 1) * p;
    size_t points = 0;
    cloudwatch_check_client(r, s);
    cloudwatch_check_server(r, &s->in.cw, &points);
    if (!points) {
        snprintf(r->why, sizeof r->why,
                 "CloudWatch has no Invocations for its %.4g s of periods (fetched before they "
                 "were published?)",
                 r->b1 - r->b0);
        return;
    }
    r->ok = true;
    r->lost = cloudwatch_check_outside(r->invocations, &r->requests);
    r->unseen =
        cloudwatch_check_outside(r->invocations - r->errors_4xx - r->errors_5xx, &r->answered);
}

static int cloudwatch_check_cmp(const void *a, const void *b) {
    const struct cloudwatch_check_row *x = a, *y = b;
    return (x->w0 > y->w0) - (x->w0 < y->w0);
}

int cloudwatch_check_side(struct cloudwatch_check *x, const struct side *s, struct buf *err) {
    if (!cloudwatch_side_has_metrics(&s->in.cw)) return CLOUDWATCH_CHECK_OK;
    size_t first = x->n;
    for (size_t i = 0; i < s->in.n; i++) {
        const struct src *f = &s->in.srcs[i];
        if (!f->ncalls) continue;
        struct cloudwatch_check_row *rows = realloc(x->rows, (x->n + 1) * sizeof *rows);
        if (!rows) return buf_fail(err, CLOUDWATCH_CHECK_ERR_NOMEM, "out of memory");
        x->rows = rows;
        struct cloudwatch_check_row *r = &x->rows[x->n++];
        memset(r, 0, sizeof *r);
        r->side = s;
        r->src = f;
        cloudwatch_check_step(r, s);
    }
    if (x->n - first > 1)
        qsort(x->rows + first, x->n - first, sizeof *x->rows, cloudwatch_check_cmp);
    return CLOUDWATCH_CHECK_OK;
}

void cloudwatch_check_free(struct cloudwatch_check *x) {
    free(x->rows);
    x->rows = NULL;
    x->n = 0;
}
