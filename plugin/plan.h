/* plan: a scenario's whole plan in C, made once per client thread from what the
 * scenario describes: the rounds, each a list of items (or one template sent
 * again and again), every item with its body (built once per distinct prompt
 * and parameters), its signed request (one per side and body), its call (what
 * its record holds besides the reply) and its compiled quiz pattern.
 *
 *   queue (decode, quiz):  plan_add_round(p, -1, 0), then its items
 *   batch (sweep):         plan_add_round(p, 1, 0), then one item per thread
 *   steady (sweep):        plan_add_round(p, -1, D), then its one template item
 *   open loop:             plan_add_open_round(p, arrivals), then its items, sent
 *                          in turn at the arrivals' times (item i % n for arrival i)
 *   replay (trace.h):      plan_add_timed_round(p, times, n), then its items
 *
 * The schedule the run hands out (rounds.h) is plan_schedule's; an item it
 * hands out is plan_entry(round, index). Not thread-safe: a plan belongs to
 * one client thread, which signs its requests (sreq.h); except a shared plan
 * (plan_request.shared: a replay's), made once per process and then only
 * read, whose entries each have requests of their own: the run hands an item
 * to one sender, which alone signs it. */
#ifndef SM_PLAN_H
#define SM_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "arrivals.h"
#include "buf.h"
#include "call.h"
#include "conv.h"
#include "rounds.h"
#include "sreq.h"

enum plan_error {
    PLAN_OK = 0,
    PLAN_ERR_NOMEM = -1,
    PLAN_ERR_INPUT = -2, /* err says what (a bad pattern, a field the format cannot take) */
};

/* How requests reach the endpoint. */
enum plan_route {
    PLAN_ROUTE_INVOKE = 0,   /* InvokeEndpoint: POST /endpoints/NAME/invocations */
    PLAN_ROUTE_STREAM,       /* InvokeEndpointWithResponseStream: .../invocations-response-stream,
                                a streamed body, the reply an event stream */
    PLAN_ROUTE_OPENAI,       /* the OpenAI-compatible route: .../openai/v1/chat/completions, a
                                streamed vLLM chat body, the reply Server-Sent Events */
    PLAN_ROUTE_OPENAI_WHOLE, /* the same route unstreamed (wrk, which cannot stream): a vLLM
                                chat body without "stream", the reply one chat completion */
};

/* What every request of the run shares. The strings are copied. */
struct plan_request {
    enum plan_route route;
    const char *host;       /* the Host header */
    const char *region;     /* to sign for */
    const char *service;    /* "sagemaker" */
    const char *user_agent; /* NULL: none */
    const char *format;     /* the body format (body.h) */
    const char *raw_body;   /* format "raw": the whole body */
    const char *extra;      /* NULL or a JSON object text: more body fields */
    long min_tokens;        /* < 0: not sent */
    bool has_seed;
    long seed;
    const char *custom_attributes; /* NULL: no X-Amzn-SageMaker-Custom-Attributes */
    const char *bearer;            /* the OpenAI route: Authorization: Bearer, not SigV4 */
    const char *thinking; /* "on", "off" (vllm-chat's chat_template_kwargs.enable_thinking),
                           * or NULL / "default": not sent */
    bool shared;          /* one plan for every sender of the process (run_share_plan): every item
                           * gets requests of its own, so that no two senders sign one sreq */
};

/* A side of the run: an endpoint (with a variant or inference component); its
 * records go to the result file of the same index. */
struct plan_side {
    const char *name;
    const char *variant;   /* NULL: none */
    const char *component; /* NULL: none */
};

