/* invoke: SageMaker Runtime behind the HTTP framing of server.c. */
#include "server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cont.h"
#include "jsonw.h"
#include "rng.h"
#include "smerr.h"
#include "smname.h"

#define INVOKE_PREFIX   "/endpoints/"
#define INVOKE_SUFFIX   "/invocations"
#define INVOKE_NAME_MAX 63

struct call {
    struct server *srv;
    struct conn *conn;
    struct srv_variant *var;
    struct event *stage_ev; /* overhead, then the slow first byte */
    struct event *limit_ev; /* the 60-second limit */
    struct batch_seq seq;
    struct cont_request req;
    struct cont_answer ans;
    int fault;
    int container_status;        /* 0: the container answers 200; else its error status */
    double ready_at;             /* model time the fixed overhead ends (the decode may start) */
    double stage_due, limit_due; /* real times the timers are due */
    struct buf body;             /* the container's error body, then the reply body */
    char id[SERVER_ID_LEN];
    struct srv_origin origin;
};

/* --- replies and their counts --- */

/* A request-log line for a request of origin o answered status (0: closed first). */
static struct reqlog_entry invoke_entry(const struct srv_origin *o, const char *id, int status) {
    return (struct reqlog_entry){.id = id,
                                 .received = o->received,
                                 .access_key_id = *o->access_key_id ? o->access_key_id : NULL,
                                 .access_key_id_len = strlen(o->access_key_id),
                                 .status = status,
                                 .prompt_tokens = -1,
                                 .completion_tokens = -1};
}

/* Counts the end of request e (its reply, or e->status 0: its connection closed
 * first) for the server, ep and var (either may be NULL), and logs it. */
static void invoke_count(struct server *s, struct srv_endpoint *ep, struct srv_variant *var,
                         struct reqlog_entry *e) {
    struct stats_counts *cs[] = {&s->totals, ep ? &ep->stats : NULL, var ? &var->stats : NULL};
    for (size_t i = 0; i < 3; i++) {
        if (!cs[i]) continue;
        if (e->status == 0)
            cs[i]->dropped++;
        else
            stats_reply(cs[i], e->status);
    }
    e->endpoint = ep ? ep->name : NULL;
    e->variant = var ? var->name : NULL;
    reqlog_write(&s->reqlog, e);
}

/* Starts the origin of the request about to be handled (received now). */
static void invoke_origin(struct server *s, const struct http_head *h) {
    s->cur.received = reqlog_now();
    s->cur.access_key_id[0] = '\0';
    const struct sigv4_header *a = h && s->reqlog.f ? http_header(h, "authorization") : NULL;
    struct sigv4_authorization az;
    if (a && sigv4_parse_authorization(a->value, a->value_len, &az) == 0)
        snprintf(
            s->cur.access_key_id, sizeof s->cur.access_key_id, "%.*s",
            (int)(az.access_key_id_len > SERVER_AKID_MAX ? SERVER_AKID_MAX : az.access_key_id_len),
            az.access_key_id);
}

static void invoke_in_flight(struct srv_variant *var, struct server *s, int delta) {
    s->totals.in_flight += (unsigned long)delta;
    var->ep->stats.in_flight += (unsigned long)delta;
    var->stats.in_flight += (unsigned long)delta;
}

/* Sends a SageMaker error: {"message": ...} with x-amzn-ErrorType. log: the
 * request's log line so far (NULL: a new one). */
static void invoke_error_logged(struct server *s, struct conn *c, struct srv_endpoint *ep,
                                struct srv_variant *var, int status, const char *type,
                                const char *message, struct reqlog_entry *log) {
    struct buf body;
    char id[SERVER_ID_LEN];
    buf_init(&body, BUF_NO_CAP);
    server_request_id(s, id);
    if (smerr_message(&body, message)) buf_reset(&body);
    struct reqlog_entry e = log ? *log : invoke_entry(&s->cur, NULL, 0);
    e.id = id;
    e.status = status;
    e.error_type = type;
    invoke_count(s, ep, var, &e);
    conn_send(c, &(struct reply){status, type, var ? var->name : NULL, NULL, id, buf_str(&body),
                                 body.len, REPLY_FULL});
    buf_free(&body);
}

static void invoke_error(struct server *s, struct conn *c, struct srv_endpoint *ep,
                         struct srv_variant *var, int status, const char *type,
                         const char *message) {
    invoke_error_logged(s, c, ep, var, status, type, message, NULL);
}

