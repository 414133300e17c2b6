#include "rfmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define RFMT_SCALE_MIN 1e-3 /* time_scale: slower than this is not an emulator setting */
#define RFMT_SCALE_MAX 1e6

static cJSON *rfmt_str(const char *s) {
    return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static cJSON *rfmt_num(double v) {
    return v < 0 ? cJSON_CreateNull() : cJSON_CreateNumber(v);
}

/* Adds v (NULL: out of memory) to o as name; false when either failed. */
static bool rfmt_add(cJSON *o, const char *name, cJSON *v) {
    if (v && cJSON_AddItemToObject(o, name, v)) return true;
    cJSON_Delete(v);
    return false;
}

static cJSON *rfmt_endpoint(const struct rfmt_head *h) {
    cJSON *o = cJSON_CreateObject();
    if (o && rfmt_add(o, "name", rfmt_str(h->endpoint.name)) &&
        rfmt_add(o, "variant", rfmt_str(h->endpoint.variant)) &&
        rfmt_add(o, "format", rfmt_str(h->endpoint.format)) &&
        rfmt_add(o, "inference_component", rfmt_str(h->endpoint.component)))
        return o;
    cJSON_Delete(o);
    return NULL;
}

static cJSON *rfmt_target(const struct rfmt_head *h) {
    cJSON *o = cJSON_CreateObject();
    if (o && rfmt_add(o, "url", rfmt_str(h->target.url)) &&
        rfmt_add(o, "host", rfmt_str(h->target.host)) &&
        rfmt_add(o, "region", rfmt_str(h->target.region)) &&
        rfmt_add(o, "service", rfmt_str(h->target.service)))
        return o;
    cJSON_Delete(o);
    return NULL;
}

static cJSON *rfmt_client(const struct rfmt_head *h) {
    cJSON *o = cJSON_CreateObject();
    if (o && rfmt_add(o, "threads", rfmt_num((double)h->client.threads)) &&
        rfmt_add(o, "connections", rfmt_num((double)h->client.connections)) &&
        rfmt_add(o, "duration_s", rfmt_num(h->client.duration_s)) &&
        rfmt_add(o, "timeout_s", rfmt_num(h->client.timeout_s)))
        return o;
    cJSON_Delete(o);
    return NULL;
}

cJSON *rfmt_head_json(const struct rfmt_head *h) {
    cJSON *o = cJSON_CreateObject();
    cJSON *settings = h->settings ? cJSON_Duplicate(h->settings, true) : cJSON_CreateObject();
    if (o && rfmt_add(o, RFMT_FORMAT, cJSON_CreateString(RFMT_NAME)) &&
        rfmt_add(o, RFMT_FORMAT_VERSION, cJSON_CreateNumber(RFMT_VERSION)) &&
        rfmt_add(o, RFMT_TOOL, rfmt_str(h->tool)) &&
        rfmt_add(o, RFMT_SCENARIO, rfmt_str(h->scenario)) &&
        rfmt_add(o, RFMT_RUN_ID, rfmt_str(h->run_id)) &&
        rfmt_add(o, RFMT_LABEL, rfmt_str(h->label)) &&
        rfmt_add(o, RFMT_ENDPOINT, rfmt_endpoint(h)) && rfmt_add(o, RFMT_TARGET, rfmt_target(h)) &&
        rfmt_add(o, RFMT_CLIENT, rfmt_client(h)) &&
        rfmt_add(o, RFMT_TIME_SCALE, cJSON_CreateNumber(h->time_scale)) &&
        rfmt_add(o, RFMT_STARTED_AT, rfmt_str(h->started_at))) {
        if (rfmt_add(o, RFMT_SETTINGS, settings)) return o;
        settings = NULL;
    }
    cJSON_Delete(settings);
    cJSON_Delete(o);
    return NULL;
}

/* ---- reading ------------------------------------------------------------ */

struct rfmt_reader {
    const cJSON *obj;
    const char *where; /* "" or "endpoint." */
    struct buf *err;
    int rc;
};

static void rfmt_bad(struct rfmt_reader *r, const char *name, const char *want) {
    if (r->rc) return;
    r->rc = buf_fail(r->err, RFMT_ERR_INPUT, "\"%s%s\" must be %s", r->where, name, want);
}

/* The string member name: NULL when absent or null (an error when required). */
static const char *rfmt_get_str(struct rfmt_reader *r, const char *name, bool required) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->obj, name);
    if (cJSON_IsString(v)) return v->valuestring;
    if (required || (v && !cJSON_IsNull(v))) rfmt_bad(r, name, "a string");
    return NULL;
}

/* The number member name in [lo, hi], or dflt when absent or null. */
static double rfmt_get_num(struct rfmt_reader *r, const char *name, double lo, double hi,
                           double dflt) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->obj, name);
    if (!v || cJSON_IsNull(v)) return dflt;
    if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble >= lo &&
        v->valuedouble <= hi)
        return v->valuedouble;
    char want[96];
    snprintf(want, sizeof want, "a number from %g to %g", lo, hi);
    rfmt_bad(r, name, want);
    return dflt;
}

/* The object member name, or NULL when absent (an error when it is another type). */
static const cJSON *rfmt_get_obj(struct rfmt_reader *r, const char *name) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->obj, name);
    if (v && !cJSON_IsObject(v)) rfmt_bad(r, name, "an object");
    return cJSON_IsObject(v) ? v : NULL;
}

