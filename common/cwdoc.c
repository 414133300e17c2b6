#include "cwdoc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "jsonw.h"

#define CWDOC_TIME_MAX 1e11 /* epoch seconds past this (year 5138) are bad input */

const struct cwdoc_metric cwdoc_metrics_asked[CWDOC_N_METRICS] = {
    [CWDOC_INVOCATIONS] = {"invocations", "AWS/SageMaker", "Invocations", "Sum"},
    [CWDOC_MODEL_LATENCY_SUM] = {"model_latency_sum", "AWS/SageMaker", "ModelLatency", "Sum"},
    [CWDOC_MODEL_LATENCY_N] = {"model_latency_n", "AWS/SageMaker", "ModelLatency", "SampleCount"},
    [CWDOC_OVERHEAD_SUM] = {"overhead_latency_sum", "AWS/SageMaker", "OverheadLatency", "Sum"},
    [CWDOC_OVERHEAD_N] = {"overhead_latency_n", "AWS/SageMaker", "OverheadLatency", "SampleCount"},
    [CWDOC_ERRORS_4XX] = {"errors_4xx", "AWS/SageMaker", "Invocation4XXErrors", "Sum"},
    [CWDOC_ERRORS_5XX] = {"errors_5xx", "AWS/SageMaker", "Invocation5XXErrors", "Sum"},
    [CWDOC_MODEL_ERRORS] = {"model_errors", "AWS/SageMaker", "InvocationModelErrors", "Sum"},
    [CWDOC_GPU] = {"gpu", "/aws/sagemaker/Endpoints", "GPUUtilization", "Average"},
    [CWDOC_GPU_MEMORY] = {"gpu_memory", "/aws/sagemaker/Endpoints", "GPUMemoryUtilization",
                          "Average"},
    [CWDOC_CPU] = {"cpu", "/aws/sagemaker/Endpoints", "CPUUtilization", "Average"},
    [CWDOC_MEMORY] = {"memory", "/aws/sagemaker/Endpoints", "MemoryUtilization", "Average"},
};

int cwdoc_metric_find(const char *id) {
    for (int i = 0; id && i < CWDOC_N_METRICS; i++)
        if (strcmp(id, cwdoc_metrics_asked[i].id) == 0) return i;
    return -1;
}

/* ---- reading ---- */

/* Copies s cut at max bytes, before a UTF-8 character, into b (emptied first). */
static int cwdoc_cut(struct buf *b, const char *s, size_t max) {
    size_t n = strlen(s);
    if (n > max) {
        n = max;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
    }
    buf_reset(b);
    return buf_add(b, s, n) ? CWDOC_ERR_NOMEM : CWDOC_OK;
}

/* The string member key of o (cut at max), "" when absent; CWDOC_ERR_FORMAT
 * when it is there but not a string. */
static int cwdoc_str(const cJSON *o, const char *key, size_t max, struct buf *b, size_t at,
                     const char *list, struct buf *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    buf_reset(b);
    if (!v || cJSON_IsNull(v)) return CWDOC_OK;
    if (!cJSON_IsString(v))
        return buf_fail(err, CWDOC_ERR_FORMAT, "%s[%zu].%s is not a string", list, at, key);
    return cwdoc_cut(b, v->valuestring, max);
}

/* A whole number of milliseconds from 0 to CWDOC_TIME_MAX seconds. */
static int cwdoc_ms(const cJSON *o, const char *key, bool need, long long *out, size_t at,
                    struct buf *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = 0;
    if (!v && !need) return CWDOC_OK;
    if (!v || !cJSON_IsNumber(v) ||
        !(v->valuedouble >= 0 && v->valuedouble <= CWDOC_TIME_MAX * 1e3) ||
        v->valuedouble != floor(v->valuedouble))
        return buf_fail(err, CWDOC_ERR_FORMAT,
                        "events[%zu].%s is not a time in milliseconds since 1970", at, key);
    *out = (long long)v->valuedouble;
    return CWDOC_OK;
}