void invoke_bad_request(struct server *s, int status, const char *id) {
    s->totals.requests++;
    s->bad_requests++;
    invoke_origin(s, NULL);
    struct reqlog_entry e = invoke_entry(&s->cur, id, status);
    invoke_count(s, NULL, NULL, &e);
}

void invoke_too_large(struct server *s, struct conn *c) {
    s->totals.requests++;
    invoke_origin(s, NULL);
    invoke_error(s, c, NULL, NULL, 413, NULL, "HTTP content length exceeded 6291456 bytes.");
}

/* --- the statistics document --- */

static int invoke_stats_json(struct server *s, struct buf *out) {
    int rc = buf_addf(out,
                      "{\"emulator\":\"sm-emulator " SM_VERSION "\",\"time_scale\":%.17g,"
                      "\"connections\":%lu,\"bad_requests\":%lu,\"totals\":",
                      s->time_scale, s->connections, s->bad_requests);
    if (!rc) rc = stats_json_open(out, &s->totals, false);
    if (!rc) rc = buf_adds(out, "},\"endpoints\":{");
    for (size_t e = 0; !rc && e < s->n_eps; e++) {
        struct srv_endpoint *ep = &s->eps[e];
        rc = buf_addf(out, "%s\"%s\":", e ? "," : "", ep->name);
        if (!rc) rc = stats_json_open(out, &ep->stats, true);
        if (!rc) rc = buf_adds(out, ",\"variants\":{");
        for (size_t v = 0; !rc && v < ep->n_variants; v++) {
            rc = buf_addf(out, "%s\"%s\":", v ? "," : "", ep->variants[v].name);
            if (!rc) rc = stats_json_open(out, &ep->variants[v].stats, true);
            if (!rc) rc = buf_addf(out, ",\"profile\":\"%s\"}", ep->variants[v].profile.name);
        }
        if (!rc) rc = buf_adds(out, "}}");
    }
    return rc ? rc : buf_adds(out, "}}");
}

static void invoke_stats(struct server *s, struct conn *c) {
    struct buf body;
    char id[SERVER_ID_LEN];
    buf_init(&body, BUF_NO_CAP);
    server_request_id(s, id);
    if (invoke_stats_json(s, &body)) buf_reset(&body);
    conn_send(c, &(struct reply){body.len ? 200 : 500, NULL, NULL, NULL, id, buf_str(&body),
                                 body.len, REPLY_FULL});
    buf_free(&body);
}

/* --- calls --- */

static void call_free(struct call *call) {
    if (call->stage_ev) event_free(call->stage_ev);
    if (call->limit_ev) event_free(call->limit_ev);
    batch_remove(&call->var->batch, &call->seq);
    invoke_in_flight(call->var, call->srv, -1);
    cont_request_free(&call->req);
    cont_answer_free(&call->ans);
    buf_free(&call->body);
    free(call);
}

/* The call's log line, ending with status (0: closed first). */
static struct reqlog_entry call_entry(const struct call *call, int status) {
    struct reqlog_entry e = invoke_entry(&call->origin, call->id, status);
    e.fault = call->fault == FAULT_NONE ? NULL : fault_name(call->fault);
    e.prompt = call->req.prompt.len ? buf_str(&call->req.prompt) : NULL;
    e.prompt_len = call->req.prompt.len;
    return e;
}

void invoke_abort(struct call *call) {
    struct reqlog_entry e = call_entry(call, 0);
    invoke_count(call->srv, call->var->ep, call->var, &e);
    call_free(call);
}

/* Sends r as the call's reply and frees the call. */
static void call_reply(struct call *call, const struct reply *r) {
    struct conn *c = call->conn;
    struct reqlog_entry e = call_entry(call, r->mode == REPLY_DROP ? 0 : r->status);
    e.error_type = r->error_type;
    if (r->mode == REPLY_FULL && r->status / 100 == 2) {
        e.prompt_tokens = (long)call->req.prompt_tokens;
        e.completion_tokens = (long)call->ans.tokens;
    }
    invoke_count(call->srv, call->var->ep, call->var, &e);
    conn_set_call(c, NULL);
    conn_send(c, r);
    call_free(call);
}

