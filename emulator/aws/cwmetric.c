#include "cwmetric.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cwdoc.h"

#define CWMETRIC_MAX_POINTS 100800 /* data points a page by default, and periods a query spans */
#define CWMETRIC_SAGEMAKER  "AWS/SageMaker"
#define CWMETRIC_INSTANCE   "/aws/sagemaker/Endpoints"

/* The metrics served. */
enum cwmetric_kind {
    CWMETRIC_INVOCATIONS,
    CWMETRIC_PER_INSTANCE,
    CWMETRIC_4XX,
    CWMETRIC_5XX,
    CWMETRIC_MODEL_ERRORS,
    CWMETRIC_MODEL_LATENCY,
    CWMETRIC_OVERHEAD,
    CWMETRIC_PER_COPY,    /* an inference component's only */
    CWMETRIC_NO_CAPACITY, /* an inference component's only */
    CWMETRIC_GPU,
    CWMETRIC_GPU_MEMORY,
    CWMETRIC_CPU,
    CWMETRIC_MEMORY,
    CWMETRIC_KINDS,
    CWMETRIC_FIRST_INSTANCE = CWMETRIC_GPU,
};

static const struct {
    const char *ns, *name;
} cwmetric_kinds[CWMETRIC_KINDS] = {
    {CWMETRIC_SAGEMAKER, "Invocations"},
    {CWMETRIC_SAGEMAKER, "InvocationsPerInstance"},
    {CWMETRIC_SAGEMAKER, "Invocation4XXErrors"},
    {CWMETRIC_SAGEMAKER, "Invocation5XXErrors"},
    {CWMETRIC_SAGEMAKER, "InvocationModelErrors"},
    {CWMETRIC_SAGEMAKER, "ModelLatency"},
    {CWMETRIC_SAGEMAKER, "OverheadLatency"},
    {CWMETRIC_SAGEMAKER, "InvocationsPerCopy"},
    {CWMETRIC_SAGEMAKER, "NoCapacityInvocationFailures"},
    {CWMETRIC_INSTANCE, "GPUUtilization"},
    {CWMETRIC_INSTANCE, "GPUMemoryUtilization"},
    {CWMETRIC_INSTANCE, "CPUUtilization"},
    {CWMETRIC_INSTANCE, "MemoryUtilization"},
};

static const char *const cwmetric_stats[] = {"Sum", "SampleCount", "Average", "Minimum", "Maximum"};

void cwmetric_init(struct cwmetric *m, const char *region, double time_scale) {
    memset(m, 0, sizeof *m);
    snprintf(m->region, sizeof m->region, "%s", region);
    m->time_scale = time_scale > 0 ? time_scale : 1;
}

void cwmetric_free(struct cwmetric *m) {
    for (size_t i = 0; i < m->n; i++) {
        free(m->v[i].calls);
        free(m->v[i].busy);
    }
    for (size_t i = 0; i < m->n_ic; i++) free(m->ic[i].calls);
    free(m->v);
    free(m->ic);
    m->v = NULL;
    m->ic = NULL;
    m->n = m->n_ic = 0;
}

/* ---- the store ---- */

static struct cwmetric_variant *cwmetric_variant(struct cwmetric *m, const char *ep,
                                                 const char *var) {
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->v[i].endpoint, ep) == 0 && strcmp(m->v[i].variant, var) == 0) return &m->v[i];
    struct cwmetric_variant *v = realloc(m->v, (m->n + 1) * sizeof *v);
    if (!v) return NULL;
    m->v = v;
    v = &m->v[m->n++];
    memset(v, 0, sizeof *v);
    snprintf(v->endpoint, sizeof v->endpoint, "%s", ep);
    snprintf(v->variant, sizeof v->variant, "%s", var);
    return v;
}

int cwmetric_start(struct cwmetric *m, const char *endpoint, const char *variant, double t) {
    struct cwmetric_variant *v = cwmetric_variant(m, endpoint, variant);
    if (!v) return CWMETRIC_ERR_NOMEM;
    if (v->since <= 0 || t < v->since) v->since = t;
    return CWMETRIC_OK;
}

