#include "disp.h"

#include <stdlib.h>
#include <string.h>

#include "run.h"

struct disp {
    struct disp_config c;
    bool verified;                 /* the verification call is behind (or never comes) */
    const struct plan_entry *next; /* what disp_next gave, until disp_sent */
    bool next_retried;             /* it is the retry after a signing-time refusal */
    long long next_due;            /* its intended start (open loop), or -1 */
    const struct plan_entry *sent; /* on the wire */
    bool sent_retried;
    long long sent_t, sent_wall, sent_due;
    const struct plan_entry *retry; /* to send again, signed with the server's clock */
    long long retry_due;
    bool interim;       /* the entry on the wire got a 1xx reply */
    int fillers_ahead;  /* replies of fillers due before the next entry's reply */
    int fillers_behind; /* replies of fillers sent after the entry on the wire */
    /* The conversation under way (conv.h) and its entry */
    struct conv conv;
    const struct plan_entry *conv_e;
    bool conv_open_loop;   /* it started at an arrival: its turns' records say when they were due */
    struct sreq *conv_req; /* the request of its step about to leave or on the wire */
    bool next_conv, sent_conv;
    enum conv_kind next_kind, sent_kind;
};

int disp_new(const struct disp_config *c, struct disp **out) {
    struct disp *d = calloc(1, sizeof *d);
    *out = d;
    if (!d) return -1;
    d->c = *c;
    d->verified = !c->verification;
    d->next_due = d->sent_due = d->retry_due = -1;
    d->conv.kind = CONV_DONE;
    return 0;
}

void disp_free(struct disp *d) {
    if (!d) return;
    conv_clear(&d->conv);
    sreq_free(d->conv_req);
    free(d);
}

void disp_abort(const char *what, const char *why) {
    struct buf reason;
    buf_init(&reason, 1100);
    (void)!buf_addf(&reason, "%s: %.*s", what, (int)strcspn(why, "\n"), why);
    run_abort(reason.len ? buf_str(&reason) : what);
    buf_free(&reason);
}

/* The next item from the run: waits at barriers, and for an open-loop item's
 * time, when blocking. */
static int disp_from_run(struct disp *d, const struct plan_entry **out) {
    size_t round;
    long index;
    int rc;
    for (;;) {
        unsigned long gen = run_generation();
        rc = run_next(d->c.thread, &round, &index, &d->next_due);
        if (rc != RUN_WAIT || !d->c.block) break;
        run_wait(gen);
    }
    if (rc == RUN_WAIT) return DISP_WAIT;
    if (rc == RUN_NONE) return DISP_NONE;
    if (rc != RUN_ITEM || (d->c.block && disp_due(d) >= 0 && !run_wait_until(disp_due(d))))
        return DISP_END;
    *out = plan_entry(d->c.plan, round, index);
    if (*out) return DISP_SEND;
    disp_abort("internal error", "the schedule holds an item the plan has not");
    return DISP_END;
}

/* The request of the conversation's current step, into d->conv_req. */
static int disp_conv_request(struct disp *d) {
    sreq_free(d->conv_req);
    d->conv_req = NULL;
    cJSON *m = d->conv.kind == CONV_TURN ? conv_messages(&d->conv) : NULL;
    const char *sid = !d->conv.spec->session      ? NULL
                      : d->conv.kind == CONV_OPEN ? CONV_NEW_SESSION
                                                  : d->conv.id;
    struct buf err;
    buf_init(&err, 512);
    int rc = d->conv.kind == CONV_TURN && !m
                 ? buf_fail(&err, -1, "out of memory")
                 : plan_conv_request(d->c.plan, d->conv_e, d->conv.kind, m, sid, run_plain_usage(),
                                     &d->conv_req, &err);
    cJSON_Delete(m);
    if (rc)
        disp_abort("cannot make a conversation's request",
                   err.len ? buf_str(&err) : "out of memory");
    buf_free(&err);
    return rc;
}

