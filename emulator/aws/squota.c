#include "squota.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "splitmix.h"

#define SQUOTA_MAX_TYPES 96

static const char *const squota_builtin[] = {
    "ml.c5.xlarge",  "ml.g4dn.xlarge", "ml.g4dn.2xlarge", "ml.g5.xlarge",   "ml.g5.2xlarge",
    "ml.g5.4xlarge", "ml.g5.12xlarge", "ml.g6.xlarge",    "ml.g6.2xlarge",  "ml.g6.4xlarge",
    "ml.g6.8xlarge", "ml.g6.12xlarge", "ml.g6e.xlarge",   "ml.g6e.2xlarge", "ml.g6e.4xlarge",
    "ml.m5.large",   "ml.m5.xlarge",   "ml.p4d.24xlarge", "ml.p5.48xlarge", "ml.t2.medium",
};

void squota_code(const char *type, char out[12]) {
    char name[96];
    snprintf(name, sizeof name, "%s for endpoint usage", type);
    snprintf(out, 12, "L-%08X", (unsigned)(splitmix_hash(name) & 0xffffffffu));
}

static int squota_cmp(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The types with a quota, sorted, without repeats: n of them into list. */
static size_t squota_types(const struct cpconf *c, const char *list[SQUOTA_MAX_TYPES]) {
    size_t n = 0;
    for (size_t i = 0; i < sizeof squota_builtin / sizeof squota_builtin[0]; i++)
        list[n++] = squota_builtin[i];
    for (size_t i = 0; i < c->n_quota && n < SQUOTA_MAX_TYPES; i++)
        if (strcmp(c->quota[i].type, "*") != 0) list[n++] = c->quota[i].type;
    for (size_t i = 0; i < c->n_capacity && n < SQUOTA_MAX_TYPES; i++)
        if (strcmp(c->capacity[i].type, "*") != 0) list[n++] = c->capacity[i].type;
    qsort(list, n, sizeof list[0], squota_cmp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || strcmp(list[k - 1], list[i]) != 0) list[k++] = list[i];
    return k;
}

__attribute__((format(printf, 4, 5))) static int
squota_fail(struct cplane_reply *r, int status, const char *type, const char *fmt, ...) {
    struct buf msg;
    va_list ap;
    buf_init(&msg, 2048);
    va_start(ap, fmt);
    int rc = buf_vaddf(&msg, fmt, ap);
    va_end(ap);
    buf_reset(&r->body);
    r->status = status;
    r->type = type;
    if (!rc) rc = buf_adds(&r->body, "{\"__type\":");
    if (!rc) rc = jsonw_cstr(&r->body, type);
    if (!rc) rc = buf_adds(&r->body, ",\"Message\":");
    if (!rc) rc = jsonw_str(&r->body, buf_str(&msg), msg.len);
    if (!rc) rc = buf_addc(&r->body, '}');
    buf_free(&msg);
    return rc ? CPLANE_ERR_NOMEM : CPLANE_OK;
}

/* One ServiceQuota object. */
static int squota_quota(struct buf *out, const struct cplane *cp, const char *region,
                        const char *type) {
    char code[12];
    squota_code(type, code);
    int rc = buf_adds(out, "{\"ServiceCode\":\"sagemaker\",\"ServiceName\":\"Amazon SageMaker\"");
    if (!rc)
        rc = buf_addf(out, ",\"QuotaArn\":\"arn:aws:servicequotas:%s:%s:sagemaker/%s\"", region,
                      cp->account, code);
    if (!rc) rc = buf_addf(out, ",\"QuotaCode\":\"%s\",\"QuotaName\":", code);
    char name[96];
    snprintf(name, sizeof name, "%s for endpoint usage", type);
    if (!rc) rc = jsonw_cstr(out, name);
    if (!rc)
        rc = buf_addf(out,
                      ",\"Value\":%ld.0,\"Unit\":\"None\",\"Adjustable\":true,"
                      "\"GlobalQuota\":false}",
                      cpconf_quota(cp->conf, region, type));
    return rc;
}

/* The string member key, or NULL; *bad when it is not a string. */
static const char *squota_str(const cJSON *req, const char *key, bool *bad) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, key);
    if (v && !cJSON_IsString(v) && !cJSON_IsNull(v)) *bad = true;
    return v && cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The string member key the request must give (field: its name in the
 * message): *out, or a refusal in r (*out NULL). */
static int squota_need(const cJSON *req, const char *key, const char *field, struct cplane_reply *r,
                       const char **out) {
    bool bad = false;
    *out = squota_str(req, key, &bad);
    if (bad) return squota_fail(r, 400, "SerializationException", "%s: expected a string", key);
    if (!*out)
        return squota_fail(r, 400, "ValidationException",
                           "1 validation error detected: Value null at '%s' failed to satisfy "
                           "constraint: Member must not be null",
                           field);
    return CPLANE_OK;
}

