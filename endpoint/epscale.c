#include "epscale.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "awsj.h"
#include "epdesc.h"
#include "smname.h"

#define EPSCALE_REPLY_MAX  ((size_t)4 << 20)
#define EPSCALE_ACTIVITIES 5
#define EPSCALE_TEXT_MAX   200 /* bytes of a server's string shown in the text */

static const char *const epscale_metrics[] = {
    [EPSCALE_INVOCATIONS] = "SageMakerVariantInvocationsPerInstance",
    [EPSCALE_CONCURRENCY] = "SageMakerVariantConcurrentRequestsPerModelHighResolution",
};

const char *epscale_metric_type(enum epscale_metric m) {
    return (unsigned)m <= EPSCALE_CONCURRENCY ? epscale_metrics[m] : NULL;
}

static bool epscale_name_ok(const char *s) {
    return s && smname_endpoint_ok(s, strlen(s));
}

int epscale_check(const struct epscale_set_req *r, struct buf *err) {
    if (!epscale_name_ok(r->name))
        return buf_fail(err, EPOPS_ERR_INPUT,
                        "'%.80s' is not an endpoint name (letters, digits and inner '-', at most "
                        "63)",
                        r->name ? r->name : "");
    if (r->variant && !epscale_name_ok(r->variant))
        return buf_fail(err, EPOPS_ERR_INPUT,
                        "'%.80s' is not a variant name (letters, digits and inner '-', at most 63)",
                        r->variant);
    if (r->min < 1 || r->min > EPSCALE_MAX_CAP || r->max < 1 || r->max > EPSCALE_MAX_CAP)
        return buf_fail(err, EPOPS_ERR_INPUT, "min and max are instances from 1 to %d",
                        EPSCALE_MAX_CAP);
    if (r->min > r->max)
        return buf_fail(err, EPOPS_ERR_INPUT, "min %ld is above max %ld", r->min, r->max);
    if (!epscale_metric_type(r->metric)) return buf_fail(err, EPOPS_ERR_INPUT, "no such metric");
    if (!isfinite(r->target) || r->target <= 0 || r->target > 1e6)
        return buf_fail(err, EPOPS_ERR_INPUT, "the target value %g is not above 0 and at most 1e6",
                        r->target);
    if (r->scale_in_cooldown_s > EPSCALE_MAX_COOL || r->scale_out_cooldown_s > EPSCALE_MAX_COOL)
        return buf_fail(err, EPOPS_ERR_INPUT, "a cooldown is at most %ld seconds",
                        EPSCALE_MAX_COOL);
    return EPOPS_OK;
}

/* ---- the requests ---- */

