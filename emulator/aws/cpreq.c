#include "cpreq.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpconf.h"
#include "smname.h"

#define CPREQ_NAME_PATTERN "^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}"
#define CPREQ_ROLE_PATTERN "^arn:aws[a-z\\-]*:iam::\\d{12}:role/?[a-zA-Z_0-9+=,.@\\-_/]+$"
#define CPREQ_ECHO_MAX     200 /* bytes of a client's value quoted in a message */
#define CPREQ_ENV_MAX      1024

static const char *const cpreq_statuses[] = {
    "OutOfService", "Creating", "Updating", "SystemUpdating",      "RollingBack",
    "InService",    "Deleting", "Failed",   "UpdateRollbackFailed"};

int cpreq_invalid(struct buf *err, const char *field, const char *value, const char *why) {
    if (!value)
        return buf_fail(err, CPREQ_ERR_VALIDATION,
                        "1 validation error detected: Value null at '%s' failed to satisfy "
                        "constraint: Member must not be null",
                        field);
    return buf_fail(err, CPREQ_ERR_VALIDATION,
                    "1 validation error detected: Value '%.*s' at '%s' failed to satisfy "
                    "constraint: %s",
                    CPREQ_ECHO_MAX, value, field, why);
}

static int cpreq_type(struct buf *err, const char *member, const char *want) {
    return buf_fail(err, CPREQ_ERR_SERIALIZATION, "%s: expected %s", member, want);
}

/* The string member key of obj: NULL when absent (or null), else *out. */
static int cpreq_str(const cJSON *obj, const char *key, const char **out, struct buf *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = NULL;
    if (!v || cJSON_IsNull(v)) return CPREQ_OK;
    if (!cJSON_IsString(v)) return cpreq_type(err, key, "a string");
    *out = v->valuestring;
    return CPREQ_OK;
}

/* An integer member (absent: *out unchanged, *given false). */
static int cpreq_int(const cJSON *obj, const char *key, long *out, bool *given, struct buf *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *given = false;
    if (!v || cJSON_IsNull(v)) return CPREQ_OK;
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) ||
        fabs(v->valuedouble) > 2147483647.0)
        return cpreq_type(err, key, "an integer");
    *out = (long)v->valuedouble;
    *given = true;
    return CPREQ_OK;
}

/* A name (SageMaker's rule) into out; required unless optional. */
static int cpreq_name_value(const char *s, const char *field, bool optional,
                            char out[CPREQ_NAME_MAX], struct buf *err) {
    out[0] = '\0';
    if (!s) return optional ? CPREQ_OK : cpreq_invalid(err, field, NULL, NULL);
    size_t n = strlen(s);
    if (n > 63)
        return cpreq_invalid(err, field, s, "Member must have length less than or equal to 63");
    if (!smname_endpoint_ok(s, n))
        return cpreq_invalid(err, field, s,
                             "Member must satisfy regular expression pattern: " CPREQ_NAME_PATTERN);
    memcpy(out, s, n + 1);
    return CPREQ_OK;
}

int cpreq_name(const cJSON *req, const char *member, const char *field, char out[CPREQ_NAME_MAX],
               struct buf *err) {
    const char *s;
    int rc = cpreq_str(req, member, &s, err);
    return rc ? rc : cpreq_name_value(s, field, false, out, err);
}

/* arn:aws[a-z-]*:iam::<12 digits>:role/... */
static bool cpreq_role_ok(const char *s) {
    if (!s) return false;
    size_t n = strlen(s);
    if (n < 20 || n > 2048 || strncmp(s, "arn:aws", 7) != 0) return false;
    const char *p = s + 7;
    while ((*p >= 'a' && *p <= 'z') || *p == '-') p++;
    if (strncmp(p, ":iam::", 6) != 0) return false;
    p += 6;
    for (int i = 0; i < 12; i++, p++)
        if (*p < '0' || *p > '9') return false;
    if (strncmp(p, ":role", 5) != 0) return false;
    p += 5;
    if (*p == '/') p++;
    if (!*p) return false;
    for (; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              strchr("+=,.@-_/", *p)))
            return false;
    return true;
}

