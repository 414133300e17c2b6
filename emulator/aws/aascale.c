#include "aascale.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpres.h"
#include "jsonw.h"
#include "splitmix.h"

#define AASCALE_VARIANT_DIM   "sagemaker:variant:DesiredInstanceCount"
#define AASCALE_COMPONENT_DIM "sagemaker:inference-component:DesiredCopyCount"

/* The predefined metrics of target tracking, by dimension. */
static const struct {
    const char *type;
    enum aascale_dim dim;
} aascale_metrics[] = {
    {"SageMakerVariantInvocationsPerInstance", AASCALE_VARIANT},
    {"SageMakerVariantConcurrentRequestsPerModelHighResolution", AASCALE_VARIANT},
    {"SageMakerInferenceComponentInvocationsPerCopy", AASCALE_COMPONENT},
    {"SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution", AASCALE_COMPONENT},
};

void aascale_init(struct aascale *s, const char *account, uint64_t seed) {
    memset(s, 0, sizeof *s);
    snprintf(s->account, sizeof s->account, "%s", account);
    s->rng = seed ^ 0xaa5ca1e;
}

void aascale_free(struct aascale *s) {
    for (size_t i = 0; i < s->n_policies; i++) free(s->policies[i].config);
    free(s->activities);
    s->activities = NULL;
    s->n_policies = s->n_activities = 0;
}

/* A UUID from the service's generator. */
static void aascale_uuid(struct aascale *s, char out[40]) {
    uint64_t x = splitmix_next(&s->rng), y = splitmix_next(&s->rng);
    snprintf(out, 40, "%08x-%04x-4%03x-a%03x-%012llx", (unsigned)(x >> 32),
             (unsigned)(x >> 16) & 0xffff, (unsigned)x & 0xfff, (unsigned)(y >> 48) & 0xfff,
             (unsigned long long)(y & 0xffffffffffffULL));
}

/* ---- the request's members ---- */

/* The string member key (NULL when absent); false with r set when not a string. */
static bool aascale_str(const cJSON *req, const char *key, const char **out, struct cplane_reply *r,
                        int *rc) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, key);
    *out = NULL;
    if (!v || cJSON_IsNull(v)) return true;
    if (cJSON_IsString(v)) {
        *out = v->valuestring;
        return true;
    }
    *rc = cplane_fail(r, 400, "SerializationException", "%s: expected a string", key);
    return false;
}

/* The target's three identifying members, checked: the namespace, the
 * dimension, the resource id and whether what it names exists. */
struct aascale_key {
    const char *ns, *resource, *dim_name;
    enum aascale_dim dim;
};

static bool aascale_key(const cJSON *req, bool need_all, struct aascale_key *k,
                        struct cplane_reply *r, int *rc) {
    if (!aascale_str(req, "ServiceNamespace", &k->ns, r, rc) ||
        !aascale_str(req, "ResourceId", &k->resource, r, rc) ||
        !aascale_str(req, "ScalableDimension", &k->dim_name, r, rc))
        return false;
    if (!k->ns || (need_all && (!k->resource || !k->dim_name))) {
        *rc = cplane_fail(r, 400, "ValidationException",
                          "1 validation error detected: Value null at '%s' failed to satisfy "
                          "constraint: Member must not be null",
                          !k->ns         ? "serviceNamespace"
                          : !k->resource ? "resourceId"
                                         : "scalableDimension");
        return false;
    }
    if (strcmp(k->ns, "sagemaker") != 0) {
        *rc = cplane_fail(r, 400, "ValidationException",
                          "Unsupported service namespace %.64s: the emulator scales SageMaker "
                          "(sagemaker) only",
                          k->ns);
        return false;
    }
    if (k->resource && strlen(k->resource) >= AASCALE_ID_MAX) {
        *rc = cplane_fail(r, 400, "ValidationException",
                          "1 validation error detected: Value at 'resourceId' failed to satisfy "
                          "constraint: Member must have length less than or equal to %d",
                          AASCALE_ID_MAX - 1);
        return false;
    }
    k->dim = AASCALE_VARIANT;
    if (!k->dim_name) return true;
    if (strcmp(k->dim_name, AASCALE_COMPONENT_DIM) == 0)
        k->dim = AASCALE_COMPONENT;
    else if (strcmp(k->dim_name, AASCALE_VARIANT_DIM) != 0) {
        *rc = cplane_fail(r, 400, "ValidationException",
                          "Unsupported scalable dimension %.100s for service namespace sagemaker "
                          "(" AASCALE_VARIANT_DIM " or " AASCALE_COMPONENT_DIM ")",
                          k->dim_name);
        return false;
    }
    return true;
}