static void call_send_ok(struct call *call) {
    struct srv_variant *var = call->var;
    enum reply_mode mode = call->fault == FAULT_DROP       ? REPLY_DROP
                           : call->fault == FAULT_TRUNCATE ? REPLY_TRUNCATE
                                                           : REPLY_FULL;
    if (mode == REPLY_FULL) {
        struct stats_counts *cs[] = {&call->srv->totals, &var->ep->stats, &var->stats};
        for (size_t i = 0; i < 3; i++) {
            cs[i]->prompt_tokens += call->req.prompt_tokens;
            cs[i]->completion_tokens += call->ans.tokens;
        }
    }
    vlog_access(&var->log, time(NULL), 200);
    call_reply(call, &(struct reply){200, NULL, var->name, NULL, call->id, buf_str(&call->body),
                                     call->body.len, mode});
}

/* Sends the ModelError for a container that answered status with orig. */
static void call_model_error(struct call *call, int status, const char *orig, size_t orig_len) {
    struct server *s = call->srv;
    struct buf body;
    buf_init(&body, BUF_NO_CAP);
    if (smerr_model(&body, s->region, s->account, call->var->ep->name, status, orig, orig_len))
        buf_reset(&body);
    if (status) vlog_access(&call->var->log, time(NULL), status);
    call_reply(call, &(struct reply){424, "ModelError", call->var->name, NULL, call->id,
                                     buf_str(&body), body.len, REPLY_FULL});
    buf_free(&body);
}

static void call_timer(struct call *call, struct event **ev, double *due, double model_s,
                       event_callback_fn fn) {
    if (*ev) event_free(*ev);
    *ev = evtimer_new(call->srv->base, fn, call);
    *due = server_now_real() + model_s / call->srv->time_scale;
    if (*ev) server_arm(*ev, *due);
}

static void call_slow_cb(evutil_socket_t fd, short what, void *arg) {
    struct call *call = arg;
    (void)fd;
    (void)what;
    server_wait_until(call->stage_due);
    call_send_ok(call);
}

/* The container has answered (success or its error). */
static void call_container_done(struct call *call) {
    struct srv_variant *var = call->var;
    if (call->limit_ev) evtimer_del(call->limit_ev);
    if (call->container_status) {
        struct buf orig = call->body; /* moved out: call_model_error frees the call */
        buf_init(&call->body, BUF_NO_CAP);
        call_model_error(call, call->container_status, buf_str(&orig), orig.len);
        buf_free(&orig);
        return;
    }
    char id[48];
    uint64_t a = rng_next(&var->rng), b = rng_next(&var->rng);
    snprintf(id, sizeof id, "%s-%016llx%016llx", call->req.kind == CONT_CHAT ? "chatcmpl" : "cmpl",
             (unsigned long long)a, (unsigned long long)b);
    struct cont_meta meta = {id, (long long)time(NULL), var->profile.model_id};
    buf_reset(&call->body);
    if (cont_reply(&call->req, &call->ans, &meta, &call->body)) {
        call_model_error(call, 500, "out of memory", 13);
        return;
    }
    if (call->fault == FAULT_SLOW) {
        call_timer(call, &call->stage_ev, &call->stage_due, var->profile.slow_first_byte_s,
                   call_slow_cb);
        return;
    }
    call_send_ok(call);
}

/* Plans a step starting at start (model seconds) when sequences wait and none
 * is planned, and arms the timer that ends it. */
static void variant_kick(struct srv_variant *var, double start) {
    if (var->batch.stepping || !batch_busy(&var->batch)) return;
    if (start < var->batch.step_end) start = var->batch.step_end;
    server_arm(var->step_ev, batch_begin(&var->batch, start) / var->srv->time_scale);
}

static void variant_step_cb(evutil_socket_t fd, short what, void *arg) {
    struct srv_variant *var = arg;
    struct batch_list done = {0};
    struct batch_seq *q;
    (void)fd;
    (void)what;
    double planned_end = var->batch.step_end;
    batch_end(&var->batch, &done);
    variant_kick(var, planned_end); /* back to back: the next step starts when this one ended */
    if (done.n) server_wait_until(planned_end / var->srv->time_scale);
    while ((q = batch_pop(&done))) call_container_done(q->owner);
}

static void call_overhead_cb(evutil_socket_t fd, short what, void *arg) {
    struct call *call = arg;
    (void)fd;
    (void)what;
    if (call->container_status) {
        server_wait_until(call->stage_due);
        call_container_done(call);
        return;
    }
    batch_add(&call->var->batch, &call->seq);
    variant_kick(call->var, call->ready_at); /* a late timer does not delay the decode */
}