/* A slot for one more item of a ring of max items (*n in use, from *first):
 * its index, growing the array while it is not full; -1 out of memory. */
static long cwmetric_slot(void **items, size_t size, size_t *n, size_t *cap, size_t *first,
                          size_t max) {
    if (*n == max) {
        size_t at = *first;
        *first = (*first + 1) % max;
        return (long)at;
    }
    if (*n == *cap) {
        size_t grown = *cap ? 2 * *cap : 1024;
        if (grown > max) grown = max;
        void *p = realloc(*items, grown * size);
        if (!p) return -1;
        *items = p;
        *cap = grown;
    }
    return (long)(*n)++;
}

/* Keeps call (size bytes) in a ring of CWMETRIC_CALLS at *items. Returns 0
 * or CWMETRIC_ERR_NOMEM. */
static int cwmetric_keep(void **items, size_t size, size_t *n, size_t *cap, size_t *first,
                         const void *call) {
    long at = cwmetric_slot(items, size, n, cap, first, CWMETRIC_CALLS);
    if (at < 0) return CWMETRIC_ERR_NOMEM;
    memcpy((char *)*items + (size_t)at * size, call, size);
    return CWMETRIC_OK;
}

int cwmetric_count(struct cwmetric *m, const char *endpoint, const char *variant,
                   const struct cwmetric_call *c) {
    struct cwmetric_variant *v = cwmetric_variant(m, endpoint, variant);
    if (!v) return CWMETRIC_ERR_NOMEM;
    void *items = v->calls;
    int rc = cwmetric_keep(&items, sizeof *c, &v->n_calls, &v->cap_calls, &v->first_call, c);
    v->calls = items;
    return rc;
}

/* The calls kept of inference component name, added when new; NULL out of memory. */
static struct cwmetric_ic *cwmetric_ic(struct cwmetric *m, const char *name) {
    for (size_t i = 0; i < m->n_ic; i++)
        if (strcmp(m->ic[i].name, name) == 0) return &m->ic[i];
    struct cwmetric_ic *ic = realloc(m->ic, (m->n_ic + 1) * sizeof *ic);
    if (!ic) return NULL;
    m->ic = ic;
    ic = memset(&m->ic[m->n_ic++], 0, sizeof *ic);
    snprintf(ic->name, sizeof ic->name, "%s", name);
    return ic;
}

int cwmetric_component(struct cwmetric *m, const char *name, const struct cwmetric_ic_call *c) {
    struct cwmetric_ic *ic = cwmetric_ic(m, name);
    if (!ic) return CWMETRIC_ERR_NOMEM;
    void *items = ic->calls;
    int rc = cwmetric_keep(&items, sizeof *c, &ic->n_calls, &ic->cap_calls, &ic->first_call, c);
    ic->calls = items;
    return rc;
}

int cwmetric_busy(struct cwmetric *m, const char *endpoint, const char *variant, double from,
                  double to) {
    struct cwmetric_variant *v = cwmetric_variant(m, endpoint, variant);
    if (!v) return CWMETRIC_ERR_NOMEM;
    if (v->n_busy) { /* back to back with the last span: one span */
        struct cwmetric_span *last = &v->busy[(v->first_busy + v->n_busy - 1) % v->n_busy];
        if (from <= last->to + 1e-6 && from >= last->from) {
            if (to > last->to) last->to = to;
            return CWMETRIC_OK;
        }
    }
    void *items = v->busy;
    long at = cwmetric_slot(&items, sizeof *v->busy, &v->n_busy, &v->cap_busy, &v->first_busy,
                            CWMETRIC_BUSY);
    if (at < 0) return CWMETRIC_ERR_NOMEM;
    v->busy = items;
    v->busy[at] = (struct cwmetric_span){from, to};
    return CWMETRIC_OK;
}

