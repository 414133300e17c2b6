/* sse: an incremental Server-Sent Events parser (the WHATWG HTML "event stream
 * interpretation"), fed the stream in slices of any size. Pure: no I/O.
 *
 * The rules kept: a line ends in "\r\n", "\n" or "\r" (a "\r\n" split between
 * two slices is one line end); a UTF-8 byte order mark at the very start is
 * dropped; a line starting with ':' is a comment; "field:value" with one space
 * after the colon dropped, a line without a colon is a field with an empty
 * value; "data" lines are joined with "\n"; "event" sets the event type; an
 * empty line dispatches the event when it has at least one data line (else it
 * only clears the type); "id", "retry" and unknown fields are ignored. At the
 * end of the stream an unfinished event is dropped, as the standard says:
 * sse_finish reports it (SSE_ERR_TRUNCATED). Line and event sizes are capped;
 * past a cap the parser fails. The first error is kept: every later call
 * returns it again. */
#ifndef SM_SSE_H
#define SM_SSE_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

#define SSE_DEFAULT_MAX_LINE  ((size_t)1024 * 1024)
#define SSE_DEFAULT_MAX_EVENT ((size_t)4 * 1024 * 1024)

enum sse_error {
    SSE_OK = 0,
    SSE_ERR_NOMEM = -1,
    SSE_ERR_LINE = -2,      /* a line longer than max_line */
    SSE_ERR_EVENT = -3,     /* an event's data larger than max_event */
    SSE_ERR_TRUNCATED = -4, /* sse_finish: the stream ended inside an event */
};

/* One event. Spans (not NUL-terminated) into the caller's input or the
 * parser's buffers, valid until the next call on the parser. */
struct sse_event {
    const char *data; /* the data lines joined with "\n" (no trailing "\n") */
    size_t data_len;
    const char *type; /* the "event" field; "" when none was given ("message") */
    size_t type_len;
};

struct sse_parser {
    struct buf line;  /* a line cut by the end of a slice */
    struct buf data;  /* the event's data, when it is not a span of the input */
    struct buf type;  /* the event's type */
    const char *span; /* the event's only data line so far, in the current slice */
    size_t span_len;
    size_t data_lines; /* data lines of the event so far */
    bool in_event;     /* a field line (not a comment) came since the last empty line */
    bool cr;           /* the last slice ended in "\r": a "\n" first in the next is its end */
    int bom;           /* bytes of a byte order mark matched; 3 once past the start */
    bool release;      /* the event returned last lives in data/type: clear them first */
    size_t max_line, max_event;
    int err;
    char msg[120];
};

/* Starts a parser; 0 for a cap means its default. */
void sse_init(struct sse_parser *p, size_t max_line, size_t max_event);
void sse_free(struct sse_parser *p);

/* Reads from *data (*len bytes), advancing both past what it took. Returns 1
 * with the next event in *ev; 0 when all the input was taken without
 * completing an event; a negative sse_error (its line appended to err when not
 * NULL). Any slicing of the stream gives the same events. An event whose data
 * is one line lying whole in the input is returned without a copy. */
__attribute__((warn_unused_result)) int sse_next(struct sse_parser *p, const char **data,
                                                 size_t *len, struct sse_event *ev,
                                                 struct buf *err);

/* At the end of the stream: 0 when it ended between events, else
 * SSE_ERR_TRUNCATED (the unfinished event is dropped) or the earlier error,
 * its line appended to err. */
__attribute__((warn_unused_result)) int sse_finish(struct sse_parser *p, struct buf *err);

#endif