static void call_limit_cb(evutil_socket_t fd, short what, void *arg) {
    struct call *call = arg;
    (void)fd;
    (void)what;
    server_wait_until(call->limit_due);
    call_model_error(call, 0, SMERR_TIMEOUT_MESSAGE, strlen(SMERR_TIMEOUT_MESSAGE));
}

/* Parses the body as p's container would (cont_parse). */
static int invoke_parse(const struct model_profile *p, const struct http_head *h, const char *body,
                        size_t len, struct cont_request *req, int *status, struct buf *err_body) {
    const struct sigv4_header *ct = http_header(h, "content-type");
    char type[256] = "";
    if (ct) snprintf(type, sizeof type, "%.*s", (int)ct->value_len, ct->value);
    return cont_parse(p, ct ? type : NULL, body, len, req, status, err_body);
}

/* Parses the body as the container would and plans the answer. Returns 0 or -1. */
static int call_prepare(struct call *call, const struct http_head *h, const char *body,
                        size_t len) {
    const struct model_profile *p = &call->var->profile;
    int rc = invoke_parse(p, h, body, len, &call->req, &call->container_status, &call->body);
    if (rc == CONT_NOMEM) return -1;
    if (rc == CONT_REJECTED) return 0;
    if (call->fault == FAULT_MODEL_ERROR) {
        call->container_status = 500;
        return cont_server_error(p->format, &call->body) ? -1 : 0;
    }
    if (cont_answer(p, &call->req, &call->ans)) return -1;
    call->seq.prompt_tokens = call->req.prompt_tokens;
    call->seq.want_tokens = call->ans.tokens ? call->ans.tokens : 1;
    return 0;
}

/* Answers a request with an injected fault at once (SageMaker's front end, before the
 * container); the log still names the prompt the container would have been asked. */
static void invoke_refuse(struct server *s, struct conn *c, struct srv_variant *var,
                          const struct http_head *h, const char *body, size_t len, int fault,
                          int status, const char *type, const char *message) {
    struct reqlog_entry e = invoke_entry(&s->cur, NULL, status);
    struct cont_request req;
    struct buf ignored;
    int container_status;
    cont_request_init(&req);
    buf_init(&ignored, BUF_NO_CAP);
    if (s->reqlog.f &&
        invoke_parse(&var->profile, h, body, len, &req, &container_status, &ignored) == CONT_OK &&
        req.prompt.len) {
        e.prompt = buf_str(&req.prompt);
        e.prompt_len = req.prompt.len;
    }
    e.fault = fault_name(fault);
    invoke_error_logged(s, c, var->ep, var, status, type, message, &e);
    buf_free(&ignored);
    cont_request_free(&req);
}

static void invoke_call(struct server *s, struct conn *c, struct srv_variant *var,
                        const struct http_head *h, const char *body, size_t len) {
    static const struct {
        int status;
        const char *type, *message;
    } at_once[] = {
        [FAULT_THROTTLE] = {429, "ThrottlingException", "Rate exceeded"},
        [FAULT_UNAVAILABLE] = {503, "ServiceUnavailable", "Service Unavailable"},
        [FAULT_INTERNAL] = {500, "InternalFailure", "An internal failure occurred."},
    };
    const struct model_profile *p = &var->profile;
    int fault = fault_pick(p->faults, &var->faults);
    if (fault != FAULT_NONE) {
        var->stats.faults[fault]++;
        var->ep->stats.faults[fault]++;
    }
    if (fault == FAULT_THROTTLE || fault == FAULT_UNAVAILABLE || fault == FAULT_INTERNAL) {
        invoke_refuse(s, c, var, h, body, len, fault, at_once[fault].status, at_once[fault].type,
                      at_once[fault].message);
        return;
    }
    struct call *call = calloc(1, sizeof *call);
    if (!call) {
        invoke_error(s, c, var->ep, var, 500, "InternalFailure", "out of memory");
        return;
    }
    *call = (struct call){.srv = s, .conn = c, .var = var, .fault = fault, .origin = s->cur};
    call->seq.owner = call;
    cont_request_init(&call->req);
    cont_answer_init(&call->ans);
    buf_init(&call->body, BUF_NO_CAP);
    server_request_id(s, call->id);
    invoke_in_flight(var, s, 1);
    if (call_prepare(call, h, body, len)) {
        call_model_error(call, 500, "out of memory", 13);
        return;
    }
    if (model_is_instant(p) && fault != FAULT_SLOW) {
        call_container_done(call);
        return;
    }
    conn_set_call(c, call);
    if (s->max_duration > 0)
        call_timer(call, &call->limit_ev, &call->limit_due, s->max_duration, call_limit_cb);
    double u = 2 * rng_unit(&var->rng) - 1, overhead = p->overhead_s * (1 + p->jitter * u);
    call->ready_at = server_now_real() * s->time_scale + overhead;
    call_timer(call, &call->stage_ev, &call->stage_due, overhead, call_overhead_cb);
}

