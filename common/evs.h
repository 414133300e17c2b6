/* evs: AWS event stream messages (application/vnd.amazon.eventstream), the
 * framing of SageMaker's InvokeEndpointWithResponseStream reply. Pure: no I/O,
 * no clock; CRC32 is libdeflate's (IEEE).
 *
 * A message, all integers big-endian:
 *   total length (4) | headers length (4) | CRC32 of those 8 bytes (4)
 *   headers | payload | CRC32 of every byte before it (4)
 * A header: name length (1), name (UTF-8), type (1), value:
 *   0 bool true, 1 bool false (no bytes), 2 byte (1), 3 int16 (2), 4 int32 (4),
 *   5 int64 (8), 6 bytes (2-byte length + bytes), 7 string (2-byte length +
 *   UTF-8), 8 timestamp (int64 milliseconds since the epoch), 9 uuid (16 bytes).
 *
 * Limits, as botocore's EventStreamBuffer enforces them (botocore/eventstream.py,
 * Debian's python3-botocore 1.29): headers at most 128 KiB, payload at most
 * 16 MiB. botocore checks no minimum and so misreads a total length under 16 +
 * headers length (a negative payload); here such a message is an error
 * (EVS_ERR_LENGTH): 16 bytes of framing is the smallest message. botocore also
 * accepts a string, bytes or uuid value cut short by the end of the headers;
 * here that is EVS_ERR_HEADER. Everything else agrees with botocore: names and
 * strings must be valid UTF-8 (Python's strict decoder), a name may appear once,
 * an empty name and values of up to 65535 bytes are accepted. (The Smithy spec
 * asks senders for names of 1..255 bytes and values of 1..32767 bytes.) */
#ifndef SM_EVS_H
#define SM_EVS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define EVS_PRELUDE_LEN     12
#define EVS_MIN_MESSAGE_LEN 16 /* prelude + message CRC */
#define EVS_MAX_HEADERS_LEN ((size_t)128 * 1024)
#define EVS_MAX_PAYLOAD_LEN ((size_t)16 * 1024 * 1024)
#define EVS_MAX_VALUE_LEN   ((size_t)65535) /* a bytes or string value on the wire */

enum evs_error {
    EVS_OK = 0,
    EVS_ERR_NOMEM = -1,
    EVS_ERR_PRELUDE_CRC = -2,    /* the prelude's CRC does not match its 8 bytes */
    EVS_ERR_MESSAGE_CRC = -3,    /* the message CRC does not match */
    EVS_ERR_HEADERS_LENGTH = -4, /* headers length over EVS_MAX_HEADERS_LEN */
    EVS_ERR_PAYLOAD_LENGTH = -5, /* payload over the decoder's (or the encoder's) cap */
    EVS_ERR_LENGTH = -6,         /* total length under 16 + headers length */
    EVS_ERR_HEADER = -7,         /* malformed header: cut short, unknown type, not UTF-8 */
    EVS_ERR_DUP_HEADER = -8,     /* a header name appears twice */
    EVS_ERR_TRUNCATED = -9,      /* evs_decoder_finish: the stream ended inside a message */
};

enum evs_type {
    EVS_BOOL_TRUE = 0,
    EVS_BOOL_FALSE = 1,
    EVS_BYTE = 2,
    EVS_INT16 = 3,
    EVS_INT32 = 4,
    EVS_INT64 = 5,
    EVS_BYTES = 6,
    EVS_STRING = 7,
    EVS_TIMESTAMP = 8,
    EVS_UUID = 9,
};

/* One header, decoded or to encode. Spans are not NUL-terminated. */
struct evs_header {
    const char *name; /* UTF-8, name_len bytes (0..255) */
    size_t name_len;
    enum evs_type type;
    int64_t num;         /* BOOL_*: 1 or 0; BYTE, INT16, INT32, INT64, TIMESTAMP: the value */
    const uint8_t *data; /* BYTES, STRING (UTF-8), UUID (16 bytes); NULL for the others */
    size_t len;
};

/* A decoded message: spans into the caller's input or the decoder's buffer,
 * valid until the next call on the decoder. */