static void rfmt_read_parts(struct rfmt_reader *r, struct rfmt_head *out) {
    struct rfmt_reader part = *r;
    if ((part.obj = rfmt_get_obj(r, RFMT_ENDPOINT))) {
        part.where = RFMT_ENDPOINT ".";
        out->endpoint.name = rfmt_get_str(&part, "name", true);
        out->endpoint.variant = rfmt_get_str(&part, "variant", false);
        out->endpoint.format = rfmt_get_str(&part, "format", false);
        out->endpoint.component = rfmt_get_str(&part, "inference_component", false);
    }
    if (!part.rc && (part.obj = rfmt_get_obj(r, RFMT_TARGET))) {
        part.where = RFMT_TARGET ".";
        out->target.url = rfmt_get_str(&part, "url", false);
        out->target.host = rfmt_get_str(&part, "host", false);
        out->target.region = rfmt_get_str(&part, "region", false);
        out->target.service = rfmt_get_str(&part, "service", false);
    }
    if (!part.rc && (part.obj = rfmt_get_obj(r, RFMT_CLIENT))) {
        part.where = RFMT_CLIENT ".";
        out->client.threads = (long)rfmt_get_num(&part, "threads", 1, 1e7, -1);
        out->client.connections = (long)rfmt_get_num(&part, "connections", 1, 1e7, -1);
        out->client.duration_s = rfmt_get_num(&part, "duration_s", 0, 1e9, -1);
        out->client.timeout_s = rfmt_get_num(&part, "timeout_s", 0, 1e9, -1);
    }
    if (part.rc) r->rc = part.rc;
}

int rfmt_head_parse(const cJSON *obj, struct rfmt_head *out, struct buf *err) {
    *out = (struct rfmt_head){.client = {-1, -1, -1, -1}, .time_scale = 1};
    struct rfmt_reader r = {.obj = obj, .where = "", .err = err};
    if (!cJSON_IsObject(obj))
        return buf_fail(err, RFMT_ERR_INPUT, "not a JSON object (a result file is one)");
    const char *name = rfmt_get_str(&r, RFMT_FORMAT, true);
    if (r.rc || strcmp(name, RFMT_NAME) != 0)
        return buf_fail(err, RFMT_ERR_INPUT, "\"format\" is not \"%s\"", RFMT_NAME);
    double version = rfmt_get_num(&r, RFMT_FORMAT_VERSION, 1, RFMT_VERSION, 0);
    if (r.rc || version != floor(version) || version < 1)
        return buf_fail(err, RFMT_ERR_INPUT, "\"version\" must be 1 to %d (this reader's)",
                        RFMT_VERSION);
    out->tool = rfmt_get_str(&r, RFMT_TOOL, false);
    out->scenario = rfmt_get_str(&r, RFMT_SCENARIO, true);
    out->run_id = rfmt_get_str(&r, RFMT_RUN_ID, false);
    out->label = rfmt_get_str(&r, RFMT_LABEL, true);
    out->started_at = rfmt_get_str(&r, RFMT_STARTED_AT, false);
    out->time_scale = rfmt_get_num(&r, RFMT_TIME_SCALE, RFMT_SCALE_MIN, RFMT_SCALE_MAX, 1);
    out->settings = rfmt_get_obj(&r, RFMT_SETTINGS);
    if (!r.rc) rfmt_read_parts(&r, out);
    return r.rc;
}

/* The [name, value] pairs of list as an object in their order (NULL: not pairs). */
static cJSON *rfmt_pairs(const cJSON *list) {
    cJSON *o = cJSON_CreateObject(), *pair;
    if (list && !cJSON_IsArray(list) && !(cJSON_IsObject(list) && !list->child))
        goto fail; /* an empty Lua table is an empty object */
    cJSON_ArrayForEach(pair, list) {
        const cJSON *name = cJSON_GetArrayItem(pair, 0);
        cJSON *value = cJSON_Duplicate(cJSON_GetArrayItem(pair, 1), true);
        if (!cJSON_IsString(name) || cJSON_GetArraySize(pair) > 2) {
            cJSON_Delete(value);
            goto fail;
        }
        if (!value) value = cJSON_CreateNull();
        if (!rfmt_add(o, name->valuestring, value)) goto fail;
    }
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

int rfmt_head_make(const cJSON *given, const char *tool, cJSON **out, struct buf *err) {
    *out = NULL;
    cJSON *head = cJSON_IsObject(given) ? cJSON_Duplicate(given, true) : cJSON_CreateObject();
    cJSON *settings = rfmt_pairs(cJSON_GetObjectItemCaseSensitive(given, RFMT_SETTINGS));
    int rc = head ? RFMT_OK : RFMT_ERR_NOMEM;
    if (!rc && !settings)
        rc = buf_fail(err, RFMT_ERR_INPUT, "\"settings\" must be a list of [name, value] pairs");
    cJSON_DeleteItemFromObjectCaseSensitive(head, RFMT_SETTINGS);
    if (!rc && !(rfmt_add(head, RFMT_SETTINGS, settings) &&
                 rfmt_add(head, RFMT_FORMAT, cJSON_CreateString(RFMT_NAME)) &&
                 rfmt_add(head, RFMT_FORMAT_VERSION, cJSON_CreateNumber(RFMT_VERSION)) &&
                 rfmt_add(head, RFMT_TOOL, cJSON_CreateString(tool))))
        rc = RFMT_ERR_NOMEM;
    else if (rc)
        cJSON_Delete(settings);
    struct rfmt_head h;
    if (!rc) rc = rfmt_head_parse(head, &h, err);
    if (!rc && !(*out = rfmt_head_json(&h))) rc = RFMT_ERR_NOMEM;
    cJSON_Delete(head);
    return rc;
}