/* {ServiceNamespace, ResourceId, ScalableDimension} of name's variant, or NULL. */
static cJSON *epscale_key_obj(const char *name, const char *variant) {
    char id[160];
    if (!name || !variant || strlen(name) > SMNAME_MAX || strlen(variant) > SMNAME_MAX) return NULL;
    snprintf(id, sizeof id, "endpoint/%s/variant/%s", name, variant);
    cJSON *j = cJSON_CreateObject();
    if (!j || !cJSON_AddStringToObject(j, "ServiceNamespace", "sagemaker") ||
        !cJSON_AddStringToObject(j, "ResourceId", id) ||
        !cJSON_AddStringToObject(j, "ScalableDimension", EPSCALE_DIMENSION)) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

/* Prints j into out (emptied first) and frees j. */
static int epscale_print(cJSON *j, bool ok, struct buf *out) {
    char *text = ok && j ? cJSON_PrintUnformatted(j) : NULL;
    buf_reset(out);
    int rc = text && buf_adds(out, text) == 0 ? EPOPS_OK : EPOPS_ERR_NOMEM;
    cJSON_free(text);
    cJSON_Delete(j);
    return rc;
}

static bool epscale_sized(const char *name, const char *variant) {
    return name && variant && strlen(name) <= SMNAME_MAX && strlen(variant) <= SMNAME_MAX;
}

int epscale_req_register(const struct epscale_set_req *r, const char *variant, struct buf *out) {
    if (!epscale_sized(r->name, variant)) return EPOPS_ERR_INPUT;
    cJSON *j = epscale_key_obj(r->name, variant);
    bool ok = j && cJSON_AddNumberToObject(j, "MinCapacity", (double)r->min) &&
              cJSON_AddNumberToObject(j, "MaxCapacity", (double)r->max);
    return epscale_print(j, ok, out);
}

int epscale_req_policy(const struct epscale_set_req *r, const char *variant, struct buf *out) {
    if (!epscale_sized(r->name, variant) || !epscale_metric_type(r->metric)) return EPOPS_ERR_INPUT;
    cJSON *j = epscale_key_obj(r->name, variant), *c = NULL, *m = NULL;
    bool ok = j && cJSON_AddStringToObject(j, "PolicyName", EPSCALE_POLICY) &&
              cJSON_AddStringToObject(j, "PolicyType", "TargetTrackingScaling") &&
              (c = cJSON_AddObjectToObject(j, "TargetTrackingScalingPolicyConfiguration")) &&
              cJSON_AddNumberToObject(c, "TargetValue", r->target) &&
              (m = cJSON_AddObjectToObject(c, "PredefinedMetricSpecification")) &&
              cJSON_AddStringToObject(m, "PredefinedMetricType", epscale_metric_type(r->metric));
    if (ok && r->scale_in_cooldown_s >= 0)
        ok = cJSON_AddNumberToObject(c, "ScaleInCooldown", (double)r->scale_in_cooldown_s);
    if (ok && r->scale_out_cooldown_s >= 0)
        ok = cJSON_AddNumberToObject(c, "ScaleOutCooldown", (double)r->scale_out_cooldown_s);
    if (ok) ok = cJSON_AddBoolToObject(c, "DisableScaleIn", r->disable_scale_in);
    return epscale_print(j, ok, out);
}

int epscale_req_key(const char *name, const char *variant, const char *policy, struct buf *out) {
    if (!epscale_sized(name, variant)) return EPOPS_ERR_INPUT;
    cJSON *j = epscale_key_obj(name, variant);
    bool ok = j && (!policy || cJSON_AddStringToObject(j, "PolicyName", policy));
    return epscale_print(j, ok, out);
}

/* The ResourceId filter of a Describe call: {ServiceNamespace, ResourceId(s), ...}. */
static int epscale_req_find(const char *op, const char *name, const char *variant,
                            struct buf *out) {
    char id[160];
    snprintf(id, sizeof id, "endpoint/%.63s/variant/%.63s", name, variant);
    cJSON *j = cJSON_CreateObject(), *ids = NULL;
    bool ok = j && cJSON_AddStringToObject(j, "ServiceNamespace", "sagemaker") &&
              cJSON_AddStringToObject(j, "ScalableDimension", EPSCALE_DIMENSION);
    if (ok && strcmp(op, "DescribeScalableTargets") == 0)
        ok = (ids = cJSON_AddArrayToObject(j, "ResourceIds")) &&
             cJSON_AddItemToArray(ids, cJSON_CreateString(id));
    else if (ok)
        ok = cJSON_AddStringToObject(j, "ResourceId", id) != NULL;
    if (ok && strcmp(op, "DescribeScalingActivities") == 0)
        ok = cJSON_AddNumberToObject(j, "MaxResults", EPSCALE_ACTIVITIES) != NULL;
    return epscale_print(j, ok, out);
}

/* One call's line: "application-autoscaling OP JSON". */
static int epscale_call_line(struct buf *out, const char *op, const struct buf *req) {
    return buf_addf(out, "application-autoscaling %s %s\n", op, buf_str(req)) ? EPOPS_ERR_NOMEM
                                                                              : EPOPS_OK;
}

int epscale_set_calls(const struct epscale_set_req *r, const char *variant, struct buf *out) {
    struct buf req;
    buf_init(&req, BUF_NO_CAP);
    const char *v = variant ? variant : "AllTraffic";
    int rc = epscale_req_register(r, v, &req);
    if (!rc) rc = epscale_call_line(out, "RegisterScalableTarget", &req);
    if (!rc) rc = epscale_req_policy(r, v, &req);
    if (!rc) rc = epscale_call_line(out, "PutScalingPolicy", &req);
    buf_free(&req);
    return rc;
}

/* ---- the calls ---- */

/* One Application Auto Scaling call; its reply parsed into *reply (NULL: dropped). */
static int epscale_ask(struct epops *o, struct awsj_client *c, const char *op, const char *req,
                       cJSON **reply, struct buf *err) {
    struct buf body;
    buf_init(&body, EPSCALE_REPLY_MAX);
    int rc = awsj_call(c, AWSJ_APP_AUTOSCALING, op, req, &body, err);
    if (rc) rc = epops_aws_error(o, c, rc);
    if (!rc && reply) {
        *reply = cJSON_ParseWithLength(buf_str(&body), body.len);
        if (!cJSON_IsObject(*reply)) {
            cJSON_Delete(*reply);
            *reply = NULL;
            rc = buf_fail(err, EPOPS_ERR_AWS,
                          "application-autoscaling %s: the reply is not a "
                          "JSON object",
                          op);
        }
    }
    buf_free(&body);
    return rc;
}

/* The client of region and the endpoint's description. */
static int epscale_endpoint(struct epops *o, const char *region, const char *name,
                            struct awsj_client **c, struct epdesc_endpoint *d, struct buf *err) {
    if (!epscale_name_ok(name))
        return buf_fail(err, EPOPS_ERR_INPUT,
                        "'%.80s' is not an endpoint name (letters, digits and inner '-', at most "
                        "63)",
                        name ? name : "");
    int rc = epops_client(o, region, c, err);
    if (!rc) rc = epops_describe(o, *c, name, d, err);
    if (rc == EPOPS_ERR_NOT_FOUND)
        rc = buf_fail(err, EPOPS_ERR_NOT_FOUND, "endpoint '%s' not found in %s", name, region);
    return rc;
}

/* Refuses an endpoint wrk-sagemaker did not create. */
static int epscale_owned(struct epops *o, struct awsj_client *c, const char *region,
                         const char *name, struct buf *err) {
    struct buf why;
    bool mine = false;
    buf_init(&why, 1024);
    int rc = epops_endpoint_owned(o, c, name, &mine, &why, err);
    if (rc == EPOPS_ERR_NOT_FOUND)
        rc = buf_fail(err, EPOPS_ERR_NOT_FOUND, "endpoint '%s' not found in %s", name, region);
    if (!rc && !mine)
        rc = buf_fail(err, EPOPS_ERR_REFUSED,
                      "refusing to change the autoscaling of endpoint '%s' in %s: %s", name, region,
                      buf_str(&why));
    buf_free(&why);
    return rc;
}

/* The variant: given (it must be one of d's), else d's only one. */
static int epscale_variant(const struct epdesc_endpoint *d, const char *given, const char **out,
                           struct buf *err) {
    for (size_t i = 0; given && i < d->n_v; i++)
        if (strcmp(d->v[i].name, given) == 0) {
            *out = d->v[i].name;
            return EPOPS_OK;
        }
    if (!given && d->n_v == 1) {
        *out = d->v[0].name;
        return EPOPS_OK;
    }
    struct buf names;
    buf_init(&names, 1024);
    for (size_t i = 0; i < d->n_v; i++)
        (void)!buf_addf(&names, "%s%s", i ? ", " : "", d->v[i].name);
    int rc = given
                 ? buf_fail(err, EPOPS_ERR_INPUT, "endpoint '%s' has no variant '%s' (it has: %s)",
                            d->name, given, buf_str(&names))
                 : buf_fail(err, EPOPS_ERR_INPUT,
                            "endpoint '%s' has %zu variants (%s): name one (--variant)", d->name,
                            d->n_v, buf_str(&names));
    buf_free(&names);
    return rc;
}

/* Adds {"operation": op, "request": req} to calls. */
static int epscale_json_call(cJSON *calls, const char *op, const struct buf *req) {
    cJSON *one = cJSON_CreateObject();
    if (!one || !cJSON_AddItemToArray(calls, one)) {
        cJSON_Delete(one);
        return EPOPS_ERR_NOMEM;
    }
    cJSON *body = cJSON_ParseWithLength(buf_str(req), req->len);
    if (!body || !cJSON_AddStringToObject(one, "operation", op) ||
        !cJSON_AddItemToObject(one, "request", body)) {
        cJSON_Delete(body);
        return EPOPS_ERR_NOMEM;
    }
    return EPOPS_OK;
}

/* Sends op with req, or (dry run) writes its line into out's text; its JSON into calls. */
static int epscale_change(struct epops *o, struct awsj_client *c, bool dry_run, const char *op,
                          const struct buf *req, cJSON *calls, struct epops_out *out, cJSON **reply,
                          struct buf *err) {
    int rc = epscale_json_call(calls, op, req);
    if (rc) return buf_fail(err, rc, "out of memory");
    if (dry_run) return epscale_call_line(&out->text, op, req);
    return epscale_ask(o, c, op, buf_str(req), reply, err);
}

/* Ends an operation: with rc 0, j becomes out's JSON; else it is freed. Returns rc. */
static int epscale_finish(struct epops_out *out, cJSON *j, int rc) {
    if (!rc) {
        cJSON_Delete(out->json);
        out->json = j;
    } else {
        cJSON_Delete(j);
    }
    return rc;
}

static cJSON *epscale_head(const char *name, const char *region, bool dry_run) {
    cJSON *j = cJSON_CreateObject();
    if (!j || !cJSON_AddStringToObject(j, "endpoint", name) ||
        !cJSON_AddStringToObject(j, "region", region) ||
        !cJSON_AddBoolToObject(j, "dry_run", dry_run)) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

int epscale_set(struct epops *o, const char *region, const struct epscale_set_req *r, bool dry_run,
                struct epops_out *out, struct buf *err) {
    struct awsj_client *c = NULL;
    struct epdesc_endpoint d = {0};
    const char *variant = NULL;
    int rc = epscale_check(r, err);
    if (!rc) rc = epscale_endpoint(o, region, r->name, &c, &d, err);
    if (!rc) rc = epscale_owned(o, c, region, r->name, err);
    if (!rc) rc = epscale_variant(&d, r->variant, &variant, err);
    if (rc) return rc;
    struct buf req;
    buf_init(&req, BUF_NO_CAP);
    cJSON *j = epscale_head(r->name, region, dry_run), *reply = NULL, *calls = NULL;
    if (!j || !cJSON_AddStringToObject(j, "variant", variant) ||
        !(calls = cJSON_AddArrayToObject(j, "calls")))
        rc = buf_fail(err, EPOPS_ERR_NOMEM, "out of memory");
    if (!rc && dry_run &&
        buf_addf(&out->text, "dry run: autoscale set %s/%s in %s would send:\n", r->name, variant,
                 region))
        rc = buf_fail(err, EPOPS_ERR_NOMEM, "out of memory");
    if (!rc && epscale_req_register(r, variant, &req))
        rc = buf_fail(err, EPOPS_ERR_NOMEM, "out of memory");
    if (!rc)
        rc = epscale_change(o, c, dry_run, "RegisterScalableTarget", &req, calls, out, NULL, err);
    if (!rc && epscale_req_policy(r, variant, &req))
        rc = buf_fail(err, EPOPS_ERR_NOMEM, "out of memory");
    if (!rc) rc = epscale_change(o, c, dry_run, "PutScalingPolicy", &req, calls, out, &reply, err);
    const cJSON *arn = cJSON_GetObjectItemCaseSensitive(reply, "PolicyARN");
    if (!rc && !dry_run &&
        buf_addf(&out->text,
                 "autoscaling of endpoint %s variant %s in %s: %ld to %ld instance(s), target %g "
                 "%s (policy %s%s%s)\n",
                 r->name, variant, region, r->min, r->max, r->target,
                 epscale_metric_type(r->metric), EPSCALE_POLICY, cJSON_IsString(arn) ? ": " : "",
                 cJSON_IsString(arn) ? arn->valuestring : ""))
        rc = buf_fail(err, EPOPS_ERR_NOMEM, "out of memory");
    if (!rc &&
        (!cJSON_AddNumberToObject(j, "min", (double)r->min) ||
         !cJSON_AddNumberToObject(j, "max", (double)r->max) ||
         !cJSON_AddStringToObject(j, "metric", epscale_metric_type(r->metric)) ||
         !cJSON_AddNumberToObject(j, "target", r->target) ||
         !cJSON_AddStringToObject(j, "policy", EPSCALE_POLICY) ||
         (cJSON_IsString(arn) && !cJSON_AddStringToObject(j, "policy_arn", arn->valuestring))))
        rc = buf_fail(err, EPOPS_ERR_NOMEM, "out of memory");
    cJSON_Delete(reply);
    buf_free(&req);
    return epscale_finish(out, j, rc);
}

/* The array under key of a Describe call on variant (owned by the caller), or NULL
 * with err. */
static cJSON *epscale_list(struct epops *o, struct awsj_client *c, const char *op, const char *key,
                           const char *name, const char *variant, struct buf *err, int *rc) {
    struct buf req;
    cJSON *reply = NULL, *list = NULL;
    buf_init(&req, BUF_NO_CAP);
    *rc = epscale_req_find(op, name, variant, &req);
    if (*rc) *rc = buf_fail(err, *rc, "out of memory");
    if (!*rc) *rc = epscale_ask(o, c, op, buf_str(&req), &reply, err);
    if (!*rc) {
        list = cJSON_DetachItemFromObjectCaseSensitive(reply, key);
        if (!cJSON_IsArray(list))
            *rc = buf_fail(err, EPOPS_ERR_AWS, "application-autoscaling %s: no %s list", op, key);
    }
    if (*rc) {
        cJSON_Delete(list);
        list = NULL;
    }
    cJSON_Delete(reply);
    buf_free(&req);
    return list;
}

static const char *epscale_str(const cJSON *j, const char *key) {
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, key);
    return cJSON_IsString(s) ? s->valuestring : "";
}

static double epscale_num(const cJSON *j, const char *key, double none) {
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(j, key);
    return cJSON_IsNumber(n) ? n->valuedouble : none;
}

/* A policy's line. */
static int epscale_policy_text(struct buf *t, const cJSON *p) {
    const cJSON *c =
        cJSON_GetObjectItemCaseSensitive(p, "TargetTrackingScalingPolicyConfiguration");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(c, "PredefinedMetricSpecification");
    int rc = buf_addf(t, "  policy %.*s: %.*s", EPSCALE_TEXT_MAX, epscale_str(p, "PolicyName"),
                      EPSCALE_TEXT_MAX, epscale_str(p, "PolicyType"));
    if (!rc && c)
        rc = buf_addf(t, ", target %g %.*s", epscale_num(c, "TargetValue", 0), EPSCALE_TEXT_MAX,
                      m ? epscale_str(m, "PredefinedMetricType") : "(a customized metric)");
    if (!rc && c && epscale_num(c, "ScaleInCooldown", -1) >= 0)
        rc = buf_addf(t, ", scale-in cooldown %g s", epscale_num(c, "ScaleInCooldown", 0));
    if (!rc && c && epscale_num(c, "ScaleOutCooldown", -1) >= 0)
        rc = buf_addf(t, ", scale-out cooldown %g s", epscale_num(c, "ScaleOutCooldown", 0));
    if (!rc && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "DisableScaleIn")))
        rc = buf_adds(t, ", scale-in disabled");
    return rc ? rc : buf_addc(t, '\n');
}