static bool cpreq_env_key_ok(const char *s) {
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
    for (s++; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return false;
    return true;
}

/* The container's Environment map. */
static int cpreq_env(const cJSON *container, const char *at, struct cpreq_model *out,
                     struct buf *err) {
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(container, "Environment"), *e;
    char field[64];
    snprintf(field, sizeof field, "%s.environment", at);
    if (!env || cJSON_IsNull(env)) return CPREQ_OK;
    if (!cJSON_IsObject(env)) return cpreq_type(err, "Environment", "an object");
    if (cJSON_GetArraySize(env) > CPREQ_MAX_ENV)
        return cpreq_invalid(err, field, "{...}",
                             "Member must have length less than or equal to 100");
    cJSON_ArrayForEach(e, env) {
        if (!cJSON_IsString(e)) return cpreq_type(err, "Environment values", "strings");
        if (strlen(e->string) > CPREQ_ENV_MAX || !cpreq_env_key_ok(e->string))
            return cpreq_invalid(err, field, e->string,
                                 "Map keys must satisfy constraint: [Member must have length less "
                                 "than or equal to 1024, Member must satisfy regular expression "
                                 "pattern: [a-zA-Z_][a-zA-Z0-9_]*]");
        if (strlen(e->valuestring) > CPREQ_ENV_MAX)
            return cpreq_invalid(err, field, e->valuestring,
                                 "Map value must satisfy constraint: [Member must have length less "
                                 "than or equal to 1024]");
        out->env[out->n_env++] = (struct cpreq_env){e->string, e->valuestring};
    }
    return CPREQ_OK;
}

/* PrimaryContainer, or the one element of Containers. */
static int cpreq_container(const cJSON *req, const cJSON **out, const char **at, struct buf *err) {
    const cJSON *pc = cJSON_GetObjectItemCaseSensitive(req, "PrimaryContainer");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(req, "Containers");
    *at = "primaryContainer";
    *out = NULL;
    if (pc && !cJSON_IsNull(pc)) {
        if (!cJSON_IsObject(pc)) return cpreq_type(err, "PrimaryContainer", "an object");
        *out = pc;
        return CPREQ_OK;
    }
    if (list && !cJSON_IsNull(list)) {
        if (!cJSON_IsArray(list)) return cpreq_type(err, "Containers", "a list");
        if (cJSON_GetArraySize(list) != 1)
            return buf_fail(err, CPREQ_ERR_VALIDATION,
                            "sm-emulator serves models of one container: give PrimaryContainer, "
                            "or Containers with one element");
        *out = cJSON_GetArrayItem(list, 0);
        *at = "containers.1.member";
        return cJSON_IsObject(*out) ? CPREQ_OK : cpreq_type(err, "Containers", "objects");
    }
    return cpreq_invalid(err, "primaryContainer", NULL, NULL);
}

int cpreq_model(const cJSON *req, struct cpreq_model *out, struct buf *err) {
    const cJSON *c = NULL;
    const char *name, *at = "primaryContainer";
    char field[64];
    memset(out, 0, sizeof *out);
    int rc = cpreq_str(req, "ModelName", &name, err);
    if (!rc) rc = cpreq_name_value(name, "modelName", false, out->name, err);
    if (!rc) rc = cpreq_str(req, "ExecutionRoleArn", &out->role, err);
    if (!rc && !out->role) rc = cpreq_invalid(err, "executionRoleArn", NULL, NULL);
    if (!rc && !cpreq_role_ok(out->role))
        rc = cpreq_invalid(err, "executionRoleArn", out->role,
                           "Member must satisfy regular expression pattern: " CPREQ_ROLE_PATTERN);
    if (!rc) rc = cpreq_container(req, &c, &at, err);
    if (!rc) rc = cpreq_str(c, "Image", &out->image, err);
    snprintf(field, sizeof field, "%s.image", rc ? "" : at);
    if (!rc && !out->image) rc = cpreq_invalid(err, field, NULL, NULL);
    if (!rc && out->image && strlen(out->image) > 255)
        rc = cpreq_invalid(err, field, out->image,
                           "Member must have length less than or equal to 255");
    if (!rc && out->image && (!*out->image || strpbrk(out->image, " \t\r\n\f\v")))
        rc = cpreq_invalid(err, field, out->image,
                           "Member must satisfy regular expression pattern: [\\S]+");
    return rc ? rc : cpreq_env(c, at, out, err);
}

/* An instance type member (ml.X), copied into out. */
static int cpreq_itype(const char *s, const char *field, char out[CPREQ_TYPE_MAX],
                       struct buf *err) {
    if (!s) return cpreq_invalid(err, field, NULL, NULL);
    if (!cpconf_type_ok(s))
        return cpreq_invalid(err, field, s,
                             "Member must satisfy enum value set: [ml.t2.medium, ..., "
                             "ml.g6.xlarge, ml.g6.2xlarge, ml.g6.4xlarge, ...]");
    snprintf(out, CPREQ_TYPE_MAX, "%s", s);
    return CPREQ_OK;
}

/* One InstancePools element. */
static int cpreq_pool(const cJSON *p, const char *at, struct cpreq_pool *out, struct buf *err) {
    char field[192];
    const char *type, *override;
    long prio = 0;
    bool given;
    if (!cJSON_IsObject(p)) return cpreq_type(err, "InstancePools", "a list of objects");
    snprintf(field, sizeof field, "%.120s.instanceType", at);
    int rc = cpreq_str(p, "InstanceType", &type, err);
    if (!rc) rc = cpreq_itype(type, field, out->type, err);
    if (!rc) rc = cpreq_int(p, "Priority", &prio, &given, err);
    snprintf(field, sizeof field, "%.120s.priority", at);
    if (!rc && !given) rc = cpreq_invalid(err, field, NULL, NULL);
    char num[32];
    snprintf(num, sizeof num, "%ld", prio);
    if (!rc && (prio < 1 || prio > 5))
        rc = cpreq_invalid(err, field, num,
                           prio < 1 ? "Member must have value greater than or equal to 1"
                                    : "Member must have value less than or equal to 5");
    out->priority = (int)prio;
    if (!rc) rc = cpreq_str(p, "ModelNameOverride", &override, err);
    snprintf(field, sizeof field, "%.120s.modelNameOverride", at);
    return rc ? rc : cpreq_name_value(override, field, true, out->model, err);
}

/* Sorts the pools by priority and refuses a repeated priority or type. */
static int cpreq_pools_order(struct cpreq_variant *v, const char *at, struct buf *err) {
    for (size_t i = 1; i < v->n_pools; i++)
        for (size_t j = i; j > 0 && v->pools[j].priority < v->pools[j - 1].priority; j--) {
            struct cpreq_pool t = v->pools[j];
            v->pools[j] = v->pools[j - 1];
            v->pools[j - 1] = t;
        }
    for (size_t i = 1; i < v->n_pools; i++)
        for (size_t j = 0; j < i; j++)
            if (v->pools[i].priority == v->pools[j].priority ||
                strcmp(v->pools[i].type, v->pools[j].type) == 0)
                return buf_fail(err, CPREQ_ERR_VALIDATION,
                                "%s.instancePools: each instance pool needs its own instance type "
                                "and priority",
                                at);
    return CPREQ_OK;
}

/* InstanceType or InstancePools (with its timeout). */
static int cpreq_placement(const cJSON *pv, const char *at, struct cpreq_variant *v,
                           struct buf *err) {
    const cJSON *pools = cJSON_GetObjectItemCaseSensitive(pv, "InstancePools"), *p;
    const char *type;
    char field[192];
    bool given;
    int rc = cpreq_str(pv, "InstanceType", &type, err);
    if (rc) return rc;
    if (pools && cJSON_IsNull(pools)) pools = NULL;
    if (type && pools)
        return buf_fail(err, CPREQ_ERR_VALIDATION,
                        "Production variant %s gives both InstanceType and InstancePools; give "
                        "one of them",
                        v->name);
    if (!type && !pools)
        return buf_fail(err, CPREQ_ERR_VALIDATION,
                        "Production variant %s needs InstanceType or InstancePools", v->name);
    if (type) {
        snprintf(field, sizeof field, "%s.instanceType", at);
        v->n_pools = 1;
        v->pools[0].priority = 1;
        rc = cpreq_itype(type, field, v->pools[0].type, err);
    } else if (!cJSON_IsArray(pools)) {
        return cpreq_type(err, "InstancePools", "a list");
    } else {
        int n = cJSON_GetArraySize(pools);
        snprintf(field, sizeof field, "%s.instancePools", at);
        if (n < 1 || n > CPREQ_MAX_POOLS)
            return cpreq_invalid(err, field, "[...]",
                                 n < 1 ? "Member must have length greater than or equal to 1"
                                       : "Member must have length less than or equal to 5");
        v->pools_given = true;
        cJSON_ArrayForEach(p, pools) {
            snprintf(field, sizeof field, "%s.instancePools.%zu.member", at, v->n_pools + 1);
            if ((rc = cpreq_pool(p, field, &v->pools[v->n_pools++], err))) return rc;
        }
        rc = cpreq_pools_order(v, at, err);
    }
    if (!rc)
        rc = cpreq_int(pv, "VariantInstanceProvisionTimeoutInSeconds", &v->provision_timeout_s,
                       &given, err);
    if (rc || !given) return rc;
    snprintf(field, sizeof field, "%s.variantInstanceProvisionTimeoutInSeconds", at);
    char num[32];
    snprintf(num, sizeof num, "%ld", v->provision_timeout_s);
    if (v->provision_timeout_s < 300 || v->provision_timeout_s > 3600)
        return cpreq_invalid(err, field, num,
                             v->provision_timeout_s < 300
                                 ? "Member must have value greater than or equal to 300"
                                 : "Member must have value less than or equal to 3600");
    if (!v->pools_given)
        return buf_fail(err, CPREQ_ERR_VALIDATION,
                        "VariantInstanceProvisionTimeoutInSeconds goes with InstancePools "
                        "(production variant %s)",
                        v->name);
    return CPREQ_OK;
}

/* RoutingConfig: {"RoutingStrategy": "RANDOM" | "LEAST_OUTSTANDING_REQUESTS"}. */
static int cpreq_routing(const cJSON *pv, const char *at, struct cpreq_variant *v,
                         struct buf *err) {
    const cJSON *rc = cJSON_GetObjectItemCaseSensitive(pv, "RoutingConfig");
    const char *s;
    if (!rc || cJSON_IsNull(rc)) return CPREQ_OK;
    if (!cJSON_IsObject(rc)) return cpreq_type(err, "RoutingConfig", "an object");
    int e = cpreq_str(rc, "RoutingStrategy", &s, err);
    if (e) return e;
    char field[192];
    snprintf(field, sizeof field, "%s.routingConfig.routingStrategy", at);
    if (!s || (strcmp(s, "RANDOM") != 0 && strcmp(s, "LEAST_OUTSTANDING_REQUESTS") != 0))
        return cpreq_invalid(err, field, s,
                             s ? "Member must satisfy enum value set: "
                                 "[RANDOM, LEAST_OUTSTANDING_REQUESTS]"
                               : NULL);
    snprintf(v->routing, sizeof v->routing, "%s", s);
    return CPREQ_OK;
}

/* One ProductionVariants element. */
static int cpreq_variant(const cJSON *pv, size_t i, struct cpreq_variant *v, struct buf *err) {
    char at[64], field[192], num[32];
    const char *s;
    bool given;
    snprintf(at, sizeof at, "productionVariants.%zu.member", i + 1);
    if (!cJSON_IsObject(pv)) return cpreq_type(err, "ProductionVariants", "a list of objects");
    v->count = 1;
    v->weight = 1;
    snprintf(field, sizeof field, "%s.variantName", at);
    int rc = cpreq_str(pv, "VariantName", &s, err);
    if (!rc) rc = cpreq_name_value(s, field, false, v->name, err);
    snprintf(field, sizeof field, "%s.modelName", at);
    if (!rc) rc = cpreq_str(pv, "ModelName", &s, err);
    if (!rc) rc = cpreq_name_value(s, field, false, v->model, err);
    if (!rc) rc = cpreq_int(pv, "InitialInstanceCount", &v->count, &given, err);
    snprintf(field, sizeof field, "%s.initialInstanceCount", at);
    snprintf(num, sizeof num, "%ld", v->count);
    if (!rc && (v->count < 1 || v->count > 100))
        rc = cpreq_invalid(err, field, num,
                           v->count < 1 ? "Member must have value greater than or equal to 1"
                                        : "Member must have value less than or equal to 100");
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(pv, "InitialVariantWeight");
    if (!rc && w && !cJSON_IsNull(w) && !cJSON_IsNumber(w))
        rc = cpreq_type(err, "InitialVariantWeight", "a number");
    if (!rc && w && cJSON_IsNumber(w)) {
        v->weight = w->valuedouble;
        snprintf(field, sizeof field, "%s.initialVariantWeight", at);
        snprintf(num, sizeof num, "%g", v->weight);
        if (!(v->weight >= 0) || v->weight > 1e6)
            rc =
                cpreq_invalid(err, field, num, "Member must have value greater than or equal to 0");
    }
    if (!rc) rc = cpreq_routing(pv, at, v, err);
    return rc ? rc : cpreq_placement(pv, at, v, err);
}

int cpreq_config(const cJSON *req, struct cpreq_config *out, struct buf *err) {
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(req, "ProductionVariants"), *pv;
    memset(out, 0, sizeof *out);
    int rc = cpreq_name(req, "EndpointConfigName", "endpointConfigName", out->name, err);
    if (rc) return rc;
    if (!list || cJSON_IsNull(list)) return cpreq_invalid(err, "productionVariants", NULL, NULL);
    if (!cJSON_IsArray(list)) return cpreq_type(err, "ProductionVariants", "a list");
    int n = cJSON_GetArraySize(list);
    if (n < 1 || n > CPREQ_MAX_VARIANTS)
        return cpreq_invalid(err, "productionVariants", "[...]",
                             n < 1 ? "Member must have length greater than or equal to 1"
                                   : "Member must have length less than or equal to 10");
    cJSON_ArrayForEach(pv, list) {
        struct cpreq_variant *v = &out->v[out->n_v];
        if ((rc = cpreq_variant(pv, out->n_v, v, err))) return rc;
        for (size_t j = 0; j < out->n_v; j++)
            if (strcmp(out->v[j].name, v->name) == 0)
                return buf_fail(err, CPREQ_ERR_VALIDATION,
                                "The production variant name %s appears more than once", v->name);
        out->n_v++;
    }
    return CPREQ_OK;
}

bool cpreq_status_ok(const char *s) {
    for (size_t i = 0; i < sizeof cpreq_statuses / sizeof cpreq_statuses[0]; i++)
        if (strcmp(s, cpreq_statuses[i]) == 0) return true;
    return false;
}

/* SortBy, SortOrder. */
static int cpreq_sort(const cJSON *req, struct cpreq_list *out, struct buf *err) {
    const char *by, *order;
    int rc = cpreq_str(req, "SortBy", &by, err);
    if (!rc) rc = cpreq_str(req, "SortOrder", &order, err);
    if (rc) return rc;
    if (by && strcmp(by, "Name") != 0 && strcmp(by, "CreationTime") != 0 &&
        strcmp(by, "Status") != 0)
        return cpreq_invalid(err, "sortBy", by,
                             "Member must satisfy enum value set: [Name, CreationTime, Status]");
    if (order && strcmp(order, "Ascending") != 0 && strcmp(order, "Descending") != 0)
        return cpreq_invalid(err, "sortOrder", order,
                             "Member must satisfy enum value set: [Ascending, Descending]");
    out->by_name = by && strcmp(by, "Name") == 0;
    out->by_status = by && strcmp(by, "Status") == 0;
    out->ascending = order && strcmp(order, "Ascending") == 0;
    return CPREQ_OK;
}

int cpreq_list(const cJSON *req, struct cpreq_list *out, struct buf *err) {
    const char *token;
    bool given;
    char num[32];
    memset(out, 0, sizeof *out);
    out->max_results = 10;
    int rc = cpreq_str(req, "NameContains", &out->name_contains, err);
    if (!rc && out->name_contains &&
        (strlen(out->name_contains) > 63 || !*out->name_contains ||
         strspn(out->name_contains,
                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") !=
             strlen(out->name_contains)))
        rc = cpreq_invalid(err, "nameContains", out->name_contains,
                           "Member must satisfy regular expression pattern: [a-zA-Z0-9-]+");
    if (!rc) rc = cpreq_str(req, "StatusEquals", &out->status, err);
    if (!rc && out->status && !cpreq_status_ok(out->status))
        rc = cpreq_invalid(err, "statusEquals", out->status,
                           "Member must satisfy enum value set: [OutOfService, Creating, "
                           "Updating, SystemUpdating, RollingBack, InService, Deleting, Failed, "
                           "UpdateRollbackFailed]");
    if (!rc) rc = cpreq_sort(req, out, err);
    if (!rc) rc = cpreq_int(req, "MaxResults", &out->max_results, &given, err);
    snprintf(num, sizeof num, "%ld", out->max_results);
    if (!rc && (out->max_results < 1 || out->max_results > 100))
        rc = cpreq_invalid(err, "maxResults", num,
                           out->max_results < 1
                               ? "Member must have value greater than or equal to 1"
                               : "Member must have value less than or equal to 100");
    if (!rc) rc = cpreq_str(req, "NextToken", &token, err);
    if (rc || !token) return rc;
    char *end;
    errno = 0;
    long start = token[0] == 't' ? strtol(token + 1, &end, 10) : -1;
    if (start < 1 || errno || *end)
        return buf_fail(err, CPREQ_ERR_VALIDATION, "Invalid pagination token");
    out->start = start;
    return CPREQ_OK;
}

const char *cpreq_env_get(const struct cpreq_env *env, size_t n, const char *key) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(env[i].key, key) == 0) return env[i].value;
    return NULL;
}
