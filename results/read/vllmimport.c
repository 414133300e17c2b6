#include "vllmimport.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

bool vllmimport_is(const cJSON *head) {
    return cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(head, "ttfts")) &&
           cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(head, "itls")) &&
           !cJSON_GetObjectItemCaseSensitive(head, "format");
}

/* The array field name of head, of n entries (optional: may be absent). */
static int vllmimport_array(const cJSON *head, const char *name, int n, bool optional,
                            const cJSON **out, const char *path, struct buf *err) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(head, name);
    *out = NULL;
    if (!a && optional) return 0;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n)
        return buf_fail(err, VLLMIMPORT_ERR_INPUT,
                        "%s: vLLM result: \"%s\" must list one entry per request (%d, as "
                        "\"ttfts\")",
                        path, name, n);
    *out = a;
    return 0;
}

/* A time in seconds, from 0 to VLLMIMPORT_MAX_SECONDS. */
static int vllmimport_secs(const cJSON *v, const char *name, int i, int j, double *out,
                           const char *path, struct buf *err) {
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
        v->valuedouble > VLLMIMPORT_MAX_SECONDS) {
        if (j < 0)
            return buf_fail(err, VLLMIMPORT_ERR_INPUT,
                            "%s: vLLM result: %s[%d] must be seconds from 0 to %g", path, name, i,
                            VLLMIMPORT_MAX_SECONDS);
        return buf_fail(err, VLLMIMPORT_ERR_INPUT,
                        "%s: vLLM result: %s[%d][%d] must be seconds from 0 to %g", path, name, i,
                        j, VLLMIMPORT_MAX_SECONDS);
    }
    *out = v->valuedouble;
    return 0;
}

/* One request, i, of a successful run. */
static int vllmimport_one(struct peerview_side *s, const cJSON *const a[6], int i, const char *path,
                          struct buf *err) {
    const cJSON *ttfts = a[0], *itls = a[1], *lens = a[2], *errs = a[3], *lats = a[4],
                *starts = a[5];
    const cJSON *e = errs ? cJSON_GetArrayItem(errs, i) : NULL;
    if (e && !cJSON_IsString(e) && !cJSON_IsNull(e))
        return buf_fail(err, VLLMIMPORT_ERR_INPUT,
                        "%s: vLLM result: errors[%d] must be a string (\"\" when it succeeded)",
                        path, i);
    if (e && cJSON_IsString(e) && e->valuestring[0]) {
        s->failed++;
        return 0;
    }
    const cJSON *gl = cJSON_GetArrayItem(itls, i), *len = cJSON_GetArrayItem(lens, i), *g;
    double ttft = 0, start = 0, latency = NAN;
    int rc = vllmimport_secs(cJSON_GetArrayItem(ttfts, i), "ttfts", i, -1, &ttft, path, err);
    if (rc == 0 && starts)
        rc =
            vllmimport_secs(cJSON_GetArrayItem(starts, i), "start_times", i, -1, &start, path, err);
    if (rc == 0 && lats)
        rc = vllmimport_secs(cJSON_GetArrayItem(lats, i), "latencies", i, -1, &latency, path, err);
    if (rc < 0) return rc;
    if (!cJSON_IsArray(gl))
        return buf_fail(err, VLLMIMPORT_ERR_INPUT, "%s: vLLM result: itls[%d] must be a list", path,
                        i);
    if (!cJSON_IsNumber(len) || len->valuedouble < 0 || len->valuedouble > INT32_MAX ||
        len->valuedouble != floor(len->valuedouble))
        return buf_fail(err, VLLMIMPORT_ERR_INPUT,
                        "%s: vLLM result: output_lens[%d] must be a whole number of tokens", path,
                        i);
    struct peerview_req r = {
        start, start + ttft, start + ttft, NAN, (int32_t)len->valuedouble, s->ngaps, 0};
    int j = 0;
    cJSON_ArrayForEach(g, gl) {
        double v = 0;
        if (vllmimport_secs(g, "itls", i, j++, &v, path, err) < 0) return VLLMIMPORT_ERR_INPUT;
        if (peerview_push_gap(s, v) < 0)
            return buf_fail(err, VLLMIMPORT_ERR_NOMEM, "out of memory");
        r.last += v;
        r.ngaps++;
    }
    r.end = isfinite(latency) ? start + latency : r.last;
    if (peerview_push_req(s, &r) < 0) return buf_fail(err, VLLMIMPORT_ERR_NOMEM, "out of memory");
    return 0;
}

int vllmimport_add(struct peerview_side *s, const cJSON *head, const char *path, struct buf *err) {
    const cJSON *a[6];
    const cJSON *ttfts = cJSON_GetObjectItemCaseSensitive(head, "ttfts");
    int n = cJSON_GetArraySize(ttfts);
    a[0] = ttfts;
    if (vllmimport_array(head, "itls", n, false, &a[1], path, err) < 0 ||
        vllmimport_array(head, "output_lens", n, false, &a[2], path, err) < 0 ||
        vllmimport_array(head, "errors", n, true, &a[3], path, err) < 0 ||
        vllmimport_array(head, "latencies", n, true, &a[4], path, err) < 0 ||
        vllmimport_array(head, "start_times", n, true, &a[5], path, err) < 0)
        return VLLMIMPORT_ERR_INPUT;
    for (int i = 0; i < n; i++) {
        int rc = vllmimport_one(s, a, i, path, err);
        if (rc < 0) return rc;
    }
    return 0;
}