/* The conversation's next step (waiting for it when blocking). */
static int disp_conv_next(struct disp *d, const struct plan_entry **out) {
    *out = d->conv_e;
    d->next_due = d->conv.due_us;
    if (d->c.block && disp_due(d) >= 0 && !run_wait_until(disp_due(d))) return DISP_END;
    return DISP_SEND;
}

int disp_next(struct disp *d, bool on_main_thread, const struct plan_entry **out) {
    *out = NULL;
    if (!d->verified) {
        d->verified = true;
        if (on_main_thread) return DISP_VERIFY;
    }
    if (d->interim) { /* the entry's own reply comes next: the filler goes out behind it */
        d->interim = false;
        d->fillers_behind++;
        return DISP_FILLER;
    }
    if (d->sent) { /* asked again before the reply: the connection closed (wrk reconnects) */
        struct call_reply none = {0};
        d->fillers_ahead = 0;
        disp_finish(d, &none);
        d->fillers_ahead = d->fillers_behind = 0;
    }
    int rc = DISP_SEND;
    d->next_retried = d->retry != NULL;
    d->next_due = d->retry_due;
    if (d->retry)
        *out = d->retry;
    else if (conv_active(&d->conv))
        rc = disp_conv_next(d, out);
    else if ((rc = disp_from_run(d, out)) == DISP_SEND && plan_entry_conv(*out)) {
        d->conv_e = *out;
        d->conv_open_loop = d->next_due >= 0;
        conv_start(&d->conv, plan_entry_conv(*out), d->next_due);
    }
    d->retry = NULL;
    d->next_conv = rc == DISP_SEND && *out == d->conv_e && conv_active(&d->conv);
    d->next_kind = d->conv.kind;
    if (d->next_conv && disp_conv_request(d)) rc = DISP_END;
    d->next = *out;
    return rc;
}

void disp_sent(struct disp *d, long long t_us, long long wall_us) {
    d->sent = d->next;
    d->sent_retried = d->next_retried;
    d->next = NULL;
    d->sent_t = t_us;
    d->sent_wall = wall_us;
    d->sent_due = d->next_due;
    d->sent_conv = d->next_conv;
    d->sent_kind = d->next_kind;
}

struct sreq *disp_request(const struct disp *d, const struct plan_entry *e) {
    return d->next_conv && e == d->conv_e ? d->conv_req : plan_entry_request(e, run_plain_usage());
}

bool disp_dynamic(const struct disp *d) {
    return d->next_conv;
}

bool disp_control(const struct disp *d) {
    bool conv = d->sent ? d->sent_conv : d->next_conv;
    enum conv_kind k = d->sent ? d->sent_kind : d->next_kind;
    return conv && (k == CONV_OPEN || k == CONV_CLOSE);
}

bool disp_wants_text(const struct disp *d) {
    return (d->sent ? d->sent_conv : d->next_conv) &&
           (d->sent ? d->sent_kind : d->next_kind) == CONV_TURN;
}

long long disp_due(const struct disp *d) {
    long long start = run_start_us();
    return d->next_due > start ? d->next_due : start;
}

bool disp_timed(const struct disp *d) {
    return d->next_due >= 0;
}

bool disp_busy(const struct disp *d) {
    return d->sent != NULL || d->fillers_ahead > 0;
}

void disp_interim(struct disp *d) {
    if (d->sent && !d->fillers_ahead) d->interim = true;
}

/* Records rec (or stops the run, saying why, when it cannot). */
static void disp_record(const struct plan_entry *e, const struct rec_record *rec, bool retry) {
    struct buf err;
    buf_init(&err, 1024);
    int rc = run_record(call_file(plan_entry_call(e)), rec, retry, &err);
    if (rc)
        disp_abort("cannot record", rc == RUN_ERR_STATE ? "the run has not begun"
                                    : err.len           ? buf_str(&err)
                                                        : "out of memory");
    buf_free(&err);
}