/* Whether endpoint/NAME/variant/VARIANT names a variant of an endpoint of region. */
static bool aascale_variant_exists(const struct cplane *cp, const char *region, const char *id) {
    char name[CPREQ_NAME_MAX + 1], var[CPREQ_NAME_MAX + 1];
    if (strncmp(id, "endpoint/", 9) != 0) return false;
    const char *p = id + 9, *slash = strchr(p, '/');
    if (!slash || (size_t)(slash - p) >= sizeof name || strncmp(slash, "/variant/", 9) != 0 ||
        strlen(slash + 9) >= sizeof var)
        return false;
    snprintf(name, sizeof name, "%.*s", (int)(slash - p), p);
    snprintf(var, sizeof var, "%s", slash + 9);
    const struct cpres_endpoint *ep = cplane_endpoint(cp, region, name);
    if (!ep || ep->state == CPRES_DELETING) return false;
    for (size_t i = 0; i < ep->live.cfg.n_v; i++)
        if (strcmp(ep->live.cfg.v[i].name, var) == 0) return true;
    return false;
}

struct aascale_target *aascale_target(struct aascale *s, const char *region, const char *resource) {
    for (size_t i = 0; i < s->n_targets; i++)
        if (strcmp(s->targets[i].region, region) == 0 &&
            strcmp(s->targets[i].resource, resource) == 0)
            return &s->targets[i];
    return NULL;
}

static const char *aascale_dim_name(enum aascale_dim d) {
    return d == AASCALE_VARIANT ? AASCALE_VARIANT_DIM : AASCALE_COMPONENT_DIM;
}

/* The target k names, or NULL with ObjectNotFoundException in r. */
static struct aascale_target *aascale_known(struct aascale *s, const struct aascale_key *k,
                                            const char *region, struct cplane_reply *r, int *rc) {
    struct aascale_target *t = aascale_target(s, region, k->resource);
    if (t && t->dim == k->dim) return t;
    *rc = cplane_fail(r, 400, "ObjectNotFoundException",
                      "No scalable target registered for service namespace: sagemaker, "
                      "resource ID: %s, scalable dimension: %s",
                      k->resource, k->dim_name);
    return NULL;
}

/* An integer member: absent leaves *out; false with r set when not a whole number. */
static bool aascale_long(const cJSON *req, const char *key, long *out, bool *given,
                         struct cplane_reply *r, int *rc) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, key);
    *given = v && !cJSON_IsNull(v);
    if (!*given) return true;
    if (cJSON_IsNumber(v) && v->valuedouble == (double)(long)v->valuedouble) {
        *out = (long)v->valuedouble;
        return true;
    }
    *rc = cplane_fail(r, 400, "SerializationException", "%s: expected an integer", key);
    return false;
}

/* ---- the calls ---- */

