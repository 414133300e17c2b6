#include "suite_rate.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "readall.h"
#include "rfield.h"
#include "rfmt.h"
#include "suite_files.h"

#define SUITE_RATE_MAX_RECORDS 100000

static int suite_rate_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Whether rec is a measured request: not a warm-up (--warmup). */
static bool suite_rate_measured(const cJSON *rec) {
    const cJSON *phase = cJSON_GetObjectItemCaseSensitive(rec, RFIELD_PHASE);
    return !cJSON_IsString(phase) || strcmp(phase->valuestring, RFIELD_PHASE_WARMUP) != 0;
}

/* The median wall (real seconds) of the ok records asking for tokens; -1 when none. */
static double suite_rate_median(const cJSON *records, long tokens, double *walls) {
    size_t n = 0;
    const cJSON *rec;
    cJSON_ArrayForEach(rec, records) {
        const cJSON *ok = cJSON_GetObjectItemCaseSensitive(rec, RFIELD_OK);
        const cJSON *mt = cJSON_GetObjectItemCaseSensitive(rec, RFIELD_MAX_TOKENS);
        const cJSON *t0 = cJSON_GetObjectItemCaseSensitive(rec, RFIELD_T_START_US);
        const cJSON *t1 = cJSON_GetObjectItemCaseSensitive(rec, RFIELD_T_END_US);
        if (!cJSON_IsTrue(ok) || !suite_rate_measured(rec) || !cJSON_IsNumber(mt) ||
            mt->valuedouble != tokens || !cJSON_IsNumber(t0) || !cJSON_IsNumber(t1) ||
            t1->valuedouble < t0->valuedouble || n == SUITE_RATE_MAX_RECORDS)
            continue;
        walls[n++] = (t1->valuedouble - t0->valuedouble) / 1e6;
    }
    if (!n) return -1;
    qsort(walls, n, sizeof *walls, suite_rate_cmp);
    return n % 2 ? walls[n / 2] : (walls[n / 2 - 1] + walls[n / 2]) / 2;
}

/* The shortest and longest lengths of the ok records. */
static void suite_rate_lengths(const cJSON *records, long *lo, long *hi) {
    const cJSON *rec;
    *lo = *hi = -1;
    cJSON_ArrayForEach(rec, records) {
        const cJSON *ok = cJSON_GetObjectItemCaseSensitive(rec, RFIELD_OK);
        const cJSON *mt = cJSON_GetObjectItemCaseSensitive(rec, RFIELD_MAX_TOKENS);
        if (!cJSON_IsTrue(ok) || !suite_rate_measured(rec) || !cJSON_IsNumber(mt) ||
            !(mt->valuedouble >= 1) || mt->valuedouble > 1e7 ||
            mt->valuedouble != floor(mt->valuedouble))
            continue;
        long t = (long)mt->valuedouble;
        if (*lo < 0 || t < *lo) *lo = t;
        if (*hi < 0 || t > *hi) *hi = t;
    }
}

int suite_rate_parse(const char *json, size_t len, struct suite_rate *out, struct buf *err) {
    cJSON *root = cJSON_ParseWithLength(json, len);
    const cJSON *records = cJSON_GetObjectItemCaseSensitive(root, RFMT_RECORDS);
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(root, RFMT_TIME_SCALE);
    int n = cJSON_IsArray(records) ? cJSON_GetArraySize(records) : 0;
    double *walls = n > 0 ? malloc((size_t)n * sizeof *walls) : NULL;
    long lo, hi;
    int rc = SUITE_RATE_OK;
    out->time_scale = cJSON_IsNumber(ts) && ts->valuedouble > 0 ? ts->valuedouble : 1;
    suite_rate_lengths(records, &lo, &hi);
    double m_lo = walls && lo > 0 ? suite_rate_median(records, lo, walls) : -1;
    double m_hi = walls && hi > lo ? suite_rate_median(records, hi, walls) : -1;
    if (m_lo <= 0)
        rc = buf_fail(err, SUITE_RATE_ERR_FORMAT, "no successful decode records");
    else if (m_hi > m_lo) {
        out->rate = (double)(hi - lo) / (m_hi - m_lo) / out->time_scale;
        out->fixed = (m_lo - (double)lo / (out->rate * out->time_scale)) * out->time_scale;
        if (out->fixed < 0) out->fixed = 0;
    } else { /* one length: the whole wall per token, the cautious estimate */
        out->rate = (double)lo / m_lo / out->time_scale;
        out->fixed = 0;
    }
    free(walls);
    cJSON_Delete(root);
    return rc;
}

int suite_rate_read(const char *path, struct suite_rate *out, struct buf *err) {
    struct buf text;
    buf_init(&text, SUITE_FILES_RESULT_MAX);
    int rc = readall_path(path, &text)
                 ? buf_fail(err, SUITE_RATE_ERR_IO, "%s: cannot read it", path)
                 : suite_rate_parse(buf_str(&text), text.len, out, err);
    buf_free(&text);
    return rc;
}

double suite_rate_seconds(const struct suite_rate *r, long tokens) {
    return r->rate > 0 ? r->fixed + (double)tokens / r->rate : INFINITY;
}

long suite_rate_fits(const struct suite_rate *r, double limit) {
    double t = (limit - r->fixed) * r->rate;
    return t >= 1 ? (long)floor(t) : 0;
}
