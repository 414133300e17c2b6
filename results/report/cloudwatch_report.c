#include "cloudwatch_report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"

static const char *cloudwatch_report_side(const struct cmp *m,
                                          const struct cloudwatch_check_row *x) {
    return x->side == m->b ? m->bname : m->cname;
}

static void cloudwatch_report_range(const struct cloudwatch_check_range *r, char *out, size_t cap) {
    if (r->lo == r->hi)
        snprintf(out, cap, "%ld", r->hi);
    else
        snprintf(out, cap, "%ld to %ld", r->lo, r->hi);
}

/* v with decimals, or "n/a" when it is not a number. */
static void cloudwatch_report_num(double v, int decimals, char *out, size_t cap) {
    if (isnan(v))
        snprintf(out, cap, "n/a");
    else
        fmt_num(v, decimals, out, cap);
}

static int cloudwatch_report_counts(struct page_block *t, const struct cmp *m,
                                    const struct cloudwatch_check_row *x) {
    char inv[64], req[64], ans[64], ok[64], err[96], cerr[96];
    snprintf(inv, sizeof inv, "%.0f%s", x->invocations, x->lost ? " !" : "");
    cloudwatch_report_range(&x->requests, req, sizeof req);
    snprintf(ans, sizeof ans, "%.0f%s", x->invocations - x->errors_4xx - x->errors_5xx,
             x->unseen ? " !" : "");
    cloudwatch_report_range(&x->answered, ok, sizeof ok);
    snprintf(err, sizeof err, "%.0f / %.0f / %.0f", x->errors_4xx, x->errors_5xx, x->model_errors);
    snprintf(cerr, sizeof cerr, "%ld / %ld", x->client_4xx.hi, x->client_5xx.hi);
    const char *cells[] = {
        cloudwatch_report_side(m, x), src_name(x->src), inv, req, ans, ok, err, cerr};
    return page_row(t, cells);
}

static int cloudwatch_report_times(struct page_block *t, const struct cmp *m,
                                   const struct cloudwatch_check_row *x) {
    char c[8][64];
    double v[] = {x->latency ? x->model_ms : NAN,
                  x->latency ? x->overhead_ms : NAN,
                  x->client_ms,
                  x->latency ? x->added_ms : NAN,
                  x->gpu,
                  x->gpu_memory,
                  x->cpu,
                  x->memory};
    for (int i = 0; i < 8; i++) cloudwatch_report_num(v[i], i < 4 ? 1 : 0, c[i], sizeof c[i]);
    const char *cells[] = {cloudwatch_report_side(m, x),
                           src_name(x->src),
                           c[0],
                           c[1],
                           c[2],
                           c[3],
                           c[4],
                           c[5],
                           c[6],
                           c[7]};
    return page_row(t, cells);
}

int cloudwatch_report_build(struct page *r, const struct cmp *m) {
    const struct cloudwatch_check *x = &m->cw;
    if (!x->n) return 0;
    const char *h1[] = {"side",
                        "step",
                        "invocations",
                        "client requests",
                        "answered",
                        "client 2xx",
                        "4xx / 5xx / model errors",
                        "client 4xx / 5xx"};
    const char *h2[] = {"side",     "step",  "model ms",  "overhead ms", "client ms",
                        "added ms", "GPU %", "GPU mem %", "CPU %",       "memory %"};
    if (page_text(r, PAGE_HEADING, "CloudWatch cross-check (server side)") < 0) return -1;
    struct page_block *t = page_table(r, 0xfc, 8, h1);
    for (size_t i = 0; t && i < x->n; i++)
        if (x->rows[i].ok && cloudwatch_report_counts(t, m, &x->rows[i]) < 0) return -1;
    if (!t) return -1;
    t = page_table(r, 0x3fc, 10, h2);
    for (size_t i = 0; t && i < x->n; i++)
        if (x->rows[i].ok && cloudwatch_report_times(t, m, &x->rows[i]) < 0) return -1;
    if (!t) return -1;
    for (size_t i = 0; i < x->n; i++)
        if (!x->rows[i].ok && page_text(r, PAGE_ITEM, "%s %s: no cross-check: %s",
                                        cloudwatch_report_side(m, &x->rows[i]),
                                        src_name(x->rows[i].src), x->rows[i].why) < 0)
            return -1;
    return page_text(r, PAGE_PARA,
                     "Over the metric periods (a minute; a model minute in a time-scaled run) "
                     "that hold each step: CloudWatch's Invocations against the client's "
                     "requests in those periods (a range where a request may fall in a "
                     "neighbouring period), the invocations it counts as answered (less 4xx "
                     "and 5xx) against the client's 2xx replies, ModelLatency and "
                     "OverheadLatency against the client's mean end-to-end latency (added: "
                     "what the network and the client took), and the instance's utilization. "
                     "! marks a count outside the client's range.");
}

