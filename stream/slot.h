/* slot: one stream of the engine: a sender with its dispatcher (disp.h) and
 * its libcurl easy handle, kept from request to request (and with it the
 * connection). A slot turns the plan's next entry into a libcurl request (the
 * signed request's headers and body), stamps its start when libcurl is about
 * to write it on a connection (not when it was handed over: libcurl sends on
 * its next turn, after the other requests handed over meanwhile), watches the
 * reply arrive (the headers' time, every content chunk's time and tokens,
 * through common/sstream.h), and makes what came back the entry's record
 * (call.h's call_stream).
 *
 * Not thread-safe: a slot belongs to its engine thread. */
#ifndef SM_SLOT_H
#define SM_SLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <curl/curl.h>

#include "buf.h"
#include "call.h"
#include "conv.h"
#include "disp.h"
#include "sigcreds.h"
#include "sstream.h"

#define SLOT_ERROR_BODY_MAX ((size_t)64 * 1024) /* bytes of an error reply kept */
/* Bytes of content kept: the raw prefix quiz_cut needs to cut a reply's scored
 * part exactly as it cuts the whole reply under wrk (one byte past the cap). */
#define SLOT_TEXT_MAX (QUIZ_SCORED_MAX + 1)
/* Content chunks a stream's record keeps: when a stream has more, the kept
 * ones past the first are merged in pairs (and the later ones a power of two
 * at a time), so that memory and the record stay bounded while every token is
 * counted and timed to the end (docs/result-format.md, chunks_received). */
#define SLOT_CHUNKS_MAX ((size_t)32768)

enum slot_error {
    SLOT_OK = 0,
    SLOT_ERR_NOMEM = -1,
    SLOT_ERR_SIGN = -2, /* err says why */
    SLOT_ERR_CURL = -3,
};

/* A warm-up's path: an unsigned GET that invokes nothing (the emulator and a
 * model container answer it; SageMaker's runtime refuses it, on a connection
 * that stays open all the same). */
#define SLOT_WARM_PATH "/ping"

/* What every slot of a run shares. */
struct slot_config {
    const char *base_url;  /* scheme://host[:port], without a path */
    enum plan_route route; /* the body is an event stream (STREAM) or SSE (OPENAI) */
    const char *cacert;    /* NULL: the system's CA store */
    bool insecure;         /* do not check the certificate */
    long timeout_ms;       /* a reply slower than this is cut (wrk's --timeout) */
};

/* The client's own work on what arrived: wall time of the engine's thread in these
 * calls (its CPU time, unless the system preempts it there). */
struct slot_cost {
    uint64_t decode_ns; /* decoding the body and recording each chunk's time */
    uint64_t record_ns; /* making the records (slot_done) */
    uint64_t tokens;    /* content tokens received */
    uint64_t records;   /* records made */
};

struct slot {
    /* What every chunk touches, together (the rest of the struct is per request). */
    bool streaming;   /* a 2xx: its body goes through ss */
    bool want_text;   /* this reply's */
    bool multi_token; /* a chunk carried more than one token */
    size_t n_chunks, cap_chunks;
    size_t received; /* content chunks that arrived (n_chunks kept, merged past the cap) */
    uint32_t per;    /* chunks that arrived a kept chunk holds: 1 until merged */
    uint32_t open_n; /* chunks that arrived the last kept chunk holds */
    uint32_t *gaps;  /* between content chunks */
    uint16_t *tokens;
    long chunk_tokens;
    long reasoning_tokens; /* the tokens of the chunks with reasoning but no content */
    long uncounted;        /* chunks whose tokens the server did not say (1 assumed) */
    long reads, read_chunks, burst_chunks; /* watch_count_read's, for this reply */
    long long t_first_us, t_last_us;
    long long t_first_output_us; /* the first chunk with content (an answer's); 0: none */
    struct slot_cost cost;       /* since slot_init */
    struct buf scratch;          /* sstream's errors */
    struct sstream ss;

    const struct slot_config *cfg;
    struct disp *disp;
    CURL *easy;
    struct curl_slist *headers;
    const struct plan_entry *entry;        /* on the wire, or NULL */
    bool left;                             /* its start is stamped (it was about to be written) */
    long long t_left_us;                   /* that start, when left */
    long long t_handed_us, wall_handed_us; /* when it was handed to libcurl */
    int status;                            /* of the reply's status line (the last, after a 1xx) */
    struct buf error_body;                 /* a non-2xx reply's body */
    struct buf text;                       /* the content, for a scored reply */
    bool keep_text;                        /* every reply's */
    bool control; /* a session's own call (disp_control): plain text, never a stream */
    long long t_headers_us;
    char error_type[128], date[64], content_type[128];
    char service_us[24];  /* the emulator's REPLY_SERVICE_HEADER (reply.h), cut to fit, or "" */
    char stream_code[64]; /* how the stream failed, or "" */
    char stream_message[400];
    char new_session[CONV_ID_MAX + 64]; /* its X-Amzn-SageMaker-New-Session-Id, cut to fit */
};

/* A warm-up transfer over cfg (which outlives it): GET SLOT_WARM_PATH with the
 * slots' connection settings, its reply discarded, CURLINFO_PRIVATE NULL (no
 * slot); on the slots' multi handle it leaves an open, TLS-ready connection in
 * the handle's pool for a slot's request to reuse. Returns SLOT_OK with the
 * easy handle in *out (the caller cleans it up), or SLOT_ERR_NOMEM / _CURL. */
__attribute__((warn_unused_result)) int slot_warm_new(const struct slot_config *cfg, CURL **out);

/* A slot sending for disp over cfg (both outlive it); keep_text: every reply's
 * text is kept (for the scenario's check), not only a scored one's. */
__attribute__((warn_unused_result)) int slot_init(struct slot *s, const struct slot_config *cfg,
                                                  struct disp *disp, bool keep_text);
void slot_free(struct slot *s);

/* Stamps the time the prepared request is handed to libcurl (the record's start
 * when it is never written). */
void slot_handed(struct slot *s);

/* Makes e (the entry disp gave) the easy handle's next request, signed with
 * creds: add s->easy to a multi handle to send it. */
__attribute__((warn_unused_result)) int slot_prepare(struct slot *s, const struct plan_entry *e,
                                                     struct sigcreds *creds, struct buf *err);

/* Asks the CPU for the state a chunk's decoding touches, before the data comes. */
void slot_prefetch(const struct slot *s);

/* The transfer ended with result (CURLE_OK: the reply is complete): records
 * what came back through the dispatcher. */
void slot_done(struct slot *s, CURLcode result);

#endif
