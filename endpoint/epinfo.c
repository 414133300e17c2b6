#include "epinfo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "epdesc.h"
#include "epwait.h"
#include "rtinvoke.h"
#include "smname.h"

#define EPINFO_REPLY_MAX  ((size_t)4 << 20)
#define EPINFO_MAX_LIST   1000
#define EPINFO_MAX_QUOTAS 512
#define EPINFO_MAX_PAGES  50
#define EPINFO_TEXT_MAX   ((size_t)64 << 10) /* bytes of a reply's text kept */
#define EPINFO_MAX_TYPES  16

static int epinfo_nomem(struct buf *err) {
    return buf_fail(err, EPOPS_ERR_NOMEM, "out of memory");
}

/* Sets out's JSON to {key: *item}, taking *item (NULL after). Returns 0 or
 * EPOPS_ERR_NOMEM with err. */
static int epinfo_out_json(struct epops_out *out, const char *key, cJSON **item, struct buf *err) {
    cJSON_Delete(out->json);
    out->json = cJSON_CreateObject();
    if (!out->json) return epinfo_nomem(err);
    cJSON_AddItemToObject(out->json, key, *item);
    *item = NULL;
    return EPOPS_OK;
}

static bool epinfo_name_ok(const char *name) {
    return name && smname_endpoint_ok(name, strlen(name));
}

/* ---- status ---- */

/* The config's instance types and the model id of its first variant's model. */
static void epinfo_config_facts(struct epops *o, struct awsj_client *c, const char *config,
                                struct epdesc_config *cfg, char model_id[256]) {
    struct buf reply, ignored;
    buf_init(&reply, EPINFO_REPLY_MAX);
    buf_init(&ignored, 4096);
    model_id[0] = '\0';
    memset(cfg, 0, sizeof *cfg);
    if (config[0] && epops_describe_config(o, c, config, cfg, &ignored) == 0 && cfg->n_v &&
        epops_get(o, c, "DescribeModel", "ModelName", cfg->v[0].model, &reply, &ignored) == 0) {
        cJSON *m = cJSON_ParseWithLength(buf_str(&reply), reply.len);
        const cJSON *env = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(m, "PrimaryContainer"), "Environment");
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(env, "SM_VLLM_MODEL");
        if (cJSON_IsString(id))
            epdesc_clean(model_id, 256, id->valuestring, strlen(id->valuestring));
        cJSON_Delete(m);
    }
    buf_free(&reply);
    buf_free(&ignored);
}

/* The status's JSON. */
static cJSON *epinfo_status_json(const char *region, const struct epdesc_endpoint *d,
                                 const struct epdesc_config *cfg, const char *model_id,
                                 double hours, double price) {
    cJSON *j = cJSON_CreateObject(), *vs = NULL;
    bool ok = j && cJSON_AddStringToObject(j, "endpoint", d->name) &&
              cJSON_AddStringToObject(j, "region", region) &&
              cJSON_AddStringToObject(j, "status", d->status) &&
              (!d->failure[0] || cJSON_AddStringToObject(j, "failure_reason", d->failure)) &&
              cJSON_AddStringToObject(j, "config", d->config) &&
              (!model_id[0] || cJSON_AddStringToObject(j, "model_id", model_id)) &&
              cJSON_AddNumberToObject(j, "created", d->created) &&
              cJSON_AddNumberToObject(j, "hours", hours) &&
              (!(price > 0) || (cJSON_AddNumberToObject(j, "usd_per_hour", price) &&
                                cJSON_AddNumberToObject(j, "usd_so_far", hours * price))) &&
              (vs = cJSON_AddArrayToObject(j, "variants"));
    for (size_t i = 0; ok && i < d->n_v; i++) {
        cJSON *v = cJSON_CreateObject(), *types = NULL;
        if (v) cJSON_AddItemToArray(vs, v);
        const struct epdesc_cvariant *cv = NULL;
        for (size_t k = 0; k < cfg->n_v; k++)
            if (strcmp(cfg->v[k].name, d->v[i].name) == 0) cv = &cfg->v[k];
        ok = v && cJSON_AddStringToObject(v, "name", d->v[i].name) &&
             cJSON_AddNumberToObject(v, "instances", (double)d->v[i].current_count) &&
             (!d->v[i].placed[0] || cJSON_AddStringToObject(v, "placed_type", d->v[i].placed)) &&
             (types = cJSON_AddArrayToObject(v, "instance_types"));
        for (size_t k = 0; ok && cv && k < cv->n_types; k++) {
            cJSON *t = cJSON_CreateString(cv->types[k]);
            ok = t != NULL;
            if (t) cJSON_AddItemToArray(types, t);
        }
    }
    if (ok) return j;
    cJSON_Delete(j);
    return NULL;
}

