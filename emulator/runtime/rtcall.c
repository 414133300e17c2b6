/* rtcall: SageMaker Runtime's calls (rtcall.h). */
#include "rtcall.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "admit.h"
#include "cont.h"
#include "mclock.h"
#include "pfx.h"
#include "rstream.h"
#include "smerr.h"
#include "splitmix.h"

#define RTCALL_REPLY_ID_LEN 48
#define RTCALL_EVENTSTREAM  "application/vnd.amazon.eventstream"

struct rtcall {
    struct invoke *inv;
    void *owner; /* the connection the request came on */
    struct fleet_variant *var;
    struct event *stage_ev; /* overhead, then the slow first byte */
    struct event *limit_ev; /* the 60-second limit */
    struct event *hold_ev;  /* a stream's held bytes go */
    struct batch_seq seq;
    struct pfx pfx;         /* the prompt's and the reply's token blocks, for the prefix cache */
    struct sess_reply sess; /* what the container's session manager said */
    struct cont_request req;
    struct cont_answer ans;
    int fault;
    int container_status; /* 0: the container answers 200; else its error status */
    double ready_at;      /* model time the fixed overhead ends (the decode may start) */
    double begun_at;      /* model time it came (monotonic), after a client's client_s */
    double client_s;      /* the client's own cost waited out first (model seconds) */
    double overhead;      /* model seconds of the fixed overhead */
    double stage_due, limit_due, hold_due; /* real times the timers are due (hold 0: none) */
    double reply_due; /* real time its model work ended (0: now): its service time's end */
    struct buf body;  /* the container's error body, then the reply body */
    char id[INVOKE_ID_LEN];
    char reply_id[RTCALL_REPLY_ID_LEN]; /* the container's "chatcmpl-..." */
    long long created;                  /* the container's "created" */
    struct invoke_origin origin;
    /* a streamed reply: the bytes of each decode step leave when it ends */
    bool streaming;
    bool stream_begun; /* past the overhead: the head is sent or held */
    bool head_sent;
    struct rstream rs;
    struct buf out;                 /* stream bytes not sent yet (held back) */
    unsigned unsent_tokens;         /* tokens in out */
    size_t tokens_out;              /* steps whose token was handed over whole */
    enum rstream_next pending;      /* how the stream ends once held bytes go (MORE: not yet) */
    long owed;                      /* steps ended while the client's output was full: their
                                       bytes are made when it drains (rtcall_drained) */
    bool owed_all;                  /* an instant stream's remaining steps, the same way */
    double first_token, last_token; /* wall clock: see rtcall_stream_stamp */
    const char *exception;          /* the exception that ended the stream */
};

static void rtcall_in_flight(struct invoke *inv, struct fleet_variant *var, int delta) {
    inv->totals.in_flight += (unsigned long)delta;
    var->ep->counts.in_flight += (unsigned long)delta;
    var->counts.in_flight += (unsigned long)delta;
}

/* --- calls --- */

static void rtcall_free(struct rtcall *call) {
    if (call->stage_ev) event_free(call->stage_ev);
    if (call->limit_ev) event_free(call->limit_ev);
    if (call->hold_ev) event_free(call->hold_ev);
    batch_remove(&call->var->batch, &call->seq);
    rtcall_in_flight(call->inv, call->var, -1);
    if (call->streaming) rstream_free(&call->rs);
    cont_request_free(&call->req);
    cont_answer_free(&call->ans);
    pfx_free(&call->pfx);
    sess_reply_free(&call->sess);
    buf_free(&call->body);
    buf_free(&call->out);
    free(call);
}

/* What the container's answer to the call took (CloudWatch's latencies). */
/* The real time the call's model work ended: when its reply was due (the batch's
 * planned step end, its timer's due time), not a late wake-up's now. */
static double rtcall_end(const struct rtcall *call) {
    double now = mclock_real();
    return call->reply_due > 0 && call->reply_due < now ? call->reply_due : now;
}

/* The call's model time (CloudWatch's ModelLatency and OverheadLatency): from its
 * start to its model end, on the model's clock. */
static struct invoke_timing rtcall_timing(const struct rtcall *call) {
    return (struct invoke_timing){rtcall_end(call) * call->inv->time_scale - call->begun_at,
                                  call->overhead, call->exception != NULL};
}

/* The call's log line, ending with status (0: closed first). */
static struct reqlog_entry rtcall_entry(const struct rtcall *call, int status) {
    struct reqlog_entry e = invoke_entry(&call->origin, call->id, status);
    e.fault = call->fault == FAULT_NONE ? NULL : fault_name(call->fault);
    e.prompt = call->req.prompt.len ? buf_str(&call->req.prompt) : NULL;
    e.prompt_len = call->req.prompt.len;
    e.first_token = call->first_token;
    e.last_token = call->last_token;
    e.error_type = call->exception;
    double scale = call->inv->time_scale; /* model time: the monotonic clock x the scale */
    if (call->seq.admitted >= 0) e.cached_tokens = (long)call->seq.cached_tokens;
    if (call->seq.admitted >= 0) e.queue_s = call->seq.queue_s / scale;
    if (call->seq.admitted >= 0)
        e.admitted =
            call->origin.received + call->seq.admitted / scale - call->origin.received_real;
    e.session = *call->sess.session ? call->sess.session : NULL;
    e.session_len = strlen(call->sess.session);
    return e;
}