static int aascale_register(struct aascale *s, const struct cplane *cp, const cJSON *req,
                            const char *region, double now, struct cplane_reply *r) {
    struct aascale_key k;
    int rc = CPLANE_OK;
    long min = 0, max = 0;
    bool has_min, has_max;
    if (!aascale_key(req, true, &k, r, &rc) ||
        !aascale_long(req, "MinCapacity", &min, &has_min, r, &rc) ||
        !aascale_long(req, "MaxCapacity", &max, &has_max, r, &rc))
        return rc;
    if (k.dim == AASCALE_COMPONENT && (strncmp(k.resource, "inference-component/", 20) != 0 ||
                                       !cpic_find(&cp->ic, region, k.resource + 20)))
        return cplane_fail(r, 400, "ValidationException",
                           "The inference component %s does not exist in %s (ResourceId: "
                           "inference-component/NAME of an existing inference component)",
                           k.resource, region);
    if (k.dim == AASCALE_VARIANT && !aascale_variant_exists(cp, region, k.resource))
        return cplane_fail(r, 400, "ValidationException",
                           "The endpoint variant %s does not exist in %s (ResourceId: "
                           "endpoint/NAME/variant/VARIANT of an existing endpoint)",
                           k.resource, region);
    struct aascale_target *t = aascale_target(s, region, k.resource);
    if (!t && (!has_min || !has_max))
        return cplane_fail(r, 400, "ValidationException",
                           "MinCapacity and MaxCapacity are required when registering a new "
                           "scalable target (%s)",
                           k.resource);
    long lo = t && !has_min ? t->min : min, hi = t && !has_max ? t->max : max;
    if (lo < 0 || hi < 0)
        return cplane_fail(r, 400, "ValidationException",
                           "MinCapacity and MaxCapacity must be 0 or more (%s)", k.resource);
    if (lo > hi)
        return cplane_fail(r, 400, "ValidationException",
                           "Minimum capacity %ld cannot be greater than maximum capacity %ld", lo,
                           hi);
    if (!t) {
        if (s->n_targets == AASCALE_MAX_TARGETS)
            return cplane_fail(r, 400, "LimitExceededException",
                               "The emulator keeps at most %d scalable targets",
                               AASCALE_MAX_TARGETS);
        t = memset(&s->targets[s->n_targets++], 0, sizeof *t);
        snprintf(t->region, sizeof t->region, "%s", region);
        snprintf(t->resource, sizeof t->resource, "%s", k.resource);
        t->dim = k.dim;
        t->created = now;
        uint64_t h = splitmix_hash(k.resource) ^ splitmix_next(&s->rng);
        snprintf(t->arn, sizeof t->arn,
                 "arn:aws:application-autoscaling:%s:%s:scalable-target/056%016llx", region,
                 s->account, (unsigned long long)h);
    }
    t->min = lo;
    t->max = hi;
    const cJSON *susp = cJSON_GetObjectItemCaseSensitive(req, "SuspendedState");
    if (cJSON_IsObject(susp)) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(susp, "DynamicScalingInSuspended"),
                    *b = cJSON_GetObjectItemCaseSensitive(susp, "DynamicScalingOutSuspended"),
                    *c = cJSON_GetObjectItemCaseSensitive(susp, "ScheduledScalingSuspended");
        if (cJSON_IsBool(a)) t->in_suspended = cJSON_IsTrue(a);
        if (cJSON_IsBool(b)) t->out_suspended = cJSON_IsTrue(b);
        if (cJSON_IsBool(c)) t->scheduled_suspended = cJSON_IsTrue(c);
    }
    rc = buf_adds(&r->body, "{\"ScalableTargetARN\":");
    if (!rc) rc = jsonw_cstr(&r->body, t->arn);
    if (!rc) rc = buf_addc(&r->body, '}');
    return rc ? CPLANE_ERR_NOMEM : CPLANE_OK;
}

/* Whether list (a JSON array of strings, or absent) holds s. */
static bool aascale_listed(const cJSON *list, const char *s) {
    const cJSON *e;
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) == 0) return true;
    cJSON_ArrayForEach(e,
                       list) if (cJSON_IsString(e) && strcmp(e->valuestring, s) == 0) return true;
    return false;
}

static int aascale_target_json(struct buf *b, const struct aascale_target *t, const char *account) {
    int rc = buf_adds(b, "{\"ServiceNamespace\":\"sagemaker\",\"ResourceId\":");
    if (!rc) rc = jsonw_cstr(b, t->resource);
    if (!rc)
        rc = buf_addf(b,
                      ",\"ScalableDimension\":\"%s\",\"MinCapacity\":%ld,\"MaxCapacity\":%ld,"
                      "\"RoleARN\":\"arn:aws:iam::%s:role/aws-service-role/"
                      "sagemaker.application-autoscaling.amazonaws.com/"
                      "AWSServiceRoleForApplicationAutoScaling_SageMakerEndpoint\","
                      "\"CreationTime\":%.3f,\"SuspendedState\":{\"DynamicScalingInSuspended\":%s,"
                      "\"DynamicScalingOutSuspended\":%s,\"ScheduledScalingSuspended\":%s},"
                      "\"ScalableTargetARN\":",
                      aascale_dim_name(t->dim), t->min, t->max, account, t->created,
                      t->in_suspended ? "true" : "false", t->out_suspended ? "true" : "false",
                      t->scheduled_suspended ? "true" : "false");
    if (!rc) rc = jsonw_cstr(b, t->arn);
    return rc ? rc : buf_addc(b, '}');
}

static int aascale_describe_targets(struct aascale *s, const cJSON *req, const char *region,
                                    struct cplane_reply *r) {
    struct aascale_key k;
    int rc = CPLANE_OK;
    if (!aascale_key(req, false, &k, r, &rc)) return rc;
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(req, "ResourceIds");
    rc = buf_adds(&r->body, "{\"ScalableTargets\":[");
    bool first = true;
    for (size_t i = 0; !rc && i < s->n_targets; i++) {
        const struct aascale_target *t = &s->targets[i];
        if (strcmp(t->region, region) != 0 || !aascale_listed(ids, t->resource) ||
            (k.dim_name && t->dim != k.dim))
            continue;
        rc = buf_adds(&r->body, first ? "" : ",");
        if (!rc) rc = aascale_target_json(&r->body, t, s->account);
        first = false;
    }
    if (!rc) rc = buf_adds(&r->body, "]}");
    return rc ? CPLANE_ERR_NOMEM : CPLANE_OK;
}