int epinfo_status(struct epops *o, const char *region, const char *name, double price,
                  struct epops_out *out, struct buf *err) {
    struct awsj_client *c = NULL;
    struct epdesc_endpoint d;
    struct epdesc_config cfg;
    char model_id[256], clock[32];
    const char *source;
    if (!region) region = epops_config(o)->region;
    if (!epinfo_name_ok(name))
        return buf_fail(err, EPOPS_ERR_INPUT, "'%s' is not an endpoint name", name ? name : "");
    int rc = epops_client(o, region, &c, err);
    if (!rc) rc = epops_describe(o, c, name, &d, err);
    if (rc) return rc;
    epinfo_config_facts(o, c, d.config, &cfg, model_id);
    const char *type = d.n_v && d.v[0].placed[0] ? d.v[0].placed
                       : cfg.n_v                 ? cfg.v[0].types[0]
                                                 : NULL;
    double p = epops_price(o, price, type, region, &source);
    double scale = epops_config(o)->time_scale;
    double real = d.created > 0 ? epops_wall(o) - d.created : 0;
    double hours = real > 0 ? real * scale / 3600 : 0;
    epwait_clock(hours * 3600, clock);
    rc = buf_addf(&out->text, "%s in %s: %s%s%s\n", name, region, d.status,
                  d.failure[0] ? ": " : "", d.failure);
    if (!rc && model_id[0])
        rc = buf_addf(&out->text, "  model: %s (config %s)\n", model_id, d.config);
    for (size_t i = 0; !rc && i < d.n_v; i++)
        rc = buf_addf(&out->text, "  variant %s: %ld instance(s)%s%s\n", d.v[i].name,
                      d.v[i].current_count, d.v[i].placed[0] ? " of " : "", d.v[i].placed);
    if (!rc)
        rc = p > 0 ? buf_addf(&out->text, "  created %s %sago: USD %.2f so far at USD %g/h\n",
                              clock, scale != 1 ? "emulated " : "", hours * p, p)
                   : buf_addf(&out->text, "  created %s %sago (price unknown)\n", clock,
                              scale != 1 ? "emulated " : "");
    cJSON_Delete(out->json);
    out->json = epinfo_status_json(region, &d, &cfg, model_id, hours, p);
    return rc || !out->json ? epinfo_nomem(err) : EPOPS_OK;
}

/* ---- list ---- */

/* A listing read page by page: ListEndpoints' into list, or ListServiceQuotas'
 * into quotas (the other NULL); n of max so far. */
struct epinfo_pages {
    struct epdesc_summary *list;
    struct epdesc_quota *quotas;
    size_t n, max;
};

static int epinfo_page(void *ud, const char *page, size_t len, struct buf *err) {
    struct epinfo_pages *p = ud;
    int rc = p->list ? epdesc_list(page, len, p->list, p->max, &p->n, err)
                     : epdesc_quotas(page, len, p->quotas, p->max, &p->n, err);
    return rc ? AWSJ_ERR_REPLY : 0;
}

/* The endpoints of c's region whose name contains name_contains (NULL: all)
 * into p->list (p->n of them). */
static int epinfo_endpoints(struct awsj_client *c, const char *name_contains,
                            struct epinfo_pages *p, struct buf *err) {
    struct buf req;
    buf_init(&req, BUF_NO_CAP);
    p->n = 0;
    int rc = epreq_list(name_contains, &req) ? epinfo_nomem(err)
             : awsj_paginate(c, AWSJ_SAGEMAKER, "ListEndpoints", buf_str(&req), "NextToken",
                             EPINFO_MAX_PAGES, epinfo_page, p, err)
                 ? EPOPS_ERR_AWS
                 : EPOPS_OK;
    buf_free(&req);
    return rc;
}

