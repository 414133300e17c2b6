/* disp: the dispatcher of one sender (a wrk thread, an engine connection): what
 * it sends next and what becomes of what came back. It asks the run (run.h) for
 * the next item of the plan (plan.h), sends a request the server refused for
 * its signing time once more (signed with the server's clock) before anything
 * else, and turns each reply into its record: the call makes the record
 * (call.h), the scenario's check may change it, the run records it.
 *
 * wrk calls request() once more on thread 0 from its main OS thread to verify
 * the script (the request is never sent): the first disp_next of a dispatcher
 * made with verification answers that call with DISP_VERIFY.
 *
 * A 1xx interim reply (100 Continue) is not the reply: wrk hands it to
 * response() and then asks for the next request at once. The entry stays on
 * the wire (disp_interim), the next request is the filler (DISP_FILLER), and
 * the filler's reply, which comes after the entry's, is dropped.
 *
 * An entry that is a conversation (plan_entry_conv) keeps its sender for all
 * its steps (conv.h): disp_next gives the same entry again, its step's request
 * (disp_request) made anew each time with the history and the session, due
 * after the think time. A turn's record carries its turn and session; a
 * session's NEW_SESSION and CLOSE calls are recorded only when they fail
 * (error session_not_created, session_not_closed), so the latency figures
 * hold turns alone.
 *
 * Not thread-safe: a dispatcher belongs to its sender. */
#ifndef SM_DISP_H
#define SM_DISP_H

#include <stdbool.h>
#include <stddef.h>

#include "call.h"
#include "plan.h"

enum disp_next {
    DISP_SEND = 0,   /* *out is the entry to sign and send now */
    DISP_VERIFY = 1, /* wrk's verification call: answer with anything, it is not sent */
    DISP_END = 2,    /* nothing more to send: the run is ending */
    DISP_WAIT = 3,   /* (without blocking only) nothing until the round changes */
    DISP_FILLER = 4, /* after an interim reply: send the filler, whose reply is dropped */
    DISP_NONE = 5,   /* the sender is another shard's (rounds.h): it never sends anything */
};

/* The scenario's check of a finished request: it may change the record r->rec;
 * what it leaves in *rec is recorded (its strings must live until disp_finish
 * returns). Returns 0, or -1 when the check failed (the run then stops with
 * the one-line message it left in err). */
typedef int disp_check_fn(void *ud, size_t number, const struct call_result *r,
                          struct rec_record *rec, struct buf *err);

struct disp_config {
    const struct plan *plan;
    int thread;           /* the sender's number, 0-based: the schedule's and the records' */
    bool verification;    /* wrk's thread 0: its first request() is the verification call */
    bool block;           /* disp_next waits at a round's barrier (wrk); else DISP_WAIT */
    disp_check_fn *check; /* NULL: none */
    void *check_ud;
    bool want_text; /* keep every reply's text for the check */
};

struct disp;

__attribute__((warn_unused_result)) int disp_new(const struct disp_config *c, struct disp **out);
void disp_free(struct disp *d);

/* What to send next. on_main_thread: the call comes from the process's first
 * thread (wrk's verification call does). A run that stops, or a plan and a
 * schedule that disagree (the run is stopped, saying so), give DISP_END. */
int disp_next(struct disp *d, bool on_main_thread, const struct plan_entry **out);

/* When the entry disp_next gave may leave, on run_now_us's clock: an open-loop
 * round's time, and never before the run's start time (run_set_start); -1:
 * now. A blocking dispatcher has waited for it. */
long long disp_due(const struct disp *d);

/* Whether the entry disp_next gave has an intended start (an open-loop arrival's),
 * which disp_due is. */
bool disp_timed(const struct disp *d);

/* The entry disp_next gave left at t_us (run_now_us) and wall_us. */
void disp_sent(struct disp *d, long long t_us, long long wall_us);

/* The signed request of the entry disp_next gave (its conversation step's, owned
 * by d, when it is one; else plan_entry_request's). */
struct sreq *disp_request(const struct disp *d, const struct plan_entry *e);
/* Whether that request was made for this sending alone (a conversation's step:
 * a caller must not keep its bytes for the entry). */
bool disp_dynamic(const struct disp *d);
/* Whether the request on the wire (or about to leave) is a session's own call
 * (NEW_SESSION, CLOSE): its reply is plain text on InvokeEndpoint, never a stream,
 * and the caller hands the X-Amzn-SageMaker-New-Session-Id header in. */
bool disp_control(const struct disp *d);
/* Whether the reply's text must be kept (a conversation's turn: its history). */
bool disp_wants_text(const struct disp *d);

/* Whether a reply is awaited: an entry's or a filler's. */
bool disp_busy(const struct disp *d);

/* The entry on the wire got a 1xx interim reply; its own reply is still to come. */
void disp_interim(struct disp *d);

/* What came back for the entry on the wire (in->status 0: the connection closed
 * first; the times and thread are filled in here): its record is checked and
 * recorded. Anything that goes wrong stops the run and says why. */
void disp_finish(struct disp *d, struct call_reply *in);

/* Stops the run: "what: why" (why's first line) is the reason the result files give. */
void disp_abort(const char *what, const char *why);

#endif