static void aascale_drop_policy(struct aascale *s, size_t i) {
    free(s->policies[i].config);
    memmove(&s->policies[i], &s->policies[i + 1], (s->n_policies - i - 1) * sizeof *s->policies);
    s->n_policies--;
}

static int aascale_deregister(struct aascale *s, const cJSON *req, const char *region,
                              struct cplane_reply *r) {
    struct aascale_key k;
    int rc = CPLANE_OK;
    if (!aascale_key(req, true, &k, r, &rc)) return rc;
    struct aascale_target *t = aascale_known(s, &k, region, r, &rc);
    if (!t) return rc;
    for (size_t i = s->n_policies; i-- > 0;) /* its policies go with it */
        if (strcmp(s->policies[i].region, region) == 0 &&
            strcmp(s->policies[i].resource, t->resource) == 0)
            aascale_drop_policy(s, i);
    size_t at = (size_t)(t - s->targets);
    memmove(t, t + 1, (s->n_targets - at - 1) * sizeof *t);
    s->n_targets--;
    return buf_adds(&r->body, "{}") ? CPLANE_ERR_NOMEM : CPLANE_OK;
}

/* Checks a target tracking configuration for dimension dim; false with r set. */
static bool aascale_tracking_ok(const cJSON *c, enum aascale_dim dim, struct cplane_reply *r,
                                int *rc) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "TargetValue");
    if (!cJSON_IsNumber(v)) {
        *rc = cplane_fail(r, 400, "ValidationException",
                          "TargetTrackingScalingPolicyConfiguration.TargetValue is required");
        return false;
    }
    if (!(v->valuedouble >= 8.515920e-109 && v->valuedouble <= 6.174271e+307)) {
        *rc = cplane_fail(r, 400, "ValidationException",
                          "TargetValue %g is out of range (positive)", v->valuedouble);
        return false;
    }
    const cJSON *pre = cJSON_GetObjectItemCaseSensitive(c, "PredefinedMetricSpecification");
    const cJSON *custom = cJSON_GetObjectItemCaseSensitive(c, "CustomizedMetricSpecification");
    if (!pre == !custom) {
        *rc = cplane_fail(r, 400, "ValidationException",
                          "Exactly one of PredefinedMetricSpecification and "
                          "CustomizedMetricSpecification is required");
        return false;
    }
    if (!pre) return true;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(pre, "PredefinedMetricType");
    for (size_t i = 0; cJSON_IsString(type) && i < sizeof aascale_metrics / sizeof *aascale_metrics;
         i++)
        if (strcmp(type->valuestring, aascale_metrics[i].type) == 0 &&
            aascale_metrics[i].dim == dim)
            return true;
    *rc = cplane_fail(r, 400, "ValidationException",
                      "Unsupported metric type %.100s for scalable dimension %s",
                      cJSON_IsString(type) ? type->valuestring : "(none)", aascale_dim_name(dim));
    return false;
}

/* Checks a step scaling configuration; false with r set. */
static bool aascale_step_ok(const cJSON *c, struct cplane_reply *r, int *rc) {
    const cJSON *adj = cJSON_GetObjectItemCaseSensitive(c, "AdjustmentType");
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(c, "StepAdjustments"), *st;
    static const char *const types[] = {"ChangeInCapacity", "PercentChangeInCapacity",
                                        "ExactCapacity"};
    bool known = false;
    for (size_t i = 0; cJSON_IsString(adj) && i < 3; i++)
        known = known || strcmp(adj->valuestring, types[i]) == 0;
    if (!known) {
        *rc = cplane_fail(r, 400, "ValidationException",
                          "StepScalingPolicyConfiguration.AdjustmentType must be "
                          "ChangeInCapacity, PercentChangeInCapacity or ExactCapacity");
        return false;
    }
    if (!cJSON_IsArray(steps) || cJSON_GetArraySize(steps) == 0) {
        *rc = cplane_fail(r, 400, "ValidationException",
                          "StepScalingPolicyConfiguration.StepAdjustments needs at least one "
                          "step");
        return false;
    }
    cJSON_ArrayForEach(st, steps) {
        if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(st, "ScalingAdjustment"))) {
            *rc = cplane_fail(r, 400, "ValidationException",
                              "Every step adjustment needs a ScalingAdjustment");
            return false;
        }
    }
    return true;
}