int epinfo_list(struct epops *o, const char *const *regions, size_t n_regions,
                const char *name_contains, struct epops_out *out, struct buf *err) {
    const char *one[1] = {epops_config(o)->region};
    if (!n_regions) regions = one, n_regions = 1;
    struct epinfo_pages p = {calloc(EPINFO_MAX_LIST, sizeof *p.list), NULL, 0, EPINFO_MAX_LIST};
    cJSON *list = cJSON_CreateArray();
    int rc = p.list && list ? EPOPS_OK : epinfo_nomem(err);
    size_t total = 0;
    for (size_t r = 0; !rc && r < n_regions; r++) {
        struct awsj_client *c = NULL;
        rc = epops_client(o, regions[r], &c, err);
        if (!rc) rc = epinfo_endpoints(c, name_contains, &p, err);
        for (size_t i = 0; !rc && i < p.n; i++) {
            cJSON *e = cJSON_CreateObject();
            if (e) cJSON_AddItemToArray(list, e);
            rc = e && cJSON_AddStringToObject(e, "endpoint", p.list[i].name) &&
                         cJSON_AddStringToObject(e, "region", regions[r]) &&
                         cJSON_AddStringToObject(e, "status", p.list[i].status) &&
                         cJSON_AddNumberToObject(e, "created", p.list[i].created) &&
                         !buf_addf(&out->text, "%-40s %-10s %s\n", p.list[i].name, regions[r],
                                   p.list[i].status)
                     ? EPOPS_OK
                     : epinfo_nomem(err);
        }
        total += p.n;
    }
    if (!rc && buf_addf(&out->text, "%zu endpoint(s)%s%s%s\n", total,
                        name_contains ? " whose name contains '" : "",
                        name_contains ? name_contains : "", name_contains ? "'" : ""))
        rc = epinfo_nomem(err);
    free(p.list);
    if (!rc) rc = epinfo_out_json(out, "endpoints", &list, err);
    cJSON_Delete(list);
    return rc;
}

/* ---- logs ---- */

struct epinfo_logs {
    char **ring; /* the last limit lines */
    long limit, n;
    bool nomem;
};

static int epinfo_log_event(void *ud, double t, const char *msg) {
    struct epinfo_logs *l = ud;
    (void)t;
    char **slot = &l->ring[l->n % l->limit];
    free(*slot);
    *slot = strdup(msg);
    if (!*slot) l->nomem = true;
    l->n++;
    return 0;
}

static int epinfo_log_page(void *ud, const char *page, size_t len, struct buf *err) {
    return epdesc_logs(page, len, epinfo_log_event, ud, err) ? AWSJ_ERR_REPLY : 0;
}

int epinfo_logs(struct epops *o, const char *region, const char *name, double since_s, long limit,
                struct epops_out *out, struct buf *err) {
    struct awsj_client *c = NULL;
    struct buf req;
    if (!region) region = epops_config(o)->region;
    if (!epinfo_name_ok(name))
        return buf_fail(err, EPOPS_ERR_INPUT, "'%s' is not an endpoint name", name ? name : "");
    if (limit < 1 || limit > 10000)
        return buf_fail(err, EPOPS_ERR_INPUT, "the number of lines is from 1 to 10000, not %ld",
                        limit);
    double real = since_s / epops_config(o)->time_scale;
    long long start = (long long)((epops_wall(o) - real) * 1000);
    struct epinfo_logs l = {calloc((size_t)limit, sizeof(char *)), limit, 0, false};
    buf_init(&req, BUF_NO_CAP);
    int rc = l.ring && !epreq_logs(name, start, limit > 100 ? 100 : (int)limit, &req)
                 ? epops_client(o, region, &c, err)
                 : epinfo_nomem(err);
    if (!rc) {
        rc = awsj_paginate(c, AWSJ_LOGS, "FilterLogEvents", buf_str(&req), "nextToken",
                           EPINFO_MAX_PAGES, epinfo_log_page, &l, err);
        if (rc == AWSJ_ERR_SERVICE && strcmp(awsj_last(c)->code, "ResourceNotFoundException") == 0)
            rc = buf_fail(err, EPOPS_ERR_NOT_FOUND,
                          "no log group /aws/sagemaker/Endpoints/%s in %s yet: the container has "
                          "not started (a capacity wait has no log)",
                          name, region);
        else if (rc)
            rc = epops_aws_error(o, c, rc);
    }
    if (!rc && l.nomem) rc = epinfo_nomem(err);
    cJSON *lines = rc ? NULL : cJSON_CreateArray();
    long first = l.n > limit ? l.n - limit : 0;
    for (long i = first; !rc && i < l.n; i++) {
        const char *line = l.ring[i % limit];
        cJSON *s = cJSON_CreateString(line);
        if (s) cJSON_AddItemToArray(lines, s);
        if (!lines || !s || buf_addf(&out->text, "%s\n", line)) rc = epinfo_nomem(err);
    }
    if (!rc) rc = epinfo_out_json(out, "lines", &lines, err);
    cJSON_Delete(lines);
    for (long i = 0; l.ring && i < limit; i++) free(l.ring[i]);
    free(l.ring);
    buf_free(&req);
    return rc;
}