void rtcall_abort(struct rtcall *call) {
    struct reqlog_entry e = rtcall_entry(call, 0);
    invoke_count(call->inv, call->var->ep, call->var, &e, NULL);
    rtcall_free(call);
}

/* Counts the tokens of a reply that gave them all. */
static void rtcall_tokens(struct rtcall *call) {
    struct fleet_variant *var = call->var;
    struct tally *ts[] = {&call->inv->totals, &var->ep->counts, &var->counts};
    for (size_t i = 0; i < 3; i++) {
        ts[i]->prompt_tokens += call->req.prompt_tokens;
        ts[i]->completion_tokens += call->ans.tokens + call->ans.reasoning_tokens;
    }
}

/* Marks r, a reply whose head leaves now, with the call's model time so far
 * (x-sm-emulator-service-us): from its start (authenticated) to now, the client's
 * emulated cost included (it runs on the model's clock, so it scales as the model). */
static void rtcall_timed(const struct rtcall *call, struct invoke_reply *r) {
    double us = (rtcall_end(call) * call->inv->time_scale - call->begun_at + call->client_s) * 1e6;
    r->timed = true;
    r->service_us = us > 0 ? (long long)(us + 0.5) : 0;
}

/* Sends r, the call's last part, and frees the call. complete: it gave every token. */
static void rtcall_reply(struct rtcall *call, const struct invoke_reply *r, bool complete) {
    struct reqlog_entry e = rtcall_entry(call, r->mode == INVOKE_DROP ? 0 : r->status);
    if (r->error_type) e.error_type = r->error_type;
    if (complete) {
        e.prompt_tokens = (long)call->req.prompt_tokens;
        e.completion_tokens = (long)(call->ans.tokens + call->ans.reasoning_tokens);
        rtcall_tokens(call);
    }
    struct invoke_reply sent = *r; /* timed before the log line: within its times */
    if (!call->head_sent) rtcall_timed(call, &sent);
    struct invoke_timing timing = rtcall_timing(call);
    invoke_count(call->inv, call->var->ep, call->var, &e, &timing);
    call->inv->send(call->owner, &sent);
    rtcall_free(call);
}

/* The path of the container the request reaches (its access log line). */
static const char *rtcall_container_path(const struct rtcall *call) {
    return call->origin.api == RTPATH_OPENAI ? "/v1/chat/completions" : "/invocations";
}

static void rtcall_send_ok(struct rtcall *call) {
    struct fleet_variant *var = call->var;
    enum invoke_mode mode = call->fault == FAULT_DROP       ? INVOKE_DROP
                            : call->fault == FAULT_TRUNCATE ? INVOKE_TRUNCATE
                                                            : INVOKE_FULL;
    struct invoke_reply r =
        invoke_whole(200, NULL, var->name, call->id, buf_str(&call->body), call->body.len, mode);
    struct buf framed;
    buf_init(&framed, BUF_NO_CAP);
    vlog_access(&var->log, reqlog_now(), rtcall_container_path(call), 200);
    if (call->origin.api == RTPATH_STREAM) { /* a reply that did not stream, as PayloadParts */
        size_t len = mode == INVOKE_FULL ? call->body.len : call->body.len / 2;
        if (rstream_whole(RSTREAM_EVENTSTREAM, call->inv->stream_split, buf_str(&call->body), len,
                          &framed))
            buf_reset(&framed);
        r = invoke_whole(200, NULL, var->name, call->id, buf_str(&framed), framed.len,
                         mode == INVOKE_DROP ? INVOKE_DROP : INVOKE_FULL);
        r.content_type = RTCALL_EVENTSTREAM;
        r.part = INVOKE_CHUNK_ALL;
        r.sm_content_type = "application/json";
    } else if (call->sess.status) { /* the session manager's reply, not the model's */
        r.content_type = "text/plain; charset=utf-8";
        r.new_session = *call->sess.new_session ? call->sess.new_session : NULL;
        r.closed_session = call->sess.closed ? call->sess.session : NULL;
    } else if (call->req.stream) { /* a stream sent to /invocations, gathered */
        r.content_type = cstream_content_type(call->req.kind);
    }
    rtcall_reply(call, &r, mode == INVOKE_FULL && !call->sess.status);
    buf_free(&framed);
}

