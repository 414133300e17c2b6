/* sstream: the streamed reply of an LLM endpoint, from HTTP body bytes to
 * chunks (struct schunk). The engine feeds each body slice as it arrives and
 * stamps the time of each chunk itself: this code has no clock and no I/O.
 *
 *   SSTREAM_BODY_EVENTSTREAM: InvokeEndpointWithResponseStream's body
 *     (application/vnd.amazon.eventstream, see evs.h). The payloads of the
 *     PayloadPart events are the container's bytes, split anywhere (inside a
 *     line, a JSON string, a UTF-8 character): they are joined back into one
 *     text stream. An exception message (":message-type" exception, e.g.
 *     ModelStreamError with ErrorCode ModelInvocationTimeExceeded or
 *     StreamBroken, InternalStreamFailure) or an error message
 *     (":message-type" error: ":error-code" is its error_type, ":error-message"
 *     its message) becomes one SCHUNK_EXCEPTION chunk and ends the stream:
 *     later bytes are counted and dropped. Events of other types are counted and skipped.
 *   SSTREAM_BODY_PLAIN: the body is the container's text stream itself
 *     (SageMaker's OpenAI-compatible route /endpoints/NAME/openai/v1/chat/
 *     completions, which passes the container's SSE through).
 *
 * The container's text is SSE (vLLM, TGI, LMI with the sse formatter) or JSON
 * lines (LMI's default): SSTREAM_FRAMING_AUTO decides on its first byte that
 * is not white space ('{' or '[': JSON lines, else SSE). Each SSE event's data
 * (or each non-blank JSON line) is one chunk, read by schunk_parse; an SSE
 * event of type "error" whose data is not JSON is an SCHUNK_ERROR with that
 * text as its message. JSON lines may lack the last line end.
 *
 * Token counts: each chunk's tokens field follows schunk.h's rule, except
 * that a chunk with text that also carries usage.completion_tokens (vLLM's
 * continuous_usage_stats) counts the growth of that number since the previous
 * such chunk. The totals keep both the sum of the chunks' counts and the last
 * usage/details counts (authoritative when present).
 *
 * Memory is bounded by the limits: one eventstream message, one SSE event,
 * one line. The first error is kept: every later call returns it again.
 *
 * Use, e.g. in a libcurl write callback (TTFT: the first chunk with
 * content.n > 0; ITL: the gaps between such chunks):
 *   const char *p = data; size_t n = len; struct schunk c; int rc;
 *   while ((rc = sstream_next(&s, &p, &n, &c, err)) == 1) record(clock_now(), &c);
 *   if (rc < 0) ... stop the transfer, report err ...
 * and once the body has ended:
 *   while ((rc = sstream_finish(&s, &c, err)) == 1) record(clock_now(), &c);
 * then s.totals holds the counts (usage/details, chunk sums, done, error). */
#ifndef SM_SSTREAM_H
#define SM_SSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "evs.h"
#include "schunk.h"
#include "sse.h"

enum sstream_error {
    SSTREAM_OK = 0,
    SSTREAM_ERR_NOMEM = -1,
    SSTREAM_ERR_EVENTSTREAM = -2, /* bad eventstream framing (cause: the evs_error) */
    SSTREAM_ERR_SSE = -3,         /* an SSE line or event over its cap (cause: the sse_error) */
    SSTREAM_ERR_LINE = -4,        /* a JSON line over the line cap */
    SSTREAM_ERR_CHUNK = -5,       /* a chunk that is not JSON (cause: the schunk_error) */
    SSTREAM_ERR_TRUNCATED = -6, /* sstream_finish: the body ended inside a message, event or line */
};

enum sstream_body {
    SSTREAM_BODY_PLAIN = 0,
    SSTREAM_BODY_EVENTSTREAM,
};

enum sstream_framing {
    SSTREAM_FRAMING_AUTO = 0,
    SSTREAM_FRAMING_SSE,
    SSTREAM_FRAMING_JSONL,
};