/* The array member key of the document root; CWDOC_ERR_FORMAT when absent or not one. */
static int cwdoc_list(const char *json, size_t len, const char *key, cJSON **root,
                      const cJSON **list, struct buf *err) {
    *root = json && len ? cJSON_ParseWithLength(json, len) : NULL;
    *list = cJSON_GetObjectItemCaseSensitive(*root, key);
    if (!cJSON_IsObject(*root))
        return buf_fail(err, CWDOC_ERR_FORMAT, "not a JSON object (%s)",
                        *root || !json || !len ? "another JSON value" : "not JSON");
    if (!cJSON_IsArray(*list))
        return buf_fail(err, CWDOC_ERR_FORMAT, "no \"%s\" list in the object", key);
    return CWDOC_OK;
}

/* The buffers an event's strings live in while its callback runs. */
struct cwdoc_ev_bufs {
    struct buf stream, message, id;
};

static int cwdoc_event(const cJSON *o, size_t at, struct cwdoc_ev_bufs *b, cwdoc_event_fn *fn,
                       void *ud, struct buf *err) {
    struct cwdoc_event e = {0};
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(o, "message");
    if (!cJSON_IsObject(o))
        return buf_fail(err, CWDOC_ERR_FORMAT, "events[%zu] is not an object", at);
    if (!cJSON_IsString(msg))
        return buf_fail(err, CWDOC_ERR_FORMAT, "events[%zu].message is not a string", at);
    int rc = cwdoc_ms(o, "timestamp", true, &e.timestamp_ms, at, err);
    if (!rc) rc = cwdoc_ms(o, "ingestionTime", false, &e.ingestion_ms, at, err);
    if (!rc) rc = cwdoc_str(o, "logStreamName", CWDOC_NAME_MAX, &b->stream, at, "events", err);
    if (!rc) rc = cwdoc_str(o, "eventId", CWDOC_NAME_MAX, &b->id, at, "events", err);
    if (!rc) rc = cwdoc_cut(&b->message, msg->valuestring, CWDOC_MESSAGE_MAX);
    if (rc) return rc == CWDOC_ERR_NOMEM ? buf_fail(err, rc, "out of memory") : rc;
    e.stream = buf_str(&b->stream);
    e.event_id = buf_str(&b->id);
    e.message = buf_str(&b->message);
    e.message_len = b->message.len;
    return fn(ud, &e);
}

int cwdoc_events(const char *json, size_t len, cwdoc_event_fn *fn, void *ud, struct buf *err) {
    cJSON *root;
    const cJSON *list, *o;
    struct cwdoc_ev_bufs b;
    int rc = cwdoc_list(json, len, "events", &root, &list, err);
    size_t at = 0;
    buf_init(&b.stream, BUF_NO_CAP);
    buf_init(&b.message, BUF_NO_CAP);
    buf_init(&b.id, BUF_NO_CAP);
    if (rc) list = NULL;
    cJSON_ArrayForEach(o, list) {
        if ((rc = cwdoc_event(o, at++, &b, fn, ud, err))) break;
    }
    buf_free(&b.stream);
    buf_free(&b.message);
    buf_free(&b.id);
    cJSON_Delete(root);
    return rc;
}