/* An activity's line. */
static int epscale_activity_text(struct buf *t, const cJSON *a) {
    char when[32] = "?";
    double start = epscale_num(a, "StartTime", -1);
    time_t s = (time_t)start;
    struct tm tm;
    if (start >= 0 && gmtime_r(&s, &tm)) strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf_addf(t, "  activity %s %.*s: %.*s\n", when, EPSCALE_TEXT_MAX,
                    epscale_str(a, "StatusCode"), EPSCALE_TEXT_MAX, epscale_str(a, "Description"));
}

/* Moves every item of from to the end of to. */
static void epscale_move(cJSON *to, cJSON *from) {
    cJSON *item;
    while ((item = cJSON_DetachItemFromArray(from, 0)) != NULL) cJSON_AddItemToArray(to, item);
}

int epscale_show(struct epops *o, const char *region, const char *name, struct epops_out *out,
                 struct buf *err) {
    struct awsj_client *c = NULL;
    struct epdesc_endpoint d = {0};
    int rc = epscale_endpoint(o, region, name, &c, &d, err);
    if (rc) return rc;
    cJSON *j = epscale_head(name, region, false), *targets = NULL, *policies = NULL,
          *activities = NULL;
    if (!j || !(targets = cJSON_AddArrayToObject(j, "targets")) ||
        !(policies = cJSON_AddArrayToObject(j, "policies")) ||
        !(activities = cJSON_AddArrayToObject(j, "activities")))
        rc = buf_fail(err, EPOPS_ERR_NOMEM, "out of memory");
    struct buf *t = &out->text;
    size_t scaled = 0;
    for (size_t i = 0; !rc && i < d.n_v; i++) {
        const char *v = d.v[i].name;
        cJSON *tl =
            epscale_list(o, c, "DescribeScalableTargets", "ScalableTargets", name, v, err, &rc);
        cJSON *target = rc ? NULL : cJSON_GetArrayItem(tl, 0);
        cJSON *pl = NULL, *al = NULL;
        if (!rc && target) {
            pl =
                epscale_list(o, c, "DescribeScalingPolicies", "ScalingPolicies", name, v, err, &rc);
            if (!rc)
                al = epscale_list(o, c, "DescribeScalingActivities", "ScalingActivities", name, v,
                                  err, &rc);
        }
        if (!rc && target) {
            scaled++;
            rc = buf_addf(t, "variant %s: %g to %g instance(s)\n", v,
                          epscale_num(target, "MinCapacity", 0),
                          epscale_num(target, "MaxCapacity", 0));
            const cJSON *p;
            cJSON_ArrayForEach(p, pl) if (!rc) rc = epscale_policy_text(t, p);
            if (!rc && cJSON_GetArraySize(pl) == 0) rc = buf_adds(t, "  no scaling policy\n");
            int n = 0;
            cJSON_ArrayForEach(p, al) if (!rc && n++ < EPSCALE_ACTIVITIES) rc =
                epscale_activity_text(t, p);
            if (rc) rc = buf_fail(err, EPOPS_ERR_NOMEM, "out of memory");
        }
        if (!rc) {
            epscale_move(targets, tl);
            epscale_move(policies, pl);
            epscale_move(activities, al);
        }
        cJSON_Delete(tl);
        cJSON_Delete(pl);
        cJSON_Delete(al);
    }
    if (!rc && !scaled && buf_addf(t, "endpoint %s in %s: no autoscaling\n", name, region))
        rc = buf_fail(err, EPOPS_ERR_NOMEM, "out of memory");
    return epscale_finish(out, j, rc);
}