/* The policy name of region and resource, or NULL. */
static struct aascale_policy *aascale_policy(struct aascale *s, const char *region,
                                             const char *resource, const char *name) {
    for (size_t i = 0; i < s->n_policies; i++)
        if (strcmp(s->policies[i].region, region) == 0 &&
            strcmp(s->policies[i].resource, resource) == 0 &&
            strcmp(s->policies[i].name, name) == 0)
            return &s->policies[i];
    return NULL;
}

/* The metric of target tracking configuration j on resource into q. */
static void aascale_alarm_metric(const cJSON *j, const char *resource, struct cwmetric_q *q) {
    const cJSON *pre = cJSON_GetObjectItemCaseSensitive(j, "PredefinedMetricSpecification");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(pre, "PredefinedMetricType");
    const cJSON *custom = cJSON_GetObjectItemCaseSensitive(j, "CustomizedMetricSpecification");
    const char *t = cJSON_IsString(type) ? type->valuestring : "";
    bool copies = strncmp(resource, "inference-component/", 20) == 0;
    bool high_res = strstr(t, "ConcurrentRequests") != NULL;
    snprintf(q->ns, sizeof q->ns, "AWS/SageMaker");
    snprintf(q->name, sizeof q->name, "%s",
             high_res ? (copies ? "ConcurrentRequestsPerCopy" : "ConcurrentRequestsPerModel")
                      : (copies ? "InvocationsPerCopy" : "InvocationsPerInstance"));
    snprintf(q->stat, sizeof q->stat, "%s", high_res ? "Average" : "Sum");
    q->period = high_res ? 10 : 60;
    if (copies) {
        snprintf(q->component, sizeof q->component, "%s", resource + 20);
    } else { /* endpoint/NAME/variant/VARIANT */
        const char *v = strstr(resource, "/variant/");
        int n = v ? (int)(v - resource) - 9 : 0;
        snprintf(q->endpoint, sizeof q->endpoint, "%.*s", n > 0 ? n : 0, resource + 9);
        snprintf(q->variant, sizeof q->variant, "%s", v ? v + 9 : "");
    }
    if (!custom) return;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(custom, "MetricName"),
                *ns = cJSON_GetObjectItemCaseSensitive(custom, "Namespace"),
                *stat = cJSON_GetObjectItemCaseSensitive(custom, "Statistic"), *d;
    memset(q, 0, sizeof *q);
    snprintf(q->name, sizeof q->name, "%s", cJSON_IsString(name) ? name->valuestring : "");
    snprintf(q->ns, sizeof q->ns, "%s", cJSON_IsString(ns) ? ns->valuestring : "");
    snprintf(q->stat, sizeof q->stat, "%s", cJSON_IsString(stat) ? stat->valuestring : "Average");
    q->period = 60;
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(custom, "Dimensions")) {
        const cJSON *dn = cJSON_GetObjectItemCaseSensitive(d, "Name"),
                    *dv = cJSON_GetObjectItemCaseSensitive(d, "Value");
        if (cJSON_IsString(dn) && cJSON_IsString(dv))
            cwmetric_dimension(q, dn->valuestring, dv->valuestring);
    }
}

bool aascale_tracking_alarms(const struct aascale_policy *p, struct cwalarm_spec out[2]) {
    cJSON *j = p->kind == AASCALE_TRACKING && p->config ? cJSON_Parse(p->config) : NULL;
    const cJSON *target = cJSON_GetObjectItemCaseSensitive(j, "TargetValue");
    if (!cJSON_IsNumber(target)) {
        cJSON_Delete(j);
        return false;
    }
    for (int i = 0; i < 2; i++) {
        struct cwalarm_spec *s = &out[i];
        cwalarm_spec_init(s);
        snprintf(s->name, sizeof s->name, "%.*s", (int)sizeof s->name - 1,
                 i ? p->alarm_low : p->alarm_high);
        snprintf(s->description, sizeof s->description,
                 "DO NOT EDIT OR DELETE. For TargetTrackingScaling policy %s.", p->arn);
        aascale_alarm_metric(j, p->resource, &s->q);
        s->eval_periods = i ? 15 : 3;
        s->threshold = i ? 0.9 * target->valuedouble : target->valuedouble;
        s->has_threshold = s->has_cmp = true;
        s->cmp = i ? CWALARM_LT : CWALARM_GT;
        cwalarm_add_action(s, &s->alarm_actions, "AlarmActions", p->arn);
    }
    cJSON_Delete(j);
    return true;
}

