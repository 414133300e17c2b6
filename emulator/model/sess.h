/* sess: SageMaker stateful sessions, as a container with sessions enabled
 * keeps them (the AWS vLLM container: vLLM's SageMaker routes and AWS's
 * model-hosting-container-standards) and as SageMaker routes to them.
 *
 * A session is created by an InvokeEndpoint request whose body is
 * {"requestType": "NEW_SESSION"} (with the header X-Amzn-SageMaker-Session-Id:
 * NEW_SESSION): its id is a UUID, it expires ttl after, and the reply names it
 * in X-Amzn-SageMaker-New-Session-Id: ID; Expires=YYYY-MM-DDTHH:MM:SSZ. A
 * request with the header set to an id is one of that session's (SageMaker
 * routes it to the instance, here the variant, that holds it); the body
 * {"requestType": "CLOSE"} closes it (X-Amzn-SageMaker-Closed-Session-Id: ID).
 * An id the container does not hold is its 400 "Bad request: session not
 * found: ID"; an expired session is closed when a request names it, and that
 * request is served as one without a session (the container's rules).
 *
 * A pure core: the caller gives the clock (wall seconds) and the random state. */
#ifndef EMU_SESS_H
#define EMU_SESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define SESS_ID_MAX     256   /* SessionId's length limit (the API's) */
#define SESS_ID_LEN     36    /* the ids the emulator makes: UUIDs */
#define SESS_MAX        65536 /* open sessions a variant holds at most (the emulator's bound) */
#define SESS_HEADER     "x-amzn-sagemaker-session-id"
#define SESS_NEW        "NEW_SESSION"
#define SESS_EXPIRES_AT 20 /* "YYYY-MM-DDTHH:MM:SSZ" */

struct sess_entry {
    char id[SESS_ID_LEN + 1]; /* "": a free slot */
    double expires;           /* wall clock */
};

struct sess_counts {
    unsigned long created, closed, expired;
};

struct sess {
    struct sess_entry *slots; /* an open-addressing table (malloc'ed); NULL: empty */
    size_t cap, n;            /* slots (a power of two), open sessions */
    struct sess_counts c;
};

/* What a body asks of the container's session manager. */
enum sess_kind {
    SESS_NONE,  /* no "requestType": a request for the model */
    SESS_OPEN,  /* {"requestType": "NEW_SESSION"} */
    SESS_CLOSE, /* {"requestType": "CLOSE"} */
    SESS_BAD,   /* "requestType" with another value or other members: the container's 400 */
};

/* What the container finds of an id. */
enum sess_state { SESS_LIVE, SESS_UNKNOWN, SESS_EXPIRED };

enum sess_error { SESS_OK = 0, SESS_ERR_NOMEM = -1, SESS_ERR_FULL = -2, SESS_ERR_UNKNOWN = -3 };

/* What the container answers of a request's session part (sess_handle). */
struct sess_reply {
    int status;                    /* 0: the request goes on to the model; 200: the session reply,
                                      body text; else the container's error status, message text */
    struct buf text;               /* owned: sess_reply_free */
    char session[SESS_ID_MAX + 1]; /* the session the request named or made; "": none */
    char new_session[SESS_ID_LEN + SESS_EXPIRES_AT + 12]; /* "ID; Expires=...", or "" */
    bool closed; /* it closed session (X-Amzn-SageMaker-Closed-Session-Id) */
};

/* A zeroed struct sess is an empty table; sess_free frees it and empties it. */
void sess_free(struct sess *s);

void sess_reply_init(struct sess_reply *r);
void sess_reply_free(struct sess_reply *r);

/* The container's session manager (sessions on when ttl > 0) on a request
 * whose header X-Amzn-SageMaker-Session-Id is id[0..id_len) (id NULL: no
 * header) and body body[0..len), at now (wall seconds); ttl in wall seconds;
 * rng draws new ids. Its answers, in order:
 *   sessions off and a header or a requestType: 400 "Invalid payload. stateful
 *     sessions not enabled, X-Amzn-SageMaker-Session-Id header not supported";
 *   a malformed requestType: 400 with pydantic's complaint;
 *   an id (not NEW_SESSION) it does not hold: 400 "Bad request: session not
 *     found: ID"; one expired: closed, and the request goes on without it;
 *   NEW_SESSION: 200 "Session ID created" with new_session, or 424 "Failed to
 *     create session: ..." when SESS_MAX are open;
 *   CLOSE: 200 "Session ID closed", or 424 "Failed to close session: invalid
 *     session_id: None" (no id) / "...: session not found: ID";
 *   otherwise 0: a request for the model (in session r->session, if any).
 * Returns 0 or SESS_ERR_NOMEM. */
__attribute__((warn_unused_result)) int sess_handle(struct sess *s, double ttl, const char *id,
                                                    size_t id_len, const char *body, size_t len,
                                                    double now, uint64_t *rng,
                                                    struct sess_reply *r);

/* What body[0..len) asks (see sess_kind); for SESS_BAD, one line in why
 * (pydantic's complaint, shortened). */
enum sess_kind sess_request_kind(const char *body, size_t len, struct buf *why);

/* Whether id[0..len) fits SessionId's pattern, ^[a-zA-Z0-9](-*[a-zA-Z0-9])*$,
 * or, when new_ok (InvokeEndpoint, not InvokeEndpointWithResponseStream), is NEW_SESSION. */
bool sess_id_ok(const char *id, size_t len, bool new_ok);

/* Opens a session that expires ttl seconds after now; its id (a UUID from
 * *rng) in id. Expired sessions are dropped first when the table is full.
 * Returns 0, SESS_ERR_FULL (SESS_MAX open) or SESS_ERR_NOMEM. */
__attribute__((warn_unused_result)) int sess_open(struct sess *s, uint64_t *rng, double now,
                                                  double ttl, char id[SESS_ID_LEN + 1]);

/* Whether s holds id (expired or not): where SageMaker routes it. */
bool sess_holds(const struct sess *s, const char *id, size_t len);

/* The state of id at now; an expired session is closed (counted expired). */
enum sess_state sess_find(struct sess *s, const char *id, size_t len, double now);

/* Closes id. Returns 0 or SESS_ERR_UNKNOWN. */
__attribute__((warn_unused_result)) int sess_close(struct sess *s, const char *id, size_t len);

/* A session's expiry as the header writes it, "2026-09-25T18:40:12Z" (UTC, seconds). */
void sess_expires_text(double t, char out[SESS_EXPIRES_AT + 1]);

/* Appends {"open":N,"created":N,"closed":N,"expired":N}. Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int sess_json(struct buf *out, const struct sess *s);

#endif