/* Removes the autoscaling of one variant (nothing when it has no target); *done
 * says whether it had one. */
static int epscale_remove_one(struct epops *o, struct awsj_client *c, const char *name,
                              const char *v, bool dry_run, cJSON *calls, struct epops_out *out,
                              bool *done, struct buf *err) {
    int rc;
    *done = false;
    cJSON *tl = epscale_list(o, c, "DescribeScalableTargets", "ScalableTargets", name, v, err, &rc);
    cJSON *pl = NULL;
    if (!rc && cJSON_GetArraySize(tl) > 0)
        pl = epscale_list(o, c, "DescribeScalingPolicies", "ScalingPolicies", name, v, err, &rc);
    struct buf req;
    buf_init(&req, BUF_NO_CAP);
    const cJSON *p;
    cJSON_ArrayForEach(p, pl) {
        if (rc) break;
        const char *policy = epscale_str(p, "PolicyName");
        rc = epscale_req_key(name, v, policy, &req);
        if (rc) rc = buf_fail(err, EPOPS_ERR_NOMEM, "out of memory");
        if (!rc)
            rc = epscale_change(o, c, dry_run, "DeleteScalingPolicy", &req, calls, out, NULL, err);
        if (!rc && !dry_run &&
            buf_addf(&out->text, "variant %s: policy %.*s deleted\n", v, EPSCALE_TEXT_MAX, policy))
            rc = buf_fail(err, EPOPS_ERR_NOMEM, "out of memory");
    }
    if (!rc && cJSON_GetArraySize(tl) > 0) {
        rc = epscale_req_key(name, v, NULL, &req);
        if (rc) rc = buf_fail(err, EPOPS_ERR_NOMEM, "out of memory");
        if (!rc)
            rc = epscale_change(o, c, dry_run, "DeregisterScalableTarget", &req, calls, out, NULL,
                                err);
        if (!rc && !dry_run &&
            buf_addf(&out->text, "variant %s: scalable target deregistered\n", v))
            rc = buf_fail(err, EPOPS_ERR_NOMEM, "out of memory");
        *done = !rc;
    }
    buf_free(&req);
    cJSON_Delete(tl);
    cJSON_Delete(pl);
    return rc;
}