static int aascale_alarms_json(struct buf *b, const struct aascale_policy *p, const char *account) {
    int rc = buf_adds(b, "\"Alarms\":[");
    const char *names[2] = {p->alarm_high, p->alarm_low};
    for (int i = 0; !rc && p->kind == AASCALE_TRACKING && i < 2; i++) {
        rc = buf_adds(b, i ? ",{\"AlarmName\":" : "{\"AlarmName\":");
        if (!rc) rc = jsonw_cstr(b, names[i]);
        char arn[512];
        snprintf(arn, sizeof arn, "arn:aws:cloudwatch:%s:%s:alarm:%s", p->region, account,
                 names[i]);
        if (!rc) rc = buf_adds(b, ",\"AlarmARN\":");
        if (!rc) rc = jsonw_cstr(b, arn);
        if (!rc) rc = buf_addc(b, '}');
    }
    return rc ? rc : buf_addc(b, ']');
}

static int aascale_put_policy(struct aascale *s, const cJSON *req, const char *region, double now,
                              struct cplane_reply *r) {
    struct aascale_key k;
    const char *name, *type;
    int rc = CPLANE_OK;
    if (!aascale_key(req, true, &k, r, &rc) || !aascale_str(req, "PolicyName", &name, r, &rc) ||
        !aascale_str(req, "PolicyType", &type, r, &rc))
        return rc;
    if (!name || !*name || strlen(name) > 255)
        return cplane_fail(r, 400, "ValidationException",
                           "PolicyName is required, 1 to 255 characters");
    struct aascale_target *t = aascale_known(s, &k, region, r, &rc);
    if (!t) return rc;
    enum aascale_kind kind;
    const cJSON *c;
    if (type && strcmp(type, "TargetTrackingScaling") == 0) {
        kind = AASCALE_TRACKING;
        c = cJSON_GetObjectItemCaseSensitive(req, "TargetTrackingScalingPolicyConfiguration");
        if (!cJSON_IsObject(c))
            return cplane_fail(r, 400, "ValidationException",
                               "TargetTrackingScalingPolicyConfiguration is required for "
                               "policy type TargetTrackingScaling");
        if (!aascale_tracking_ok(c, t->dim, r, &rc)) return rc;
    } else if (!type || strcmp(type, "StepScaling") == 0) { /* the service's default */
        kind = AASCALE_STEP;
        c = cJSON_GetObjectItemCaseSensitive(req, "StepScalingPolicyConfiguration");
        if (!cJSON_IsObject(c))
            return cplane_fail(r, 400, "ValidationException",
                               "StepScalingPolicyConfiguration is required for policy type "
                               "StepScaling");
        if (!aascale_step_ok(c, r, &rc)) return rc;
    } else {
        return cplane_fail(r, 400, "ValidationException",
                           "Unsupported policy type %.64s (TargetTrackingScaling or StepScaling)",
                           type);
    }
    char *config = cJSON_PrintUnformatted(c);
    if (!config) return CPLANE_ERR_NOMEM;
    struct aascale_policy *p = aascale_policy(s, region, t->resource, name);
    if (!p) {
        size_t mine = 0;
        for (size_t i = 0; i < s->n_policies; i++)
            mine += strcmp(s->policies[i].resource, t->resource) == 0 &&
                    strcmp(s->policies[i].region, region) == 0;
        if (mine >= 50 || s->n_policies == AASCALE_MAX_POLICIES) {
            free(config);
            return cplane_fail(r, 400, "LimitExceededException",
                               "Too many scaling policies for %s (at most 50 a target)",
                               t->resource);
        }
        p = memset(&s->policies[s->n_policies++], 0, sizeof *p);
        snprintf(p->region, sizeof p->region, "%s", region);
        snprintf(p->resource, sizeof p->resource, "%s", t->resource);
        snprintf(p->name, sizeof p->name, "%s", name);
        p->dim = t->dim;
        p->created = now;
        char id[40], a1[40], a2[40];
        aascale_uuid(s, id);
        aascale_uuid(s, a1);
        aascale_uuid(s, a2);
        snprintf(p->arn, sizeof p->arn,
                 "arn:aws:autoscaling:%s:%s:scalingPolicy:%s:resource/sagemaker/%s:policyName/%s",
                 region, s->account, id, t->resource, name);
        snprintf(p->alarm_high, sizeof p->alarm_high, "TargetTracking-%s-AlarmHigh-%s", t->resource,
                 a1);
        snprintf(p->alarm_low, sizeof p->alarm_low, "TargetTracking-%s-AlarmLow-%s", t->resource,
                 a2);
    }
    free(p->config);
    p->config = config;
    p->kind = kind;
    rc = buf_adds(&r->body, "{\"PolicyARN\":");
    if (!rc) rc = jsonw_cstr(&r->body, p->arn);
    if (!rc) rc = buf_addc(&r->body, ',');
    if (!rc) rc = aascale_alarms_json(&r->body, p, s->account);
    if (!rc) rc = buf_addc(&r->body, '}');
    return rc ? CPLANE_ERR_NOMEM : CPLANE_OK;
}

