#include "epdesc.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cwdoc.h"
#include "scrub.h"
#include "tty.h"

void epdesc_clean(char *dst, size_t size, const char *src, size_t n) {
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    if (scrub_append(&b, src, n)) {
        dst[0] = '\0';
        buf_free(&b);
        return;
    }
    size_t len = b.len, keep = len < size ? len : size - 4;
    if (size < 8) keep = len < size ? len : size - 1;
    while (keep < len && keep > 0 && ((unsigned char)b.data[keep] & 0xC0) == 0x80) keep--;
    memcpy(dst, b.data, keep);
    for (size_t i = 0, k; i < keep; i += k) { /* what a terminal obeys (tty.h) becomes ' ' */
        bool control;
        k = tty_char(dst + i, keep - i, &control);
        if (control) memset(dst + i, ' ', k);
    }
    if (keep < len && size >= 8) {
        memcpy(dst + keep, "...", 3);
        keep += 3;
    }
    dst[keep] = '\0';
    buf_free(&b);
}

/* An optional string member into dst; a member of another type is an error. */
static int epdesc_str(const cJSON *o, const char *key, char *dst, size_t size, struct buf *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    dst[0] = '\0';
    if (!v || cJSON_IsNull(v)) return EPDESC_OK;
    if (!cJSON_IsString(v)) return buf_fail(err, EPDESC_ERR_REPLY, "%s is not a string", key);
    epdesc_clean(dst, size, v->valuestring, strlen(v->valuestring));
    return EPDESC_OK;
}

/* A required string member. */
static int epdesc_need(const cJSON *o, const char *key, char *dst, size_t size, struct buf *err) {
    int rc = epdesc_str(o, key, dst, size, err);
    return rc || dst[0] ? rc : buf_fail(err, EPDESC_ERR_REPLY, "no %s in the reply", key);
}

/* An optional number member (*out = dflt when absent). */
static int epdesc_num(const cJSON *o, const char *key, double dflt, double *out, struct buf *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = dflt;
    if (!v || cJSON_IsNull(v)) return EPDESC_OK;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return buf_fail(err, EPDESC_ERR_REPLY, "%s is not a number", key);
    *out = v->valuedouble;
    return EPDESC_OK;
}

static int epdesc_long(const cJSON *o, const char *key, long *out, struct buf *err) {
    double d = -1;
    int rc = epdesc_num(o, key, -1, &d, err);
    if (!rc && d != -1 && (d < 0 || d > 1e9 || d != floor(d)))
        return buf_fail(err, EPDESC_ERR_REPLY, "%s is not a count", key);
    *out = (long)d;
    return rc;
}

/* An optional array member (NULL when absent). */
static int epdesc_array(const cJSON *o, const char *key, const cJSON **out, struct buf *err) {
    *out = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!*out || cJSON_IsNull(*out)) {
        *out = NULL;
        return EPDESC_OK;
    }
    return cJSON_IsArray(*out) ? EPDESC_OK
                               : buf_fail(err, EPDESC_ERR_REPLY, "%s is not a list", key);
}

static cJSON *epdesc_parse(const char *json, size_t len, struct buf *err) {
    cJSON *root = json && len ? cJSON_ParseWithLength(json, len) : NULL;
    if (cJSON_IsObject(root)) return root;
    cJSON_Delete(root);
    (void)buf_fail(err, EPDESC_ERR_REPLY, "the reply is not a JSON object");
    return NULL;
}

/* Reads object i of a list. */
typedef int epdesc_item_fn(const cJSON *item, size_t i, void *ud, struct buf *err);

/* Hands each object of the optional list member key of o to fn, counting them
 * in *n (read so far); past max of them the rest is an error, "more than MAX
 * MANY", or, with many NULL, left out. A member that is no object is an error. */