/* Sends the ModelError for a container that answered status with orig. */
static void rtcall_model_error(struct rtcall *call, int status, const char *orig, size_t orig_len) {
    struct invoke *inv = call->inv;
    const char *ep = call->var->ep->name;
    struct buf body;
    buf_init(&body, BUF_NO_CAP);
    if (call->origin.api == RTPATH_OPENAI
            ? smerr_openai_model(&body, inv->region, inv->account, ep, status, orig, orig_len)
            : smerr_model(&body, inv->region, inv->account, ep, status, orig, orig_len))
        buf_reset(&body);
    if (status) vlog_access(&call->var->log, reqlog_now(), rtcall_container_path(call), status);
    struct invoke_reply r = invoke_whole(424, "ModelError", call->var->name, call->id,
                                         buf_str(&body), body.len, INVOKE_FULL);
    rtcall_reply(call, &r, false);
    buf_free(&body);
}

static void rtcall_timer(struct rtcall *call, struct event **ev, double *due, double model_s,
                         event_callback_fn fn) {
    if (*ev) event_free(*ev);
    *ev = evtimer_new(call->inv->base, fn, call);
    *due = mclock_real() + model_s / call->inv->time_scale;
    if (*ev) mclock_arm(*ev, *due);
}

static void rtcall_slow_cb(evutil_socket_t fd, short what, void *arg) {
    struct rtcall *call = arg;
    (void)fd;
    (void)what;
    if (!mclock_due(call->stage_ev, call->stage_due)) return;
    call->reply_due = call->stage_due;
    rtcall_send_ok(call);
}

/* The body of a stream sent to /invocations: every step's events, gathered. */
static int rtcall_gathered(struct rtcall *call, const struct cont_meta *meta) {
    struct rstream all;
    struct rstream_step st;
    int rc = RSTREAM_OK;
    rstream_init(&all, &call->req, &call->ans, meta, RSTREAM_PLAIN, 0, FAULT_NONE);
    while (!rc && !rstream_done(&all)) rc = rstream_next(&all, &call->body, &st);
    rstream_free(&all);
    return rc;
}

/* What the container's reply says of itself and of the call's sequence. */
static struct cont_meta rtcall_meta(struct rtcall *call) {
    const struct model_profile *p = &call->var->profile;
    return (struct cont_meta){.id = call->reply_id,
                              .created = call->created,
                              .model = p->model_id,
                              .reasoning_field = p->reasoning_field,
                              .prompt_details = p->prompt_tokens_details != 0,
                              .spec_step = call->seq.spec_step,
                              .cached_tokens = &call->seq.cached_tokens};
}

/* The container has answered (success or its error), all at once. */
static void rtcall_done(struct rtcall *call) {
    struct fleet_variant *var = call->var;
    if (call->limit_ev) evtimer_del(call->limit_ev);
    if (call->container_status) {
        struct buf orig = call->body; /* moved out: the model error frees the call */
        buf_init(&call->body, BUF_NO_CAP);
        rtcall_model_error(call, call->container_status, buf_str(&orig), orig.len);
        buf_free(&orig);
        return;
    }
    struct cont_meta meta = rtcall_meta(call);
    buf_reset(&call->body);
    if (call->sess.status  ? buf_add(&call->body, call->sess.text.data, call->sess.text.len)
        : call->req.stream ? rtcall_gathered(call, &meta)
                           : cont_reply(&call->req, &call->ans, &meta, &call->body)) {
        rtcall_model_error(call, 500, "out of memory", 13);
        return;
    }
    if (call->fault == FAULT_SLOW) {
        rtcall_timer(call, &call->stage_ev, &call->stage_due, var->profile.slow_first_byte_s,
                     rtcall_slow_cb);
        return;
    }
    rtcall_send_ok(call);
}

/* --- streamed replies --- */

/* Stamps the tokens just handed to the socket (written, on plain TCP when the
 * connection's output was empty; else queued). */
static void rtcall_stream_stamp(struct rtcall *call) {
    if (!call->unsent_tokens) return;
    call->last_token = reqlog_now();
    if (!call->first_token) call->first_token = call->last_token;
    call->unsent_tokens = 0;
}

/* Hands the stream's bytes to the socket now, its head first; how: what follows
 * them (MORE, END or CUT). Returns true when the reply ended (the call is freed). */
static bool rtcall_stream_send(struct rtcall *call, enum rstream_next how) {
    bool end = how == RSTREAM_END || how == RSTREAM_CUT;
    if (!end && call->head_sent && !call->out.len) return false;
    bool plain = call->origin.api == RTPATH_OPENAI;
    struct invoke_reply r =
        invoke_whole(200, NULL, call->var->name, call->id, buf_str(&call->out), call->out.len,
                     how == RSTREAM_CUT ? INVOKE_DROP : INVOKE_FULL);
    r.content_type = plain ? rstream_content_type(&call->rs) : RTCALL_EVENTSTREAM;
    r.sm_content_type = plain ? NULL : rstream_content_type(&call->rs);
    r.part = call->head_sent ? (end ? INVOKE_CHUNK_END : INVOKE_CHUNK)
                             : (end ? INVOKE_CHUNK_ALL : INVOKE_CHUNK_HEAD);
    if (end) {
        rtcall_stream_stamp(call);
        rtcall_reply(call, &r, how == RSTREAM_END && call->tokens_out == call->rs.cs.steps);
        return true;
    }
    if (!call->head_sent) rtcall_timed(call, &r);
    call->head_sent = true;
    call->inv->send(call->owner, &r);
    rtcall_stream_stamp(call);
    buf_reset(&call->out);
    return false;
}

