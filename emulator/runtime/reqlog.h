/* reqlog: the request log (--request-log): one JSON line per request the
 * emulator counted, written when its reply was sent or its connection closed
 * first, so a test can match every record a client kept to one request the
 * emulator served (GET /emulator/stats gives only totals). Every line is flushed. */
#ifndef EMU_REQLOG_H
#define EMU_REQLOG_H

#include <stddef.h>
#include <stdio.h>

#include "buf.h"

#define REQLOG_PROMPT_MAX 1024 /* bytes of the prompt kept; longer ones are cut */

/* One request's line. Strings may be NULL (written as null). */
struct reqlog_entry {
    const char *id;  /* x-amzn-RequestId of the reply */
    double arrival;  /* wall clock when the first bytes of its head were read; 0: as received */
    double received; /* wall clock, Unix seconds, when the request was complete */
    double admitted; /* wall clock when the batch admitted it (its prefill step began); 0: null */
    double queue_s;  /* seconds it waited for room in the batch (max_seqs); < 0: null */
    double replied;  /* wall clock when its reply was handed to the socket (or it was dropped) */
    double first_token, last_token; /* a streamed reply: when its first and last token were
                                       written to the socket (plain TCP, nothing queued
                                       before them), else queued; the last one's when the
                                       reply's end was queued (wall clock); 0: null */
    const char *api;                /* "invoke", "stream", "openai" (rtpath_name), or NULL */
    const char *endpoint;           /* the endpoint its path named, when served */
    const char *variant;            /* the variant it was routed to */
    const char *access_key_id;      /* from its Authorization header */
    size_t access_key_id_len;
    int status; /* the reply's status; 0: the connection closed before it was complete */
    const char *error_type; /* x-amzn-ErrorType code */
    const char *fault;      /* the injected fault's name */
    const char *prompt;     /* the text the container answered */
    size_t prompt_len;
    long prompt_tokens, completion_tokens; /* of a complete 2xx reply; < 0: null */
    long cached_tokens;                    /* prompt tokens the prefix cache served; < 0: null */
    const char *session;                   /* the stateful session it named or made, or NULL */
    size_t session_len;
};

struct reqlog {
    FILE *f; /* NULL: no log */
    struct buf line;
};

enum reqlog_error { REQLOG_OK = 0, REQLOG_ERR_IO = -1 };

/* Opens (truncates) path. Returns 0, or REQLOG_ERR_IO with one line in err. */
__attribute__((warn_unused_result)) int reqlog_open(struct reqlog *l, const char *path,
                                                    struct buf *err);
/* Closes the log (if open) and frees its line buffer. */
void reqlog_close(struct reqlog *l);

/* Appends e as one JSON line (no newline) to out. Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int reqlog_format(struct buf *out,
                                                      const struct reqlog_entry *e);

/* The wall clock in Unix seconds (the log's times). */
double reqlog_now(void);

/* Writes e to the log, if one is open, with replied set to now. */
void reqlog_write(struct reqlog *l, struct reqlog_entry *e);

#endif
