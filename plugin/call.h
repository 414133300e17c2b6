/* call: one planned request of a run, and how what came back for it becomes
 * its record.
 *
 * A call holds what the scenario planned (copied by call_new): the result file
 * and the fixed fields of its record, the reply length a decode expects and
 * the pattern a quiz question is scored with. call_finish turns one reply (or
 * a connection that closed first) into the record: the reply parsed (reply.h;
 * its text kept only when a pattern or the caller needs it), a reply of another
 * length than expected marked token_mismatch or no_token_count, a quiz reply
 * scored on its first QUIZ_SCORED_MAX bytes, stripped (its record keeps
 * CALL_TEXT_MAX bytes of it at most), and a
 * signing-time refusal turned into the clock offset the retry is signed with
 * (skew.h).
 *
 * Pure C: the clocks come in with the reply; the caller records the result
 * (shared.h) and owns the pattern, which must outlive the call. */
#ifndef SM_CALL_H
#define SM_CALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "quiz.h"
#include "record.h"
#include "reply.h"

#define CALL_TEXT_MAX 16384 /* bytes of a scored reply a record keeps */

enum call_error {
    CALL_OK = 0,
    CALL_ERR_NOMEM = -1,
};

struct call_spec {
    size_t file; /* the result file the record goes to */
    /* The record's fields the plan fixes: endpoint, variant, phase, batch,
     * question, kind, max_tokens, answer (a quiz's expected answer, or NULL). The
     * others are the reply's and the sender's and are not read. */
    struct rec_record fixed;
    long expect_tokens;            /* < 0: a reply of any length will do */
    bool ignore_eos;               /* was asked for (names a short reply's mismatch) */
    const struct quiz_re *pattern; /* NULL: not scored */
};

struct call;

__attribute__((warn_unused_result)) int call_new(const struct call_spec *spec, struct call **out);
void call_free(struct call *c);
/* The result file the call's records go to. */
size_t call_file(const struct call *c);
/* Whether its reply is scored (a quiz pattern): its text must be kept. */
bool call_scored(const struct call *c);

/* What a streamed reply said, as the streaming engine collected it while it
 * arrived (common/sstream.h): the content it kept, the counts, how it ended,
 * and when its parts came. Pointers are the caller's, valid during call_finish. */
struct call_stream {
    long long t_headers_us;      /* when the headers came, on the run's clock */
    long long t_first_us;        /* when the first chunk with content or reasoning came; 0: none */
    long long t_first_output_us; /* when the first chunk with content (answer) came; 0: none */
    bool itl_per_token;          /* every chunk's tokens were said (else ITL is per chunk) */
    long reasoning_tokens;       /* the usage's reasoning tokens, else the reasoning chunks'
                                  * tokens (0: none came) */
    const uint32_t *gaps_us;     /* between chunks with content or reasoning: n_chunks - 1 */
    const uint16_t *tokens;      /* tokens of each such chunk; NULL when each carried one */
    size_t n_chunks;             /* chunks with content or reasoning, as kept */
    size_t n_received;           /* chunks with content that came: more than n_chunks when the
                                  * engine merged them to keep the record bounded */
    long chunk_tokens;           /* the chunks' tokens summed */
    long prompt_tokens;          /* the stream's usage or details; -1 when it said none */
    long completion_tokens;      /* the same */
    long cached_tokens;          /* the usage's prompt_tokens_details.cached_tokens; -1: none */
    const char *finish_reason;   /* NULL when none came */
    const char *error_code;      /* how the stream failed (an exception, a broken frame), or NULL */
    const char *error_message;   /* one line */
    const char *text;            /* the content, when kept */
};

/* What came back for one sending of a call. */
struct call_reply {
    int thread;                 /* the sender (a wrk thread, an engine connection) */
    int status;                 /* 0: no reply (the connection closed first) */
    const char *error_type;     /* the x-amzn-ErrorType header, or NULL */
    const char *date;           /* the Date header, or NULL */
    const char *content_length; /* the Content-Length header, or NULL (reply.h: reply_trim) */
    const char *body;
    size_t len;
    bool retried;   /* this sending was the retry after a signing-time refusal */
    bool want_text; /* keep the reply's text even when no pattern needs it */
    long long t_start_us, t_end_us, wall_start_us;
    long long t_due_us;               /* an open-loop request's intended start, or <= 0 */
    time_t now;                       /* the local clock, for the skew offset */
    const struct call_stream *stream; /* a streamed reply: a 2xx is read from this, not body */
    const char *new_session; /* X-Amzn-SageMaker-New-Session-Id, or NULL (a NEW_SESSION call's) */
    const char *service_us;  /* the emulator's REPLY_SERVICE_HEADER, or NULL (reply.h) */
    bool conn_timed;         /* the client timed the connection (sm-stream; wrk does not say): */
    long long connect_us;    /* opening it (name lookup and TCP), 0 when a kept one was reused */
    long long tls_us;        /* its TLS handshake, 0 when reused or plain HTTP */
};

/* A finished call: its record and whether to send it again. */
struct call_result {
    struct reply reply;
    struct rec_record rec; /* points into reply, into the call and into message */
    bool skewed;           /* the server refused the signing time and said its own */
    long long skew_offset; /* then: server time minus local time, seconds */
    bool retry;            /* send again, signed with the offset (skewed, not yet retried) */
    bool plain_usage;      /* retry because the container refused continuous_usage_stats */
    char message[96];      /* the token check's message */
};

void call_result_init(struct call_result *out);
/* Frees what out holds; it may be finished into again. */
void call_result_clear(struct call_result *out);

/* Fills out (initialised or cleared) from what came back for c. Returns 0 or
 * CALL_ERR_NOMEM (out then cleared). */
__attribute__((warn_unused_result)) int
call_finish(const struct call *c, const struct call_reply *in, struct call_result *out);

#endif
