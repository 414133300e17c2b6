/* invoke: SageMaker Runtime behind the HTTP layer (invoke.h). */
#include "invoke.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "cont.h"
#include "rng.h"
#include "smerr.h"
#include "smname.h"

#define INVOKE_PREFIX         "/endpoints/"
#define INVOKE_SUFFIX         "/invocations"
#define INVOKE_NAME_MAX       63
#define INVOKE_ID_LEN         40
#define INVOKE_ECHO_MAX       200 /* bytes of a client's name quoted in a ValidationError */
#define INVOKE_TOO_LARGE_TEXT "HTTP content length exceeded 6291456 bytes."

struct invoke_call {
    struct invoke *inv;
    void *owner; /* the connection the request came on */
    struct fleet_variant *var;
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
    char id[INVOKE_ID_LEN];
    struct invoke_origin origin;
};

/* --- the clock and the timers --- */

/* The monotonic clock, in real seconds. */
static double invoke_now_real(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Arms the timer ev for due_real (monotonic seconds) less INVOKE_WAKE_LEAD. */
static void invoke_arm(struct event *ev, double due_real) {
    double delay = due_real - INVOKE_WAKE_LEAD - invoke_now_real();
    struct timeval tv = {0, 0};
    if (delay > 0) {
        tv.tv_sec = (time_t)delay;
        tv.tv_usec = (suseconds_t)((delay - (double)tv.tv_sec) * 1e6);
    }
    evtimer_add(ev, &tv);
}

/* Returns at due_real: spins out the rest of the lead (at most INVOKE_WAKE_LEAD). */
static void invoke_wait_until(double due_real) {
    while (invoke_now_real() < due_real) {
    }
}

/* A new x-amzn-RequestId (a UUID from the seeded generator). */
static void invoke_request_id(struct invoke *inv, char out[INVOKE_ID_LEN]) {
    uint64_t a = rng_next(&inv->rng), b = rng_next(&inv->rng);
    snprintf(out, INVOKE_ID_LEN, "%08x-%04x-4%03x-a%03x-%012llx", (unsigned)(a >> 32),
             (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xfff, (unsigned)(b >> 52) & 0xfff,
             (unsigned long long)(b & 0xffffffffffffULL));
}

/* --- replies and their counts --- */

/* A request-log line for a request of origin o answered status (0: closed first). */
static struct reqlog_entry invoke_entry(const struct invoke_origin *o, const char *id, int status) {
    return (struct reqlog_entry){.id = id,
                                 .received = o->received,
                                 .access_key_id = *o->access_key_id ? o->access_key_id : NULL,
                                 .access_key_id_len = strlen(o->access_key_id),
                                 .status = status,
                                 .prompt_tokens = -1,
                                 .completion_tokens = -1};
}

/* Counts the end of request e (its reply, or e->status 0: its connection closed
 * first) for the totals, ep and var (either may be NULL), and logs it. */
static void invoke_count(struct invoke *inv, struct fleet_endpoint *ep, struct fleet_variant *var,
                         struct reqlog_entry *e) {
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
    reqlog_write(&inv->reqlog, e);
}

/* Starts the origin of the request about to be handled (received now). */
static void invoke_origin(struct invoke *inv, const struct http_head *h) {
    struct invoke_origin *o = &inv->cur;
    o->received = reqlog_now();
    o->access_key_id[0] = '\0';
    const struct sigv4_header *a = h && inv->reqlog.f ? http_header(h, "authorization") : NULL;
    struct sigv4_authorization az;
    if (a && sigv4_parse_authorization(a->value, a->value_len, &az) == 0)
        snprintf(
            o->access_key_id, sizeof o->access_key_id, "%.*s",
            (int)(az.access_key_id_len > INVOKE_AKID_MAX ? INVOKE_AKID_MAX : az.access_key_id_len),
            az.access_key_id);
}

static void invoke_in_flight(struct invoke *inv, struct fleet_variant *var, int delta) {
    inv->totals.in_flight += (unsigned long)delta;
    var->ep->counts.in_flight += (unsigned long)delta;
    var->counts.in_flight += (unsigned long)delta;
}

/* Sends a SageMaker error: {"message": ...} with x-amzn-ErrorType (type may be
 * NULL). log: the request's log line so far (NULL: a new one). */
static void invoke_error_logged(struct invoke *inv, void *owner, struct fleet_endpoint *ep,
                                struct fleet_variant *var, int status, const char *type,
                                const char *message, struct reqlog_entry *log) {
    struct buf body;
    char id[INVOKE_ID_LEN];
    buf_init(&body, BUF_NO_CAP);
    invoke_request_id(inv, id);
    if (smerr_message(&body, message)) buf_reset(&body);
    struct reqlog_entry e = log ? *log : invoke_entry(&inv->cur, NULL, 0);
    e.id = id;
    e.status = status;
    e.error_type = type;
    invoke_count(inv, ep, var, &e);
    inv->send(owner, &(struct invoke_reply){status, type, var ? var->name : NULL, NULL, id,
                                            buf_str(&body), body.len, INVOKE_FULL});
    buf_free(&body);
}

static void invoke_error(struct invoke *inv, void *owner, struct fleet_endpoint *ep,
                         struct fleet_variant *var, int status, const char *type,
                         const char *message) {
    invoke_error_logged(inv, owner, ep, var, status, type, message, NULL);
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
    invoke_origin(inv, NULL);
    invoke_error(inv, owner, NULL, NULL, refusals[why].status, NULL, refusals[why].message);
}

/* --- the statistics document --- */

static int invoke_stats_json(const struct invoke *inv, struct buf *out) {
    static const struct gate_counts none;
    const struct gate_counts *n = inv->gate ? &inv->gate->n : &none;
    int rc = buf_addf(out,
                      "{\"emulator\":\"sm-emulator " SM_VERSION "\",\"time_scale\":%.17g,"
                      "\"connections\":%lu,\"bad_requests\":%lu,\"totals\":",
                      inv->time_scale, n->accepted, n->bad_requests);
    if (!rc) rc = tally_json_open(out, &inv->totals, false);
    if (!rc) rc = buf_adds(out, "},\"endpoints\":");
    if (!rc) rc = fleet_json(out, inv->fleet);
    if (!rc && inv->gate) rc = buf_addc(out, ',');
    if (!rc && inv->gate) rc = gate_json(out, inv->gate);
    return rc ? rc : buf_addc(out, '}');
}

static void invoke_stats(struct invoke *inv, void *owner) {
    struct buf body;
    char id[INVOKE_ID_LEN];
    buf_init(&body, BUF_NO_CAP);
    invoke_request_id(inv, id);
    if (invoke_stats_json(inv, &body)) buf_reset(&body);
    inv->send(owner, &(struct invoke_reply){body.len ? 200 : 500, NULL, NULL, NULL, id,
                                            buf_str(&body), body.len, INVOKE_FULL});
    buf_free(&body);
}

/* --- calls --- */

static void invoke_call_free(struct invoke_call *call) {
    if (call->stage_ev) event_free(call->stage_ev);
    if (call->limit_ev) event_free(call->limit_ev);
    batch_remove(&call->var->batch, &call->seq);
    invoke_in_flight(call->inv, call->var, -1);
    cont_request_free(&call->req);
    cont_answer_free(&call->ans);
    buf_free(&call->body);
    free(call);
}

/* The call's log line, ending with status (0: closed first). */
static struct reqlog_entry invoke_call_entry(const struct invoke_call *call, int status) {
    struct reqlog_entry e = invoke_entry(&call->origin, call->id, status);
    e.fault = call->fault == FAULT_NONE ? NULL : fault_name(call->fault);
    e.prompt = call->req.prompt.len ? buf_str(&call->req.prompt) : NULL;
    e.prompt_len = call->req.prompt.len;
    return e;
}

void invoke_abort(struct invoke_call *call) {
    struct reqlog_entry e = invoke_call_entry(call, 0);
    invoke_count(call->inv, call->var->ep, call->var, &e);
    invoke_call_free(call);
}

/* Sends r as the call's reply and frees the call. */
static void invoke_call_reply(struct invoke_call *call, const struct invoke_reply *r) {
    struct reqlog_entry e = invoke_call_entry(call, r->mode == INVOKE_DROP ? 0 : r->status);
    e.error_type = r->error_type;
    if (r->mode == INVOKE_FULL && r->status / 100 == 2) {
        e.prompt_tokens = (long)call->req.prompt_tokens;
        e.completion_tokens = (long)call->ans.tokens;
    }
    invoke_count(call->inv, call->var->ep, call->var, &e);
    call->inv->send(call->owner, r);
    invoke_call_free(call);
}

static void invoke_call_send_ok(struct invoke_call *call) {
    struct fleet_variant *var = call->var;
    enum invoke_mode mode = call->fault == FAULT_DROP       ? INVOKE_DROP
                            : call->fault == FAULT_TRUNCATE ? INVOKE_TRUNCATE
                                                            : INVOKE_FULL;
    if (mode == INVOKE_FULL) {
        struct tally *ts[] = {&call->inv->totals, &var->ep->counts, &var->counts};
        for (size_t i = 0; i < 3; i++) {
            ts[i]->prompt_tokens += call->req.prompt_tokens;
            ts[i]->completion_tokens += call->ans.tokens;
        }
    }
    vlog_access(&var->log, time(NULL), 200);
    invoke_call_reply(call, &(struct invoke_reply){200, NULL, var->name, NULL, call->id,
                                                   buf_str(&call->body), call->body.len, mode});
}

/* Sends the ModelError for a container that answered status with orig. */
static void invoke_call_model_error(struct invoke_call *call, int status, const char *orig,
                                    size_t orig_len) {
    struct invoke *inv = call->inv;
    struct buf body;
    buf_init(&body, BUF_NO_CAP);
    if (smerr_model(&body, inv->region, inv->account, call->var->ep->name, status, orig, orig_len))
        buf_reset(&body);
    if (status) vlog_access(&call->var->log, time(NULL), status);
    invoke_call_reply(call,
                      &(struct invoke_reply){424, "ModelError", call->var->name, NULL, call->id,
                                             buf_str(&body), body.len, INVOKE_FULL});
    buf_free(&body);
}

static void invoke_call_timer(struct invoke_call *call, struct event **ev, double *due,
                              double model_s, event_callback_fn fn) {
    if (*ev) event_free(*ev);
    *ev = evtimer_new(call->inv->base, fn, call);
    *due = invoke_now_real() + model_s / call->inv->time_scale;
    if (*ev) invoke_arm(*ev, *due);
}

static void invoke_call_slow_cb(evutil_socket_t fd, short what, void *arg) {
    struct invoke_call *call = arg;
    (void)fd;
    (void)what;
    invoke_wait_until(call->stage_due);
    invoke_call_send_ok(call);
}

/* The container has answered (success or its error). */
static void invoke_call_done(struct invoke_call *call) {
    struct fleet_variant *var = call->var;
    if (call->limit_ev) evtimer_del(call->limit_ev);
    if (call->container_status) {
        struct buf orig = call->body; /* moved out: the model error frees the call */
        buf_init(&call->body, BUF_NO_CAP);
        invoke_call_model_error(call, call->container_status, buf_str(&orig), orig.len);
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
        invoke_call_model_error(call, 500, "out of memory", 13);
        return;
    }
    if (call->fault == FAULT_SLOW) {
        invoke_call_timer(call, &call->stage_ev, &call->stage_due, var->profile.slow_first_byte_s,
                          invoke_call_slow_cb);
        return;
    }
    invoke_call_send_ok(call);
}

/* Plans a step starting at start (model seconds) when sequences wait and none
 * is planned, and arms the timer that ends it. */
static void invoke_kick(struct fleet_variant *var, double start) {
    struct invoke *inv = var->runner;
    if (var->batch.stepping || !batch_busy(&var->batch)) return;
    if (start < var->batch.step_end) start = var->batch.step_end;
    invoke_arm(var->step_ev, batch_begin(&var->batch, start) / inv->time_scale);
}

static void invoke_step_cb(evutil_socket_t fd, short what, void *arg) {
    struct fleet_variant *var = arg;
    struct invoke *inv = var->runner;
    struct batch_list done = {0};
    struct batch_seq *q;
    (void)fd;
    (void)what;
    double planned_end = var->batch.step_end;
    batch_end(&var->batch, &done);
    invoke_kick(var, planned_end); /* back to back: the next step starts when this one ended */
    if (done.n) invoke_wait_until(planned_end / inv->time_scale);
    while ((q = batch_pop(&done))) invoke_call_done(q->owner);
}

static void invoke_call_overhead_cb(evutil_socket_t fd, short what, void *arg) {
    struct invoke_call *call = arg;
    (void)fd;
    (void)what;
    if (call->container_status) {
        invoke_wait_until(call->stage_due);
        invoke_call_done(call);
        return;
    }
    batch_add(&call->var->batch, &call->seq);
    invoke_kick(call->var, call->ready_at); /* a late timer does not delay the decode */
}

static void invoke_call_limit_cb(evutil_socket_t fd, short what, void *arg) {
    struct invoke_call *call = arg;
    (void)fd;
    (void)what;
    invoke_wait_until(call->limit_due);
    invoke_call_model_error(call, 0, SMERR_TIMEOUT_MESSAGE, strlen(SMERR_TIMEOUT_MESSAGE));
}

/* Parses the body as p's container would (cont_parse); on CONT_ERR_REJECTED,
 * *status and err_body hold the container's reply. */
static int invoke_parse(const struct model_profile *p, const struct http_head *h, const char *body,
                        size_t len, struct cont_request *req, int *status, struct buf *err_body) {
    const struct sigv4_header *ct = http_header(h, "content-type");
    char type[256] = "";
    struct buf why;
    if (ct) snprintf(type, sizeof type, "%.*s", (int)ct->value_len, ct->value);
    buf_init(&why, BUF_NO_CAP);
    int rc = cont_parse(p, ct ? type : NULL, body, len, req, status, &why);
    if (rc == CONT_ERR_REJECTED && cont_error_body(p->format, *status, buf_str(&why), err_body))
        rc = CONT_ERR_NOMEM;
    buf_free(&why);
    return rc;
}

/* Parses the body as the container would and plans the answer. Returns 0 or
 * CONT_ERR_NOMEM. */
static int invoke_call_prepare(struct invoke_call *call, const struct http_head *h,
                               const char *body, size_t len) {
    const struct model_profile *p = &call->var->profile;
    int rc = invoke_parse(p, h, body, len, &call->req, &call->container_status, &call->body);
    if (rc == CONT_ERR_NOMEM) return rc;
    if (rc == CONT_ERR_REJECTED) return CONT_OK;
    if (call->fault == FAULT_MODEL_ERROR) {
        call->container_status = 500;
        return cont_server_error(p->format, &call->body) ? CONT_ERR_NOMEM : CONT_OK;
    }
    if (cont_answer(p, &call->req, &call->ans)) return CONT_ERR_NOMEM;
    call->seq.prompt_tokens = call->req.prompt_tokens;
    call->seq.want_tokens = call->ans.tokens ? call->ans.tokens : 1;
    return CONT_OK;
}

/* Answers a request with an injected fault at once (SageMaker's front end, before the
 * container); the log still names the prompt the container would have been asked. */
static void invoke_fault_refuse(struct invoke *inv, void *owner, struct fleet_variant *var,
                                const struct http_head *h, const char *body, size_t len,
                                int fault) {
    static const struct {
        int status;
        const char *type, *message;
    } at_once[] = {
        [FAULT_THROTTLE] = {429, "ThrottlingException", "Rate exceeded"},
        [FAULT_UNAVAILABLE] = {503, "ServiceUnavailable", "Service Unavailable"},
        [FAULT_INTERNAL] = {500, "InternalFailure", "An internal failure occurred."},
    };
    struct reqlog_entry e = invoke_entry(&inv->cur, NULL, at_once[fault].status);
    struct cont_request req;
    struct buf ignored;
    int container_status;
    cont_request_init(&req);
    buf_init(&ignored, BUF_NO_CAP);
    if (inv->reqlog.f &&
        invoke_parse(&var->profile, h, body, len, &req, &container_status, &ignored) == CONT_OK &&
        req.prompt.len) {
        e.prompt = buf_str(&req.prompt);
        e.prompt_len = req.prompt.len;
    }
    e.fault = fault_name(fault);
    invoke_error_logged(inv, owner, var->ep, var, at_once[fault].status, at_once[fault].type,
                        at_once[fault].message, &e);
    buf_free(&ignored);
    cont_request_free(&req);
}

/* A new call on var; NULL when out of memory (answered already). */
static struct invoke_call *invoke_call_new(struct invoke *inv, void *owner,
                                           struct fleet_variant *var, int fault) {
    struct invoke_call *call = calloc(1, sizeof *call);
    if (!call) {
        invoke_error(inv, owner, var->ep, var, 500, "InternalFailure", "out of memory");
        return NULL;
    }
    *call = (struct invoke_call){
        .inv = inv, .owner = owner, .var = var, .fault = fault, .origin = inv->cur};
    call->seq.owner = call;
    cont_request_init(&call->req);
    cont_answer_init(&call->ans);
    buf_init(&call->body, BUF_NO_CAP);
    invoke_request_id(inv, call->id);
    invoke_in_flight(inv, var, 1);
    return call;
}

/* Starts the call of a request routed to var; returns it, or NULL when answered. */
static struct invoke_call *invoke_call(struct invoke *inv, void *owner, struct fleet_variant *var,
                                       const struct http_head *h, const char *body, size_t len) {
    const struct model_profile *p = &var->profile;
    int fault = fault_pick(p->faults, &var->faults);
    if (fault != FAULT_NONE) {
        var->counts.faults[fault]++;
        var->ep->counts.faults[fault]++;
    }
    if (fault == FAULT_THROTTLE || fault == FAULT_UNAVAILABLE || fault == FAULT_INTERNAL) {
        invoke_fault_refuse(inv, owner, var, h, body, len, fault);
        return NULL;
    }
    struct invoke_call *call = invoke_call_new(inv, owner, var, fault);
    if (!call) return NULL;
    if (invoke_call_prepare(call, h, body, len)) {
        invoke_call_model_error(call, 500, "out of memory", 13);
        return NULL;
    }
    if (model_is_instant(p) && fault != FAULT_SLOW) {
        invoke_call_done(call);
        return NULL;
    }
    if (inv->max_duration > 0)
        invoke_call_timer(call, &call->limit_ev, &call->limit_due, inv->max_duration,
                          invoke_call_limit_cb);
    double u = 2 * rng_unit(&var->rng) - 1, overhead = p->overhead_s * (1 + p->jitter * u);
    call->ready_at = invoke_now_real() * inv->time_scale + overhead;
    invoke_call_timer(call, &call->stage_ev, &call->stage_due, overhead, invoke_call_overhead_cb);
    return call;
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

/* Sends a 400 ValidationError with a formatted message. */
__attribute__((format(printf, 4, 5))) static void
invoke_invalid(struct invoke *inv, void *owner, struct fleet_endpoint *ep, const char *fmt, ...) {
    struct buf msg;
    va_list ap;
    buf_init(&msg, BUF_NO_CAP);
    va_start(ap, fmt);
    if (buf_vaddf(&msg, fmt, ap)) buf_reset(&msg);
    va_end(ap);
    invoke_error(inv, owner, ep, NULL, 400, "ValidationError", buf_str(&msg));
    buf_free(&msg);
}

/* The SageMaker checks after the signature: name, endpoint, variant. */
static struct invoke_call *invoke_route(struct invoke *inv, void *owner, struct fleet_endpoint *ep,
                                        const struct http_head *h, const char *name, size_t n,
                                        const char *body, size_t len) {
    if (!smname_endpoint_ok(name, n)) {
        invoke_invalid(inv, owner, NULL,
                       "1 validation error detected: Value '%.*s' at 'endpointName' failed to "
                       "satisfy constraint: %s",
                       (int)(n > INVOKE_ECHO_MAX ? INVOKE_ECHO_MAX : n), name,
                       n > INVOKE_NAME_MAX ? "Member must have length less than or equal to 63"
                                           : "Member must satisfy regular expression pattern: "
                                             "^[a-zA-Z0-9](-*[a-zA-Z0-9])*");
        return NULL;
    }
    if (!ep) {
        invoke_invalid(inv, owner, NULL, "Endpoint %.*s of account %s not found.", (int)n, name,
                       inv->account);
        return NULL;
    }
    const struct sigv4_header *want = http_header(h, "x-amzn-sagemaker-target-variant");
    struct fleet_variant *var =
        fleet_pick(ep, want ? want->value : NULL, want ? want->value_len : 0, &inv->rng);
    if (!var) { /* only a named variant can be missing */
        size_t n_want = want ? want->value_len : 0;
        invoke_invalid(inv, owner, ep, "Variant %.*s not found for Endpoint %s of account %s.",
                       (int)(n_want > INVOKE_ECHO_MAX ? INVOKE_ECHO_MAX : n_want),
                       want ? want->value : "", ep->name, inv->account);
        return NULL;
    }
    var->counts.requests++;
    return invoke_call(inv, owner, var, h, body, len);
}

/* Answers GET /emulator/stats and /ping; false for any other request. */
static bool invoke_unsigned(struct invoke *inv, void *owner, const struct http_head *h) {
    if (http_is(h, "GET", "/emulator/stats")) {
        invoke_stats(inv, owner);
        return true;
    }
    inv->totals.requests++;
    invoke_origin(inv, h);
    if (!http_is(h, "GET", "/ping") && !http_is(h, "POST", "/ping")) return false;
    char id[INVOKE_ID_LEN];
    invoke_request_id(inv, id);
    struct reqlog_entry e = invoke_entry(&inv->cur, id, 200);
    invoke_count(inv, NULL, NULL, &e);
    inv->send(owner, &(struct invoke_reply){200, NULL, NULL, NULL, id, "", 0, INVOKE_FULL});
    return true;
}

/* Verifies the signature; returns 0, or the refusal (answered already). */
static int invoke_verify(struct invoke *inv, void *owner, struct fleet_endpoint *ep,
                         const struct http_head *h, const char *body, size_t len) {
    char method[64];
    if (h->method_len >= sizeof method) {
        invoke_error(inv, owner, ep, NULL, 400, "BadRequestException", "the method is too long");
        return AUTH_ERR_INVALID;
    }
    snprintf(method, sizeof method, "%.*s", (int)h->method_len, h->method);
    struct auth_request ar = {method, h->target, h->target_len, h->headers, h->n_headers,
                              body,   len};
    struct buf why;
    buf_init(&why, BUF_NO_CAP);
    /* the clock the log shows: time() may lag it by a tick, which would let a key
     * expiring at second T sign a request logged at T.001 */
    int rc = auth_verify(&inv->auth, &ar, (time_t)inv->cur.received, &why);
    if (rc == AUTH_ERR_NOMEM)
        invoke_error(inv, owner, ep, NULL, 500, "InternalFailure", "out of memory");
    else if (rc)
        invoke_error(inv, owner, ep, NULL, 403, auth_error_type(rc), buf_str(&why));
    buf_free(&why);
    return rc;
}

struct invoke_call *invoke_request(struct invoke *inv, void *owner, const struct http_head *h,
                                   const char *body, size_t len) {
    const char *name = NULL;
    size_t n = 0;
    if (invoke_unsigned(inv, owner, h)) return NULL;
    bool is_invoke =
        h->method_len == 4 && memcmp(h->method, "POST", 4) == 0 && invoke_path(h, &name, &n);
    struct fleet_endpoint *ep = is_invoke ? fleet_find(inv->fleet, name, n) : NULL;
    if (ep) ep->counts.requests++;
    if (invoke_verify(inv, owner, ep, h, body, len)) return NULL;
    if (is_invoke) return invoke_route(inv, owner, ep, h, name, n, body, len);
    invoke_error(inv, owner, NULL, NULL, 404, "UnknownOperationException", NULL);
    return NULL;
}

/* --- start and stop --- */

/* The metrics line of one variant's container log. */
static void invoke_log_variant(struct invoke *inv, struct fleet_variant *var) {
    struct batch *b = &var->batch;
    double kv = 0;
    for (struct batch_seq *q = b->running.head; q; q = q->next)
        kv += (double)(q->prompt_tokens + q->produced);
    if (var->profile.kv_cache_tokens) kv /= (double)var->profile.kv_cache_tokens;
    vlog_metrics(&var->log, time(NULL), inv->log_interval, b->prompt_tokens - var->logged_prompt,
                 b->generated_tokens - var->logged_gen, b->running.n, b->waiting.n, kv);
    var->logged_prompt = b->prompt_tokens;
    var->logged_gen = b->generated_tokens;
}

static void invoke_log_cb(evutil_socket_t fd, short what, void *arg) {
    struct invoke *inv = arg;
    (void)fd;
    (void)what;
    for (size_t e = 0; e < inv->fleet->n_eps; e++)
        for (size_t i = 0; i < inv->fleet->eps[e].n_variants; i++)
            invoke_log_variant(inv, &inv->fleet->eps[e].variants[i]);
}

int invoke_start(struct invoke *inv) {
    bool any_log = false;
    for (size_t e = 0; e < inv->fleet->n_eps; e++) {
        for (size_t i = 0; i < inv->fleet->eps[e].n_variants; i++) {
            struct fleet_variant *var = &inv->fleet->eps[e].variants[i];
            var->runner = inv;
            var->step_ev = evtimer_new(inv->base, invoke_step_cb, var);
            if (!var->step_ev) return INVOKE_ERR_NOMEM;
            vlog_startup(&var->log, &var->profile, time(NULL));
            any_log = any_log || var->log.f;
        }
    }
    if (!any_log || inv->log_interval <= 0) return INVOKE_OK;
    double real = inv->log_interval / inv->time_scale;
    struct timeval tv = {(time_t)real, (suseconds_t)((real - (double)(time_t)real) * 1e6)};
    inv->log_ev = event_new(inv->base, -1, EV_PERSIST, invoke_log_cb, inv);
    return inv->log_ev && event_add(inv->log_ev, &tv) == 0 ? INVOKE_OK : INVOKE_ERR_NOMEM;
}

void invoke_stop(struct invoke *inv) {
    if (inv->log_ev) event_free(inv->log_ev);
    inv->log_ev = NULL;
    for (size_t e = 0; inv->fleet && e < inv->fleet->n_eps; e++) {
        for (size_t i = 0; i < inv->fleet->eps[e].n_variants; i++) {
            struct fleet_variant *var = &inv->fleet->eps[e].variants[i];
            if (var->step_ev) event_free(var->step_ev);
            var->step_ev = NULL;
        }
    }
}