/* Hands the stream's bytes on, unless they are held back; how: what follows them. */
static bool rtcall_stream_flush(struct rtcall *call, enum rstream_next how) {
    if (how == RSTREAM_END || how == RSTREAM_CUT) call->pending = how;
    return call->hold_due > 0 ? false : rtcall_stream_send(call, call->pending);
}

static void rtcall_stream_hold_cb(evutil_socket_t fd, short what, void *arg) {
    struct rtcall *call = arg;
    (void)fd;
    (void)what;
    if (!mclock_due(call->hold_ev, call->hold_due)) return;
    call->hold_due = 0;
    (void)rtcall_stream_send(call, call->pending);
}

/* Holds the stream's bytes back for model_s model seconds from now. */
static void rtcall_stream_hold(struct rtcall *call, double model_s) {
    double due = mclock_real() + model_s / call->inv->time_scale;
    if (!call->hold_ev) call->hold_ev = evtimer_new(call->inv->base, rtcall_stream_hold_cb, call);
    if (!call->hold_ev || due <= call->hold_due) return;
    call->hold_due = due;
    mclock_arm(call->hold_ev, due);
}

/* The overhead is over: the stream's head goes (after the slow fault's delay). */
static bool rtcall_stream_begin(struct rtcall *call) {
    call->stream_begun = true;
    vlog_access(&call->var->log, reqlog_now(), rtcall_container_path(call), 200);
    if (call->fault == FAULT_SLOW) rtcall_stream_hold(call, call->var->profile.slow_first_byte_s);
    return rtcall_stream_flush(call, RSTREAM_MORE);
}

/* Ends the stream with an exception, now, after whatever it holds. */
static void rtcall_stream_fail(struct rtcall *call, enum rstream_exception e) {
    call->exception = e == RSTREAM_INTERNAL_FAILURE ? "InternalStreamFailure" : "ModelStreamError";
    if (rstream_error(call->rs.wire, e, &call->out)) buf_reset(&call->out);
    call->hold_due = 0;
    if (call->hold_ev) evtimer_del(call->hold_ev);
    (void)rtcall_stream_send(call, RSTREAM_END);
}

/* A decode step that gave the stream a token ended: its bytes go. Returns true
 * when the reply ended (the call is freed). */
static bool rtcall_stream_step(struct rtcall *call) {
    struct rstream_step st;
    if (rstream_next(&call->rs, &call->out, &st)) {
        rtcall_stream_fail(call, RSTREAM_INTERNAL_FAILURE);
        return true;
    }
    call->unsent_tokens += st.token;
    call->tokens_out += st.token;
    if (!st.token && st.next == RSTREAM_END && call->fault == FAULT_STREAM_ERROR)
        call->exception = "ModelStreamError";
    if (!st.token && st.next == RSTREAM_END && call->fault == FAULT_STREAM_FAILURE)
        call->exception = "InternalStreamFailure";
    if (st.next != RSTREAM_STALL) return rtcall_stream_flush(call, st.next);
    (void)rtcall_stream_flush(call, RSTREAM_MORE);
    rtcall_stream_hold(call, call->var->profile.stream_stall_s);
    return false;
}

/* Whether the client's unsent output is over its bound (server.h). */
static bool rtcall_full(const struct rtcall *call) {
    return call->inv->full && call->inv->full(call->owner);
}

/* A decode step of the stream ended: its bytes are made and go, or are owed
 * while the client reads none (the model runs on; memory stays bounded).
 * Returns true when the reply ended (the call is freed). */
static bool rtcall_stream_due(struct rtcall *call) {
    if (call->owed || rtcall_full(call)) {
        call->owed++;
        return false;
    }
    return rtcall_stream_step(call);
}

/* Every step at once (an instant profile). Returns true when the reply ended. */
static bool rtcall_stream_all(struct rtcall *call) {
    if (rtcall_stream_begin(call)) return true;
    while (!rstream_done(&call->rs)) {
        if (rtcall_full(call)) {
            call->owed_all = true;
            return false;
        }
        if (rtcall_stream_step(call)) return true;
    }
    return false;
}

void rtcall_drained(struct rtcall *call) {
    while (call->streaming && (call->owed > 0 || (call->owed_all && !rstream_done(&call->rs))) &&
           !rtcall_full(call)) {
        if (call->owed > 0) call->owed--;
        if (rtcall_stream_step(call)) return;
    }
}

/* --- the batch's clock --- */

/* Plans a step starting at start (model seconds) when sequences wait and none
 * is planned, and arms the timer that ends it. */
