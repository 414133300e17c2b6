#include "eptimeline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jsonw.h"

/* An optional string member into dst ("" when absent). */
static int eptimeline_str(const cJSON *o, const char *key, char *dst, size_t size,
                          struct buf *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    dst[0] = '\0';
    if (!v || cJSON_IsNull(v)) return EPTIMELINE_OK;
    if (!cJSON_IsString(v))
        return buf_fail(err, EPTIMELINE_ERR_REPLY, "ScalingActivities: %s is not a string", key);
    epdesc_clean(dst, size, v->valuestring, strlen(v->valuestring));
    return EPTIMELINE_OK;
}

/* An optional time member (0 when absent): epoch seconds. */
static int eptimeline_time(const cJSON *o, const char *key, double *out, struct buf *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = 0;
    if (!v || cJSON_IsNull(v)) return EPTIMELINE_OK;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
        v->valuedouble > 4102444800.0)
        return buf_fail(err, EPTIMELINE_ERR_REPLY, "ScalingActivities: %s is not a time", key);
    *out = v->valuedouble;
    return EPTIMELINE_OK;
}

int eptimeline_activities(const char *json, size_t len, struct eptimeline_activity *out, size_t max,
                          size_t *n, struct buf *err) {
    *n = 0;
    cJSON *root = json && len ? cJSON_ParseWithLength(json, len) : NULL;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return buf_fail(err, EPTIMELINE_ERR_REPLY, "the reply is not a JSON object");
    }
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "ScalingActivities"), *e;
    int rc = EPTIMELINE_OK;
    if (list && !cJSON_IsNull(list) && !cJSON_IsArray(list))
        rc = buf_fail(err, EPTIMELINE_ERR_REPLY, "ScalingActivities is not a list");
    if (!cJSON_IsArray(list)) list = NULL;
    cJSON_ArrayForEach(e, list) {
        if (rc || *n == max) break;
        struct eptimeline_activity *a = &out[*n];
        if (!cJSON_IsObject(e)) {
            rc = buf_fail(err, EPTIMELINE_ERR_REPLY, "ScalingActivities holds a non-object");
            break;
        }
        rc = eptimeline_str(e, "ActivityId", a->id, sizeof a->id, err);
        if (!rc) rc = eptimeline_str(e, "StatusCode", a->status, sizeof a->status, err);
        if (!rc) rc = eptimeline_str(e, "Description", a->description, sizeof a->description, err);
        if (!rc) rc = eptimeline_time(e, "StartTime", &a->start, err);
        if (!rc) rc = eptimeline_time(e, "EndTime", &a->end, err);
        if (!rc && (!a->id[0] || !a->start))
            rc = buf_fail(err, EPTIMELINE_ERR_REPLY,
                          "ScalingActivities: an activity without ActivityId or StartTime");
        if (!rc) ++*n;
    }
    cJSON_Delete(root);
    if (rc) *n = 0;
    return rc;
}

int eptimeline_counts(const struct epdesc_endpoint *d, const char *variant,
                      struct eptimeline_sample *s, struct buf *err) {
    for (size_t i = 0; i < d->n_v; i++) {
        if (variant && strcmp(variant, d->v[i].name) != 0) continue;
        snprintf(s->endpoint, sizeof s->endpoint, "%s", d->name);
        snprintf(s->variant, sizeof s->variant, "%s", d->v[i].name);
        snprintf(s->status, sizeof s->status, "%s", d->status);
        s->current = d->v[i].current_count;
        s->desired = d->v[i].desired_count;
        return EPTIMELINE_OK;
    }
    return variant ? buf_fail(err, EPTIMELINE_ERR_INPUT, "endpoint %s has no variant %s", d->name,
                              variant)
                   : buf_fail(err, EPTIMELINE_ERR_INPUT, "endpoint %s has no variant", d->name);
}

/* ,"key":N or null for a count of -1. */
static int eptimeline_count(struct buf *out, const char *key, long v) {
    return v < 0 ? buf_addf(out, ",\"%s\":null", key) : buf_addf(out, ",\"%s\":%ld", key, v);
}