static int epdesc_each(const cJSON *o, const char *key, size_t max, const char *many, size_t *n,
                       epdesc_item_fn *fn, void *ud, struct buf *err) {
    const cJSON *list, *e;
    int rc = epdesc_array(o, key, &list, err);
    cJSON_ArrayForEach(e, list) {
        if (rc || (*n == max && !many)) break;
        if (*n == max) return buf_fail(err, EPDESC_ERR_REPLY, "more than %zu %s", max, many);
        if (!cJSON_IsObject(e))
            return buf_fail(err, EPDESC_ERR_REPLY, "%s holds a non-object", key);
        rc = fn(e, *n, ud, err);
        if (!rc) ++*n;
    }
    return rc;
}

/* An instance pool of a DescribeEndpoint variant: the type holding instances. */
static int epdesc_pool(const cJSON *p, size_t i, void *ud, struct buf *err) {
    struct epdesc_variant *v = ud;
    char type[EPDESC_TYPE_MAX];
    long count = 0;
    (void)i;
    int rc = epdesc_need(p, "InstanceType", type, sizeof type, err);
    if (!rc) rc = epdesc_long(p, "CurrentInstanceCount", &count, err);
    if (!rc && count > 0) memcpy(v->placed, type, sizeof type);
    return rc;
}

/* Variant i of DescribeEndpoint (ud: the struct epdesc_endpoint). */
static int epdesc_variant(const cJSON *pv, size_t i, void *ud, struct buf *err) {
    struct epdesc_variant *v = &((struct epdesc_endpoint *)ud)->v[i];
    const cJSON *images = NULL;
    size_t n_pools = 0;
    int rc = epdesc_need(pv, "VariantName", v->name, sizeof v->name, err);
    if (!rc) rc = epdesc_long(pv, "CurrentInstanceCount", &v->current_count, err);
    if (!rc) rc = epdesc_long(pv, "DesiredInstanceCount", &v->desired_count, err);
    if (!rc) rc = epdesc_num(pv, "CurrentWeight", -1, &v->weight, err);
    if (!rc) rc = epdesc_array(pv, "DeployedImages", &images, err);
    if (!rc && images && cJSON_IsObject(cJSON_GetArrayItem(images, 0)))
        rc = epdesc_str(cJSON_GetArrayItem(images, 0), "SpecifiedImage", v->image, sizeof v->image,
                        err);
    if (!rc) rc = epdesc_each(pv, "InstancePools", SIZE_MAX, NULL, &n_pools, epdesc_pool, v, err);
    return rc;
}

int epdesc_endpoint(const char *json, size_t len, struct epdesc_endpoint *out, struct buf *err) {
    memset(out, 0, sizeof *out);
    cJSON *root = epdesc_parse(json, len, err);
    if (!root) return EPDESC_ERR_REPLY;
    int rc = epdesc_need(root, "EndpointName", out->name, sizeof out->name, err);
    if (!rc) rc = epdesc_str(root, "EndpointConfigName", out->config, sizeof out->config, err);
    if (!rc) rc = epdesc_need(root, "EndpointStatus", out->status, sizeof out->status, err);
    if (!rc) rc = epdesc_str(root, "FailureReason", out->failure, sizeof out->failure, err);
    if (!rc) rc = epdesc_num(root, "CreationTime", 0, &out->created, err);
    if (!rc) rc = epdesc_num(root, "LastModifiedTime", 0, &out->modified, err);
    if (!rc)
        rc = epdesc_each(root, "ProductionVariants", EPDESC_MAX_VARIANTS, "production variants",
                         &out->n_v, epdesc_variant, out, err);
    cJSON_Delete(root);
    return rc;
}