/* Caps on what the stream may make the parser hold; 0 for a default. */
struct sstream_limits {
    size_t max_payload; /* eventstream payload (default EVS_MAX_PAYLOAD_LEN) */
    size_t max_line;    /* SSE or JSON line (default SSE_DEFAULT_MAX_LINE) */
    size_t max_event;   /* SSE event data (default SSE_DEFAULT_MAX_EVENT) */
};

/* What the stream has said so far. */
struct sstream_totals {
    uint64_t body_bytes;       /* bytes fed */
    uint64_t messages;         /* eventstream messages */
    uint64_t ignored_messages; /* eventstream messages neither PayloadPart nor exception/error */
    uint64_t payload_bytes;    /* container bytes (PayloadPart payloads, or the plain body) */
    uint64_t chunks;           /* chunks returned (SSE events, JSON lines, exceptions) */
    uint64_t content_chunks;   /* DATA chunks with content */
    uint64_t content_bytes;
    uint64_t reasoning_bytes;
    uint64_t tokens;           /* sum of the chunks' token counts */
    int64_t prompt_tokens;     /* last usage/details count; -1 when none came */
    int64_t completion_tokens; /* last usage/details count; -1 when none came */
    int64_t reasoning_tokens;  /* last usage's completion_tokens_details count; -1: none came */
    int64_t cached_tokens;     /* last usage's prompt_tokens_details.cached_tokens; -1: none came */
    char finish_reason[32];    /* last finish_reason ("" when none came; cut to fit) */
    bool done;                 /* "[DONE]" or a TGI/LMI final event came */
    bool error;                /* an SCHUNK_ERROR or SCHUNK_EXCEPTION came */
    uint64_t bytes_after_end;  /* body bytes after an exception ended the stream */
};

struct sstream {
    enum sstream_body body;
    enum sstream_framing framing; /* AUTO until the first byte decides */
    struct evs_decoder evs;
    const uint8_t *part; /* unread rest of the current PayloadPart payload */
    size_t part_len;
    bool part_in_input;   /* part lies in the caller's input (valid for one call) */
    struct buf part_copy; /* its rest, once that input goes away */
    struct sse_parser sse;
    struct buf line;    /* JSON lines: a line cut by the end of a slice */
    bool line_release;  /* the line returned last lives in line */
    struct buf scratch; /* decoded strings of the current chunk */
    size_t max_line;
    int64_t cumulative;           /* completion_tokens of the last chunk with text and usage */
    struct sstream_totals totals; /* read it at any time; the other fields are the parser's */
    bool ended;                   /* an exception ended the stream */
    bool finished;                /* sstream_finish ran its end-of-stream checks */
    int err;                      /* first error, or 0 */
    int cause;                    /* the evs/sse/schunk error behind it */
    char msg[200];
};

/* Starts a stream; limits NULL for the defaults. */
void sstream_init(struct sstream *s, enum sstream_body body, enum sstream_framing framing,
                  const struct sstream_limits *limits);
void sstream_free(struct sstream *s);

/* The framing a container's content type names ("text/event-stream": SSE;
 * "application/jsonlines", "application/jsonl", "application/x-ndjson": JSON
 * lines; parameters after ';' ignored); AUTO for anything else or NULL. */
enum sstream_framing sstream_framing_for(const char *content_type);

/* Reads body bytes from *data (*len bytes), advancing both past what it took.
 * Returns 1 with the next chunk in *out (spans valid until the next call);
 * 0 when all the input was taken and no chunk is complete; a negative
 * sstream_error with its line appended to err (when not NULL). Any slicing of
 * the body gives the same chunks. */
__attribute__((warn_unused_result)) int sstream_next(struct sstream *s, const char **data,
                                                     size_t *len, struct schunk *out,
                                                     struct buf *err);

/* At the end of the body; call until it returns 0 or an error. Returns 1 with
 * a last chunk (a JSON line without its line end, or chunks not yet taken with
 * sstream_next); 0 when the body ended cleanly (or an exception had ended
 * it); SSTREAM_ERR_TRUNCATED when it ended inside an eventstream message, an
 * SSE event or a JSON line that is not JSON (the rest is dropped). */
__attribute__((warn_unused_result)) int sstream_finish(struct sstream *s, struct schunk *out,
                                                       struct buf *err);

#endif
