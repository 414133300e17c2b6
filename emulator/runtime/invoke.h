/* invoke: SageMaker Runtime behind sm-emulator's HTTP layer: the front door
 * (admit.h: authentication, routing to endpoints and variants), the container's
 * session manager (sess.h), calls timed by each variant's continuous batch and
 * prefix cache, streamed replies whose tokens leave at the end of the decode
 * step that made them (rstream.h), faults, the counts and the request log.
 *
 * The calls run one way: the HTTP layer (server.c) calls invoke_request,
 * invoke_refuse and invoke_abort; invoke answers through the one function it
 * was handed, send, with the connection the request came on (owner, opaque
 * here). All times inside are model seconds unless named *_real. */
#ifndef EMU_INVOKE_H
#define EMU_INVOKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth.h"
#include "cwlog.h"
#include "cwmetric.h"
#include "fleet.h"
#include "gate.h"
#include "http.h"
#include "reqlog.h"
#include "rtpath.h"
#include "tally.h"

struct event_base; /* libevent's */
struct event;

#define INVOKE_AKID_MAX 128

enum invoke_mode {
    INVOKE_FULL,
    INVOKE_DROP,     /* headers and half the body, then the connection is closed; a chunked
                        part: its body, then the connection is closed */
    INVOKE_TRUNCATE, /* a well-framed reply carrying half the body */
    INVOKE_CLOSE,    /* nothing: the connection is closed (after what was sent before) */
};

/* Which part of a reply a send writes: a whole reply (Content-Length), or the
 * parts of a streamed one (Transfer-Encoding: chunked; close-delimited for an
 * HTTP/1.0 client), each body written and flushed as it is handed over. */
enum invoke_part {
    INVOKE_WHOLE = 0,
    INVOKE_CHUNK_HEAD, /* the status line and headers, then body as the first chunk */
    INVOKE_CHUNK,      /* body as the next chunk */
    INVOKE_CHUNK_END,  /* body as the last chunk, then the end of the reply */
    INVOKE_CHUNK_ALL,  /* head, body and end in one */
};

/* The emulator's own header (README, "Service time"): a call's model time. */
#define INVOKE_SERVICE_HEADER "x-sm-emulator-service-us"

/* A reply for the HTTP layer to write. Strings are valid during the send call. */
struct invoke_reply {
    int status;
    const char *error_type;   /* x-amzn-ErrorType code, or NULL */
    const char *variant;      /* x-Amzn-Invoked-Production-Variant, or NULL */
    const char *content_type; /* NULL: application/json */
    const char *request_id;   /* x-amzn-RequestId */
    const char *body;
    size_t body_len;
    enum invoke_mode mode;
    enum invoke_part part;
    const char *sm_content_type; /* X-Amzn-SageMaker-Content-Type, or NULL */
    const char *new_session;     /* X-Amzn-SageMaker-New-Session-Id, or NULL */
    const char *closed_session;  /* X-Amzn-SageMaker-Closed-Session-Id, or NULL */
    bool timed;                  /* a call's head: x-sm-emulator-service-us says service_us */
    long long service_us;        /* model microseconds from the call's start to its head leaving */
};

/* Writes r on owner, the connection a request came on (the HTTP layer's). A
 * streamed reply comes in several sends, the call alive until its last. */
typedef void invoke_send_fn(void *owner, const struct invoke_reply *r);

/* What the HTTP layer refuses before a request reaches an endpoint. */
enum invoke_refusal {
    INVOKE_BAD_REQUEST,     /* 400: malformed HTTP */
    INVOKE_TIMEOUT,         /* 408: a head or body not complete in time */
    INVOKE_LENGTH_REQUIRED, /* 411: a chunked body */
    INVOKE_TOO_LARGE,       /* 413: a body over SageMaker's 6 MB */
    INVOKE_HEAD_TOO_LARGE,  /* 431: a head over 64 KiB, or too many headers */
    INVOKE_TOO_MANY_CONNS,  /* 503: --max-connections are being served */
    INVOKE_TOO_MANY_BODIES, /* 503: --max-body-buffer is taken */
};

/* What the request log says of a request besides its reply (reqlog.h). */
struct invoke_origin {
    double arrival;                          /* wall clock its head began to arrive; 0: unknown */
    double received;                         /* wall clock, Unix seconds (authentication's too) */
    double received_real;                    /* the same moment on the monotonic clock */
    char access_key_id[INVOKE_AKID_MAX + 1]; /* from its Authorization header; "" when none */
    enum rtpath_api api;                     /* the route its path names */
};

struct invoke_call; /* a request a variant's container is answering */

/* Whether the connection owner has more unsent output than it holds: a
 * streamed reply's next steps are then made only once it drained. */
typedef bool invoke_full_fn(void *owner);

struct invoke {
    struct event_base *base; /* not owned */
    struct fleet *fleet;     /* the endpoints; not owned */
    const struct gate *gate; /* the HTTP layer's connection counts, for the stats; may be NULL */
    invoke_send_fn *send;    /* how replies leave */
    invoke_full_fn *full;    /* whether the client's unsent output is over its bound (NULL: never):
                                a stream's steps then wait, owed, until invoke_drained */
    struct auth auth;        /* the keys accepted; owned (auth_free) */
    struct reqlog reqlog;    /* owned (reqlog_close) */
    char region[64], account[32];
    double time_scale;   /* model seconds per real second */
    double max_duration; /* model seconds; 0: no limit */
    double log_interval; /* model seconds */
    size_t stream_split; /* bytes per PayloadPart of a stream; 0: one per container event */
    uint64_t rng;        /* request ids and variant draws */
    struct tally totals;
    struct invoke_origin cur; /* the request being handled (one at a time) */
    double arrival;           /* set by the HTTP layer before it hands a request in: the wall clock
                                 (reqlog_now) when its head's first bytes were read; 0: unknown */
    struct event *log_ev;
    struct cwlog *cwlogs;       /* CloudWatch Logs: every container line, or NULL (borrowed) */
    struct cwmetric *cwmetrics; /* CloudWatch metrics: every request's end, or NULL (borrowed) */
};

enum invoke_error { INVOKE_OK = 0, INVOKE_ERR_NOMEM = -1 };

/* The client of call read its output: the stream's owed steps are made and
 * handed on until its output is full again (the call may end and be freed). */
void invoke_drained(struct invoke_call *call);

/* Starts the variants' timers (steps, metrics log) once base, fleet and the
 * settings are filled. Returns 0 or INVOKE_ERR_NOMEM. */
__attribute__((warn_unused_result)) int invoke_start(struct invoke *inv);

/* Frees what invoke_start made. Calls still pending must have been aborted. */
void invoke_stop(struct invoke *inv);

/* Handles one complete request that came on owner (body[0..len) follows the
 * head). Returns NULL when it has been answered (send was called), else the
 * call that will answer it later through send; until then the HTTP layer reads
 * no further request on owner, and calls invoke_abort if owner closes first. */
__attribute__((warn_unused_result)) struct invoke_call *
invoke_request(struct invoke *inv, void *owner, const struct http_head *h, const char *body,
               size_t len);

/* Answers (through send, on owner) and counts a request the HTTP layer refuses. */
void invoke_refuse(struct invoke *inv, void *owner, enum invoke_refusal why);

/* The connection of call closed before its reply: counts it dropped, frees it. */
void invoke_abort(struct invoke_call *call);

#endif
