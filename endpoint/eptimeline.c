#include "eptimeline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jsonw.h"
#include "smname.h"

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

/* A copy count of RuntimeConfig (-1 when absent or null). */
static int eptimeline_copies(const cJSON *rc, const char *key, long *out, struct buf *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(rc, key);
    *out = -1;
    if (!v || cJSON_IsNull(v)) return EPTIMELINE_OK;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= 1e6) ||
        v->valuedouble != floor(v->valuedouble))
        return buf_fail(err, EPTIMELINE_ERR_REPLY,
                        "DescribeInferenceComponent: RuntimeConfig.%s is not a count", key);
    *out = (long)v->valuedouble;
    return EPTIMELINE_OK;
}

/* A required name member of a DescribeInferenceComponent reply (smname's rule). */
static int eptimeline_name(const cJSON *o, const char *key, char *dst, size_t size,
                           struct buf *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    size_t n = cJSON_IsString(v) ? strlen(v->valuestring) : 0;
    if (!n || n >= size || !smname_endpoint_ok(v->valuestring, n))
        return buf_fail(err, EPTIMELINE_ERR_REPLY, "DescribeInferenceComponent: %s is not a name",
                        key);
    memcpy(dst, v->valuestring, n + 1);
    return EPTIMELINE_OK;
}

int eptimeline_component(const char *json, size_t len, struct eptimeline_sample *s,
                         struct buf *err) {
    cJSON *root = json && len ? cJSON_ParseWithLength(json, len) : NULL;
    s->copies = s->desired_copies = -1;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return buf_fail(err, EPTIMELINE_ERR_REPLY,
                        "DescribeInferenceComponent: the reply is not a JSON object");
    }
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(root, "InferenceComponentStatus"),
                *rt = cJSON_GetObjectItemCaseSensitive(root, "RuntimeConfig");
    int rc =
        eptimeline_name(root, "InferenceComponentName", s->component, sizeof s->component, err);
    if (!rc) rc = eptimeline_name(root, "EndpointName", s->endpoint, sizeof s->endpoint, err);
    if (!rc) rc = eptimeline_name(root, "VariantName", s->variant, sizeof s->variant, err);
    if (!rc && st && !cJSON_IsNull(st)) { /* optional */
        if (cJSON_IsString(st))
            epdesc_clean(s->component_status, sizeof s->component_status, st->valuestring,
                         strlen(st->valuestring));
        else
            rc = buf_fail(err, EPTIMELINE_ERR_REPLY,
                          "DescribeInferenceComponent: InferenceComponentStatus is not a string");
    }
    if (!rc && rt && !cJSON_IsNull(rt) && !cJSON_IsObject(rt))
        rc = buf_fail(err, EPTIMELINE_ERR_REPLY,
                      "DescribeInferenceComponent: RuntimeConfig is not an object");
    if (!rc) rc = eptimeline_copies(rt, "CurrentCopyCount", &s->copies, err);
    if (!rc) rc = eptimeline_copies(rt, "DesiredCopyCount", &s->desired_copies, err);
    cJSON_Delete(root);
    return rc;
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
    if (!rc && s->component[0]) {
        rc = buf_adds(out, ",\"inference_component\":");
        if (!rc) rc = jsonw_cstr(out, s->component);
        if (!rc) rc = buf_adds(out, ",\"component_status\":");
        if (!rc) rc = jsonw_cstr(out, s->component_status);
        if (!rc) rc = eptimeline_count(out, "current_copies", s->copies);
        if (!rc) rc = eptimeline_count(out, "desired_copies", s->desired_copies);
    }
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

/* DescribeInferenceComponent of component into s; endpoint (or NULL) must be its. */
static int eptimeline_take_component(struct awsj_client *c, const char *endpoint,
                                     const char *component, struct eptimeline_sample *s,
                                     struct buf *req, struct buf *reply, struct buf *err) {
    if (buf_adds(req, "{\"InferenceComponentName\":") || jsonw_cstr(req, component) ||
        buf_adds(req, "}"))
        return EPTIMELINE_ERR_NOMEM;
    if (awsj_call(c, AWSJ_SAGEMAKER, "DescribeInferenceComponent", buf_str(req), reply, err))
        return EPTIMELINE_ERR_CALL;
    int rc = eptimeline_component(reply->data, reply->len, s, err);
    if (!rc && endpoint && strcmp(endpoint, s->endpoint) != 0)
        rc = buf_fail(err, EPTIMELINE_ERR_INPUT,
                      "inference component %s is on endpoint %s, not on %s", s->component,
                      s->endpoint, endpoint);
    buf_reset(req);
    return rc;
}

int eptimeline_take(struct awsj_client *c, const char *endpoint, const char *variant,
                    const char *component, double now, struct eptimeline_sample *s,
                    struct buf *err) {
    struct buf req, reply;
    struct epdesc_endpoint d;
    buf_init(&req, BUF_NO_CAP);
    buf_init(&reply, BUF_NO_CAP);
    memset(s, 0, sizeof *s);
    s->t = now;
    s->copies = s->desired_copies = -1;
    int rc = component ? eptimeline_take_component(c, endpoint, component, s, &req, &reply, err)
                       : EPTIMELINE_OK;
    if (component) { /* the component names its endpoint and variant */
        endpoint = s->endpoint;
        variant = s->variant;
    }
    if (!rc &&
        (buf_adds(&req, "{\"EndpointName\":") || jsonw_cstr(&req, endpoint) || buf_adds(&req, "}")))
        rc = EPTIMELINE_ERR_NOMEM;
    if (!rc && awsj_call(c, AWSJ_SAGEMAKER, "DescribeEndpoint", buf_str(&req), &reply, err))
        rc = EPTIMELINE_ERR_CALL;
    if (!rc && epdesc_endpoint(reply.data, reply.len, &d, err)) rc = EPTIMELINE_ERR_REPLY;
    if (!rc) {
        char keep[EPDESC_NAME_MAX];
        snprintf(keep, sizeof keep, "%s", variant ? variant : "");
        rc = eptimeline_counts(&d, variant ? keep : NULL, s, err);
    }
    buf_reset(&req);
    if (!rc) { /* the resource id (endpoint/NAME/variant/VARIANT or inference-component/NAME) */
        char id[2 * EPDESC_NAME_MAX + 32];
        if (s->component[0])
            snprintf(id, sizeof id, "inference-component/%s", s->component);
        else
            snprintf(id, sizeof id, "endpoint/%s/variant/%s", s->endpoint, s->variant);
        if (buf_adds(&req, "{\"ServiceNamespace\":\"sagemaker\",\"ResourceId\":") ||
            jsonw_cstr(&req, id) ||
            buf_addf(&req, ",\"ScalableDimension\":\"%s\",\"MaxResults\":%d}",
                     s->component[0] ? "sagemaker:inference-component:DesiredCopyCount"
                                     : "sagemaker:variant:DesiredInstanceCount",
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