static void rtcall_kick(struct fleet_variant *var, double start) {
    struct invoke *inv = var->runner;
    if (var->batch.stepping || !batch_busy(&var->batch)) return;
    if (start < var->batch.step_end) start = var->batch.step_end;
    start = batch_next_start(&var->batch, start);
    double end = batch_begin(&var->batch, start);
    mclock_arm(var->step_ev, end / inv->time_scale);
    if (!inv->cwmetrics) return; /* the step's span on the wall clock, for GPUUtilization */
    double wall = reqlog_now() - mclock_real();
    (void)!cwmetric_busy(inv->cwmetrics, var->ep->name, var->name, wall + start / inv->time_scale,
                         wall + end / inv->time_scale);
}

/* Whether a sequence of list is a stream's (its tokens leave at each step). */
static bool rtcall_streams(const struct batch_list *list) {
    for (const struct batch_seq *q = list->head; q; q = q->next)
        if (((const struct rtcall *)q->owner)->streaming) return true;
    return false;
}

static void rtcall_step_cb(evutil_socket_t fd, short what, void *arg) {
    struct fleet_variant *var = arg;
    struct invoke *inv = var->runner;
    struct batch_list done = {0};
    struct batch_seq *q, *next;
    (void)fd;
    (void)what;
    double planned_end = var->batch.step_end;
    if (!mclock_due(var->step_ev, planned_end / inv->time_scale)) return;
    batch_end(&var->batch, &done);
    bool streams = rtcall_streams(&var->batch.running) || rtcall_streams(&done);
    rtcall_kick(var, planned_end); /* back to back: the next step starts when this one ended */
    for (q = var->batch.running.head; streams && q; q = next) { /* admitted now: nothing yet */
        next = q->next;
        struct rtcall *call = q->owner;
        if (call->streaming && q->produced > 0) (void)rtcall_stream_due(call);
    }
    while ((q = batch_pop(&done))) {
        struct rtcall *call = q->owner;
        call->reply_due = planned_end / inv->time_scale; /* its last step's planned end */
        if (call->streaming)
            (void)rtcall_stream_due(call);
        else
            rtcall_done(call);
    }
}

static void rtcall_overhead_cb(evutil_socket_t fd, short what, void *arg) {
    struct rtcall *call = arg;
    (void)fd;
    (void)what;
    if (call->container_status || call->sess.status) { /* no decoding */
        if (!mclock_due(call->stage_ev, call->stage_due)) return;
        call->reply_due = call->stage_due;
        rtcall_done(call);
        return;
    }
    call->seq.ready = call->ready_at; /* an early timer does not hasten it */
    batch_add(&call->var->batch, &call->seq);
    rtcall_kick(call->var, call->ready_at); /* a late timer does not delay the decode */
    if (call->streaming) (void)rtcall_stream_begin(call);
}

/* Whether the call's model work planned before due_real (its overhead, its batch's
 * step) has not run yet: after the host stalled the emulator, its timers fire
 * together and the steps catch up one a turn; the limit waits for them, so a reply
 * the model finished in time is not cut. */
static bool rtcall_behind(const struct rtcall *call, double due_real) {
    const struct batch *b = &call->var->batch;
    if (call->stage_ev && evtimer_pending(call->stage_ev, NULL) && call->stage_due < due_real)
        return true;
    return (call->seq.running || call->seq.queued) && b->stepping &&
           b->step_end / call->inv->time_scale < due_real;
}

static void rtcall_limit_cb(evutil_socket_t fd, short what, void *arg) {
    struct rtcall *call = arg;
    (void)fd;
    (void)what;
    if (!mclock_due(call->limit_ev, call->limit_due)) return;
    if (rtcall_behind(call, call->limit_due) && mclock_later(call->limit_ev)) return;
    if (call->streaming && call->stream_begun)
        rtcall_stream_fail(call, RSTREAM_TIME_EXCEEDED);
    else
        rtcall_model_error(call, 0, SMERR_TIMEOUT_MESSAGE, strlen(SMERR_TIMEOUT_MESSAGE));
}

/* --- starting a call --- */

/* Parses the body as p's container would on route api (cont_parse_reply). */
static int rtcall_parse(const struct model_profile *p, enum rtpath_api api,
                        const struct http_head *h, const char *body, size_t len,
                        struct cont_request *req, int *status, struct buf *err_body) {
    const struct sigv4_header *ct = http_header(h, "content-type");
    return cont_parse_reply(p, api == RTPATH_OPENAI, ct ? ct->value : NULL, ct ? ct->value_len : 0,
                            body, len, req, status, err_body);
}