/* ServiceCode: sagemaker, or a refusal in r (*ok false). */
static int squota_service(const cJSON *req, struct cplane_reply *r, bool *ok) {
    const char *sc;
    *ok = false;
    int rc = squota_need(req, "ServiceCode", "serviceCode", r, &sc);
    if (rc || !sc) return rc;
    if (strcmp(sc, "sagemaker") != 0)
        return squota_fail(r, 400, "NoSuchResourceException",
                           "The request failed because the specified service does not exist "
                           "(sm-emulator knows service code sagemaker only): %.64s",
                           sc);
    *ok = true;
    return CPLANE_OK;
}

static int squota_list(const struct cplane *cp, const cJSON *req, const char *region,
                       struct cplane_reply *r) {
    const char *types[SQUOTA_MAX_TYPES];
    bool ok, bad = false;
    int rc = squota_service(req, r, &ok);
    if (rc || !ok) return rc;
    const cJSON *mr = cJSON_GetObjectItemCaseSensitive(req, "MaxResults");
    const char *token = squota_str(req, "NextToken", &bad);
    long max = 100, start = 0;
    if (bad || (mr && !cJSON_IsNumber(mr)))
        return squota_fail(r, 400, "SerializationException",
                           "NextToken or MaxResults of a wrong type");
    if (mr && !(mr->valuedouble >= 1 && mr->valuedouble <= 100))
        return squota_fail(r, 400, "IllegalArgumentException",
                           "MaxResults must be from 1 to 100, not %g", mr->valuedouble);
    if (mr) max = (long)mr->valuedouble;
    if (token) {
        char *end;
        errno = 0;
        start = token[0] == 'q' ? strtol(token + 1, &end, 10) : -1;
        if (start < 1 || errno || *end)
            return squota_fail(r, 400, "InvalidPaginationTokenException",
                               "Invalid pagination token");
    }
    size_t n = squota_types(cp->conf, types), end = (size_t)start + (size_t)max;
    buf_reset(&r->body);
    r->status = 200;
    r->type = NULL;
    rc = buf_adds(&r->body, "{\"Quotas\":[");
    for (size_t i = (size_t)start; !rc && i < n && i < end; i++) {
        if (i > (size_t)start) rc = buf_addc(&r->body, ',');
        if (!rc) rc = squota_quota(&r->body, cp, region, types[i]);
    }
    if (!rc) rc = buf_addc(&r->body, ']');
    if (!rc && end < n) rc = buf_addf(&r->body, ",\"NextToken\":\"q%zu\"", end);
    if (!rc) rc = buf_addc(&r->body, '}');
    return rc ? CPLANE_ERR_NOMEM : CPLANE_OK;
}

static int squota_get(const struct cplane *cp, const cJSON *req, const char *region,
                      struct cplane_reply *r) {
    const char *types[SQUOTA_MAX_TYPES], *code;
    bool ok;
    int rc = squota_service(req, r, &ok);
    if (rc || !ok) return rc;
    if ((rc = squota_need(req, "QuotaCode", "quotaCode", r, &code)) || !code) return rc;
    size_t n = squota_types(cp->conf, types);
    for (size_t i = 0; i < n; i++) {
        char c[12];
        squota_code(types[i], c);
        if (strcmp(c, code) != 0) continue;
        buf_reset(&r->body);
        r->status = 200;
        r->type = NULL;
        rc = buf_adds(&r->body, "{\"Quota\":") || squota_quota(&r->body, cp, region, types[i]) ||
             buf_addc(&r->body, '}');
        return rc ? CPLANE_ERR_NOMEM : CPLANE_OK;
    }
    return squota_fail(r, 400, "NoSuchResourceException",
                       "The request failed because the specified quota does not exist: %.64s",
                       code);
}

int squota_call(const struct cplane *cp, const char *op, const char *body, size_t len,
                const char *region, struct cplane_reply *r) {
    cJSON *req = len ? cJSON_ParseWithLength(body, len) : cJSON_CreateObject();
    int rc;
    r->type = NULL;
    if (!cJSON_IsObject(req))
        rc = squota_fail(r, 400, "SerializationException", "the request body is not a JSON object");
    else if (strcmp(op, "ListServiceQuotas") == 0)
        rc = squota_list(cp, req, region, r);
    else if (strcmp(op, "GetServiceQuota") == 0)
        rc = squota_get(cp, req, region, r);
    else
        rc = squota_fail(r, 400, "UnknownOperationException",
                         "sm-emulator serves ListServiceQuotas and GetServiceQuota only");
    cJSON_Delete(req);
    return rc;
}
