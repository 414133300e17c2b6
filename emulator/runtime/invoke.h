/* invoke: SageMaker Runtime behind sm-emulator's HTTP layer, its state (the
 * fleet, the keys, the settings, the counts, the request log) and what its
 * front door says and counts: request ids, whole replies, request-log lines,
 * the counts (the tallies, the request log and CloudWatch's metrics),
 * SageMaker's errors, the statistics document, /ping, a request lost
 * unanswered, and the refusals of the HTTP layer. The calls themselves (the
 * container, the batch's clock, streams) are rtcall.h's, above this.
 *
 * Replies leave through the one function invoke was handed, send, with the
 * connection the request came on (owner, opaque here). All times inside are
 * model seconds unless named *_real. */
#ifndef EMU_INVOKE_H
#define EMU_INVOKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth.h"
#include "cwlog.h"
#include "cwmetric.h"
#include "cpic.h"
#include "fleet.h"
#include "gate.h"
#include "http.h"
#include "reqlog.h"
#include "rtpath.h"
#include "tally.h"

struct event_base; /* libevent's */
struct event;

#define INVOKE_AKID_MAX 128
#define INVOKE_ID_LEN   40 /* an x-amzn-RequestId and its NUL */

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

/* Whether the connection owner has more unsent output than it holds: a
 * streamed reply's next steps are then made only once it drained. */
typedef bool invoke_full_fn(void *owner);

struct invoke {
    struct event_base *base; /* not owned */
    struct fleet *fleet;     /* the endpoints; not owned */
    const struct gate *gate; /* the HTTP layer's connection counts, for the stats; may be NULL */
    invoke_send_fn *send;    /* how replies leave */
    invoke_full_fn *full;    /* whether the client's unsent output is over its bound (NULL: never):
                                a stream's steps then wait, owed, until rtcall_drained */
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
    struct cwlog *cwlogs;         /* CloudWatch Logs: every container line, or NULL (borrowed) */
    struct cwmetric *cwmetrics;   /* CloudWatch metrics: every request's end, or NULL (borrowed) */
    struct fleet_more stats_more; /* the stats' endpoints beyond fleet's ({NULL}: none) */
    struct cpic *ics;             /* the control plane's inference components, or NULL (borrowed) */
    const char *ic_region;        /* the region of the components it serves (borrowed) */
};

/* What the container's answer to a call took, for CloudWatch's latencies. */
struct invoke_timing {
    double total;    /* model seconds from its arrival to its end */
    double overhead; /* of which the fixed overhead */
    bool failed;     /* it ended in a model error (a stream's exception) */
};

/* A new x-amzn-RequestId (a UUID from inv's seeded generator). */
void invoke_new_id(struct invoke *inv, char out[INVOKE_ID_LEN]);

/* A whole reply (Content-Length), application/json. */
struct invoke_reply invoke_whole(int status, const char *type, const char *variant, const char *id,
                                 const char *body, size_t len, enum invoke_mode mode);

/* A request-log line for a request of origin o answered status (0: closed first). */
struct reqlog_entry invoke_entry(const struct invoke_origin *o, const char *id, int status);

/* Counts the end of request e (its reply, or e->status 0: its connection closed
 * first) for the totals, ep and var (either may be NULL), CloudWatch (timing:
 * the container's, or NULL when it did not answer), and logs it. */
void invoke_count(struct invoke *inv, struct fleet_endpoint *ep, struct fleet_variant *var,
                  struct reqlog_entry *e, const struct invoke_timing *timing);

/* Starts inv->cur, the origin of the request about to be handled (received now;
 * h: its head, for the key id, or NULL). */
void invoke_begin(struct invoke *inv, const struct http_head *h);

/* Sends a SageMaker error: {"message": ...} with x-amzn-ErrorType (type may be
 * NULL), or on the OpenAI route the OpenAI envelope (code: its code, NULL: from
 * type). log: the request's log line so far (NULL: a new one). */
void invoke_fail_logged(struct invoke *inv, void *owner, struct fleet_endpoint *ep,
                        struct fleet_variant *var, int status, const char *type, const char *code,
                        const char *message, struct reqlog_entry *log);

/* The same without a code or a log line so far. */
void invoke_fail(struct invoke *inv, void *owner, struct fleet_endpoint *ep,
                 struct fleet_variant *var, int status, const char *type, const char *message);

/* Answers GET /emulator/stats. */
void invoke_stats(struct invoke *inv, void *owner);

/* Loses a request of var (its log line e so far): the front end counts it, the
 * container never sees it, and the connection closes with nothing sent. */
void invoke_lose(struct invoke *inv, void *owner, struct fleet_variant *var,
                 struct reqlog_entry *e);

/* Answers /ping (200, empty), counted and logged. */
void invoke_ping(struct invoke *inv, void *owner);

/* Answers (through send, on owner) and counts a request the HTTP layer refuses. */
void invoke_refuse(struct invoke *inv, void *owner, enum invoke_refusal why);

#endif