/* Variant i of DescribeEndpointConfig (ud: the struct epdesc_config). */
static int epdesc_cvariant(const cJSON *pv, size_t i, void *ud, struct buf *err) {
    struct epdesc_cvariant *v = &((struct epdesc_config *)ud)->v[i];
    const cJSON *pools, *p;
    int rc = epdesc_need(pv, "VariantName", v->name, sizeof v->name, err);
    if (!rc) rc = epdesc_str(pv, "ModelName", v->model, sizeof v->model, err);
    if (!rc) rc = epdesc_long(pv, "InitialInstanceCount", &v->count, err);
    if (!rc && v->count < 0) v->count = 1;
    if (!rc) rc = epdesc_str(pv, "InstanceType", v->types[0], sizeof v->types[0], err);
    if (!rc && v->types[0][0]) v->n_types = 1;
    if (!rc) rc = epdesc_array(pv, "InstancePools", &pools, err);
    /* the pools by priority: 1 to 5 */
    for (int prio = 1; !rc && pools && prio <= EPDESC_MAX_POOLS; prio++) {
        cJSON_ArrayForEach(p, pools) {
            double pr;
            if (!cJSON_IsObject(p))
                return buf_fail(err, EPDESC_ERR_REPLY, "InstancePools holds a non-object");
            if ((rc = epdesc_num(p, "Priority", 0, &pr, err))) break;
            if (pr != prio || v->n_types == EPDESC_MAX_POOLS) continue;
            v->pools = true;
            rc = epdesc_need(p, "InstanceType", v->types[v->n_types], EPDESC_TYPE_MAX, err);
            if (!rc) v->n_types++;
        }
    }
    return rc;
}

int epdesc_config(const char *json, size_t len, struct epdesc_config *out, struct buf *err) {
    memset(out, 0, sizeof *out);
    cJSON *root = epdesc_parse(json, len, err);
    if (!root) return EPDESC_ERR_REPLY;
    int rc = epdesc_need(root, "EndpointConfigName", out->name, sizeof out->name, err);
    if (!rc)
        rc = epdesc_each(root, "ProductionVariants", EPDESC_MAX_VARIANTS, "production variants",
                         &out->n_v, epdesc_cvariant, out, err);
    cJSON_Delete(root);
    return rc;
}

static int epdesc_summary(const cJSON *e, size_t i, void *ud, struct buf *err) {
    struct epdesc_summary *s = (struct epdesc_summary *)ud + i;
    int rc = epdesc_need(e, "EndpointName", s->name, sizeof s->name, err);
    if (!rc) rc = epdesc_need(e, "EndpointStatus", s->status, sizeof s->status, err);
    if (!rc) rc = epdesc_num(e, "CreationTime", 0, &s->created, err);
    return rc;
}

int epdesc_list(const char *json, size_t len, struct epdesc_summary *list, size_t max, size_t *n,
                struct buf *err) {
    cJSON *root = epdesc_parse(json, len, err);
    if (!root) return EPDESC_ERR_REPLY;
    int rc = epdesc_each(root, "Endpoints", max, "endpoints", n, epdesc_summary, list, err);
    cJSON_Delete(root);
    return rc;
}

static int epdesc_quota(const cJSON *q, size_t i, void *ud, struct buf *err) {
    struct epdesc_quota *e = (struct epdesc_quota *)ud + i;
    int rc = epdesc_need(q, "QuotaName", e->name, sizeof e->name, err);
    if (!rc) rc = epdesc_str(q, "QuotaCode", e->code, sizeof e->code, err);
    if (!rc) rc = epdesc_num(q, "Value", -1, &e->value, err);
    return rc;
}

int epdesc_quotas(const char *json, size_t len, struct epdesc_quota *list, size_t max, size_t *n,
                  struct buf *err) {
    cJSON *root = epdesc_parse(json, len, err);
    if (!root) return EPDESC_ERR_REPLY;
    int rc = epdesc_each(root, "Quotas", max, NULL, n, epdesc_quota, list, err);
    cJSON_Delete(root);
    return rc;
}

/* The caller's callback, for events read by cwdoc. */
struct epdesc_events {
    epdesc_event_fn *fn;
    void *ud;
    int rc; /* what fn returned last */
};

static int epdesc_event(void *ud, const struct cwdoc_event *e) {
    struct epdesc_events *x = ud;
    char msg[4096];
    epdesc_clean(msg, sizeof msg, e->message, e->message_len);
    return x->rc = x->fn(x->ud, (double)e->timestamp_ms / 1000, msg);
}