/* A streamed reply: the stream fault, if none struck the request, and the framing. */
static void rtcall_stream_prepare(struct rtcall *call) {
    struct fleet_variant *var = call->var;
    enum rstream_wire wire =
        call->origin.api == RTPATH_STREAM ? RSTREAM_EVENTSTREAM : RSTREAM_PLAIN;
    int fault = fault_pick_stream(var->profile.faults, &var->faults);
    if (fault == FAULT_STREAM_CRC && wire == RSTREAM_PLAIN) fault = FAULT_NONE; /* no CRC there */
    if (call->fault == FAULT_NONE && fault != FAULT_NONE) {
        call->fault = fault;
        var->counts.faults[fault]++;
        var->ep->counts.faults[fault]++;
    }
    struct cont_meta meta = rtcall_meta(call);
    rstream_init(&call->rs, &call->req, &call->ans, &meta, wire, call->inv->stream_split,
                 call->fault);
    call->streaming = true;
}

/* vLLM's speculative decoding (spec_tokens): an answer's steps give the accepted
 * drafts and the target model's token, its reasoning one a step; the other
 * containers, and a profile without it, one token a step. */
static void rtcall_speculate(const struct model_profile *p, const struct cont_request *r,
                             const struct cont_answer *a, struct batch_seq *q) {
    bool vllm = r->kind == CONT_CHAT || r->kind == CONT_COMPLETION;
    unsigned long accepted = p->spec_accepted < p->spec_tokens ? p->spec_accepted : p->spec_tokens;
    q->spec_k = vllm ? (unsigned)p->spec_tokens : 0;
    q->spec_step = q->spec_k ? (unsigned)accepted + 1 : 0;
    q->spec_from = a->reasoning_tokens;
}

/* The container's session manager (sess.h) on the request: its reply or its
 * error planned (call->sess.status), else the request goes on to the model.
 * The OpenAI route has no sessions. Returns 0 or CONT_ERR_NOMEM. */
static int rtcall_session(struct rtcall *call, const struct http_head *h, const char *body,
                          size_t len) {
    struct fleet_variant *var = call->var;
    const struct sigv4_header *sid = http_header(h, SESS_HEADER);
    if (call->origin.api == RTPATH_OPENAI) return CONT_OK;
    if (sid && !sid->value_len) sid = NULL;
    if (sess_handle(&var->sessions, var->profile.session_ttl_s / call->inv->time_scale,
                    sid ? sid->value : NULL, sid ? sid->value_len : 0, body, len, reqlog_now(),
                    &var->rng, &call->sess))
        return CONT_ERR_NOMEM;
    int st = call->sess.status;
    call->container_status = st == 200 ? 0 : st; /* an error: the container's reply */
    bool fail = st && st != 200 &&
                cont_error_body(var->profile.format, st, buf_str(&call->sess.text), &call->body);
    return fail ? CONT_ERR_NOMEM : CONT_OK;
}

/* Parses the body as the container would and plans the answer. Returns 0 or
 * CONT_ERR_NOMEM. */
static int rtcall_prepare(struct rtcall *call, const struct http_head *h, const char *body,
                          size_t len) {
    struct fleet_variant *var = call->var;
    const struct model_profile *p = &var->profile;
    int rc = rtcall_session(call, h, body, len);
    if (rc || call->sess.status) return rc;
    rc = rtcall_parse(p, call->origin.api, h, body, len, &call->req, &call->container_status,
                      &call->body);
    if (rc == CONT_ERR_NOMEM) return rc;
    if (rc == CONT_ERR_REJECTED) return CONT_OK;
    if (call->fault == FAULT_MODEL_ERROR) {
        call->container_status = 500;
        return cont_server_error(p->format, &call->body) ? CONT_ERR_NOMEM : CONT_OK;
    }
    if (cont_answer(p, &call->req, &call->ans)) return CONT_ERR_NOMEM;
    call->seq.prompt_tokens = call->req.prompt_tokens;
    call->seq.want_tokens = (call->ans.tokens ? call->ans.tokens : 1) + call->ans.reasoning_tokens;
    rtcall_speculate(p, &call->req, &call->ans, &call->seq);
    if (call->req.pfx) { /* the reply's tokens follow the prompt's in the KV cache */
        pfx_text(&call->pfx, call->ans.text.data, call->ans.text.len);
        call->seq.blocks = call->pfx.blocks;
        call->seq.prompt_blocks = pfx_blocks_of(&call->pfx, call->req.prompt_tokens);
        call->seq.done_blocks =
            pfx_blocks_of(&call->pfx, call->req.prompt_tokens + call->seq.want_tokens - 1);
    }
    uint64_t a = splitmix_next(&var->rng), b = splitmix_next(&var->rng);
    snprintf(call->reply_id, sizeof call->reply_id, "%s-%016llx%016llx",
             call->req.kind == CONT_CHAT ? "chatcmpl" : "cmpl", (unsigned long long)a,
             (unsigned long long)b);
    call->created = (long long)time(NULL);
    if (call->req.stream && call->origin.api != RTPATH_INVOKE) rtcall_stream_prepare(call);
    return CONT_OK;
}

/* Answers a request with an injected fault at once (SageMaker's front end, before the
 * container), or for lose closes its connection unanswered; the log still names the
 * prompt the container would have been asked. */