/* ---- checking a request ---- */

void cwmetric_req_init(struct cwmetric_req *req) {
    memset(req, 0, sizeof *req);
    req->start = req->end = -1;
}

__attribute__((format(printf, 3, 4))) static bool
cwmetric_refuse(struct cwmetric_refusal *why, const char *code, const char *fmt, ...) {
    va_list ap;
    why->code = code;
    va_start(ap, fmt);
    vsnprintf(why->message, sizeof why->message, fmt, ap);
    va_end(ap);
    return false;
}

static bool cwmetric_id_ok(const char *id) {
    if (!(*id >= 'a' && *id <= 'z')) return false;
    for (const char *p = id; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_'))
            return false;
    return true;
}

static int cwmetric_stat(const char *s) {
    for (int i = 0; i < (int)(sizeof cwmetric_stats / sizeof *cwmetric_stats); i++)
        if (strcmp(s, cwmetric_stats[i]) == 0) return i;
    return -1;
}

static bool cwmetric_check_q(const struct cwmetric_req *req, size_t i,
                             struct cwmetric_refusal *why) {
    const struct cwmetric_q *q = &req->q[i];
    const char *at = "MetricDataQueries.member";
    if (!*q->id)
        return cwmetric_refuse(why, "MissingParameter", "%s.%zu.Id is required.", at, i + 1);
    if (!cwmetric_id_ok(q->id))
        return cwmetric_refuse(why, "InvalidParameterValue",
                               "The value %s for parameter %s.%zu.Id is invalid: a lower-case "
                               "letter, then letters, digits and underscores.",
                               q->id, at, i + 1);
    for (size_t k = 0; k < i; k++)
        if (strcmp(req->q[k].id, q->id) == 0)
            return cwmetric_refuse(why, "InvalidParameterValue",
                                   "The value %s for parameter %s.%zu.Id is not unique.", q->id, at,
                                   i + 1);
    if (q->expression)
        return cwmetric_refuse(why, "InvalidParameterValue",
                               "sm-emulator does not evaluate metric math or Metrics Insights "
                               "(%s.%zu.Expression); ask for a MetricStat.",
                               at, i + 1);
    if (!*q->ns || !*q->name || !*q->stat || !q->period)
        return cwmetric_refuse(why, "MissingParameter",
                               "%s.%zu.MetricStat needs Metric.Namespace, Metric.MetricName, "
                               "Period and Stat.",
                               at, i + 1);
    if (cwmetric_stat(q->stat) < 0)
        return cwmetric_refuse(why, "InvalidParameterValue",
                               "sm-emulator gives the statistics Sum, SampleCount, Average, "
                               "Minimum and Maximum, not %s (%s.%zu.MetricStat.Stat).",
                               q->stat, at, i + 1);
    long p = q->period;
    if (!(p == 1 || p == 5 || p == 10 || p == 30 || (p > 0 && p % 60 == 0)))
        return cwmetric_refuse(why, "InvalidParameterValue",
                               "The parameter %s.%zu.MetricStat.Period must be 1, 5, 10, 30 or a "
                               "multiple of 60.",
                               at, i + 1);
    return true;
}

bool cwmetric_check(const struct cwmetric_req *req, struct cwmetric_refusal *why) {
    if (req->too_many)
        return cwmetric_refuse(why, "InvalidParameterValue",
                               "The collection MetricDataQueries must not have more than %d "
                               "members.",
                               CWMETRIC_QUERIES);
    if (!req->n)
        return cwmetric_refuse(why, "MissingParameter",
                               "The parameter MetricDataQueries is required.");
    if (req->start < 0 || req->end < 0)
        return cwmetric_refuse(why, "MissingParameter", "The parameter %s is required.",
                               req->start < 0 ? "StartTime" : "EndTime");
    if (!(req->end > req->start))
        return cwmetric_refuse(why, "InvalidParameterValue",
                               "The parameter StartTime must be less than the parameter EndTime.");
    if (req->from < 0) return cwmetric_refuse(why, "InvalidNextToken", "The NextToken is invalid.");
    if (req->max_points < 0)
        return cwmetric_refuse(why, "InvalidParameterValue",
                               "The parameter MaxDatapoints must be at least 1.");
    for (size_t i = 0; i < req->n; i++)
        if (!cwmetric_check_q(req, i, why)) return false;
    return true;
}

/* ---- evaluating ---- */

/* One sample in a period. */
struct cwmetric_sample {
    long long k; /* the period's index: its start is k * width */
    double v;
};

struct cwmetric_samples {
    struct cwmetric_sample *s;
    size_t n, cap;
};

static int cwmetric_push(struct cwmetric_samples *a, long long k, double v) {
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 256;
        struct cwmetric_sample *s = realloc(a->s, cap * sizeof *s);
        if (!s) return CWMETRIC_ERR_NOMEM;
        a->s = s;
        a->cap = cap;
    }
    a->s[a->n++] = (struct cwmetric_sample){k, v};
    return CWMETRIC_OK;
}