/* ---- verify and query ---- */

/* One chat request; the reply read into text and chat. */
static int epinfo_chat(struct epops *o, const char *region, const char *name, const char *variant,
                       const char *body, struct buf *text, struct epdesc_chat *chat,
                       double *seconds, struct buf *err) {
    struct rtinvoke_reply got;
    struct buf why;
    const struct epops_config *cfg = epops_config(o);
    struct rtinvoke_req q = {.region = region,
                             .base_url = cfg->endpoint_url,
                             .endpoint = name,
                             .target_variant = variant,
                             .body = body,
                             .body_len = strlen(body),
                             .allow_plain_http = cfg->allow_plain_http};
    struct rtinvoke_net net = {0};
    rtinvoke_reply_init(&got, EPINFO_REPLY_MAX);
    buf_init(&why, 1024);
    int rc = rtinvoke_call(&q, epops_cache(o), &net, &got, err);
    *seconds = rc ? 0 : got.seconds;
    if (rc == RTINVOKE_ERR_INPUT)
        rc = EPOPS_ERR_INPUT;
    else if (rc == RTINVOKE_ERR_NOMEM)
        rc = EPOPS_ERR_NOMEM;
    else if (rc && strstr(buf_str(err), "not found"))
        rc = EPOPS_ERR_NOT_FOUND;
    else if (rc)
        rc = EPOPS_ERR_AWS;
    if (!rc && epdesc_chat(buf_str(&got.body), got.body.len, EPINFO_TEXT_MAX, text, chat, &why))
        rc = buf_fail(err, EPOPS_ERR_FAILED, "%s answered, but not as the vLLM container: %s", name,
                      buf_str(&why));
    rtinvoke_reply_free(&got);
    buf_free(&why);
    return rc;
}

