/* gate: admission control of sm-emulator's connections, a pure core the server
 * asks before it takes on work: how many connections may be open, how many body
 * bytes may be buffered across them, and when a failing accept() is worth a
 * line in the log. It also counts what the HTTP layer refused, for
 * GET /emulator/stats. Times are real seconds from the caller's clock. */
#ifndef EMU_GATE_H
#define EMU_GATE_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/* Connections past max_connections being answered 503 at once; past this many
 * the listener stops accepting until one closes. */
#define GATE_OVERFLOW_MAX 64
/* accept() failures less than this apart belong to one episode (one log line). */
#define GATE_EPISODE_GAP_S 10.0

struct gate_counts {
    unsigned long accepted;         /* connections accepted */
    unsigned long bad_requests;     /* malformed HTTP answered 400, 411 or 431 */
    unsigned long head_timeouts;    /* 408: a request head not complete in time */
    unsigned long body_timeouts;    /* 408: a request body not complete in time */
    unsigned long over_connections; /* 503: a connection past max_connections */
    unsigned long over_body_buffer; /* 503: a body past max_body_buffer */
    unsigned long accept_failures;  /* episodes of accept() failing (out of descriptors) */
};

struct gate {
    size_t max_connections; /* connections served at once */
    size_t max_body_buffer; /* bytes of request bodies buffered across connections */
    size_t open;            /* connections open, those being refused included */
    size_t overflow;        /* of them, those being refused */
    size_t body_buffered;   /* bytes reserved by gate_reserve */
    size_t full_outputs;    /* connections whose unsent replies are at their bound (the client
                               reads none): kept by the server */
    bool failing;           /* accept() has failed (last_failure is set) */
    double last_failure;
    struct gate_counts n;
};

enum gate_verdict {
    GATE_SERVE,  /* serve the connection */
    GATE_REFUSE, /* answer 503 and close it */
};

/* Starts with nothing open. */
void gate_init(struct gate *g, size_t max_connections, size_t max_body_buffer);

/* A connection was accepted: GATE_SERVE, or GATE_REFUSE when max_connections
 * are being served already. Either way it counts as open until gate_close. */
__attribute__((warn_unused_result)) enum gate_verdict gate_open(struct gate *g);

/* A connection closed; verdict is what gate_open said of it. */
void gate_close(struct gate *g, enum gate_verdict verdict);

/* Whether to accept connections now: false while GATE_OVERFLOW_MAX connections
 * are being refused on top of max_connections. */
bool gate_listening(const struct gate *g);

/* Reserves n bytes for a body about to be received: true, or false (nothing
 * reserved, counted in over_body_buffer) when that would pass max_body_buffer. */
__attribute__((warn_unused_result)) bool gate_reserve(struct gate *g, size_t n);

/* Gives back n reserved bytes (the body was received, or its connection closed). */
void gate_release(struct gate *g, size_t n);

/* accept() failed at now: true when this starts an episode (the failure to log),
 * i.e. the first one, or the first after GATE_EPISODE_GAP_S without one. */
__attribute__((warn_unused_result)) bool gate_accept_failed(struct gate *g, double now);

/* Appends the members "open_connections":N,"limits":{...} (no braces around
 * them, no leading comma). Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int gate_json(struct buf *out, const struct gate *g);

#endif