static int cwmetric_kind_of(const char *ns, const char *name) {
    for (int i = 0; i < CWMETRIC_KINDS; i++)
        if (strcmp(ns, cwmetric_kinds[i].ns) == 0 && strcmp(name, cwmetric_kinds[i].name) == 0)
            return i;
    return -1;
}

static int cwmetric_kind(const struct cwmetric_q *q) {
    return cwmetric_kind_of(q->ns, q->name);
}

bool cwmetric_component_metric(const char *ns, const char *name) {
    int kind = cwmetric_kind_of(ns, name);
    return kind == CWMETRIC_INVOCATIONS || kind == CWMETRIC_PER_COPY ||
           kind == CWMETRIC_NO_CAPACITY;
}

bool cwmetric_variant_metric(const char *ns, const char *name) {
    int kind = cwmetric_kind_of(ns, name);
    return kind >= 0 && kind != CWMETRIC_PER_COPY && kind != CWMETRIC_NO_CAPACITY;
}

/* A component call's sample of kind, or false when it has none. */
static bool cwmetric_ic_sample(int kind, const struct cwmetric_ic_call *c, double *v) {
    *v = kind == CWMETRIC_NO_CAPACITY ? c->refused : kind == CWMETRIC_PER_COPY ? c->per_copy : 1;
    return kind == CWMETRIC_NO_CAPACITY || !c->refused;
}

/* A call's sample of kind, or false when it has none. */
static bool cwmetric_call_sample(int kind, const struct cwmetric_call *c, double *v) {
    switch (kind) {
    case CWMETRIC_INVOCATIONS:
        *v = 1;
        return true;
    case CWMETRIC_PER_INSTANCE:
        *v = c->per_instance > 0 ? c->per_instance : 1;
        return true;
    case CWMETRIC_4XX:
        *v = c->status >= 400 && c->status < 500;
        return true;
    case CWMETRIC_5XX:
        *v = c->status >= 500 && c->status < 600;
        return true;
    case CWMETRIC_MODEL_ERRORS:
        *v = c->model_error;
        return true;
    case CWMETRIC_MODEL_LATENCY:
        *v = c->model_us;
        return c->timed;
    case CWMETRIC_OVERHEAD:
        *v = c->overhead_us;
        return c->timed;
    default: /* a component's metric: none per variant */
        *v = 0;
        return false;
    }
}

/* The window of a query in periods: [k0, k1), width w wall seconds. */
struct cwmetric_window {
    double w;
    long long k0, k1;
};

/* A kept call's sample of kind: its time and value, or false when it has none. */
typedef bool cwmetric_sample_fn(int kind, const void *call, double *t, double *v);

static bool cwmetric_variant_sample(int kind, const void *call, double *t, double *v) {
    const struct cwmetric_call *c = call;
    *t = c->t;
    return cwmetric_call_sample(kind, c, v);
}