static int aascale_policy_json(struct buf *b, const struct aascale_policy *p, const char *account) {
    int rc = buf_adds(b, "{\"PolicyARN\":");
    if (!rc) rc = jsonw_cstr(b, p->arn);
    if (!rc) rc = buf_adds(b, ",\"PolicyName\":");
    if (!rc) rc = jsonw_cstr(b, p->name);
    if (!rc) rc = buf_adds(b, ",\"ServiceNamespace\":\"sagemaker\",\"ResourceId\":");
    if (!rc) rc = jsonw_cstr(b, p->resource);
    if (!rc)
        rc = buf_addf(b, ",\"ScalableDimension\":\"%s\",\"PolicyType\":\"%s\",\"%s\":%s,",
                      aascale_dim_name(p->dim),
                      p->kind == AASCALE_TRACKING ? "TargetTrackingScaling" : "StepScaling",
                      p->kind == AASCALE_TRACKING ? "TargetTrackingScalingPolicyConfiguration"
                                                  : "StepScalingPolicyConfiguration",
                      p->config);
    if (!rc) rc = aascale_alarms_json(b, p, account);
    if (!rc) rc = buf_addf(b, ",\"CreationTime\":%.3f}", p->created);
    return rc;
}

static int aascale_describe_policies(struct aascale *s, const cJSON *req, const char *region,
                                     struct cplane_reply *r) {
    struct aascale_key k;
    int rc = CPLANE_OK;
    if (!aascale_key(req, false, &k, r, &rc)) return rc;
    const cJSON *names = cJSON_GetObjectItemCaseSensitive(req, "PolicyNames");
    rc = buf_adds(&r->body, "{\"ScalingPolicies\":[");
    bool first = true;
    for (size_t i = 0; !rc && i < s->n_policies; i++) {
        const struct aascale_policy *p = &s->policies[i];
        if (strcmp(p->region, region) != 0 || !aascale_listed(names, p->name) ||
            (k.resource && strcmp(k.resource, p->resource) != 0) || (k.dim_name && p->dim != k.dim))
            continue;
        rc = buf_adds(&r->body, first ? "" : ",");
        if (!rc) rc = aascale_policy_json(&r->body, p, s->account);
        first = false;
    }
    if (!rc) rc = buf_adds(&r->body, "]}");
    return rc ? CPLANE_ERR_NOMEM : CPLANE_OK;
}

static int aascale_delete_policy(struct aascale *s, const cJSON *req, const char *region,
                                 struct cplane_reply *r) {
    struct aascale_key k;
    const char *name;
    int rc = CPLANE_OK;
    if (!aascale_key(req, true, &k, r, &rc) || !aascale_str(req, "PolicyName", &name, r, &rc))
        return rc;
    struct aascale_policy *p = name ? aascale_policy(s, region, k.resource, name) : NULL;
    if (!p || p->dim != k.dim)
        return cplane_fail(r, 400, "ObjectNotFoundException",
                           "No scaling policy found for service namespace: sagemaker, resource "
                           "ID: %s, scalable dimension: %s, policy name: %.255s",
                           k.resource, k.dim_name, name ? name : "");
    aascale_drop_policy(s, (size_t)(p - s->policies));
    return buf_adds(&r->body, "{}") ? CPLANE_ERR_NOMEM : CPLANE_OK;
}

