/* server: the sm-emulator process: a libevent loop serving HTTP/1.1 (and TLS)
 * on one thread. server.c owns sockets and HTTP framing; invoke.c is the
 * SageMaker Runtime behind it (auth, endpoints, calls, timers, stats).
 * All times inside are model seconds unless named *_real. */
#ifndef EMU_SERVER_H
#define EMU_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <event2/event.h>
#include <event2/listener.h>
#include <openssl/ssl.h>

#include "auth.h"
#include "fault.h"
#include "http.h"
#include "model.h"
#include "batch.h"
#include "reqlog.h"
#include "stats.h"
#include "vlog.h"

struct srv_endpoint;
struct conn;
struct call;

struct srv_variant {
    char name[64];
    struct server *srv;
    struct srv_endpoint *ep;
    struct model_profile profile;
    struct batch batch;
    struct event *step_ev; /* ends the planned decode step */
    struct fault_state faults;
    uint64_t rng; /* overhead jitter and reply ids */
    struct stats_counts stats;
    struct vlog log;
    unsigned long logged_prompt, logged_gen; /* batch counters at the last metrics line */
};

#define SERVER_AKID_MAX 128

/* What the request log says of a request besides its reply (reqlog.h). */
struct srv_origin {
    double received;                         /* wall clock, Unix seconds (authentication's too) */
    char access_key_id[SERVER_AKID_MAX + 1]; /* from its Authorization header; "" when none */
};

struct srv_endpoint {
    char name[64];
    struct srv_variant *variants;
    size_t n_variants;
    struct stats_counts stats;
};

struct server {
    struct event_base *base;
    struct evconnlistener *listener;
    SSL_CTX *ssl; /* NULL: plain HTTP */
    struct auth auth;
    struct srv_endpoint *eps;
    size_t n_eps;
    char region[64], account[32];
    double time_scale;   /* model seconds per real second */
    double max_duration; /* model seconds; 0: no limit */
    double log_interval; /* model seconds */
    double idle_timeout_real;
    uint64_t rng;
    struct stats_counts totals;
    unsigned long connections, bad_requests;
    struct conn *conns; /* every open connection */
    struct reqlog reqlog;
    struct srv_origin cur; /* the request being handled (requests are handled one at a time) */
    struct event *log_ev, *sigint_ev, *sigterm_ev;
    char url[300];
    char date[64]; /* the Date header value, refreshed each second */
    time_t date_at;
};

enum reply_mode {
    REPLY_FULL,
    REPLY_DROP,     /* headers and half the body, then the connection is closed */
    REPLY_TRUNCATE, /* a well-framed reply carrying half the body */
};

struct reply {
    int status;
    const char *error_type;   /* x-amzn-ErrorType code, or NULL */
    const char *variant;      /* x-Amzn-Invoked-Production-Variant, or NULL */
    const char *content_type; /* NULL: application/json */
    const char *request_id;
    const char *body;
    size_t body_len;
    enum reply_mode mode;
};

/* --- server.c --- */

/* Binds the listener (addr "HOST:PORT", port 0 = any free port) and fills
 * s->url. Returns 0, or -1 with err. */
__attribute__((warn_unused_result)) int server_listen(struct server *s, const char *addr,
                                                      struct buf *err);
/* Loads the TLS certificate and key. Returns 0, or -1 with err. */
__attribute__((warn_unused_result)) int server_tls(struct server *s, const char *cert,
                                                   const char *key, struct buf *err);
/* Closes every connection and the listener. */
void server_close(struct server *s);

/* Writes a reply on c. The connection's call must already be detached. */
void conn_send(struct conn *c, const struct reply *r);
/* Binds call to c (NULL detaches); c then stops reading requests until the reply. */
void conn_set_call(struct conn *c, struct call *call);

#define SERVER_ID_LEN 40

/* A new x-amzn-RequestId (a UUID from the seeded generator). */
void server_request_id(struct server *s, char out[SERVER_ID_LEN]);

/* The Date header value for now. */
const char *server_date(struct server *s);
/* The monotonic clock, in real seconds. */
double server_now_real(void);

/* A timer fires this long before it is due, and the callback that sends a reply
 * waits out the rest: a machine that wakes an idle process late (virtual CPUs
 * take a few hundred microseconds) does not delay replies. */
#define SERVER_WAKE_LEAD 0.0003

/* Arms the timer ev for due_real (monotonic seconds) less SERVER_WAKE_LEAD. */
void server_arm(struct event *ev, double due_real);
/* Returns at due_real: spins out the rest of the lead (at most SERVER_WAKE_LEAD). */
void server_wait_until(double due_real);

/* --- invoke.c --- */

/* Handles one complete request on c (body[0..len) follows the head). */
void invoke_request(struct server *s, struct conn *c, const struct http_head *h, const char *body,
                    size_t len);
/* Handles a request whose head is acceptable but whose body is too large. */
void invoke_too_large(struct server *s, struct conn *c);
/* Counts a malformed request that server.c answers status (400, 411, 431) with reply id. */
void invoke_bad_request(struct server *s, int status, const char *id);
/* The connection of call closed before its reply: forgets the call. */
void invoke_abort(struct call *call);
/* Starts the variants' timers (steps, metrics log). Returns 0 or -1. */
__attribute__((warn_unused_result)) int invoke_start(struct server *s);
/* Frees what invoke_start made and every call still pending. */
void invoke_stop(struct server *s);

#endif