static bool cwmetric_component_sample(int kind, const void *call, double *t, double *v) {
    const struct cwmetric_ic_call *c = call;
    *t = c->t;
    return cwmetric_ic_sample(kind, c, v);
}

/* The samples of kind in the window of a ring of n calls of size bytes from first. */
static int cwmetric_calls(const void *calls, size_t size, size_t n, size_t first, int kind,
                          cwmetric_sample_fn *sample, const struct cwmetric_window *win,
                          struct cwmetric_samples *out) {
    for (size_t i = 0; i < n; i++) {
        double t, x;
        if (!sample(kind, (const char *)calls + ((first + i) % n) * size, &t, &x)) continue;
        long long k = (long long)floor(t / win->w);
        if (k >= win->k0 && k < win->k1 && cwmetric_push(out, k, x)) return CWMETRIC_ERR_NOMEM;
    }
    return CWMETRIC_OK;
}

/* The instance's samples: one per period from its start to now. */
static int cwmetric_instance(const struct cwmetric_variant *v, int kind,
                             const struct cwmetric_window *win, double now,
                             struct cwmetric_samples *out) {
    long long a = (long long)floor(v->since / win->w), b = (long long)ceil(now / win->w);
    if (a < win->k0) a = win->k0;
    if (b > win->k1) b = win->k1;
    if (b - a > CWMETRIC_MAX_POINTS) a = b - CWMETRIC_MAX_POINTS; /* the newest */
    if (v->since <= 0 || b <= a) return CWMETRIC_OK;
    size_t n = (size_t)(b - a);
    double *busy = calloc(n, sizeof *busy);
    if (!busy) return CWMETRIC_ERR_NOMEM;
    for (size_t i = 0; i < v->n_busy; i++) {
        const struct cwmetric_span *s = &v->busy[(v->first_busy + i) % v->n_busy];
        long long from = (long long)floor(s->from / win->w), to = (long long)floor(s->to / win->w);
        for (long long k = from < a ? a : from; k <= to && k < b; k++) {
            double lo = fmax(s->from, (double)k * win->w),
                   hi = fmin(s->to, (double)(k + 1) * win->w);
            if (hi > lo) busy[k - a] += hi - lo;
        }
    }
    int rc = CWMETRIC_OK;
    for (size_t i = 0; !rc && i < n; i++) {
        double share = fmin(1, busy[i] / win->w), x = kind == CWMETRIC_GPU          ? 100 * share
                                                      : kind == CWMETRIC_CPU        ? 2 + 98 * share
                                                      : kind == CWMETRIC_GPU_MEMORY ? 90
                                                                                    : 18;
        rc = cwmetric_push(out, a + (long long)i, x);
    }
    free(busy);
    return rc;
}

static int cwmetric_cmp(const void *x, const void *y) {
    long long a = ((const struct cwmetric_sample *)x)->k,
              b = ((const struct cwmetric_sample *)y)->k;
    return (a > b) - (a < b);
}

/* The samples of each period as the statistic, into r (ascending or not). */
static int cwmetric_reduce(struct cwmetric_samples *a, int stat, const struct cwmetric_window *win,
                           bool ascending, struct cwmetric_result *r) {
    if (a->n > 1) qsort(a->s, a->n, sizeof *a->s, cwmetric_cmp);
    r->t = malloc((a->n ? a->n : 1) * sizeof *r->t);
    r->v = malloc((a->n ? a->n : 1) * sizeof *r->v);
    if (!r->t || !r->v) return CWMETRIC_ERR_NOMEM;
    for (size_t i = 0; i < a->n;) {
        size_t j = i;
        double sum = 0, lo = INFINITY, hi = -INFINITY;
        for (; j < a->n && a->s[j].k == a->s[i].k; j++) {
            sum += a->s[j].v;
            lo = fmin(lo, a->s[j].v);
            hi = fmax(hi, a->s[j].v);
        }
        double count = (double)(j - i);
        double vals[] = {sum, count, sum / count, lo, hi};
        r->t[r->n] = (double)a->s[i].k * win->w;
        r->v[r->n++] = vals[stat];
        i = j;
    }
    for (size_t i = 0; !ascending && i < r->n / 2; i++) {
        double t = r->t[i], v = r->v[i];
        r->t[i] = r->t[r->n - 1 - i];
        r->v[i] = r->v[r->n - 1 - i];
        r->t[r->n - 1 - i] = t;
        r->v[r->n - 1 - i] = v;
    }
    return CWMETRIC_OK;
}