static void rtcall_fault_refuse(struct invoke *inv, void *owner, struct fleet_variant *var,
                                const struct http_head *h, const char *body, size_t len,
                                int fault) {
    static const struct {
        int status;
        const char *type, *message;
    } at_once[] = {
        [FAULT_THROTTLE] = {429, "ThrottlingException", "Rate exceeded"},
        [FAULT_UNAVAILABLE] = {503, "ServiceUnavailable", "Service Unavailable"},
        [FAULT_INTERNAL] = {500, "InternalFailure", "An internal failure occurred."},
        [FAULT_LOSE] = {0, NULL, NULL}, /* no reply at all */
    };
    struct reqlog_entry e = invoke_entry(&inv->cur, NULL, at_once[fault].status);
    struct cont_request req;
    struct buf ignored;
    int container_status;
    cont_request_init(&req);
    buf_init(&ignored, BUF_NO_CAP);
    if (inv->reqlog.f &&
        rtcall_parse(&var->profile, inv->cur.api, h, body, len, &req, &container_status,
                     &ignored) == CONT_OK &&
        req.prompt.len) {
        e.prompt = buf_str(&req.prompt);
        e.prompt_len = req.prompt.len;
    }
    e.fault = fault_name(fault);
    if (fault == FAULT_LOSE)
        invoke_lose(inv, owner, var, &e);
    else
        invoke_fail_logged(inv, owner, var->ep, var, at_once[fault].status, at_once[fault].type,
                           NULL, at_once[fault].message, &e);
    buf_free(&ignored);
    cont_request_free(&req);
}

/* A new call on var; NULL when out of memory (answered already). */
static struct rtcall *rtcall_new(struct invoke *inv, void *owner, struct fleet_variant *var,
                                 int fault) {
    struct rtcall *call = calloc(1, sizeof *call);
    if (!call) {
        invoke_fail(inv, owner, var->ep, var, 500, "InternalFailure", "out of memory");
        return NULL;
    }
    *call = (struct rtcall){.inv = inv,
                            .owner = owner,
                            .var = var,
                            .fault = fault,
                            .origin = inv->cur,
                            .begun_at = mclock_real() * inv->time_scale};
    call->seq.owner = call;
    call->seq.admitted = -1;
    cont_request_init(&call->req);
    cont_answer_init(&call->ans);
    sess_reply_init(&call->sess);
    pfx_init(&call->pfx, var->profile.max_model_len);
    if (pcache_on(&var->batch.cache)) call->req.pfx = &call->pfx;
    buf_init(&call->body, BUF_NO_CAP);
    buf_init(&call->out, BUF_NO_CAP);
    invoke_new_id(inv, call->id);
    rtcall_in_flight(inv, var, 1);
    return call;
}

/* Starts the call of a request routed to var; returns it, or NULL when answered. */
static struct rtcall *rtcall_open(struct invoke *inv, void *owner, struct fleet_variant *var,
                                  const struct http_head *h, const char *body, size_t len) {
    const struct model_profile *p = &var->profile;
    int fault = fault_pick(p->faults, &var->faults);
    if (fault != FAULT_NONE) {
        var->counts.faults[fault]++;
        var->ep->counts.faults[fault]++;
    }
    if (fault == FAULT_THROTTLE || fault == FAULT_UNAVAILABLE || fault == FAULT_INTERNAL ||
        fault == FAULT_LOSE) {
        rtcall_fault_refuse(inv, owner, var, h, body, len, fault);
        return NULL;
    }
    struct rtcall *call = rtcall_new(inv, owner, var, fault);
    if (!call) return NULL;
    if (rtcall_prepare(call, h, body, len)) {
        rtcall_model_error(call, 500, "out of memory", 13);
        return NULL;
    }
    if (model_is_instant(p) && call->fault != FAULT_SLOW) {
        if (call->streaming && !call->container_status)
            return rtcall_stream_all(call) ? NULL : call;
        rtcall_done(call);
        return NULL;
    }
    if (inv->max_duration > 0)
        rtcall_timer(call, &call->limit_ev, &call->limit_due, inv->max_duration, rtcall_limit_cb);
    double u = 2 * splitmix_unit(&var->rng) - 1, overhead = p->overhead_s * (1 + p->jitter * u);
    /* a client's own cost comes first, and is not SageMaker's time (CloudWatch's) */
    call->begun_at += p->client_s;
    call->client_s = p->client_s;
    call->ready_at = call->begun_at + overhead; /* its start, the client's cost waited */
    call->overhead = overhead;
    rtcall_timer(call, &call->stage_ev, &call->stage_due, p->client_s + overhead,
                 rtcall_overhead_cb);
    return call;
}

/* --- routing --- */

/* Answers GET /emulator/stats and /ping; false for any other request. */
static bool rtcall_unsigned(struct invoke *inv, void *owner, const struct http_head *h) {
    if (http_is(h, "GET", "/emulator/stats")) {
        invoke_stats(inv, owner);
        return true;
    }
    inv->totals.requests++;
    invoke_begin(inv, h);
    if (!http_is(h, "GET", "/ping") && !http_is(h, "POST", "/ping")) return false;
    invoke_ping(inv, owner);
    return true;
}

