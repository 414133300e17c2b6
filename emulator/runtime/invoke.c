/* invoke: SageMaker Runtime's state and its front door's replies and counts (invoke.h). */
#include "invoke.h"

#include <stdio.h>
#include <string.h>

#include "admit.h"
#include "mclock.h"
#include "smerr.h"
#include "splitmix.h"

#define INVOKE_TOO_LARGE_TEXT "HTTP content length exceeded 6291456 bytes."

void invoke_new_id(struct invoke *inv, char out[INVOKE_ID_LEN]) {
    uint64_t a = splitmix_next(&inv->rng), b = splitmix_next(&inv->rng);
    snprintf(out, INVOKE_ID_LEN, "%08x-%04x-4%03x-a%03x-%012llx", (unsigned)(a >> 32),
             (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xfff, (unsigned)(b >> 52) & 0xfff,
             (unsigned long long)(b & 0xffffffffffffULL));
}

struct invoke_reply invoke_whole(int status, const char *type, const char *variant, const char *id,
                                 const char *body, size_t len, enum invoke_mode mode) {
    return (struct invoke_reply){.status = status,
                                 .error_type = type,
                                 .variant = variant,
                                 .request_id = id,
                                 .body = body,
                                 .body_len = len,
                                 .mode = mode};
}

struct reqlog_entry invoke_entry(const struct invoke_origin *o, const char *id, int status) {
    return (struct reqlog_entry){.id = id,
                                 .arrival = o->arrival,
                                 .received = o->received,
                                 .queue_s = -1,
                                 .cached_tokens = -1,
                                 .api = rtpath_name(o->api),
                                 .access_key_id = *o->access_key_id ? o->access_key_id : NULL,
                                 .access_key_id_len = strlen(o->access_key_id),
                                 .status = status,
                                 .prompt_tokens = -1,
                                 .completion_tokens = -1};
}

/* Counts the end of request e of var for CloudWatch's metrics (cwmetric.h). */
static void invoke_metric(struct invoke *inv, const struct fleet_variant *var,
                          const struct reqlog_entry *e, const struct invoke_timing *timing) {
    struct cwmetric_call c = {e->received, (short)e->status, false, timing != NULL, 0, 0, 1};
    c.model_error = e->status == 424 || (timing && timing->failed);
    /* its variant's count of instances serving (a component's copy: its host's) */
    const struct fleet_variant *head = var->host ? var->host : var - var->instance;
    c.per_instance = 1.0f / (float)(head->instances ? head->instances : 1);
    if (timing) {
        double overhead = timing->overhead < timing->total ? timing->overhead : timing->total;
        /* whole microseconds, rounded as x-sm-emulator-service-us is */
        double model_us = (timing->total - overhead) * 1e6, overhead_us = overhead * 1e6;
        c.model_us = model_us > 0 ? (float)(long long)(model_us + 0.5) : 0;
        c.overhead_us = overhead_us > 0 ? (float)(long long)(overhead_us + 0.5) : 0;
    }
    if (inv->cwmetrics) (void)!cwmetric_count(inv->cwmetrics, var->ep->name, var->name, &c);
}

void invoke_count(struct invoke *inv, struct fleet_endpoint *ep, struct fleet_variant *var,
                  struct reqlog_entry *e, const struct invoke_timing *timing) {
    struct tally *ts[] = {&inv->totals, ep ? &ep->counts : NULL, var ? &var->counts : NULL};
    for (size_t i = 0; i < 3; i++) {
        if (!ts[i]) continue;
        if (e->status == 0)
            ts[i]->dropped++;
        else
            tally_reply(ts[i], e->status);
    }
    e->endpoint = ep ? ep->name : NULL;
    e->variant = var ? var->name : NULL;
    if (var) invoke_metric(inv, var, e, timing);
    reqlog_write(&inv->reqlog, e);
}

void invoke_begin(struct invoke *inv, const struct http_head *h) {
    struct invoke_origin *o = &inv->cur;
    o->received = reqlog_now();
    o->received_real = mclock_real();
    o->arrival = inv->arrival;
    inv->arrival = 0;
    o->access_key_id[0] = '\0';
    o->api = RTPATH_NONE;
    const struct sigv4_header *a = h && inv->reqlog.f ? http_header(h, "authorization") : NULL;
    struct sigv4_authorization az;
    if (a && sigv4_parse_authorization(a->value, a->value_len, &az) == 0)
        snprintf(
            o->access_key_id, sizeof o->access_key_id, "%.*s",
            (int)(az.access_key_id_len > INVOKE_AKID_MAX ? INVOKE_AKID_MAX : az.access_key_id_len),
            az.access_key_id);
}

void invoke_fail_logged(struct invoke *inv, void *owner, struct fleet_endpoint *ep,
                        struct fleet_variant *var, int status, const char *type, const char *code,
                        const char *message, struct reqlog_entry *log) {
    struct buf body;
    char id[INVOKE_ID_LEN];
    buf_init(&body, BUF_NO_CAP);
    invoke_new_id(inv, id);
    if (inv->cur.api == RTPATH_OPENAI ? smerr_openai(&body, status, type, code, message)
                                      : smerr_message(&body, message))
        buf_reset(&body);
    struct reqlog_entry e = log ? *log : invoke_entry(&inv->cur, NULL, 0);
    e.id = id;
    e.status = status;
    e.error_type = type;
    invoke_count(inv, ep, var, &e, NULL);
    struct invoke_reply r = invoke_whole(status, type, var ? var->name : NULL, id, buf_str(&body),
                                         body.len, INVOKE_FULL);
    inv->send(owner, &r);
    buf_free(&body);
}

void invoke_fail(struct invoke *inv, void *owner, struct fleet_endpoint *ep,
                 struct fleet_variant *var, int status, const char *type, const char *message) {
    invoke_fail_logged(inv, owner, ep, var, status, type, NULL, message, NULL);
}

void invoke_stats(struct invoke *inv, void *owner) {
    struct buf body;
    char id[INVOKE_ID_LEN];
    buf_init(&body, BUF_NO_CAP);
    invoke_new_id(inv, id);
    if (inv->ics) admit_copies(inv->fleet, inv->ics, inv->ic_region ? inv->ic_region : inv->region);
    if (fleet_stats_json(&body, inv->fleet, &inv->stats_more, &inv->totals, inv->gate,
                         inv->time_scale, mclock_real() * inv->time_scale))
        buf_reset(&body);
    if (body.len && inv->ics) { /* the components in the same object */
        body.len--;
        if (buf_addc(&body, ',') ||
            cpic_stats_json(&body, inv->ics, inv->ic_region ? inv->ic_region : inv->region) ||
            buf_addc(&body, '}'))
            buf_reset(&body);
    }
    struct invoke_reply r =
        invoke_whole(body.len ? 200 : 500, NULL, NULL, id, buf_str(&body), body.len, INVOKE_FULL);
    inv->send(owner, &r);
    buf_free(&body);
}

void invoke_lose(struct invoke *inv, void *owner, struct fleet_variant *var,
                 struct reqlog_entry *e) {
    char id[INVOKE_ID_LEN];
    invoke_new_id(inv, id);
    e->id = id;
    e->status = 0;
    invoke_count(inv, var->ep, var, e, NULL);
    struct invoke_reply r = invoke_whole(0, NULL, NULL, id, "", 0, INVOKE_CLOSE);
    inv->send(owner, &r);
}

void invoke_ping(struct invoke *inv, void *owner) {
    char id[INVOKE_ID_LEN];
    invoke_new_id(inv, id);
    struct reqlog_entry e = invoke_entry(&inv->cur, id, 200);
    invoke_count(inv, NULL, NULL, &e, NULL);
    struct invoke_reply r = invoke_whole(200, NULL, NULL, id, "", 0, INVOKE_FULL);
    inv->send(owner, &r);
}

void invoke_refuse(struct invoke *inv, void *owner, enum invoke_refusal why) {
    static const struct {
        int status;
        const char *message;
    } refusals[] = {
        [INVOKE_BAD_REQUEST] = {400, "Bad Request"},
        [INVOKE_TIMEOUT] = {408, "Request Timeout"},
        [INVOKE_LENGTH_REQUIRED] = {411, "Length Required"},
        [INVOKE_TOO_LARGE] = {413, INVOKE_TOO_LARGE_TEXT},
        [INVOKE_HEAD_TOO_LARGE] = {431, "Request Header Fields Too Large"},
        [INVOKE_TOO_MANY_CONNS] = {503, "Too many open connections"},
        [INVOKE_TOO_MANY_BODIES] = {503, "Too many request bodies being received"},
    };
    inv->totals.requests++;
    invoke_begin(inv, NULL);
    invoke_fail(inv, owner, NULL, NULL, refusals[why].status, NULL, refusals[why].message);
}