/* Whether v is one of the variants q names. */
static bool cwmetric_wanted(const struct cwmetric_q *q, const struct cwmetric_variant *v) {
    return strcmp(q->endpoint, v->endpoint) == 0 &&
           (!*q->variant || strcmp(q->variant, v->variant) == 0);
}

static int cwmetric_one(const struct cwmetric *m, const struct cwmetric_req *req,
                        const struct cwmetric_q *q, bool here, double now,
                        struct cwmetric_result *r) {
    struct cwmetric_samples a = {0};
    struct cwmetric_window win = {(double)q->period / m->time_scale, 0, 0};
    win.k0 = (long long)floor(req->start / win.w);
    win.k1 = (long long)ceil(req->end / win.w);
    int kind = cwmetric_kind(q), rc = CWMETRIC_OK;
    r->q = q;
    bool ic = *q->component != '\0';
    bool none = !here || kind < 0 || q->other_dims ||
                (ic ? *q->endpoint || *q->variant || !cwmetric_component_metric(q->ns, q->name)
                    : !*q->endpoint);
    for (size_t i = 0; ic && !none && !rc && i < m->n_ic; i++)
        if (strcmp(m->ic[i].name, q->component) == 0)
            rc = cwmetric_calls(m->ic[i].calls, sizeof *m->ic[i].calls, m->ic[i].n_calls,
                                m->ic[i].first_call, kind, cwmetric_component_sample, &win, &a);
    for (size_t i = 0; !ic && !none && !rc && i < m->n; i++) {
        if (!cwmetric_wanted(q, &m->v[i])) continue;
        const struct cwmetric_variant *v = &m->v[i];
        rc = kind >= CWMETRIC_FIRST_INSTANCE
                 ? cwmetric_instance(v, kind, &win, now, &a)
                 : cwmetric_calls(v->calls, sizeof *v->calls, v->n_calls, v->first_call, kind,
                                  cwmetric_variant_sample, &win, &a);
    }
    if (!rc) rc = cwmetric_reduce(&a, cwmetric_stat(q->stat), &win, req->ascending, r);
    free(a.s);
    return rc;
}

/* Cuts the results to the page: the data points after from, at most max. */
static void cwmetric_cut(struct cwmetric_page *p, long from, long max) {
    long seen = 0, kept = 0;
    p->next = -1;
    for (size_t i = 0; i < p->n; i++) {
        struct cwmetric_result *r = &p->r[i];
        size_t skip = seen >= from ? 0 : (size_t)fmin((double)r->n, (double)(from - seen));
        seen += (long)r->n;
        size_t keep = r->n - skip;
        if ((long)keep > max - kept) {
            keep = (size_t)(max - kept);
            r->partial = true;
            if (p->next < 0) p->next = from + kept + (long)keep;
        }
        memmove(r->t, r->t + skip, keep * sizeof *r->t);
        memmove(r->v, r->v + skip, keep * sizeof *r->v);
        r->n = keep;
        kept += (long)keep;
    }
}