/* Two digits at s, or -1. */
static int cwdoc_2(const char *s) {
    if (s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9') return -1;
    return (s[0] - '0') * 10 + (s[1] - '0');
}

/* The zone at s[0..n): "Z", "+HH:MM", "-HH:MM" (also without the colon); its
 * offset east of UTC in seconds, or false. */
static bool cwdoc_zone(const char *s, size_t n, long *east) {
    if (n == 1 && (s[0] == 'Z' || s[0] == 'z')) {
        *east = 0;
        return true;
    }
    if ((n != 6 && n != 5) || (s[0] != '+' && s[0] != '-')) return false;
    int hh = cwdoc_2(s + 1), mm = cwdoc_2(s + (n == 6 ? 4 : 3));
    if (hh < 0 || hh > 23 || mm < 0 || mm > 59 || (n == 6 && s[3] != ':')) return false;
    *east = (s[0] == '-' ? -1 : 1) * (hh * 3600L + mm * 60L);
    return true;
}

int cwdoc_time(const char *s, size_t n, double *out) {
    if (n < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' ||
        s[16] != ':')
        return CWDOC_ERR_FORMAT;
    int y = cwdoc_2(s) * 100 + cwdoc_2(s + 2), mon = cwdoc_2(s + 5), day = cwdoc_2(s + 8);
    int hh = cwdoc_2(s + 11), mm = cwdoc_2(s + 14), ss = cwdoc_2(s + 17);
    if (cwdoc_2(s) < 0 || cwdoc_2(s + 2) < 0 || mon < 1 || mon > 12 || day < 1 || day > 31 ||
        hh < 0 || hh > 23 || mm < 0 || mm > 59 || ss < 0 || ss > 60 || y < 1970)
        return CWDOC_ERR_FORMAT;
    size_t i = 19;
    double frac = 0, scale = 1;
    if (s[i] == '.') {
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            if (scale > 1e-9) frac += (s[i] - '0') * (scale /= 10);
        if (scale == 1) return CWDOC_ERR_FORMAT; /* a dot without digits */
    }
    long east;
    if (!cwdoc_zone(s + i, n - i, &east)) return CWDOC_ERR_FORMAT;
    struct tm tm = {.tm_year = y - 1900,
                    .tm_mon = mon - 1,
                    .tm_mday = day,
                    .tm_hour = hh,
                    .tm_min = mm,
                    .tm_sec = ss};
    *out = (double)timegm(&tm) - (double)east + frac;
    return CWDOC_OK;
}

void cwdoc_time_format(double t, bool with_ms, char out[CWDOC_TIME_LEN]) {
    if (!(t >= 0 && t < CWDOC_TIME_MAX)) t = 0;
    double whole = floor(t);
    long ms = lround((t - whole) * 1000);
    if (ms == 1000) {
        whole += 1;
        ms = 0;
    }
    time_t w = (time_t)whole;
    struct tm tm;
    char day[24];
    gmtime_r(&w, &tm);
    strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
    if (ms || with_ms)
        snprintf(out, CWDOC_TIME_LEN, "%s.%03ld+00:00", day, ms);
    else
        snprintf(out, CWDOC_TIME_LEN, "%s+00:00", day);
}

/* One timestamp of a result: epoch seconds, or an ISO 8601 string. */
static bool cwdoc_stamp(const cJSON *v, double *t) {
    if (cJSON_IsString(v)) return cwdoc_time(v->valuestring, strlen(v->valuestring), t) == 0;
    *t = cJSON_IsNumber(v) ? v->valuedouble : -1;
    return *t >= 0 && *t <= CWDOC_TIME_MAX;
}

/* The buffers of one result while its callback runs. */
struct cwdoc_res_bufs {
    struct buf id, label, status;
    double *t, *v;
};

/* Reads the Timestamps and Values of result at into b->t and b->v (n of each). */
static int cwdoc_points(const cJSON *o, size_t at, struct cwdoc_res_bufs *b, size_t *n,
                        struct buf *err) {
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(o, "Timestamps");
    const cJSON *vs = cJSON_GetObjectItemCaseSensitive(o, "Values");
    *n = 0;
    if ((ts && !cJSON_IsArray(ts)) || (vs && !cJSON_IsArray(vs)) ||
        cJSON_GetArraySize(ts) != cJSON_GetArraySize(vs))
        return buf_fail(err, CWDOC_ERR_FORMAT,
                        "MetricDataResults[%zu]: Timestamps and Values are not two lists of one "
                        "length",
                        at);
    size_t count = (size_t)cJSON_GetArraySize(ts);
    free(b->t);
    free(b->v);
    b->t = malloc((count ? count : 1) * sizeof *b->t);
    b->v = malloc((count ? count : 1) * sizeof *b->v);
    if (!b->t || !b->v) return buf_fail(err, CWDOC_ERR_NOMEM, "out of memory");
    const cJSON *x = ts ? ts->child : NULL, *y = vs ? vs->child : NULL;
    for (; x && y; x = x->next, y = y->next, (*n)++) {
        if (!cwdoc_stamp(x, &b->t[*n]))
            return buf_fail(err, CWDOC_ERR_FORMAT,
                            "MetricDataResults[%zu].Timestamps[%zu] is not a time", at, *n);
        if (!cJSON_IsNumber(y) || !isfinite(y->valuedouble))
            return buf_fail(err, CWDOC_ERR_FORMAT,
                            "MetricDataResults[%zu].Values[%zu] is not a number", at, *n);
        b->v[*n] = y->valuedouble;
    }
    return CWDOC_OK;
}

static int cwdoc_result(const cJSON *o, size_t at, struct cwdoc_res_bufs *b, cwdoc_series_fn *fn,
                        void *ud, struct buf *err) {
    struct cwdoc_series s = {0};
    if (!cJSON_IsObject(o))
        return buf_fail(err, CWDOC_ERR_FORMAT, "MetricDataResults[%zu] is not an object", at);
    const char *list = "MetricDataResults";
    int rc = cwdoc_str(o, "Id", CWDOC_NAME_MAX, &b->id, at, list, err);
    if (!rc && !b->id.len)
        rc = buf_fail(err, CWDOC_ERR_FORMAT, "MetricDataResults[%zu] has no Id", at);
    if (!rc) rc = cwdoc_str(o, "Label", CWDOC_NAME_MAX, &b->label, at, list, err);
    if (!rc) rc = cwdoc_str(o, "StatusCode", CWDOC_NAME_MAX, &b->status, at, list, err);
    if (!rc) rc = cwdoc_points(o, at, b, &s.n, err);
    if (rc) return rc == CWDOC_ERR_NOMEM && !err->len ? buf_fail(err, rc, "out of memory") : rc;
    s.id = buf_str(&b->id);
    s.label = buf_str(&b->label);
    s.status = buf_str(&b->status);
    s.t = b->t;
    s.v = b->v;
    return fn(ud, &s);
}

int cwdoc_metrics(const char *json, size_t len, cwdoc_series_fn *fn, void *ud, struct buf *err) {
    cJSON *root;
    const cJSON *list, *o;
    struct cwdoc_res_bufs b = {.t = NULL, .v = NULL};
    int rc = cwdoc_list(json, len, "MetricDataResults", &root, &list, err);
    size_t at = 0;
    buf_init(&b.id, BUF_NO_CAP);
    buf_init(&b.label, BUF_NO_CAP);
    buf_init(&b.status, BUF_NO_CAP);
    if (rc) list = NULL;
    cJSON_ArrayForEach(o, list) {
        if ((rc = cwdoc_result(o, at++, &b, fn, ud, err))) break;
    }
    buf_free(&b.id);
    buf_free(&b.label);
    buf_free(&b.status);
    free(b.t);
    free(b.v);
    cJSON_Delete(root);
    return rc;
}

/* ---- writing ---- */

int cwdoc_event_json(struct buf *out, const struct cwdoc_event *e) {
    int rc = buf_adds(out, "{\"logStreamName\":");
    if (!rc) rc = jsonw_cstr(out, e->stream ? e->stream : "");
    if (!rc) rc = buf_addf(out, ",\"timestamp\":%lld,\"message\":", e->timestamp_ms);
    if (!rc) rc = jsonw_str(out, e->message, e->message_len);
    if (!rc) rc = buf_addf(out, ",\"ingestionTime\":%lld,\"eventId\":", e->ingestion_ms);
    if (!rc) rc = jsonw_cstr(out, e->event_id ? e->event_id : "");
    return rc ? rc : buf_addc(out, '}');
}

int cwdoc_series_json(struct buf *out, const struct cwdoc_series *s, bool iso) {
    int rc = buf_adds(out, "{\"Id\":");
    if (!rc) rc = jsonw_cstr(out, s->id);
    if (!rc) rc = buf_adds(out, ",\"Label\":");
    if (!rc) rc = jsonw_cstr(out, s->label ? s->label : "");
    if (!rc) rc = buf_adds(out, ",\"Timestamps\":[");
    for (size_t i = 0; !rc && i < s->n; i++) {
        char when[CWDOC_TIME_LEN];
        if (iso) cwdoc_time_format(s->t[i], false, when);
        rc = iso ? buf_addf(out, "%s\"%s\"", i ? "," : "", when)
                 : buf_addf(out, "%s%.17g", i ? "," : "", s->t[i]);
    }
    if (!rc) rc = buf_adds(out, "],\"Values\":[");
    for (size_t i = 0; !rc && i < s->n; i++) rc = buf_addf(out, "%s%.17g", i ? "," : "", s->v[i]);
    if (!rc) rc = buf_adds(out, "],\"StatusCode\":");
    if (!rc) rc = jsonw_cstr(out, s->status && *s->status ? s->status : "Complete");
    return rc ? rc : buf_addc(out, '}');
}
