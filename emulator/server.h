/* server: sm-emulator's HTTP/1.1 layer (and TLS) on a libevent loop, one
 * thread: sockets, framing, keep-alive and pipelining, and the bounds that keep
 * a hostile client from taking the process down (README, "Bounds"): deadlines
 * for a request's head and body, at most --max-connections served, at most
 * --max-body-buffer bytes of bodies buffered, requests read from a connection
 * only while its unsent replies stay small, and accept() paused while it fails.
 *
 * Complete requests go to invoke (invoke.h), which answers through server_send:
 * server_init hands it that function, so the calls run one way. */
#ifndef EMU_SERVER_H
#define EMU_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <openssl/ssl.h>

#include "buf.h"
#include "gate.h"
#include "rtcall.h"

struct event_base; /* libevent's */
struct event;
struct evconnlistener;

/* Bytes of a request's head the server reads ahead of it (the head may not be
 * longer); a body beyond that is read only once its head has been accepted. */
#define SERVER_HEAD_READ (HTTP_MAX_HEAD + 1)
/* A connection stops reading requests while its unsent replies pass either;
 * and a streamed reply's next steps are made only once its unsent output is
 * back under SERVER_OUT_HIGH (rtcall_drained), so a client that reads nothing
 * holds about that much of its replies. */
#define SERVER_OUT_HIGH ((size_t)1 << 20)
#define SERVER_PIPELINE 16

struct server_config {
    double idle_timeout;    /* real seconds a connection may sit idle or not read its replies */
    double head_timeout;    /* real seconds from a head's first byte to its end */
    double body_timeout;    /* real seconds from the end of a head to the end of its body */
    size_t max_connections; /* served at once; more are answered 503 */
    size_t max_body_buffer; /* bytes of bodies being received, in all */
};

struct server_conn; /* one connection (server.c) */

/* Looks at a complete request before SageMaker Runtime does (the control
 * plane, awsapi.h): returns false to leave it to rtcall_request; true when it
 * took it, with *call NULL when answered (through the invoke send function,
 * on owner) or the call that will answer it. */
typedef bool server_route_fn(void *ud, void *owner, const struct http_head *h, const char *body,
                             size_t len, struct rtcall **call);

struct server {
    struct event_base *base; /* not owned */
    struct invoke *inv;      /* answers the requests; not owned */
    struct server_config cfg;
    struct gate gate; /* connection and body limits, and the counts of refusals */
    struct evconnlistener *listener;
    SSL_CTX *ssl;              /* NULL: plain HTTP */
    bool listening;            /* the listener is enabled */
    bool accept_failed;        /* accept() failed: not accepting until a connection closes or */
    struct event *retry_ev;    /* ... this timer fires */
    struct server_conn *conns; /* every open connection */
    char url[300];
    char date[64]; /* the Date header value, refreshed each second */
    time_t date_at;
    server_route_fn *route; /* may be NULL */
    void *route_ud;
};

enum server_error {
    SERVER_OK = 0,
    SERVER_ERR_NOMEM = -1,
    SERVER_ERR_ADDRESS = -2, /* --listen cannot be bound */
    SERVER_ERR_TLS = -3,     /* the certificate or key cannot be used */
};

/* Sets up s (zeroed) to serve on base with inv, and hands inv the server's
 * send function and connection counts. Returns 0 or SERVER_ERR_NOMEM. */
__attribute__((warn_unused_result)) int server_init(struct server *s, struct event_base *base,
                                                    struct invoke *inv,
                                                    const struct server_config *cfg);

/* Loads the TLS certificate and key (before server_listen). Returns 0, or
 * SERVER_ERR_TLS with one line in err. */
__attribute__((warn_unused_result)) int server_tls(struct server *s, const char *cert,
                                                   const char *key, struct buf *err);

/* Binds the listener (addr "HOST:PORT", port 0 = any free port) and fills
 * s->url. Returns 0, or SERVER_ERR_ADDRESS with one line in err. */
__attribute__((warn_unused_result)) int server_listen(struct server *s, const char *addr,
                                                      struct buf *err);

/* Closes the listener and every connection (aborting their calls), frees the rest. */
void server_close(struct server *s);

/* invoke's send function: writes r as the reply to the request on owner (a
 * struct server_conn), which then reads its next request, or closes. */
void server_send(void *owner, const struct invoke_reply *r);

#endif