int cwmetric_eval(const struct cwmetric *m, const struct cwmetric_req *req, const char *region,
                  double now, struct cwmetric_page *out) {
    memset(out, 0, sizeof *out);
    out->r = calloc(req->n ? req->n : 1, sizeof *out->r);
    if (!out->r) return CWMETRIC_ERR_NOMEM;
    bool here = strcmp(region, m->region) == 0;
    for (size_t i = 0; i < req->n; i++) {
        if (req->q[i].hidden) continue;
        if (cwmetric_one(m, req, &req->q[i], here, now, &out->r[out->n++]))
            return CWMETRIC_ERR_NOMEM;
    }
    cwmetric_cut(out, req->from, req->max_points ? req->max_points : CWMETRIC_MAX_POINTS);
    return CWMETRIC_OK;
}

void cwmetric_page_free(struct cwmetric_page *p) {
    for (size_t i = 0; p->r && i < p->n; i++) {
        free(p->r[i].t);
        free(p->r[i].v);
    }
    free(p->r);
    memset(p, 0, sizeof *p);
}

/* ---- the JSON 1.0 protocol ---- */

static void cwmetric_copy(char *dst, size_t size, const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    snprintf(dst, size, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

/* A timestamp member: epoch seconds, or an ISO 8601 string; -1 when absent or bad. */
static double cwmetric_json_time(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    double t = -1;
    if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e11) t = v->valuedouble;
    if (cJSON_IsString(v) && cwdoc_time(v->valuestring, strlen(v->valuestring), &t)) t = -1;
    return t;
}

void cwmetric_dimension(struct cwmetric_q *q, const char *name, const char *value) {
    if (strcmp(name, "EndpointName") == 0)
        snprintf(q->endpoint, sizeof q->endpoint, "%s", value);
    else if (strcmp(name, "VariantName") == 0)
        snprintf(q->variant, sizeof q->variant, "%s", value);
    else if (strcmp(name, "InferenceComponentName") == 0)
        snprintf(q->component, sizeof q->component, "%s", value);
    else
        q->other_dims = true;
}

static void cwmetric_json_dims(struct cwmetric_q *q, const cJSON *dims) {
    const cJSON *d;
    cJSON_ArrayForEach(d, dims) {
        char name[CWMETRIC_TEXT], value[CWMETRIC_NAME_MAX];
        cwmetric_copy(name, sizeof name, d, "Name");
        cwmetric_copy(value, sizeof value, d, "Value");
        cwmetric_dimension(q, name, value);
    }
}

static void cwmetric_json_q(struct cwmetric_q *q, const cJSON *o) {
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(o, "MetricStat");
    const cJSON *metric = cJSON_GetObjectItemCaseSensitive(ms, "Metric");
    const cJSON *period = cJSON_GetObjectItemCaseSensitive(ms, "Period");
    const cJSON *ret = cJSON_GetObjectItemCaseSensitive(o, "ReturnData");
    cwmetric_copy(q->id, sizeof q->id, o, "Id");
    cwmetric_copy(q->label, sizeof q->label, o, "Label");
    cwmetric_copy(q->ns, sizeof q->ns, metric, "Namespace");
    cwmetric_copy(q->name, sizeof q->name, metric, "MetricName");
    cwmetric_copy(q->stat, sizeof q->stat, ms, "Stat");
    cwmetric_json_dims(q, cJSON_GetObjectItemCaseSensitive(metric, "Dimensions"));
    if (!period) period = cJSON_GetObjectItemCaseSensitive(o, "Period");
    if (cJSON_IsNumber(period) && period->valuedouble >= 1 && period->valuedouble <= 1e7)
        q->period = (long)period->valuedouble;
    q->expression = cJSON_GetObjectItemCaseSensitive(o, "Expression") != NULL;
    q->hidden = cJSON_IsFalse(ret);
}

/* Reads a JSON request into req; false when the body is not a JSON object. */
static bool cwmetric_json_req(const char *body, size_t len, struct cwmetric_req *req) {
    cJSON *o = cJSON_ParseWithLength(body, len), *x;
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return false;
    }
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(o, "MetricDataQueries")) {
        if (req->n == CWMETRIC_QUERIES) {
            req->too_many = true;
            break;
        }
        cwmetric_json_q(&req->q[req->n++], x);
    }
    req->start = cwmetric_json_time(o, "StartTime");
    req->end = cwmetric_json_time(o, "EndTime");
    const cJSON *scan = cJSON_GetObjectItemCaseSensitive(o, "ScanBy");
    req->ascending = cJSON_IsString(scan) && strcmp(scan->valuestring, "TimestampAscending") == 0;
    const cJSON *max = cJSON_GetObjectItemCaseSensitive(o, "MaxDatapoints");
    if (cJSON_IsNumber(max))
        req->max_points =
            max->valuedouble >= 1 && max->valuedouble <= 1e9 ? (long)max->valuedouble : -1;
    const cJSON *tok = cJSON_GetObjectItemCaseSensitive(o, "NextToken");
    if (tok) {
        char *end = NULL;
        const char *s = cJSON_IsString(tok) ? tok->valuestring : "";
        long from = strtol(s, &end, 10);
        req->from = *s && !*end && from >= 0 ? from : -1;
    }
    cJSON_Delete(o);
    return true;
}