struct evs_message {
    const uint8_t *headers; /* the raw header section, already checked */
    size_t headers_len;
    size_t header_count;
    const uint8_t *payload;
    size_t payload_len;
    uint64_t offset; /* where the message starts in the stream */
    bool buffered;   /* the spans are in the decoder's buffer, not the caller's input */
};

/* Walks the headers of a message from evs_decoder_next. */
struct evs_header_iter {
    const uint8_t *p, *end;
};

void evs_headers_begin(const struct evs_message *m, struct evs_header_iter *it);
/* Fills h with the next header; false after the last one. */
bool evs_headers_next(struct evs_header_iter *it, struct evs_header *h);
/* Finds the header called name; false when the message has none. */
bool evs_message_header(const struct evs_message *m, const char *name, struct evs_header *h);

/* A string header for the encoder; name and value stay the caller's. */
struct evs_header evs_header_string(const char *name, const char *value);

/* The static one-line text of an evs_error code. */
const char *evs_strerror(int code);

/* Appends one message to out. Headers: names of 0..255 bytes of UTF-8, no
 * name twice, bytes/string values of at most EVS_MAX_VALUE_LEN bytes (strings
 * UTF-8), uuid values of 16 bytes, the section at most EVS_MAX_HEADERS_LEN;
 * payload at most EVS_MAX_PAYLOAD_LEN. On error out is unchanged and a line
 * goes to err (when not NULL). */
__attribute__((warn_unused_result)) int evs_encode(struct buf *out, const struct evs_header *h,
                                                   size_t count, const void *payload,
                                                   size_t payload_len, struct buf *err);

/* SageMaker's PayloadPart event: ":event-type" PayloadPart, ":content-type"
 * application/octet-stream (Smithy's type for a blob event payload; the API's
 * PayloadPart.Bytes is one), ":message-type" event; payload = container bytes. */
__attribute__((warn_unused_result)) int
evs_encode_payload_part(struct buf *out, const void *payload, size_t payload_len, struct buf *err);

/* An exception message: ":exception-type" type (ModelStreamError,
 * InternalStreamFailure), ":content-type" application/json, ":message-type"
 * exception; payload {"Message":message,"ErrorCode":error_code}, ErrorCode left
 * out when error_code is NULL (InternalStreamFailure has none). */
__attribute__((warn_unused_result)) int evs_encode_exception(struct buf *out, const char *type,
                                                             const char *error_code,
                                                             const char *message, struct buf *err);

/* The incremental decoder. It holds at most one unfinished message (its
 * prelude is checked before any more of it is kept), so its memory is bounded
 * by 16 + EVS_MAX_HEADERS_LEN + max_payload. The first error is kept: every
 * later call returns it again. */
struct evs_decoder {
    struct buf buf;     /* the bytes of the unfinished message */
    size_t total;       /* its total length once its prelude is checked, else 0 */
    size_t max_payload; /* payload cap */
    uint64_t offset;    /* stream offset of the next message */
    bool release;       /* the last message returned lives in buf */
    int err;            /* first error, or 0 */
    uint32_t *dup;      /* hash table for duplicate names (messages with many headers) */
    size_t dup_cap;
    char msg[160]; /* its one-line text */
};

/* Starts a decoder; max_payload 0 or over EVS_MAX_PAYLOAD_LEN means EVS_MAX_PAYLOAD_LEN. */
void evs_decoder_init(struct evs_decoder *d, size_t max_payload);
void evs_decoder_free(struct evs_decoder *d);

/* Reads from *data (*len bytes), advancing both past what it took. Returns 1
 * with the next complete, CRC-checked message in *msg; 0 when all the input was
 * taken and no message is complete (call again with more); a negative
 * evs_error (its line appended to err when not NULL) when the stream is bad.
 * A message that lies whole in the input is not copied. Any slicing of the
 * stream gives the same messages. */
__attribute__((warn_unused_result)) int evs_decoder_next(struct evs_decoder *d,
                                                         const uint8_t **data, size_t *len,
                                                         struct evs_message *msg, struct buf *err);

/* At the end of the stream: 0 when it ended between messages, else
 * EVS_ERR_TRUNCATED (or the earlier error), its line appended to err. */
__attribute__((warn_unused_result)) int evs_decoder_finish(struct evs_decoder *d, struct buf *err);

#endif