int epdesc_logs(const char *json, size_t len, epdesc_event_fn *fn, void *ud, struct buf *err) {
    struct epdesc_events x = {fn, ud, 0};
    int rc = cwdoc_events(json, len, epdesc_event, &x, err);
    if (!rc || x.rc) return x.rc;
    return rc == CWDOC_ERR_NOMEM ? EPDESC_ERR_NOMEM : EPDESC_ERR_REPLY;
}

int epdesc_chat(const char *json, size_t len, size_t max, struct buf *text, struct epdesc_chat *out,
                struct buf *err) {
    memset(out, 0, sizeof *out);
    out->prompt_tokens = out->completion_tokens = -1;
    buf_reset(text);
    cJSON *root = epdesc_parse(json, len, err);
    if (!root) return EPDESC_ERR_REPLY;
    const cJSON *choices = cJSON_GetObjectItemCaseSensitive(root, "choices");
    const cJSON *c0 = cJSON_GetArrayItem(choices, 0);
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(c0, "message");
    const cJSON *content = msg ? cJSON_GetObjectItemCaseSensitive(msg, "content")
                               : cJSON_GetObjectItemCaseSensitive(c0, "text");
    const cJSON *usage = cJSON_GetObjectItemCaseSensitive(root, "usage");
    int rc = EPDESC_OK;
    if (!cJSON_IsArray(choices) || !cJSON_IsObject(c0))
        rc = buf_fail(err, EPDESC_ERR_REPLY, "no choices[0] in the reply");
    else if (content && !cJSON_IsString(content) && !cJSON_IsNull(content))
        rc = buf_fail(err, EPDESC_ERR_REPLY, "choices[0].message.content is not a string");
    if (!rc) rc = epdesc_str(root, "model", out->model, sizeof out->model, err);
    if (!rc) rc = epdesc_str(c0, "finish_reason", out->finish, sizeof out->finish, err);
    if (!rc && usage && !cJSON_IsObject(usage))
        rc = buf_fail(err, EPDESC_ERR_REPLY, "usage is not an object");
    if (!rc && usage) rc = epdesc_long(usage, "prompt_tokens", &out->prompt_tokens, err);
    if (!rc && usage) rc = epdesc_long(usage, "completion_tokens", &out->completion_tokens, err);
    if (!rc && content && cJSON_IsString(content) && content->valuestring) {
        size_t n = strlen(content->valuestring);
        if (n > max) n = max;
        while (n < strlen(content->valuestring) && n > 0 &&
               ((unsigned char)content->valuestring[n] & 0xC0) == 0x80)
            n--;
        rc = scrub_append(text, content->valuestring, n) ? EPDESC_ERR_NOMEM : EPDESC_OK;
        if (rc) (void)buf_fail(err, rc, "out of memory");
    }
    cJSON_Delete(root);
    return rc;
}

cJSON *epdesc_endpoint_json(const struct epdesc_endpoint *d, const char *region, double elapsed_s) {
    cJSON *j = cJSON_CreateObject();
    cJSON *vs =
        j && cJSON_AddStringToObject(j, "endpoint", d->name) &&
                cJSON_AddStringToObject(j, "region", region) &&
                cJSON_AddStringToObject(j, "status", d->status) &&
                cJSON_AddStringToObject(j, "config", d->config) &&
                (!d->failure[0] || cJSON_AddStringToObject(j, "failure_reason", d->failure)) &&
                cJSON_AddNumberToObject(j, "elapsed_s", elapsed_s)
            ? cJSON_AddArrayToObject(j, "variants")
            : NULL;
    for (size_t i = 0; vs && i < d->n_v; i++) {
        cJSON *v = cJSON_CreateObject();
        cJSON_AddItemToArray(vs, v);
        if (!v || !cJSON_AddStringToObject(v, "name", d->v[i].name) ||
            !cJSON_AddNumberToObject(v, "instances", (double)d->v[i].current_count) ||
            (d->v[i].placed[0] && !cJSON_AddStringToObject(v, "placed_type", d->v[i].placed)))
            vs = NULL;
    }
    if (vs) return j;
    cJSON_Delete(j);
    return NULL;
}