struct rtcall *rtcall_request(struct invoke *inv, void *owner, const struct http_head *h,
                              const char *body, size_t len) {
    struct rtpath path;
    if (rtcall_unsigned(inv, owner, h)) return NULL;
    bool routed = h->method_len == 4 && memcmp(h->method, "POST", 4) == 0 &&
                  rtpath_parse(h->target, h->target_len, &path);
    inv->cur.api = routed ? path.api : RTPATH_NONE;
    /* the clock the log shows: time() may lag it by a tick, which would let a key
     * expiring at second T sign a request logged at T.001 */
    struct admit_request ar = {h,
                               body,
                               len,
                               routed ? &path : NULL,
                               (time_t)inv->cur.received,
                               inv->account,
                               inv->ics,
                               inv->ic_region ? inv->ic_region : inv->region,
                               inv->cwmetrics,
                               inv->cur.received};
    struct admit_refusal no;
    admit_refusal_init(&no);
    struct fleet_variant *var = admit_request(&inv->auth, inv->fleet, &ar, &inv->rng, &no);
    if (!var)
        invoke_fail_logged(inv, owner, no.ep, NULL, no.status, no.type, no.code, no.message, NULL);
    admit_refusal_free(&no);
    if (var && var->host && !var->step_ev && rtcall_instance(inv, var)) { /* a copy's first call */
        invoke_fail(inv, owner, var->ep, var, 500, "InternalFailure", "out of memory");
        return NULL;
    }
    return var ? rtcall_open(inv, owner, var, h, body, len) : NULL;
}

/* --- start and stop --- */

static void rtcall_log_cb(evutil_socket_t fd, short what, void *arg) {
    struct invoke *inv = arg;
    (void)fd;
    (void)what;
    fleet_log_metrics(inv->fleet, reqlog_now(), inv->log_interval);
}

int rtcall_instance(struct invoke *inv, struct fleet_variant *var) {
    var->runner = inv;
    var->step_ev = evtimer_new(inv->base, rtcall_step_cb, var);
    if (!var->step_ev || batch_start_cache(&var->batch)) return RTCALL_ERR_NOMEM;
    return RTCALL_OK;
}

int rtcall_start(struct invoke *inv) {
    bool any_log = false;
    fleet_start_billing(inv->fleet, mclock_real() * inv->time_scale);
    for (size_t e = 0; e < inv->fleet->n_eps; e++) {
        for (size_t i = 0; i < inv->fleet->eps[e].n_variants; i++) {
            struct fleet_variant *var = &inv->fleet->eps[e].variants[i];
            if (var->state == FLEET_SPARE) {
                var->runner = inv;
                continue;
            }
            if (rtcall_instance(inv, var)) return RTCALL_ERR_NOMEM;
            const char *ep = inv->fleet->eps[e].name;
            if (inv->cwlogs) vlog_attach(&var->log, inv->cwlogs, ep, var->name);
            if (inv->cwmetrics && var->instance == 0 &&
                cwmetric_start(inv->cwmetrics, ep, var->name, reqlog_now()))
                return RTCALL_ERR_NOMEM;
            vlog_startup(&var->log, &var->profile, reqlog_now());
            any_log = any_log || var->log.f || var->log.cw;
        }
    }
    if (!any_log || inv->log_interval <= 0) return RTCALL_OK;
    double real = inv->log_interval / inv->time_scale;
    struct timeval tv = {(time_t)real, (suseconds_t)((real - (double)(time_t)real) * 1e6)};
    inv->log_ev = event_new(inv->base, -1, EV_PERSIST, rtcall_log_cb, inv);
    return inv->log_ev && event_add(inv->log_ev, &tv) == 0 ? RTCALL_OK : RTCALL_ERR_NOMEM;
}

/* Frees the step timers of ep's components' copies (made at their first call). */
static void rtcall_stop_copies(struct fleet_endpoint *ep) {
    for (size_t i = 0; i < ep->n_copies; i++)
        for (unsigned k = 0; k < FLEET_COPIES_MAX; k++) {
            struct fleet_variant *v = &ep->copies[i].entries[k];
            if (v->step_ev) event_free(v->step_ev);
            v->step_ev = NULL;
        }
}

void rtcall_stop(struct invoke *inv) {
    if (inv->log_ev) event_free(inv->log_ev);
    inv->log_ev = NULL;
    for (size_t e = 0; inv->fleet && e < inv->fleet->n_eps; e++) {
        for (size_t i = 0; i < inv->fleet->eps[e].n_variants; i++) {
            struct fleet_variant *var = &inv->fleet->eps[e].variants[i];
            if (var->step_ev) event_free(var->step_ev);
            var->step_ev = NULL;
        }
        rtcall_stop_copies(&inv->fleet->eps[e]);
    }
}
