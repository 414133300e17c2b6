#include "timeline.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "readall.h"
#include "smname.h"

#define TIMELINE_MAX_T 4102444800.0 /* 2100-01-01 */

static int timeline_nomem(struct buf *err) {
    return buf_fail(err, TIMELINE_ERR_NOMEM, "out of memory");
}

/* A time member: a number from 0 to 2100 (null allowed when nullable: 0). */
static int timeline_time(const cJSON *o, const char *key, bool nullable, double *out,
                         const char *name, long line, struct buf *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = 0;
    if (nullable && (!v || cJSON_IsNull(v))) return 0;
    if (!cJSON_IsNumber(v) || !(v->valuedouble > 0 && v->valuedouble < TIMELINE_MAX_T))
        return buf_fail(err, TIMELINE_ERR_INPUT, "%s line %ld: %s is not a Unix time", name, line,
                        key);
    *out = v->valuedouble;
    return 0;
}

/* A count member: a whole number from 0 to 1e6, or null (-1). */
static int timeline_count(const cJSON *o, const char *key, long *out, const char *name, long line,
                          struct buf *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = -1;
    if (!v || cJSON_IsNull(v)) return 0;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= 1e6) ||
        v->valuedouble != floor(v->valuedouble))
        return buf_fail(err, TIMELINE_ERR_INPUT, "%s line %ld: %s is not a count", name, line, key);
    *out = (long)v->valuedouble;
    return 0;
}

/* Adds or updates the activity a (its latest state wins). */
static int timeline_activity(struct timeline *t, size_t *cap, const struct timeline_activity *a,
                             const char *name, long line, struct buf *err) {
    for (size_t i = t->na; i-- > 0;)
        if (strcmp(t->a[i].id, a->id) == 0) {
            t->a[i] = *a;
            return 0;
        }
    if (t->na >= (size_t)TIMELINE_MAX_ACTIVITIES)
        return buf_fail(err, TIMELINE_ERR_INPUT, "%s line %ld: more than %ld scaling activities",
                        name, line, TIMELINE_MAX_ACTIVITIES);
    if (t->na == *cap) {
        size_t grown_cap = *cap ? 2 * *cap : 16;
        struct timeline_activity *g = realloc(t->a, grown_cap * sizeof *g);
        if (!g) return timeline_nomem(err);
        t->a = g;
        *cap = grown_cap;
    }
    t->a[t->na++] = *a;
    return 0;
}

static int timeline_activities(struct timeline *t, size_t *cap, const cJSON *o, const char *name,
                               long line, struct buf *err) {
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(o, "activities"), *e;
    if (!list || cJSON_IsNull(list)) return 0;
    if (!cJSON_IsArray(list))
        return buf_fail(err, TIMELINE_ERR_INPUT, "%s line %ld: activities is not a list", name,
                        line);
    cJSON_ArrayForEach(e, list) {
        struct timeline_activity a = {0};
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
        if (!cJSON_IsObject(e) || !cJSON_IsString(id) || !id->valuestring[0])
            return buf_fail(err, TIMELINE_ERR_INPUT, "%s line %ld: an activity without an id", name,
                            line);
        size_t n = strlen(id->valuestring);
        memcpy(a.id, id->valuestring, n < TIMELINE_MAX_ID ? n : TIMELINE_MAX_ID - 1);
        int rc = timeline_time(e, "start", false, &a.start, name, line, err);
        if (!rc) rc = timeline_time(e, "end", true, &a.end, name, line, err);
        if (!rc) rc = timeline_activity(t, cap, &a, name, line, err);
        if (rc) return rc;
    }
    return 0;
}

/* inference_component: a name every sample shares, or absent from every one. */
static int timeline_component(struct timeline *t, const cJSON *o, const char *name, long line,
                              struct buf *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "inference_component");
    bool has = v && !cJSON_IsNull(v);
    if (has && (!cJSON_IsString(v) || !smname_endpoint_ok(v->valuestring, strlen(v->valuestring))))
        return buf_fail(err, TIMELINE_ERR_INPUT,
                        "%s line %ld: inference_component is not an inference component name", name,
                        line);
    if (!t->n) {
        if (has) snprintf(t->component, sizeof t->component, "%s", v->valuestring);
        return 0;
    }
    if (strcmp(t->component, has ? v->valuestring : "") != 0)
        return buf_fail(err, TIMELINE_ERR_INPUT,
                        "%s line %ld: another inference component than the first sample's (%s)",
                        name, line, t->component[0] ? t->component : "none");
    return 0;
}