/* The scenario's check on r, then the record as it left it is recorded. */
static void disp_check(struct disp *d, const struct plan_entry *e, const struct call_result *r) {
    struct rec_record rec = r->rec;
    struct buf err;
    buf_init(&err, 1024);
    size_t number = plan_entry_number(d->c.plan, e);
    if (d->c.check(d->c.check_ud, number, r, &rec, &err) == 0)
        disp_record(e, &rec, r->retry);
    else
        disp_abort("scenario error", err.len ? buf_str(&err) : "the check failed");
    buf_free(&err);
}

/* A session's own call that failed: recorded, so the failure is counted. */
static void disp_conv_failed(const struct plan_entry *e, struct call_result *r, const char *code,
                             const char *why, const char *session) {
    r->rec.ok = false;
    if (!r->rec.error_message || r->rec.status == 200) r->rec.error_message = why;
    r->rec.error_code = code;
    r->rec.session = session;
    disp_record(e, &r->rec, false);
}

/* What came back for the conversation's step kind (not a retry): recorded
 * as a turn, or as a failed session call, and the conversation moved on. */
static void disp_conv_finish(struct disp *d, const struct plan_entry *e, enum conv_kind kind,
                             const struct call_reply *in, struct call_result *r) {
    long long now = run_now_us();
    if (kind == CONV_OPEN) {
        int rc = conv_opened(&d->conv, in->status == 200, in->new_session,
                             in->new_session ? strlen(in->new_session) : 0);
        if (rc)
            disp_conv_failed(e, r, "session_not_created",
                             in->status == 200 ? "NEW_SESSION: the reply named no valid session "
                                                 "id (X-Amzn-SageMaker-New-Session-Id)"
                                               : "NEW_SESSION refused",
                             NULL);
        return;
    }
    if (kind == CONV_CLOSE) {
        if (in->status != 200)
            disp_conv_failed(e, r, "session_not_closed", "CLOSE refused", d->conv.id);
        conv_closed(&d->conv);
        return;
    }
    r->rec.turn = (int)d->conv.turn;
    r->rec.session = d->conv.id[0] ? d->conv.id : NULL;
    bool ok = r->rec.ok;
    if (d->c.check)
        disp_check(d, e, r);
    else
        disp_record(e, &r->rec, false);
    if (conv_replied(&d->conv, ok, r->reply.text, now)) {
        disp_abort("cannot record", "out of memory");
        conv_closed(&d->conv);
    }
}

void disp_finish(struct disp *d, struct call_reply *in) {
    const struct plan_entry *e = d->sent;
    if (d->fillers_ahead > 0 && in->status) { /* a filler's reply */
        d->fillers_ahead--;
        return;
    }
    if (!e) return;
    d->sent = NULL;
    d->interim = false;
    d->fillers_ahead += d->fillers_behind;
    d->fillers_behind = 0;
    in->thread = d->c.thread;
    in->t_start_us = d->sent_t;
    in->t_end_us = run_now_us();
    in->wall_start_us = d->sent_wall;
    bool conv = d->sent_conv;
    enum conv_kind kind = d->sent_kind;
    in->t_due_us = conv && !d->conv_open_loop ? -1 : d->sent_due;
    in->retried = d->sent_retried;
    in->want_text = in->want_text || d->c.want_text || (conv && kind == CONV_TURN);
    in->now = time(NULL);
    struct call_result r;
    call_result_init(&r);
    if (call_finish(plan_entry_call(e), in, &r)) {
        disp_abort("cannot record", "out of memory");
        return;
    }
    if (r.retry && r.plain_usage) { /* the container refused per-chunk usage: never again */
        run_set_plain_usage();
        d->retry = e;
        d->retry_due = d->sent_due;
    } else if (r.retry) {
        run_set_skew(r.skew_offset);
        d->retry = e;
        d->retry_due = d->sent_due;
    }
    if (conv && !r.retry && conv_active(&d->conv))
        disp_conv_finish(d, e, kind, in, &r);
    else if (d->c.check)
        disp_check(d, e, &r);
    else
        disp_record(e, &r.rec, r.retry);
    call_result_clear(&r);
}