static void cloudwatch_report_add_num(cJSON *o, const char *key, double v) {
    cJSON_AddItemToObject(o, key, isnan(v) ? cJSON_CreateNull() : cJSON_CreateNumber(v));
}

static cJSON *cloudwatch_report_range_json(const struct cloudwatch_check_range *r) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "low", (double)r->lo);
    cJSON_AddNumberToObject(o, "high", (double)r->hi);
    return o;
}

static cJSON *cloudwatch_report_row_json(const struct cloudwatch_check_row *x) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "side", x->side->role);
    cJSON_AddStringToObject(o, "file", x->src->path);
    cJSON_AddNumberToObject(o, "window_start", x->w0);
    cJSON_AddNumberToObject(o, "window_end", x->w1);
    cJSON_AddNumberToObject(o, "periods_start", x->b0);
    cJSON_AddNumberToObject(o, "periods_end", x->b1);
    if (!x->ok) {
        cJSON_AddStringToObject(o, "no_cross_check", x->why);
        return o;
    }
    cJSON_AddNumberToObject(o, "invocations", x->invocations);
    cJSON_AddItemToObject(o, "client_requests", cloudwatch_report_range_json(&x->requests));
    cJSON_AddNumberToObject(o, "answered", x->invocations - x->errors_4xx - x->errors_5xx);
    cJSON_AddItemToObject(o, "client_2xx", cloudwatch_report_range_json(&x->answered));
    cJSON_AddNumberToObject(o, "errors_4xx", x->errors_4xx);
    cJSON_AddNumberToObject(o, "errors_5xx", x->errors_5xx);
    cJSON_AddNumberToObject(o, "model_errors", x->model_errors);
    cJSON_AddItemToObject(o, "client_4xx", cloudwatch_report_range_json(&x->client_4xx));
    cJSON_AddItemToObject(o, "client_5xx", cloudwatch_report_range_json(&x->client_5xx));
    cJSON_AddBoolToObject(o, "requests_differ", x->lost);
    cJSON_AddBoolToObject(o, "answered_differ", x->unseen);
    cloudwatch_report_add_num(o, "model_latency_ms", x->latency ? x->model_ms : NAN);
    cloudwatch_report_add_num(o, "overhead_latency_ms", x->latency ? x->overhead_ms : NAN);
    cloudwatch_report_add_num(o, "client_latency_ms", x->client_ms);
    cloudwatch_report_add_num(o, "added_ms", x->latency ? x->added_ms : NAN);
    cloudwatch_report_add_num(o, "gpu_utilization", x->gpu);
    cloudwatch_report_add_num(o, "gpu_memory_utilization", x->gpu_memory);
    cloudwatch_report_add_num(o, "cpu_utilization", x->cpu);
    cloudwatch_report_add_num(o, "memory_utilization", x->memory);
    return o;
}

cJSON *cloudwatch_report_json(const struct cmp *m) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < m->cw.n; i++)
        cJSON_AddItemToArray(a, cloudwatch_report_row_json(&m->cw.rows[i]));
    return a;
}

void cloudwatch_report_notes(const struct cmp *m, struct warnings *w) {
    for (size_t i = 0; i < m->cw.n; i++) {
        const struct cloudwatch_check_row *x = &m->cw.rows[i];
        char req[64], ok[64];
        cloudwatch_report_range(&x->requests, req, sizeof req);
        cloudwatch_report_range(&x->answered, ok, sizeof ok);
        double answered = x->invocations - x->errors_4xx - x->errors_5xx;
        if (x->ok && x->lost)
            warnings_add(w,
                         "%s %s: CloudWatch counts %.0f invocations where the client sent %s "
                         "requests that may have reached SageMaker: %s",
                         x->side->role, x->src->path, x->invocations, req,
                         x->invocations > (double)x->requests.hi
                             ? "requests the client did not record (another client, or records "
                               "lost)"
                             : "requests lost before SageMaker, or metrics not yet published");
        if (x->ok && x->unseen)
            warnings_add(w,
                         "%s %s: CloudWatch counts %.0f invocations answered without a 4xx or 5xx "
                         "where the client got %s 2xx replies: %s",
                         x->side->role, x->src->path, answered, ok,
                         answered > (double)x->answered.hi
                             ? "requests lost between SageMaker and the client (no reply came)"
                             : "replies CloudWatch did not count (metrics not yet published?)");
    }
}
