/* fault: seeded fault injection, decided per request.
 *
 * Each kind has a spec: a rate (probability per request, 0 = off) or "every N"
 * (requests N, 2N, ...). The request kinds are tried in enum order on every
 * request and the first that fires wins; every kind draws its random number
 * and advances its counter on every request, so one kind's schedule does not
 * depend on the others. The stream kinds are drawn the same way, from a
 * generator and a count of their own, for streamed replies only (so adding
 * streams leaves the request kinds' schedules as they were). A request kind
 * added later (lose) draws last, from a generator of its own, for the same
 * reason: the earlier kinds' schedules stay as they were. */
#ifndef EMU_FAULT_H
#define EMU_FAULT_H

#include <stdint.h>

#include "buf.h"

enum fault_kind {
    FAULT_THROTTLE,       /* 429 ThrottlingException */
    FAULT_UNAVAILABLE,    /* 503 ServiceUnavailable */
    FAULT_INTERNAL,       /* 500 InternalFailure */
    FAULT_MODEL_ERROR,    /* 424 ModelError: the container answered 500 */
    FAULT_DROP,           /* the connection is closed in the middle of the reply body */
    FAULT_TRUNCATE,       /* a well-framed 200 whose body is cut in half */
    FAULT_SLOW,           /* the first byte of the reply waits slow_first_byte_s */
    FAULT_LOSE,           /* counted by the front end, never reaches the container: the
                             connection closes with nothing sent */
    FAULT_STREAM_ERROR,   /* a stream ends with ModelStreamError (ErrorCode StreamBroken) */
    FAULT_STREAM_FAILURE, /* a stream ends with InternalStreamFailure */
    FAULT_STREAM_STALL,   /* a stream stalls stream_stall_s between two tokens */
    FAULT_STREAM_CRC,     /* one event-stream message of a stream has a wrong CRC */
    FAULT_STREAM_CUT,     /* the connection closes in the middle of a stream's frame */
    FAULT_KINDS,
    FAULT_STREAM_FIRST = FAULT_STREAM_ERROR,
    FAULT_LATE_FIRST = FAULT_LOSE,
    FAULT_NONE = -1,
};

struct fault_spec {
    double rate;         /* 0..1 */
    unsigned long every; /* 0 = off */
};

struct fault_state {
    uint64_t rng;
    unsigned long requests; /* requests seen so far */
    uint64_t stream_rng;    /* the stream kinds' */
    uint64_t late_rng;      /* the request kinds added later (FAULT_LATE_FIRST on) */
    unsigned long streams;  /* streamed replies seen so far */
};

/* The kind's name ("throttle", "model_error", ...), or NULL out of range. */
const char *fault_name(int kind);
/* The kind named name, or FAULT_NONE. */
int fault_lookup(const char *name);

enum fault_error { FAULT_OK = 0, FAULT_ERR_INVALID = -1 };

/* Parses "0.05" (a rate) or "every:N" into spec. Returns 0, or FAULT_ERR_INVALID
 * with one line in err. */
__attribute__((warn_unused_result)) int fault_parse_spec(const char *value, struct fault_spec *spec,
                                                         struct buf *err);

/* Decides the fault of the next request: a request kind, or FAULT_NONE. */
int fault_pick(const struct fault_spec specs[FAULT_KINDS], struct fault_state *st);

/* Decides the stream fault of the next streamed reply: a stream kind, or FAULT_NONE. */
int fault_pick_stream(const struct fault_spec specs[FAULT_KINDS], struct fault_state *st);

#endif