int epscale_remove(struct epops *o, const char *region, const char *name, const char *variant,
                   bool dry_run, struct epops_out *out, struct buf *err) {
    struct awsj_client *c = NULL;
    struct epdesc_endpoint d = {0};
    const char *only = NULL;
    if (variant && !epscale_name_ok(variant))
        return buf_fail(err, EPOPS_ERR_INPUT,
                        "'%.80s' is not a variant name (letters, digits and inner '-', at most 63)",
                        variant);
    int rc = epscale_endpoint(o, region, name, &c, &d, err);
    if (!rc) rc = epscale_owned(o, c, region, name, err);
    if (!rc && variant) rc = epscale_variant(&d, variant, &only, err);
    if (rc) return rc;
    cJSON *j = epscale_head(name, region, dry_run), *calls = NULL, *removed = NULL;
    if (!j || !(calls = cJSON_AddArrayToObject(j, "calls")) ||
        !(removed = cJSON_AddArrayToObject(j, "variants")))
        rc = buf_fail(err, EPOPS_ERR_NOMEM, "out of memory");
    if (!rc && dry_run &&
        buf_addf(&out->text, "dry run: autoscale remove %s in %s would send:\n", name, region))
        rc = buf_fail(err, EPOPS_ERR_NOMEM, "out of memory");
    size_t n = 0;
    for (size_t i = 0; !rc && i < d.n_v; i++) {
        bool done = false;
        if (only && strcmp(only, d.v[i].name) != 0) continue;
        rc = epscale_remove_one(o, c, name, d.v[i].name, dry_run, calls, out, &done, err);
        if (!rc && done && !cJSON_AddItemToArray(removed, cJSON_CreateString(d.v[i].name)))
            rc = buf_fail(err, EPOPS_ERR_NOMEM, "out of memory");
        n += done;
    }
    if (!rc && !n &&
        buf_addf(&out->text, "endpoint %s in %s has no autoscaling: nothing to remove\n", name,
                 region))
        rc = buf_fail(err, EPOPS_ERR_NOMEM, "out of memory");
    return epscale_finish(out, j, rc);
}