static cJSON *epinfo_chat_json(const char *name, const struct buf *text,
                               const struct epdesc_chat *chat, double seconds) {
    cJSON *j = cJSON_CreateObject();
    if (!j || !cJSON_AddStringToObject(j, "endpoint", name) ||
        !cJSON_AddStringToObject(j, "reply", buf_str(text)) ||
        !cJSON_AddStringToObject(j, "model", chat->model) ||
        !cJSON_AddStringToObject(j, "finish_reason", chat->finish) ||
        !cJSON_AddNumberToObject(j, "prompt_tokens", (double)chat->prompt_tokens) ||
        !cJSON_AddNumberToObject(j, "completion_tokens", (double)chat->completion_tokens) ||
        !cJSON_AddNumberToObject(j, "seconds", seconds)) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

int epinfo_verify(struct epops *o, const char *region, const char *name, const char *variant,
                  struct epops_out *out, struct buf *err) {
    struct buf body, text;
    struct epdesc_chat chat;
    double seconds;
    if (!region) region = epops_config(o)->region;
    if (!epinfo_name_ok(name) || (variant && !smname_endpoint_ok(variant, strlen(variant))))
        return buf_fail(err, EPOPS_ERR_INPUT, "'%s' is not an endpoint (or variant) name",
                        name ? name : "");
    buf_init(&body, BUF_NO_CAP);
    buf_init(&text, BUF_NO_CAP);
    int rc = epreq_chat(EPINFO_VERIFY_PROMPT, NULL, 16, 0, &body) ? epinfo_nomem(err) : EPOPS_OK;
    if (!rc)
        rc = epinfo_chat(o, region, name, variant, buf_str(&body), &text, &chat, &seconds, err);
    if (!rc && chat.completion_tokens < 0)
        rc = buf_fail(err, EPOPS_ERR_FAILED, "%s answered without usage.completion_tokens", name);
    if (!rc && !strstr(buf_str(&text), EPINFO_VERIFY_ANSWER))
        rc = buf_fail(err, EPOPS_ERR_FAILED, "%s answered \"%.200s\" to \"%s\" (want %s)", name,
                      buf_str(&text), EPINFO_VERIFY_PROMPT, EPINFO_VERIFY_ANSWER);
    if (!rc)
        rc =
            buf_addf(&out->text, "%s is healthy: %s answered %s in %.3f s (%ld tokens, model %s)\n",
                     name, name, EPINFO_VERIFY_ANSWER, seconds, chat.completion_tokens, chat.model)
                ? epinfo_nomem(err)
                : EPOPS_OK;
    if (!rc) {
        cJSON_Delete(out->json);
        out->json = epinfo_chat_json(name, &text, &chat, seconds);
        if (!out->json || !cJSON_AddTrueToObject(out->json, "healthy")) rc = epinfo_nomem(err);
    }
    buf_free(&body);
    buf_free(&text);
    return rc;
}

int epinfo_query(struct epops *o, const char *region, const char *name,
                 const struct epinfo_query *q, struct epops_out *out, struct buf *err) {
    struct buf body, text;
    struct epdesc_chat chat;
    double seconds;
    long max = q->max_tokens ? q->max_tokens : 512;
    if (!region) region = epops_config(o)->region;
    if (!epinfo_name_ok(name))
        return buf_fail(err, EPOPS_ERR_INPUT, "'%s' is not an endpoint name", name ? name : "");
    if (!q->prompt || !*q->prompt) return buf_fail(err, EPOPS_ERR_INPUT, "no prompt");
    if (max < 1 || max > 8192 || !(q->temperature >= 0) || q->temperature > 2)
        return buf_fail(err, EPOPS_ERR_INPUT,
                        "max tokens from 1 to 8192 and a temperature from 0 to 2, please");
    buf_init(&body, BUF_NO_CAP);
    buf_init(&text, BUF_NO_CAP);
    int rc = epreq_chat(q->prompt, q->system, max, q->temperature, &body) ? epinfo_nomem(err) : 0;
    if (!rc)
        rc = epinfo_chat(o, region, name, q->variant, buf_str(&body), &text, &chat, &seconds, err);
    if (!rc)
        rc = buf_addf(&out->text, "%s\n---\n%s: %ld in / %ld out, %.3f s, finish %s\n",
                      buf_str(&text), chat.model, chat.prompt_tokens, chat.completion_tokens,
                      seconds, chat.finish)
                 ? epinfo_nomem(err)
                 : EPOPS_OK;
    if (!rc) {
        cJSON_Delete(out->json);
        out->json = epinfo_chat_json(name, &text, &chat, seconds);
        if (!out->json) rc = epinfo_nomem(err);
    }
    buf_free(&body);
    buf_free(&text);
    return rc;
}

/* ---- quotas ---- */

/* Instances of type the region's endpoints hold: placed ones on their type,
 * those being placed on each type they may take. */
static int epinfo_usage(struct epops *o, struct awsj_client *c, const char *type, long *used,
                        struct buf *err) {
    struct epinfo_pages p = {calloc(EPINFO_MAX_LIST, sizeof *p.list), NULL, 0, EPINFO_MAX_LIST};
    struct buf ignored;
    buf_init(&ignored, 4096);
    *used = 0;
    int rc = p.list ? epinfo_endpoints(c, NULL, &p, err) : epinfo_nomem(err);
    for (size_t i = 0; !rc && i < p.n; i++) {
        struct epdesc_endpoint d;
        struct epdesc_config cfg;
        const char *st = p.list[i].status;
        if (strcmp(st, "Failed") == 0 || strcmp(st, "Deleting") == 0) continue;
        if (epops_describe(o, c, p.list[i].name, &d, &ignored) ||
            epops_describe_config(o, c, d.config, &cfg, &ignored))
            continue; /* gone meanwhile */
        for (size_t v = 0; v < cfg.n_v; v++) {
            const char *placed = NULL;
            for (size_t k = 0; k < d.n_v; k++)
                if (strcmp(d.v[k].name, cfg.v[v].name) == 0 && d.v[k].placed[0])
                    placed = d.v[k].placed;
            bool serving = strcmp(st, "InService") == 0 && (placed || !cfg.v[v].pools);
            for (size_t k = 0; k < cfg.v[v].n_types; k++)
                if (strcmp(cfg.v[v].types[k], type) == 0 &&
                    (!serving || !placed || strcmp(placed, type) == 0))
                    *used += cfg.v[v].count;
        }
    }
    free(p.list);
    buf_free(&ignored);
    return rc;
}

/* One region's quotas of types. */
static int epinfo_region_quotas(struct epops *o, const char *region, const char *const *types,
                                size_t n_types, cJSON *rows, struct epops_out *out,
                                struct buf *err) {
    struct awsj_client *c = NULL;
    struct epinfo_pages q = {NULL, calloc(EPINFO_MAX_QUOTAS, sizeof *q.quotas), 0,
                             EPINFO_MAX_QUOTAS};
    int rc = q.quotas ? epops_client(o, region, &c, err) : epinfo_nomem(err);
    if (!rc && (rc = awsj_paginate(c, AWSJ_SERVICE_QUOTAS, "ListServiceQuotas",
                                   "{\"ServiceCode\":\"sagemaker\",\"MaxResults\":100}",
                                   "NextToken", EPINFO_MAX_PAGES, epinfo_page, &q, err)))
        rc = epops_aws_error(o, c, rc);
    for (size_t t = 0; !rc && t < n_types; t++) {
        char want[128];
        double quota = -1;
        long used = 0;
        snprintf(want, sizeof want, "%s for endpoint usage", types[t]);
        for (size_t i = 0; i < q.n; i++)
            if (strcmp(q.quotas[i].name, want) == 0) quota = q.quotas[i].value;
        rc = epinfo_usage(o, c, types[t], &used, err);
        cJSON *row = rc ? NULL : cJSON_CreateObject();
        if (row) cJSON_AddItemToArray(rows, row);
        if (!rc && (!row || !cJSON_AddStringToObject(row, "instance_type", types[t]) ||
                    !cJSON_AddStringToObject(row, "region", region) ||
                    !(quota >= 0 ? cJSON_AddNumberToObject(row, "quota", quota)
                                 : cJSON_AddNullToObject(row, "quota")) ||
                    !cJSON_AddNumberToObject(row, "in_use", (double)used)))
            rc = epinfo_nomem(err);
        if (!rc &&
            (quota >= 0 ? buf_addf(&out->text, "%-16s %-14s quota %4.0f  in use %4ld  free %4.0f\n",
                                   types[t], region, quota, used,
                                   quota - (double)used > 0 ? quota - (double)used : 0)
                        : buf_addf(&out->text,
                                   "%-16s %-14s no endpoint-usage quota (not "
                                   "offered here)\n",
                                   types[t], region)))
            rc = epinfo_nomem(err);
    }
    free(q.quotas);
    return rc;
}

int epinfo_quotas(struct epops *o, const char *const *regions, size_t n_regions,
                  const char *const *types, size_t n_types, struct epops_out *out,
                  struct buf *err) {
    const char *one[1] = {epops_config(o)->region}, *l4[EPINFO_MAX_TYPES];
    const struct epfacts *f;
    if (!n_regions) regions = one, n_regions = 1;
    if (!n_types) {
        int rc = epops_facts(o, &f, err);
        if (rc) return rc;
        _Static_assert(EPFACTS_MAX_TYPES <= EPINFO_MAX_TYPES, "every L4 type of the facts fits");
        n_types = f->n_l4 < EPFACTS_MAX_TYPES ? f->n_l4 : EPFACTS_MAX_TYPES;
        for (size_t i = 0; i < n_types; i++) l4[i] = f->l4[i];
        types = l4;
    }
    cJSON *rows = cJSON_CreateArray();
    int rc = rows ? EPOPS_OK : epinfo_nomem(err);
    for (size_t r = 0; !rc && r < n_regions; r++)
        rc = epinfo_region_quotas(o, regions[r], types, n_types, rows, out, err);
    if (!rc && buf_adds(&out->text, "A quota lets you ask for instances; whether a region has one "
                                    "free is another matter (InsufficientInstanceCapacity).\n"))
        rc = epinfo_nomem(err);
    if (!rc) rc = epinfo_out_json(out, "quotas", &rows, err);
    cJSON_Delete(rows);
    return rc;
}

/* ---- images and the deployment's commands ---- */

int epinfo_images(struct epops *o, const char *region, struct epops_out *out, struct buf *err) {
    const struct epfacts *f;
    struct buf uri;
    if (!region) region = epops_config(o)->region;
    int rc = epops_facts(o, &f, err);
    if (rc) return rc;
    buf_init(&uri, 1024);
    rc = epfacts_image(f, region, &uri, err) ? EPOPS_ERR_INPUT : EPOPS_OK;
    if (!rc && buf_addf(&out->text,
                        "%s\n  the AWS vLLM container (Deep Learning Containers), tag from %s\n"
                        "  account of %s from %s\n  the newest tag: %s\n",
                        buf_str(&uri), f->tag_source, region, f->accounts_source, f->newest_rule))
        rc = epinfo_nomem(err);
    if (!rc) {
        cJSON_Delete(out->json);
        out->json = cJSON_CreateObject();
        if (!out->json || !cJSON_AddStringToObject(out->json, "region", region) ||
            !cJSON_AddStringToObject(out->json, "image", buf_str(&uri)) ||
            !cJSON_AddStringToObject(out->json, "tag_source", f->tag_source) ||
            !cJSON_AddStringToObject(out->json, "accounts_source", f->accounts_source) ||
            !cJSON_AddStringToObject(out->json, "newest_rule", f->newest_rule))
            rc = epinfo_nomem(err);
    }
    buf_free(&uri);
    return rc;
}

int epinfo_config(struct epops *o, const struct epops_deploy_req *r, struct epops_out *out,
                  struct buf *err) {
    const struct epfacts *f;
    const char *region = r->n_regions ? r->regions[0] : epops_config(o)->region;
    struct buf image, model, config, cli;
    struct epreq_deploy d;
    if (!epinfo_name_ok(r->name) || !r->model_id || !*r->model_id)
        return buf_fail(err, EPOPS_ERR_INPUT, "want an endpoint name and a model id");
    int rc = epops_facts(o, &f, err);
    if (rc) return rc;
    epops_deploy_of(r, &d);
    if (!d.n_types && f->n_l4) d.types[0] = f->l4[0], d.n_types = 1;
    buf_init(&image, 1024);
    buf_init(&model, BUF_NO_CAP);
    buf_init(&config, BUF_NO_CAP);
    buf_init(&cli, BUF_NO_CAP);
    if (!r->image && epfacts_image(f, region, &image, err)) rc = EPOPS_ERR_INPUT;
    d.image = r->image ? r->image : buf_str(&image);
    if (!d.role) d.role = "arn:aws:iam::ACCOUNT:role/ROLE";
    if (!rc && (epreq_create_model(&d, &model, err) || epreq_create_config(&d, &config, err) ||
                epreq_aws_cli(&d, region, &cli, err)))
        rc = EPOPS_ERR_INPUT;
    if (!rc && buf_addf(&out->text, "%s", buf_str(&cli))) rc = epinfo_nomem(err);
    if (!rc) {
        cJSON_Delete(out->json);
        out->json = cJSON_CreateObject();
        cJSON *m = cJSON_Parse(buf_str(&model)), *c = cJSON_Parse(buf_str(&config));
        if (out->json && m && c && cJSON_AddStringToObject(out->json, "region", region) &&
            cJSON_AddStringToObject(out->json, "aws_cli", buf_str(&cli))) {
            cJSON_AddItemToObject(out->json, "CreateModel", m);
            cJSON_AddItemToObject(out->json, "CreateEndpointConfig", c);
        } else {
            cJSON_Delete(m);
            cJSON_Delete(c);
            rc = epinfo_nomem(err);
        }
    }
    buf_free(&image);
    buf_free(&model);
    buf_free(&config);
    buf_free(&cli);
    return rc;
}