static int cwmetric_json_page(const struct cwmetric_page *p, struct buf *b) {
    int rc = buf_adds(b, "{\"MetricDataResults\":[");
    for (size_t i = 0; !rc && i < p->n; i++) {
        const struct cwmetric_result *r = &p->r[i];
        struct cwdoc_series s = {r->q->id,
                                 *r->q->label ? r->q->label : r->q->name,
                                 r->partial ? "PartialData" : "Complete",
                                 r->t,
                                 r->v,
                                 r->n};
        if (i) rc = buf_addc(b, ',');
        if (!rc) rc = cwdoc_series_json(b, &s, false);
    }
    if (!rc) rc = buf_adds(b, "],\"Messages\":[]");
    if (!rc && p->next >= 0) rc = buf_addf(b, ",\"NextToken\":\"%ld\"", p->next);
    return rc ? rc : buf_addc(b, '}');
}

int cwmetric_answer(const struct cwmetric *m, const struct cwmetric_req *req, const char *region,
                    double now, struct cwmetric_page *page, struct cwmetric_refusal *why) {
    memset(page, 0, sizeof *page);
    if (!cwmetric_check(req, why)) return 1;
    return cwmetric_eval(m, req, region, now, page) ? CWMETRIC_ERR_NOMEM : 0;
}

/* The JSON 1.0 error type of a refusal (the error shape's name). */
static const char *cwmetric_json_type(const char *code) {
    if (strcmp(code, "MissingParameter") == 0) return "MissingRequiredParameterException";
    return strcmp(code, "InvalidNextToken") == 0 ? code : "InvalidParameterValueException";
}

int cwmetric_call(const struct cwmetric *m, const char *op, const char *body, size_t len,
                  const char *region, double now, struct cplane_reply *r) {
    struct cwmetric_req *req = calloc(1, sizeof *req);
    struct cwmetric_refusal why;
    struct cwmetric_page page = {0};
    int rc = req ? 0 : CWMETRIC_ERR_NOMEM;
    r->status = 200;
    r->type = NULL;
    buf_reset(&r->body);
    if (req) cwmetric_req_init(req);
    if (!rc && strcmp(op, "GetMetricData") != 0)
        rc = cplane_error(r, 400, "UnknownOperationException",
                          "sm-emulator serves GetMetricData of CloudWatch only.");
    else if (!rc && !cwmetric_json_req(body, len, req))
        rc = cplane_error(r, 400, "SerializationException", "The request is not a JSON object.");
    else if (!rc && (rc = cwmetric_answer(m, req, region, now, &page, &why)) == 1)
        rc = cplane_error(r, 400, cwmetric_json_type(why.code), why.message);
    else if (!rc)
        rc = cwmetric_json_page(&page, &r->body);
    cwmetric_page_free(&page);
    free(req);
    if (!rc) return CPLANE_OK;
    (void)!cplane_error(r, 500, "InternalFailure", "out of memory");
    return CPLANE_ERR_NOMEM;
}
