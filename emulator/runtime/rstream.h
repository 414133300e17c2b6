/* rstream: a streamed reply as SageMaker sends it on, one decode step at a
 * time: the container's events (cstream.h), framed for the route, and the
 * stream faults. Pure: no I/O, no clock (the caller times the steps).
 *
 * Wires:
 * - RSTREAM_EVENTSTREAM (InvokeEndpointWithResponseStream): each event is the
 *   payload of one PayloadPart message (evs_encode_payload_part), or, with
 *   split N, a step's bytes are cut every N bytes (inside lines, JSON strings
 *   and UTF-8 characters) into PayloadParts. An error ends the stream with an
 *   exception message (evs_encode_exception): ModelStreamError with ErrorCode
 *   StreamBroken or ModelInvocationTimeExceeded, or InternalStreamFailure.
 * - RSTREAM_PLAIN (the OpenAI-compatible route, and a streamed body sent to
 *   /invocations): the container's bytes as they are; an error ends the
 *   stream with the OpenAI error event data: {"error":{"message","type":
 *   "server_error","param":null,"code"}} (code: the ErrorCode, or the
 *   exception's type, in snake case).
 *
 * Faults strike at step fault_at = (steps - 1) / 2, the middle of the reply:
 * stream_error and stream_failure send their exception instead of that step's
 * token and end; stream_cut and drop send the first half of the step's first
 * frame (event-stream message, or SSE event) and want the connection closed;
 * truncate ends the body cleanly there, without the step; stream_crc spoils
 * the CRC of the step's first message (event stream only; nothing on the plain
 * wire); stream_stall sends the step and asks the caller to hold what follows
 * (nothing when the step is the last). */
#ifndef EMU_RSTREAM_H
#define EMU_RSTREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "cont.h"
#include "cstream.h"

enum rstream_wire { RSTREAM_EVENTSTREAM, RSTREAM_PLAIN };

/* What follows the bytes of a step. */
enum rstream_next {
    RSTREAM_MORE,  /* more steps */
    RSTREAM_END,   /* the reply is complete: end the body */
    RSTREAM_CUT,   /* close the connection: the bytes end inside a frame */
    RSTREAM_STALL, /* more steps, held back for the stall first */
};

/* The errors that end a stream. */
enum rstream_exception {
    RSTREAM_STREAM_BROKEN,    /* ModelStreamError, ErrorCode StreamBroken */
    RSTREAM_TIME_EXCEEDED,    /* ModelStreamError, ErrorCode ModelInvocationTimeExceeded */
    RSTREAM_INTERNAL_FAILURE, /* InternalStreamFailure */
};

struct rstream {
    struct cstream cs;
    enum rstream_wire wire;
    size_t split; /* bytes per PayloadPart; 0: one per event */
    int fault;    /* the fault kind (fault.h) that strikes, or FAULT_NONE */
    size_t fault_at;
    struct buf step; /* the container's bytes of the step being framed */
};

/* What one step gave. */
struct rstream_step {
    enum rstream_next next;
    bool token; /* the bytes carry the step's token whole */
};

enum rstream_error { RSTREAM_OK = 0, RSTREAM_ERR_NOMEM = -1 };

/* Starts a reply of answer a to request r (both stay the caller's). fault:
 * FAULT_NONE, a stream kind, FAULT_DROP or FAULT_TRUNCATE (others do nothing). */
void rstream_init(struct rstream *s, const struct cont_request *r, const struct cont_answer *a,
                  const struct cont_meta *m, enum rstream_wire wire, size_t split, int fault);
void rstream_free(struct rstream *s);

/* The container's content type (X-Amzn-SageMaker-Content-Type, or the plain
 * reply's Content-Type). */
const char *rstream_content_type(const struct rstream *s);

/* Whether every step has been given. */
bool rstream_done(const struct rstream *s);

/* Appends the bytes that leave at the end of the next decode step (requires
 * !rstream_done) and says what follows. Returns 0 or RSTREAM_ERR_NOMEM. */
__attribute__((warn_unused_result)) int rstream_next(struct rstream *s, struct buf *out,
                                                     struct rstream_step *st);

/* Appends the error that ends the stream. Returns 0 or RSTREAM_ERR_NOMEM. */
__attribute__((warn_unused_result)) int rstream_error(enum rstream_wire wire,
                                                      enum rstream_exception e, struct buf *out);

/* Appends a whole reply body (a container that did not stream) as the wire
 * carries it: PayloadParts, or as it is. Returns 0 or RSTREAM_ERR_NOMEM. */
__attribute__((warn_unused_result)) int
rstream_whole(enum rstream_wire wire, size_t split, const char *body, size_t len, struct buf *out);

#endif
