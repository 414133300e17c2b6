/* trace: a production trace read into one arrival schedule, for replay at its
 * recorded times. Four formats, told apart by their first line:
 *
 *   Mooncake JSONL      {"timestamp": MS, "input_length": N, "output_length": N,
 *                        "hash_ids": [ID, ...]}  (each id names a block of
 *                        TRACE_BLOCK tokens; equal ids = a shared prefix)
 *   Azure LLM inference CSV with TIMESTAMP (date and time), ContextTokens,
 *                        GeneratedTokens
 *   BurstGPT            CSV with Timestamp (seconds), Request tokens,
 *                        Response tokens (Model, Total tokens, Log Type, ...)
 *   SageMaker Data      JSONL of {"captureData": {"endpointInput": {"data": TEXT,
 *   Capture              "encoding": "JSON"|"CSV"|"BASE64", ...}}, "eventMetadata":
 *                        {"inferenceTime": "YYYY-MM-DDTHH:MM:SS[.frac]Z"}}: the body
 *                        as it was sent (BASE64 decoded), with its
 *                        endpointInput.observedContentType when captured (at most
 *                        TRACE_MAX_CONTENT_TYPE bytes of printable ASCII)
 *
 * Unknown fields and columns are ignored; a line that lacks a field or holds
 * a value out of range fails the whole read with "NAME:LINE: what", so a run
 * never starts half-replayed. A request's trace time is its timestamp minus
 * the earliest one of the file (requests are kept in time order, ties in file
 * order); the window keeps from_us <= t < to_us, the cap the first requests of
 * the window, and a request's intended start is (t - from_us) / speed,
 * rounded to the microsecond.
 *
 * Pure C: no clock, no randomness (what a replay draws, the words of a
 * prompt, is the caller's). */
#ifndef SM_TRACE_H
#define SM_TRACE_H

#include <stddef.h>

#include "buf.h"

#define TRACE_BLOCK            512        /* tokens per Mooncake hash id */
#define TRACE_MAX_BYTES        (1L << 30) /* the largest trace file read */
#define TRACE_MAX_LINE         16777216L  /* the longest line */
#define TRACE_MAX_CONTENT_TYPE 255        /* the longest observedContentType replayed */

enum trace_error {
    TRACE_OK = 0,
    TRACE_ERR_NOMEM = -1,
    TRACE_ERR_INPUT = -2, /* err says what and where */
};

enum trace_format {
    TRACE_MOONCAKE = 0,
    TRACE_AZURE,
    TRACE_BURSTGPT,
    TRACE_CAPTURE,
};

struct trace_req {
    long line;           /* the file's line (1-based) */
    long long t_us;      /* trace time: from the file's earliest timestamp */
    long long at_us;     /* intended start: (t_us - from_us) / speed */
    long input_tokens;   /* -1: not in the trace (Data Capture) */
    long output_tokens;  /* -1: not in the trace */
    long long *hash_ids; /* Mooncake's block ids, n_hash_ids of them */
    size_t n_hash_ids;
    char *body; /* Data Capture: the body as sent (NUL-terminated), else NULL */
    size_t body_len;
    char *content_type; /* Data Capture: observedContentType (NUL-terminated), or NULL */
};

struct trace_spec {
    double speed;      /* > 0: 2 replays twice as fast */
    long long from_us; /* the window in trace time: from_us <= t */
    long long to_us;   /* t < to_us; < 0: no end */
    long cap;          /* > 0: at most this many requests; 0: all */
};

struct trace {
    enum trace_format format;
    struct trace_req *reqs; /* n of them, in time order */
    size_t n;
    size_t n_read; /* requests in the file, before the window and the cap */
};

/* The format's name: "mooncake", "azure", "burstgpt" or "capture". */
const char *trace_format_name(enum trace_format f);

/* Reads the trace text[0..len) (name is the file's name for messages) into
 * *out (trace_free); err gets one line naming NAME:LINE and what was wrong. */
__attribute__((warn_unused_result)) int trace_parse(const char *name, const char *text, size_t len,
                                                    const struct trace_spec *s, struct trace **out,
                                                    struct buf *err);

/* trace_parse of the regular file at path. */
__attribute__((warn_unused_result)) int trace_load(const char *path, const struct trace_spec *s,
                                                   struct trace **out, struct buf *err);

void trace_free(struct trace *t);

#endif
