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
#define SLOT_TEXT_MAX       ((size_t)64 * 1024) /* bytes of content kept for a scored reply */

enum slot_error {
    SLOT_OK = 0,
    SLOT_ERR_NOMEM = -1,
    SLOT_ERR_SIGN = -2, /* err says why */
    SLOT_ERR_CURL = -3,
};

/* What every slot of a run shares. */
struct slot_config {
    const char *base_url;  /* scheme://host[:port], without a path */
    enum plan_route route; /* the body is an event stream (STREAM) or SSE (OPENAI) */
    const char *cacert;    /* NULL: the system's CA store */
    bool insecure;         /* do not check the certificate */
    long timeout_ms;       /* a reply slower than this is cut (wrk's --timeout) */
};

struct slot {
    const struct slot_config *cfg;
    struct disp *disp;
    CURL *easy;
    struct curl_slist *headers;
    const struct plan_entry *entry;        /* on the wire, or NULL */
    bool left;                             /* its start is stamped (it was about to be written) */
    long long t_handed_us, wall_handed_us; /* when it was handed to libcurl */
    int status;                            /* of the reply's status line (the last, after a 1xx) */
    bool streaming;                        /* a 2xx: its body goes through ss */
    struct sstream ss;
    struct buf error_body; /* a non-2xx reply's body */
    struct buf text;       /* the content, for a scored reply */
    bool keep_text;        /* every reply's */
    bool want_text;        /* this reply's */
    char error_type[128], date[64], content_type[128];
    char service_us[24]; /* the emulator's REPLY_SERVICE_HEADER (reply.h), cut to fit, or "" */
    long long t_headers_us, t_first_us, t_last_us;
    uint32_t *gaps; /* between content chunks */
    uint16_t *tokens;
    size_t n_chunks, cap_chunks;
    bool multi_token; /* a chunk carried more than one token */
    long chunk_tokens;
    char stream_code[64]; /* how the stream failed, or "" */
    char stream_message[400];
    struct buf scratch; /* sstream's errors */
    bool control;       /* a session's own call (disp_control): plain text, never a stream */
    char new_session[CONV_ID_MAX + 64]; /* its X-Amzn-SageMaker-New-Session-Id, cut to fit */
};

/* A slot sending for disp over cfg (both outlive it); keep_text: every reply's
 * text is kept (for the scenario's check), not only a scored one's. */
__attribute__((warn_unused_result)) int slot_init(struct slot *s, const struct slot_config *cfg,
                                                  struct disp *disp, bool keep_text);
void slot_free(struct slot *s);

/* Makes e (the entry disp gave) the easy handle's next request, signed with
 * creds: add s->easy to a multi handle to send it. */
__attribute__((warn_unused_result)) int slot_prepare(struct slot *s, const struct plan_entry *e,
                                                     struct sigcreds *creds, struct buf *err);

/* The transfer ended with result (CURLE_OK: the reply is complete): records
 * what came back through the dispatcher. */
void slot_done(struct slot *s, CURLcode result);

#endif