struct aascale_activity *aascale_activity(struct aascale *s, const struct aascale_target *t,
                                          double start, const char *description,
                                          const char *cause) {
    if (!s->activities) {
        s->activities = calloc(AASCALE_MAX_ACTIVITIES, sizeof *s->activities);
        if (!s->activities) return NULL;
    }
    size_t at;
    if (s->n_activities == AASCALE_MAX_ACTIVITIES) {
        at = s->first_activity;
        s->first_activity = (s->first_activity + 1) % AASCALE_MAX_ACTIVITIES;
    } else {
        at = s->n_activities++;
    }
    struct aascale_activity *a = memset(&s->activities[at], 0, sizeof *a);
    snprintf(a->region, sizeof a->region, "%s", t->region);
    snprintf(a->resource, sizeof a->resource, "%s", t->resource);
    a->dim = t->dim;
    aascale_uuid(s, a->id);
    snprintf(a->description, sizeof a->description, "%s", description);
    snprintf(a->cause, sizeof a->cause, "%s", cause);
    a->start = start;
    a->status = "InProgress";
    return a;
}

static int aascale_activity_json(struct buf *b, const struct aascale_activity *a) {
    int rc = buf_adds(b, "{\"ActivityId\":");
    if (!rc) rc = jsonw_cstr(b, a->id);
    if (!rc) rc = buf_adds(b, ",\"ServiceNamespace\":\"sagemaker\",\"ResourceId\":");
    if (!rc) rc = jsonw_cstr(b, a->resource);
    if (!rc)
        rc =
            buf_addf(b, ",\"ScalableDimension\":\"%s\",\"Description\":", aascale_dim_name(a->dim));
    if (!rc) rc = jsonw_cstr(b, a->description);
    if (!rc) rc = buf_adds(b, ",\"Cause\":");
    if (!rc) rc = jsonw_cstr(b, a->cause);
    if (!rc) rc = buf_addf(b, ",\"StartTime\":%.3f", a->start);
    if (!rc && a->end > 0) rc = buf_addf(b, ",\"EndTime\":%.3f", a->end);
    if (!rc)
        rc = buf_addf(
            b, ",\"StatusCode\":\"%s\",\"StatusMessage\":\"%s\"}", a->status,
            strcmp(a->status, "Successful") == 0 ? "Successfully set desired instance count." : "");
    return rc;
}

static int aascale_describe_activities(struct aascale *s, const cJSON *req, const char *region,
                                       struct cplane_reply *r) {
    struct aascale_key k;
    int rc = CPLANE_OK;
    if (!aascale_key(req, false, &k, r, &rc)) return rc;
    rc = buf_adds(&r->body, "{\"ScalingActivities\":[");
    bool first = true;
    for (size_t i = s->n_activities; !rc && i-- > 0;) { /* newest first */
        const struct aascale_activity *a =
            &s->activities[(s->first_activity + i) % AASCALE_MAX_ACTIVITIES];
        if (strcmp(a->region, region) != 0 ||
            (k.resource && strcmp(k.resource, a->resource) != 0) || (k.dim_name && a->dim != k.dim))
            continue;
        rc = buf_adds(&r->body, first ? "" : ",");
        if (!rc) rc = aascale_activity_json(&r->body, a);
        first = false;
    }
    if (!rc) rc = buf_adds(&r->body, "]}");
    return rc ? CPLANE_ERR_NOMEM : CPLANE_OK;
}

int aascale_call(struct aascale *s, const struct cplane *cp, const char *op, const char *body,
                 size_t len, const char *region, double now, struct cplane_reply *r) {
    r->status = 200;
    r->type = NULL;
    buf_reset(&r->body);
    cJSON *req = len ? cJSON_ParseWithLength(body, len) : cJSON_CreateObject();
    if (!cJSON_IsObject(req)) {
        cJSON_Delete(req);
        return cplane_fail(r, 400, "SerializationException", "the body is not a JSON object");
    }
    int rc;
    if (strcmp(op, "RegisterScalableTarget") == 0)
        rc = aascale_register(s, cp, req, region, now, r);
    else if (strcmp(op, "DescribeScalableTargets") == 0)
        rc = aascale_describe_targets(s, req, region, r);
    else if (strcmp(op, "DeregisterScalableTarget") == 0)
        rc = aascale_deregister(s, req, region, r);
    else if (strcmp(op, "PutScalingPolicy") == 0)
        rc = aascale_put_policy(s, req, region, now, r);
    else if (strcmp(op, "DescribeScalingPolicies") == 0)
        rc = aascale_describe_policies(s, req, region, r);
    else if (strcmp(op, "DeleteScalingPolicy") == 0)
        rc = aascale_delete_policy(s, req, region, r);
    else if (strcmp(op, "DescribeScalingActivities") == 0)
        rc = aascale_describe_activities(s, req, region, r);
    else
        rc = cplane_fail(r, 400, "UnknownOperationException",
                         "The emulator's Application Auto Scaling has no operation %.64s", op);
    cJSON_Delete(req);
    return rc;
}