/* --- routing --- */

/* Finds NAME in "/endpoints/NAME/invocations[?query]". */
static bool invoke_path(const struct http_head *h, const char **name, size_t *n) {
    size_t len = h->target_len, pre = strlen(INVOKE_PREFIX), suf = strlen(INVOKE_SUFFIX);
    const char *q = memchr(h->target, '?', len);
    if (q) len = (size_t)(q - h->target);
    if (len <= pre + suf || memcmp(h->target, INVOKE_PREFIX, pre) != 0 ||
        memcmp(h->target + len - suf, INVOKE_SUFFIX, suf) != 0)
        return false;
    *name = h->target + pre;
    *n = len - pre - suf;
    return memchr(*name, '/', *n) == NULL;
}

static struct srv_endpoint *invoke_endpoint(struct server *s, const char *name, size_t n) {
    for (size_t i = 0; i < s->n_eps; i++)
        if (strlen(s->eps[i].name) == n && memcmp(s->eps[i].name, name, n) == 0) return &s->eps[i];
    return NULL;
}

/* The variant named by the Target-Variant header, else one drawn by weight. */
static struct srv_variant *invoke_variant(struct server *s, struct srv_endpoint *ep,
                                          const struct sigv4_header *want) {
    if (want) {
        for (size_t i = 0; i < ep->n_variants; i++)
            if (strlen(ep->variants[i].name) == want->value_len &&
                memcmp(ep->variants[i].name, want->value, want->value_len) == 0)
                return &ep->variants[i];
        return NULL;
    }
    double total = 0;
    for (size_t i = 0; i < ep->n_variants; i++) total += ep->variants[i].profile.weight;
    double pick = rng_unit(&s->rng) * total;
    for (size_t i = 0; i + 1 < ep->n_variants; i++) {
        pick -= ep->variants[i].profile.weight;
        if (pick < 0) return &ep->variants[i];
    }
    return &ep->variants[ep->n_variants - 1];
}

/* The SageMaker checks after the signature: name, endpoint, variant. */
static void invoke_endpoint_request(struct server *s, struct conn *c, struct srv_endpoint *ep,
                                    const struct http_head *h, const char *name, size_t n,
                                    const char *body, size_t len) {
    char msg[512];
    if (!smname_endpoint_ok(name, n)) {
        snprintf(msg, sizeof msg,
                 "1 validation error detected: Value '%.*s' at 'endpointName' failed to satisfy "
                 "constraint: %s",
                 (int)(n > 200 ? 200 : n), name,
                 n > INVOKE_NAME_MAX ? "Member must have length less than or equal to 63"
                                     : "Member must satisfy regular expression pattern: "
                                       "^[a-zA-Z0-9](-*[a-zA-Z0-9])*");
        invoke_error(s, c, NULL, NULL, 400, "ValidationError", msg);
        return;
    }
    if (!ep) {
        snprintf(msg, sizeof msg, "Endpoint %.*s of account %s not found.", (int)n, name,
                 s->account);
        invoke_error(s, c, NULL, NULL, 400, "ValidationError", msg);
        return;
    }
    const struct sigv4_header *want = http_header(h, "x-amzn-sagemaker-target-variant");
    struct srv_variant *var = invoke_variant(s, ep, want);
    if (!var) {
        snprintf(msg, sizeof msg, "Variant %.*s not found for Endpoint %s of account %s.",
                 (int)(want->value_len > 200 ? 200 : want->value_len), want->value, ep->name,
                 s->account);
        invoke_error(s, c, ep, NULL, 400, "ValidationError", msg);
        return;
    }
    var->stats.requests++;
    invoke_call(s, c, var, h, body, len);
}