/* One item. The strings are copied. */
struct plan_item {
    size_t side;          /* index into the plan's sides */
    const char *phase;    /* the record's phase */
    long batch;           /* the record's batch */
    const char *question; /* quiz: the question's id, else NULL */
    const char *kind;     /* quiz: the question's kind, else NULL */
    const char *answer;   /* quiz: the expected answer, else NULL */
    const char *pattern;  /* quiz: the pattern the stripped reply is searched with */
    const char *prompt;
    const char *body;         /* or NULL: the whole body, sent byte for byte (a replayed capture) */
    const char *content_type; /* NULL: application/json; else the Content-Type sent (with body) */
    const cJSON *messages;    /* or a conversation (body.h), copied */
    long max_tokens;          /* < 0: not sent */
    long expect_tokens;       /* >= 0: a reply of another length fails */
    bool has_temperature;
    double temperature;
    bool ignore_eos;
    /* A conversation (conv.h) when n_turns > 0: the user prompt of each turn
     * (prompt is ignored), the think time after each turn's reply but the
     * last's (n_turns - 1 of them) and whether it holds a sticky session.
     * vllm-chat only; a session not on the OpenAI route. */
    const char *const *turns;
    size_t n_turns;
    const double *think_s;
    bool session;
};

struct plan;
struct plan_entry; /* an item made ready: its request and call */

/* A plan for the sides of request (both copied). */
__attribute__((warn_unused_result)) int plan_new(const struct plan_request *request,
                                                 const struct plan_side *sides, size_t n_sides,
                                                 struct plan **out, struct buf *err);
void plan_free(struct plan *p);

/* Starts a round: per_thread (> 0: at most this many items per thread, -1: no
 * limit) and duration_s (> 0: a steady round of its one template item). */
__attribute__((warn_unused_result)) int plan_add_round(struct plan *p, long per_thread,
                                                       double duration_s);
/* Starts an open-loop round whose arrivals are drawn from a (arrivals.h); err
 * says what is wrong with a. */
__attribute__((warn_unused_result)) int
plan_add_open_round(struct plan *p, const struct arrivals_spec *a, struct buf *err);
/* Starts an open-loop round whose n arrivals are the given start times in
 * microseconds from the round's start (copied; non-decreasing, >= 0). */
__attribute__((warn_unused_result)) int plan_add_timed_round(struct plan *p, const long long *at,
                                                             long n, struct buf *err);
/* Adds an item to the last round (a steady round takes one); err says what is wrong. */
__attribute__((warn_unused_result)) int plan_add_item(struct plan *p, const struct plan_item *item,
                                                      struct buf *err);

/* The schedule of the rounds (rounds.h): n rounds into out (room for plan_n_rounds). */
size_t plan_n_rounds(const struct plan *p);
void plan_schedule(const struct plan *p, struct rounds_round *out);

/* The entry the schedule hands out as (round, index), or NULL when there is none. */
const struct plan_entry *plan_entry(const struct plan *p, size_t round, long index);
/* The entry's number in the order items were added (0-based). */
size_t plan_entry_number(const struct plan *p, const struct plan_entry *e);
/* Its signed request (shared by the entries of one side and body) and call; plain:
 * the one without stream_options.continuous_usage_stats (for a container that
 * refuses it; the same request when the body has none). */
struct sreq *plan_entry_request(const struct plan_entry *e, bool plain);
const struct call *plan_entry_call(const struct plan_entry *e);
/* Whether the plan was made shared (plan_request.shared). */
bool plan_shared(const struct plan *p);
/* The number of distinct requests, and the one of an entry (0-based), for callers
 * that keep something per request. */
size_t plan_n_requests(const struct plan *p);
/* The conversation of an entry (owned by the plan), or NULL for a single request. */
const struct conv_spec *plan_entry_conv(const struct plan_entry *e);

/* A conversation's step (conv.h) as a new signed request of e's side into *out
 * (the caller's: sreq_free): a turn with messages on the plan's route, or the
 * session's NEW_SESSION or CLOSE call (always InvokeEndpoint); with a session
 * id (or CONV_NEW_SESSION), the X-Amzn-SageMaker-Session-Id header; plain: without
 * stream_options.continuous_usage_stats. */
__attribute__((warn_unused_result)) int
plan_conv_request(const struct plan *p, const struct plan_entry *e, enum conv_kind kind,
                  const cJSON *messages, const char *session, bool plain, struct sreq **out,
                  struct buf *err);
size_t plan_request_number(const struct plan *p, const struct plan_entry *e);

#endif
