#include "aiperfimport.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "rfile.h"

/* The next line of [p, end) and where the one after starts. */
static size_t aiperfimport_line(const char *p, const char *end, const char **next) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    *next = nl ? nl + 1 : end;
    return (size_t)((nl ? nl : end) - p);
}

bool aiperfimport_is(const char *path) {
    size_t len = strlen(path);
    struct rfile_map m;
    struct buf err;
    bool yes = false;
    if (len < 6 || strcmp(path + len - 6, ".jsonl") != 0) return false;
    buf_init(&err, 256);
    if (rfile_map_open(path, &m, &err) == 0 && m.data) {
        const char *next;
        size_t n = aiperfimport_line(m.data, m.data + m.len, &next);
        cJSON *o = n <= AIPERFIMPORT_MAX_LINE ? cJSON_ParseWithLength(m.data, n) : NULL;
        yes = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "metadata")) &&
              cJSON_GetObjectItemCaseSensitive(o, "metrics") != NULL;
        cJSON_Delete(o);
        rfile_map_close(&m);
    }
    buf_free(&err);
    return yes;
}

/* Seconds per unit, or NAN for a unit that is no time. */
static double aiperfimport_unit(const char *u) {
    static const struct {
        const char *name;
        double s;
    } units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}, {"sec", 1}};
    for (size_t i = 0; u && i < sizeof units / sizeof units[0]; i++)
        if (strcmp(u, units[i].name) == 0) return units[i].s;
    return NAN;
}

struct aiperfimport_ctx {
    struct peerview_side *s;
    const char *path;
    size_t line;
    struct buf *err;
};

static int aiperfimport_bad(struct aiperfimport_ctx *c, const char *name, const char *what) {
    return buf_fail(c->err, AIPERFIMPORT_ERR_INPUT, "%s: line %zu: AIPerf record: %s %s", c->path,
                    c->line, name, what);
}

/* metrics.name as seconds (*have false when absent). */
static int aiperfimport_time(struct aiperfimport_ctx *c, const cJSON *metrics, const char *name,
                             double *out, bool *have) {
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(metrics, name);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "value");
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(m, "unit");
    *have = m && !cJSON_IsNull(m);
    if (!*have) return 0;
    double k = aiperfimport_unit(cJSON_IsString(u) ? u->valuestring : NULL);
    if (!cJSON_IsNumber(v) || !isfinite(k) || !(v->valuedouble >= 0) ||
        v->valuedouble * k > AIPERFIMPORT_MAX_SECONDS)
        return aiperfimport_bad(c, name,
                                "must be {\"value\": a time from 0, \"unit\": ns, us, ms, s}");
    *out = v->valuedouble * k;
    return 0;
}

static int aiperfimport_record(struct aiperfimport_ctx *c, const cJSON *o) {
    const cJSON *metrics = cJSON_GetObjectItemCaseSensitive(o, "metrics");
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "error");
    if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "metadata")))
        return aiperfimport_bad(c, "metadata", "must be an object");
    if (e && !cJSON_IsNull(e)) {
        c->s->failed++;
        return 0;
    }
    if (!cJSON_IsObject(metrics)) return aiperfimport_bad(c, "metrics", "must be an object");
    double ttft = 0, lat = 0;
    bool have_ttft, have_lat;
    if (aiperfimport_time(c, metrics, "time_to_first_token", &ttft, &have_ttft) < 0 ||
        aiperfimport_time(c, metrics, "request_latency", &lat, &have_lat) < 0)
        return AIPERFIMPORT_ERR_INPUT;
    if (!have_ttft) { /* not streamed: no first token */
        c->s->unstreamed++;
        return 0;
    }
    if (!have_lat) return aiperfimport_bad(c, "request_latency", "is missing");
    const cJSON *osl = cJSON_GetObjectItemCaseSensitive(metrics, "output_sequence_length");
    if (!osl) osl = cJSON_GetObjectItemCaseSensitive(metrics, "output_token_count");
    const cJSON *ov = cJSON_GetObjectItemCaseSensitive(osl, "value");
    if (!cJSON_IsNumber(ov) || ov->valuedouble < 0 || ov->valuedouble > INT32_MAX ||
        ov->valuedouble != floor(ov->valuedouble))
        return aiperfimport_bad(c, "output_sequence_length", "must be a whole number of tokens");
    struct peerview_req r = {0, ttft, ttft, lat, (int32_t)ov->valuedouble, c->s->ngaps, 0};
    const cJSON *icl = cJSON_GetObjectItemCaseSensitive(metrics, "inter_chunk_latency");
    if (icl && !cJSON_IsNull(icl)) {
        const cJSON *vals = cJSON_GetObjectItemCaseSensitive(icl, "value"), *g;
        const cJSON *u = cJSON_GetObjectItemCaseSensitive(icl, "unit");
        double k = aiperfimport_unit(cJSON_IsString(u) ? u->valuestring : NULL);
        if (!cJSON_IsArray(vals) || !isfinite(k))
            return aiperfimport_bad(
                c, "inter_chunk_latency",
                "must be {\"value\": a list of times, \"unit\": ns, us, ms, s}");
        cJSON_ArrayForEach(g, vals) {
            if (!cJSON_IsNumber(g) || !(g->valuedouble >= 0) ||
                g->valuedouble * k > AIPERFIMPORT_MAX_SECONDS)
                return aiperfimport_bad(c, "inter_chunk_latency", "must hold times from 0");
            if (peerview_push_gap(c->s, g->valuedouble * k) < 0)
                return buf_fail(c->err, AIPERFIMPORT_ERR_NOMEM, "out of memory");
            r.last += g->valuedouble * k;
            r.ngaps++;
        }
    } else {
        r.last = lat; /* no chunk times: the last one taken at the end */
    }
    if (peerview_push_req(c->s, &r) < 0)
        return buf_fail(c->err, AIPERFIMPORT_ERR_NOMEM, "out of memory");
    return 0;
}

int aiperfimport_read(struct peerview_side *s, const char *path, struct buf *err) {
    struct rfile_map m;
    struct aiperfimport_ctx c = {s, path, 0, err};
    int rc = rfile_map_open(path, &m, err);
    if (rc < 0) return AIPERFIMPORT_ERR_READ;
    const char *p = m.data, *end = m.data ? m.data + m.len : NULL, *next;
    while (rc == 0 && p && p < end) {
        size_t n = aiperfimport_line(p, end, &next);
        c.line++;
        if (n > AIPERFIMPORT_MAX_LINE) {
            rc = buf_fail(err, AIPERFIMPORT_ERR_INPUT,
                          "%s: line %zu: AIPerf record longer than %d bytes", path, c.line,
                          AIPERFIMPORT_MAX_LINE);
        } else if (n > 0 && !(n == 1 && p[0] == '\r')) {
            cJSON *o = cJSON_ParseWithLength(p, n);
            rc = cJSON_IsObject(o) ? aiperfimport_record(&c, o)
                                   : buf_fail(err, AIPERFIMPORT_ERR_INPUT,
                                              "%s: line %zu: not a JSON object", path, c.line);
            cJSON_Delete(o);
        }
        p = next;
    }
    rfile_map_close(&m);
    return rc;
}