void invoke_request(struct server *s, struct conn *c, const struct http_head *h, const char *body,
                    size_t len) {
    const char *name = NULL;
    size_t n = 0;
    if (http_is(h, "GET", "/emulator/stats")) {
        invoke_stats(s, c);
        return;
    }
    s->totals.requests++;
    invoke_origin(s, h);
    if (http_is(h, "GET", "/ping") || http_is(h, "POST", "/ping")) {
        char id[SERVER_ID_LEN];
        server_request_id(s, id);
        struct reqlog_entry e = invoke_entry(&s->cur, id, 200);
        invoke_count(s, NULL, NULL, &e);
        conn_send(c, &(struct reply){200, NULL, NULL, NULL, id, "", 0, REPLY_FULL});
        return;
    }
    bool is_invoke =
        h->method_len == 4 && memcmp(h->method, "POST", 4) == 0 && invoke_path(h, &name, &n);
    struct srv_endpoint *ep = is_invoke ? invoke_endpoint(s, name, n) : NULL;
    if (ep) ep->stats.requests++;
    char method[64];
    if (h->method_len >= sizeof method) {
        invoke_error(s, c, ep, NULL, 400, "BadRequestException", "the method is too long");
        return;
    }
    snprintf(method, sizeof method, "%.*s", (int)h->method_len, h->method);
    struct auth_request ar = {
        .method = method,
        .target = h->target,
        .target_len = h->target_len,
        .headers = h->headers,
        .n_headers = h->n_headers,
        .body = body,
        .body_len = len,
    };
    struct auth_verdict v;
    auth_verdict_init(&v);
    /* the clock the log shows: time() may lag it by a tick, which would let a key
     * expiring at second T sign a request logged at T.001 */
    if (auth_verify(&s->auth, &ar, (time_t)s->cur.received, &v)) {
        invoke_error(s, c, ep, NULL, 500, "InternalFailure", "out of memory");
    } else if (v.type) {
        invoke_error(s, c, ep, NULL, 403, v.type, buf_str(&v.message));
    } else if (!is_invoke) {
        invoke_error(s, c, NULL, NULL, 404, "UnknownOperationException", NULL);
    } else {
        invoke_endpoint_request(s, c, ep, h, name, n, body, len);
    }
    auth_verdict_free(&v);
}

/* --- start and stop --- */

static void invoke_log_cb(evutil_socket_t fd, short what, void *arg) {
    struct server *s = arg;
    (void)fd;
    (void)what;
    for (size_t e = 0; e < s->n_eps; e++) {
        for (size_t i = 0; i < s->eps[e].n_variants; i++) {
            struct srv_variant *var = &s->eps[e].variants[i];
            struct batch *sc = &var->batch;
            double kv = 0;
            for (struct batch_seq *q = sc->running.head; q; q = q->next)
                kv += (double)(q->prompt_tokens + q->produced);
            if (var->profile.kv_cache_tokens) kv /= (double)var->profile.kv_cache_tokens;
            vlog_metrics(&var->log, time(NULL), s->log_interval,
                         sc->prompt_tokens - var->logged_prompt,
                         sc->generated_tokens - var->logged_gen, sc->running.n, sc->waiting.n, kv);
            var->logged_prompt = sc->prompt_tokens;
            var->logged_gen = sc->generated_tokens;
        }
    }
}

int invoke_start(struct server *s) {
    bool any_log = false;
    for (size_t e = 0; e < s->n_eps; e++) {
        for (size_t i = 0; i < s->eps[e].n_variants; i++) {
            struct srv_variant *var = &s->eps[e].variants[i];
            var->step_ev = evtimer_new(s->base, variant_step_cb, var);
            if (!var->step_ev) return -1;
            vlog_startup(&var->log, &var->profile, time(NULL));
            any_log = any_log || var->log.f;
        }
    }
    if (!any_log || s->log_interval <= 0) return 0;
    double real = s->log_interval / s->time_scale;
    struct timeval tv = {(time_t)real, (suseconds_t)((real - (double)(time_t)real) * 1e6)};
    s->log_ev = event_new(s->base, -1, EV_PERSIST, invoke_log_cb, s);
    return s->log_ev && event_add(s->log_ev, &tv) == 0 ? 0 : -1;
}

void invoke_stop(struct server *s) {
    if (s->log_ev) event_free(s->log_ev);
    s->log_ev = NULL;
    for (size_t e = 0; e < s->n_eps; e++) {
        for (size_t i = 0; i < s->eps[e].n_variants; i++) {
            struct srv_variant *var = &s->eps[e].variants[i];
            if (var->step_ev) event_free(var->step_ev);
            var->step_ev = NULL;
        }
    }
}