int eptimeline_json(const struct eptimeline_sample *s, struct buf *out) {
    int rc = buf_addf(out, "{\"t\":%.3f,\"endpoint\":", s->t);
    if (!rc) rc = jsonw_cstr(out, s->endpoint);
    if (!rc) rc = buf_adds(out, ",\"variant\":");
    if (!rc) rc = jsonw_cstr(out, s->variant);
    if (!rc) rc = buf_adds(out, ",\"status\":");
    if (!rc) rc = jsonw_cstr(out, s->status);
    if (!rc) rc = eptimeline_count(out, "current_instances", s->current);
    if (!rc) rc = eptimeline_count(out, "desired_instances", s->desired);
    if (!rc) rc = buf_adds(out, ",\"activities\":[");
    for (size_t i = 0; !rc && i < s->n_a; i++) {
        const struct eptimeline_activity *a = &s->a[i];
        rc = buf_adds(out, i ? ",{\"id\":" : "{\"id\":");
        if (!rc) rc = jsonw_cstr(out, a->id);
        if (!rc) rc = buf_adds(out, ",\"status\":");
        if (!rc) rc = jsonw_cstr(out, a->status);
        if (!rc) rc = buf_addf(out, ",\"start\":%.3f,\"end\":", a->start);
        if (!rc) rc = a->end > 0 ? buf_addf(out, "%.3f", a->end) : buf_adds(out, "null");
        if (!rc) rc = buf_adds(out, ",\"description\":");
        if (!rc) rc = jsonw_cstr(out, a->description);
        if (!rc) rc = buf_adds(out, "}");
    }
    if (!rc) rc = buf_adds(out, "]}\n");
    return rc ? EPTIMELINE_ERR_NOMEM : EPTIMELINE_OK;
}

int eptimeline_take(struct awsj_client *c, const char *endpoint, const char *variant, double now,
                    struct eptimeline_sample *s, struct buf *err) {
    struct buf req, reply;
    struct epdesc_endpoint d;
    buf_init(&req, BUF_NO_CAP);
    buf_init(&reply, BUF_NO_CAP);
    memset(s, 0, sizeof *s);
    s->t = now;
    int rc =
        buf_adds(&req, "{\"EndpointName\":") || jsonw_cstr(&req, endpoint) || buf_adds(&req, "}")
            ? EPTIMELINE_ERR_NOMEM
            : EPTIMELINE_OK;
    if (!rc && awsj_call(c, AWSJ_SAGEMAKER, "DescribeEndpoint", buf_str(&req), &reply, err))
        rc = EPTIMELINE_ERR_CALL;
    if (!rc && epdesc_endpoint(reply.data, reply.len, &d, err)) rc = EPTIMELINE_ERR_REPLY;
    if (!rc) rc = eptimeline_counts(&d, variant, s, err);
    buf_reset(&req);
    if (!rc) { /* the resource id endpoint/NAME/variant/VARIANT, as one JSON string */
        char id[2 * EPDESC_NAME_MAX + 32];
        snprintf(id, sizeof id, "endpoint/%s/variant/%s", s->endpoint, s->variant);
        if (buf_adds(&req, "{\"ServiceNamespace\":\"sagemaker\",\"ResourceId\":") ||
            jsonw_cstr(&req, id) ||
            buf_addf(&req,
                     ",\"ScalableDimension\":\"sagemaker:variant:DesiredInstanceCount\","
                     "\"MaxResults\":%d}",
                     EPTIMELINE_MAX_ACTIVITIES))
            rc = EPTIMELINE_ERR_NOMEM;
    }
    if (!rc &&
        awsj_call(c, AWSJ_APP_AUTOSCALING, "DescribeScalingActivities", buf_str(&req), &reply, err))
        rc = EPTIMELINE_ERR_CALL;
    if (!rc)
        rc = eptimeline_activities(reply.data, reply.len, s->a, EPTIMELINE_MAX_ACTIVITIES, &s->n_a,
                                   err);
    buf_free(&req);
    buf_free(&reply);
    return rc;
}