static int timeline_line(struct timeline *t, size_t *caps, const char *s, size_t n,
                         const char *name, long line, struct buf *err) {
    cJSON *o = cJSON_ParseWithLength(s, n);
    int rc = 0;
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return buf_fail(err, TIMELINE_ERR_INPUT, "%s line %ld: not a JSON object", name, line);
    }
    struct timeline_sample x = {0};
    const cJSON *ep = cJSON_GetObjectItemCaseSensitive(o, "endpoint");
    if (!cJSON_IsString(ep) || !smname_endpoint_ok(ep->valuestring, strlen(ep->valuestring)))
        rc = buf_fail(err, TIMELINE_ERR_INPUT, "%s line %ld: endpoint is not an endpoint name",
                      name, line);
    else if (t->n && strcmp(t->endpoint, ep->valuestring) != 0)
        rc = buf_fail(err, TIMELINE_ERR_INPUT,
                      "%s line %ld: another endpoint than the first sample's (%s)", name, line,
                      t->endpoint);
    else if (!t->n)
        snprintf(t->endpoint, sizeof t->endpoint, "%s", ep->valuestring);
    if (!rc) rc = timeline_component(t, o, name, line, err);
    if (!rc) rc = timeline_time(o, "t", false, &x.t, name, line, err);
    if (!rc) rc = timeline_count(o, "current_instances", &x.current, name, line, err);
    if (!rc) rc = timeline_count(o, "desired_instances", &x.desired, name, line, err);
    if (!rc) rc = timeline_count(o, "current_copies", &x.copies, name, line, err);
    if (!rc) rc = timeline_count(o, "desired_copies", &x.desired_copies, name, line, err);
    if (!rc && t->n && x.t < t->s[t->n - 1].t)
        rc = buf_fail(err, TIMELINE_ERR_INPUT, "%s line %ld: the samples' times go back", name,
                      line);
    if (!rc && t->n >= (size_t)TIMELINE_MAX_SAMPLES)
        rc = buf_fail(err, TIMELINE_ERR_INPUT, "%s line %ld: more than %ld samples", name, line,
                      TIMELINE_MAX_SAMPLES);
    if (!rc && t->n == caps[0]) {
        size_t grown_cap = caps[0] ? 2 * caps[0] : 64;
        struct timeline_sample *g = realloc(t->s, grown_cap * sizeof *g);
        if (!g)
            rc = timeline_nomem(err);
        else {
            t->s = g;
            caps[0] = grown_cap;
        }
    }
    if (!rc) t->s[t->n++] = x;
    if (!rc) rc = timeline_activities(t, &caps[1], o, name, line, err);
    cJSON_Delete(o);
    return rc;
}

static int timeline_by_start(const void *a, const void *b) {
    const struct timeline_activity *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

int timeline_parse(const char *name, const char *text, size_t len, struct timeline *out,
                   struct buf *err) {
    size_t caps[2] = {0, 0};
    long line = 0;
    int rc = 0;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; !rc && i < len;) {
        const char *s = text + i, *nl = memchr(s, '\n', len - i);
        size_t n = nl ? (size_t)(nl - s) : len - i;
        i += n + 1;
        line++;
        size_t k = 0;
        while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r')) k++;
        if (k == n) continue; /* an empty line */
        rc = timeline_line(out, caps, s, n, name, line, err);
    }
    if (!rc && !out->n) rc = buf_fail(err, TIMELINE_ERR_INPUT, "%s: no samples", name);
    if (rc) {
        timeline_free(out);
        return rc;
    }
    if (out->na) qsort(out->a, out->na, sizeof *out->a, timeline_by_start);
    return 0;
}

int timeline_load(const char *path, struct timeline *out, struct buf *err) {
    struct buf text;
    buf_init(&text, (size_t)TIMELINE_MAX_BYTES);
    memset(out, 0, sizeof *out);
    int rc = readall_regular(path, &text);
    if (rc) {
        buf_free(&text);
        if (rc == BUF_ERR_NOMEM) return timeline_nomem(err);
        return buf_fail(err, TIMELINE_ERR_INPUT, "cannot read the timeline %s: %s", path,
                        readall_why(rc, "larger than 256 MiB"));
    }
    rc = timeline_parse(path, text.data ? text.data : "", text.len, out, err);
    buf_free(&text);
    return rc;
}

void timeline_free(struct timeline *t) {
    free(t->s);
    free(t->a);
    memset(t, 0, sizeof *t);
}
