#include "server.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/util.h>
#include <openssl/err.h>

#include "smerr.h"

#define SERVER_MAX_BODY 6291456ULL
#define SERVER_LINGER_S 2.0 /* how long a closing connection reads what the client still sends */
#define SERVER_RETRY_S  0.5 /* accept() is tried again this long after it failed */

enum server_state {
    SERVER_HEAD,    /* waiting for a request head */
    SERVER_BODY,    /* head parsed, waiting for the body */
    SERVER_BUSY,    /* a call is answering the request */
    SERVER_CLOSING, /* the last reply is being written */
    SERVER_LINGER,  /* written and shut down for writing: reading until the client closes */
};

struct server_conn {
    struct server *srv;
    struct bufferevent *bev;
    enum server_state state;
    enum gate_verdict verdict; /* what the gate said when it was accepted */
    size_t head_len;
    size_t body_len;
    size_t reserved;       /* bytes of the gate's body budget the request being read holds */
    const char *head_at;   /* where head was parsed; still valid if the buffer did not move */
    struct http_head head; /* the parsed head of the request being read */
    double arrival;        /* wall clock its first bytes were read (reqlog_now); 0: none yet */
    bool keep_alive;
    bool raw_stream;        /* the streamed reply being written is close-delimited (HTTP/1.0) */
    bool processing;        /* inside server_conn_process */
    bool paused;            /* not reading: its replies wait to be sent */
    bool idle_read;         /* the idle timeout applies to reading (not while a call answers) */
    bool full;              /* its unsent output passed SERVER_OUT_HIGH (in gate.full_outputs) */
    unsigned queued;        /* replies written since its output last drained */
    struct event *deadline; /* of the head, the body, or the lingering close */
    struct rtcall *call;
    struct server_conn *prev, *next;
};

static struct timeval server_tv(double seconds) {
    struct timeval tv = {(time_t)seconds, 0};
    tv.tv_usec = (suseconds_t)((seconds - (double)tv.tv_sec) * 1e6);
    return tv;
}

/* The monotonic clock, in seconds. */
static double server_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The Date header value for now: the second of CLOCK_REALTIME as the reply is
 * written. Not time(), which reads the kernel's coarse clock: it turns over up to a
 * tick (4-10 ms) after the second did, so a Date would read a second early then. */
static const char *server_date(struct server *s) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    time_t now = ts.tv_sec;
    if (now != s->date_at) {
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(s->date, sizeof s->date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
        s->date_at = now;
    }
    return s->date;
}

/* --- accepting --- */

/* Enables or disables the listener as the gate and accept()'s failures say. */
static void server_listen_update(struct server *s) {
    bool want = !s->accept_failed && gate_listening(&s->gate);
    if (!s->listener || want == s->listening) return;
    if ((want ? evconnlistener_enable(s->listener) : evconnlistener_disable(s->listener)) == 0)
        s->listening = want;
}

static void server_retry_cb(evutil_socket_t fd, short what, void *arg) {
    struct server *s = arg;
    (void)fd;
    (void)what;
    s->accept_failed = false;
    server_listen_update(s);
}

/* accept() failed (out of descriptors, or memory): stops accepting, which would
 * else fail again at once and forever, until a connection closes or a moment
 * passes; says so once per episode. */
static void server_accept_error(struct evconnlistener *l, void *arg) {
    struct server *s = arg;
    int err = EVUTIL_SOCKET_ERROR();
    (void)l;
    if (gate_accept_failed(&s->gate, server_now()))
        fprintf(stderr,
                "sm-emulator: cannot accept connections: %s; trying again when one closes "
                "(said once while it lasts)\n",
                evutil_socket_error_to_string(err));
    s->accept_failed = true;
    server_listen_update(s);
    struct timeval tv = server_tv(SERVER_RETRY_S);
    evtimer_add(s->retry_ev, &tv);
}

/* --- one connection --- */

static void server_conn_process(struct server_conn *c);

/* Reads at most high bytes ahead (0: no limit). */
static void server_conn_read_limit(struct server_conn *c, size_t high) {
    bufferevent_setwatermark(c->bev, EV_READ, 0, high);
}

/* The idle timeouts: reading (off while a call answers), and writing (always). */
static void server_conn_timeouts(struct server_conn *c, bool reading) {
    struct timeval tv = server_tv(c->srv->cfg.idle_timeout);
    if (reading == c->idle_read) return;
    c->idle_read = reading;
    bufferevent_set_timeouts(c->bev, reading ? &tv : NULL, &tv);
}

/* Arms the deadline seconds from now, unless it runs already. */
static void server_conn_deadline(struct server_conn *c, double seconds) {
    if (evtimer_pending(c->deadline, NULL)) return;
    struct timeval tv = server_tv(seconds);
    evtimer_add(c->deadline, &tv);
}

/* Gives back the body budget of the request being read, and reads a head's worth again. */
static void server_conn_release(struct server_conn *c) {
    if (!c->reserved) return;
    gate_release(&c->srv->gate, c->reserved);
    c->reserved = 0;
    server_conn_read_limit(c, SERVER_HEAD_READ);
}

/* Whether c's unsent output is over SERVER_OUT_HIGH; counted in the gate from
 * then until it drains. */
static bool server_conn_full(struct server_conn *c) {
    bool full = evbuffer_get_length(bufferevent_get_output(c->bev)) > SERVER_OUT_HIGH;
    if (full && !c->full) c->srv->gate.full_outputs++;
    if (full) c->full = true;
    return full;
}

static void server_conn_drained(struct server_conn *c) {
    if (c->full) c->srv->gate.full_outputs--;
    c->full = false;
}

static void server_conn_free(struct server_conn *c) {
    struct server *s = c->srv;
    server_conn_drained(c);
    if (c->call) rtcall_abort(c->call);
    server_conn_release(c);
    if (c->prev)
        c->prev->next = c->next;
    else
        s->conns = c->next;
    if (c->next) c->next->prev = c->prev;
    gate_close(&s->gate, c->verdict);
    event_free(c->deadline);
    bufferevent_free(c->bev);
    free(c);
    s->accept_failed = false; /* a descriptor is free again */
    server_listen_update(s);
}

/* Refuses the request being read (the connection then closes). */
static void server_conn_refuse(struct server_conn *c, enum invoke_refusal why) {
    c->keep_alive = false;
    evtimer_del(c->deadline);
    server_conn_release(c);
    invoke_refuse(c->srv->inv, c, why);
}

/* Refuses a request that cannot be framed (400, 411, 431). */
static void server_conn_malformed(struct server_conn *c, enum invoke_refusal why) {
    c->srv->gate.n.bad_requests++;
    server_conn_refuse(c, why);
}

/* Writes the status line and headers of r: with length bytes of body to come,
 * or (length SIZE_MAX) a chunked body, or a body ending when the connection closes. */
static void server_conn_headers(struct server_conn *c, const struct invoke_reply *r, size_t length,
                                bool close) {
    struct evbuffer *out = bufferevent_get_output(c->bev);
    evbuffer_add_printf(out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n", r->status,
                        smerr_reason(r->status),
                        r->content_type ? r->content_type : "application/json");
    if (length != SIZE_MAX)
        evbuffer_add_printf(out, "Content-Length: %zu\r\n", length);
    else if (!c->raw_stream)
        evbuffer_add(out, "Transfer-Encoding: chunked\r\n", 28);
    evbuffer_add_printf(out, "Date: %s\r\nx-amzn-RequestId: %s\r\n", server_date(c->srv),
                        r->request_id);
    if (r->error_type)
        evbuffer_add_printf(out, "x-amzn-ErrorType: %s" SMERR_TYPE_SUFFIX "\r\n", r->error_type);
    if (r->variant)
        evbuffer_add_printf(out, "x-Amzn-Invoked-Production-Variant: %s\r\n", r->variant);
    if (r->sm_content_type)
        evbuffer_add_printf(out, "X-Amzn-SageMaker-Content-Type: %s\r\n", r->sm_content_type);
    if (r->new_session)
        evbuffer_add_printf(out, "X-Amzn-SageMaker-New-Session-Id: %s\r\n", r->new_session);
    if (r->closed_session)
        evbuffer_add_printf(out, "X-Amzn-SageMaker-Closed-Session-Id: %s\r\n", r->closed_session);
    if (r->timed) evbuffer_add_printf(out, INVOKE_SERVICE_HEADER ": %lld\r\n", r->service_us);
    evbuffer_add(out, close ? "Connection: close\r\n\r\n" : "\r\n", close ? 21 : 2);
}

/* The reply to the request on c is complete: reads the next request, or closes. */
static void server_conn_replied(struct server_conn *c, bool close) {
    c->call = NULL;
    c->queued++;
    if (close) {
        c->state = SERVER_CLOSING;
        evtimer_del(c->deadline);
        bufferevent_disable(c->bev, EV_READ);
        return;
    }
    c->state = SERVER_HEAD;
    server_conn_timeouts(c, true);
    if (!c->processing) server_conn_process(c);
}

/* A part of a streamed reply: its head, its body as a chunk, its end. */
static void server_send_part(struct server_conn *c, const struct invoke_reply *r) {
    struct evbuffer *out = bufferevent_get_output(c->bev);
    bool idle = !evbuffer_get_length(out);
    bool head = r->part == INVOKE_CHUNK_HEAD || r->part == INVOKE_CHUNK_ALL;
    bool cut = r->mode == INVOKE_DROP;
    bool end = cut || r->part == INVOKE_CHUNK_END || r->part == INVOKE_CHUNK_ALL;
    if (head) {
        c->raw_stream = c->head.minor == 0; /* HTTP/1.0 knows no chunks: the close ends it */
        if (c->raw_stream) c->keep_alive = false;
        server_conn_headers(c, r, SIZE_MAX, !c->keep_alive);
    }
    if (r->body_len && !c->raw_stream) evbuffer_add_printf(out, "%zx\r\n", r->body_len);
    evbuffer_add(out, r->body, r->body_len);
    if (r->body_len && !c->raw_stream) evbuffer_add(out, "\r\n", 2);
    if (end && !cut && !c->raw_stream) evbuffer_add(out, "0\r\n\r\n", 5);
    if (end)
        server_conn_replied(c, !c->keep_alive || cut);
    else if (idle && !c->srv->ssl) /* a token leaves now, not after the loop's turn */
        evbuffer_write(out, bufferevent_getfd(c->bev));
}

static void server_conn_linger(struct server_conn *c);

/* A streamed reply's next bytes wait while the output holds more than
 * SERVER_OUT_HIGH (the client reads none): see server.h. */
static bool server_full(void *owner) {
    return server_conn_full(owner);
}

void server_send(void *owner, const struct invoke_reply *r) {
    struct server_conn *c = owner;
    if (r->part != INVOKE_WHOLE) {
        server_send_part(c, r);
        return;
    }
    if (r->mode == INVOKE_CLOSE) {
        server_conn_replied(c, true);
        if (!evbuffer_get_length(bufferevent_get_output(c->bev))) server_conn_linger(c);
        return;
    }
    size_t length = r->mode == INVOKE_TRUNCATE ? r->body_len / 2 : r->body_len;
    size_t sent = r->mode == INVOKE_DROP ? r->body_len / 2 : length;
    bool close = !c->keep_alive || r->mode == INVOKE_DROP;
    server_conn_headers(c, r, length, close);
    evbuffer_add(bufferevent_get_output(c->bev), r->body, sent);
    server_conn_replied(c, close);
}

/* Drops the blank lines a client may send between requests. */
static void server_skip_blank(struct evbuffer *in) {
    const unsigned char *p;
    while (evbuffer_get_length(in) >= 2 && (p = evbuffer_pullup(in, 2)) && p[0] == '\r' &&
           p[1] == '\n')
        evbuffer_drain(in, 2);
}

/* The body is to be read: reserves what goes past a head's worth, unless it is here. */
static bool server_conn_expect_body(struct server_conn *c, struct evbuffer *in) {
    size_t total = c->head_len + c->body_len, have = evbuffer_get_length(in);
    size_t extra = total > SERVER_HEAD_READ ? total - SERVER_HEAD_READ : 0;
    if (extra && have < total) {
        if (!gate_reserve(&c->srv->gate, extra)) {
            server_conn_refuse(c, INVOKE_TOO_MANY_BODIES);
            return false;
        }
        c->reserved = extra;
        server_conn_read_limit(c, total);
    }
    c->state = SERVER_BODY;
    if (c->head.expect_continue && have < total)
        bufferevent_write(c->bev, "HTTP/1.1 100 Continue\r\n\r\n", 25);
    return true;
}

/* Reads the head; returns false when more bytes are needed or it was refused. */
static bool server_conn_head(struct server_conn *c, struct evbuffer *in) {
    server_skip_blank(in);
    size_t have = evbuffer_get_length(in);
    if (have && !c->arrival) c->arrival = reqlog_now();
    ev_ssize_t end = have ? evbuffer_search(in, "\r\n\r\n", 4, NULL).pos : -1;
    if (end < 0 || (size_t)end + 4 > HTTP_MAX_HEAD) {
        if (have > HTTP_MAX_HEAD)
            server_conn_malformed(c, INVOKE_HEAD_TOO_LARGE);
        else if (have)
            server_conn_deadline(c, c->srv->cfg.head_timeout);
        return false;
    }
    evtimer_del(c->deadline);
    c->head_len = (size_t)end + 4;
    c->head_at = (const char *)evbuffer_pullup(in, (ev_ssize_t)c->head_len);
    int rc =
        c->head_at ? http_parse_head(c->head_at, c->head_len, &c->head, NULL) : HTTP_ERR_MALFORMED;
    if (rc || c->head.chunked) {
        server_conn_malformed(c, rc == HTTP_ERR_TOO_MANY ? INVOKE_HEAD_TOO_LARGE
                                 : rc                    ? INVOKE_BAD_REQUEST
                                                         : INVOKE_LENGTH_REQUIRED);
        return false;
    }
    c->keep_alive = c->head.keep_alive;
    if (c->head.content_length > SERVER_MAX_BODY) {
        server_conn_refuse(c, INVOKE_TOO_LARGE);
        return false;
    }
    c->body_len = (size_t)c->head.content_length;
    return server_conn_expect_body(c, in);
}

/* Hands a complete request to invoke; returns false when more bytes are needed. */
static bool server_conn_body(struct server_conn *c, struct evbuffer *in) {
    size_t total = c->head_len + c->body_len;
    if (evbuffer_get_length(in) < total) {
        server_conn_deadline(c, c->srv->cfg.body_timeout);
        return false;
    }
    evtimer_del(c->deadline);
    const char *data = (const char *)evbuffer_pullup(in, (ev_ssize_t)total);
    /* the head's pointers hold unless pulling up the body moved the bytes */
    if (!data || (data != c->head_at && http_parse_head(data, c->head_len, &c->head, NULL))) {
        server_conn_malformed(c, INVOKE_BAD_REQUEST);
        return false;
    }
    c->state = SERVER_BUSY;
    struct rtcall *call = NULL;
    struct server *s = c->srv;
    if (!s->route || !s->route(s->route_ud, c, &c->head, data + c->head_len, c->body_len, &call)) {
        s->inv->arrival = c->arrival;
        call = rtcall_request(s->inv, c, &c->head, data + c->head_len, c->body_len);
    }
    c->arrival = 0;
    evbuffer_drain(in, total);
    server_conn_release(c);
    if (call) { /* answered later: reads on only to see the client leave */
        c->call = call;
        server_conn_timeouts(c, false);
    }
    return true;
}

/* Stops reading until the replies waiting for the client are written. */
static bool server_conn_pause(struct server_conn *c) {
    c->paused = true;
    evtimer_del(c->deadline);
    bufferevent_disable(c->bev, EV_READ);
    return false;
}

static bool server_conn_blocked(struct server_conn *c) {
    return c->queued >= SERVER_PIPELINE || server_conn_full(c);
}

static void server_conn_process(struct server_conn *c) {
    struct evbuffer *in = bufferevent_get_input(c->bev);
    c->processing = true;
    for (bool more = true; more;) {
        if (c->state == SERVER_HEAD && server_conn_blocked(c))
            more = server_conn_pause(c);
        else if (c->state == SERVER_HEAD)
            more = server_conn_head(c, in);
        else if (c->state == SERVER_BODY)
            more = server_conn_body(c, in);
        else
            more = false;
    }
    c->processing = false;
}

/* Once the last reply is out: shuts the socket down for writing and reads on
 * for a moment, so unread request bytes do not turn the close into a reset
 * that destroys the reply before the client reads it. */
static void server_conn_linger(struct server_conn *c) {
    c->state = SERVER_LINGER;
    shutdown(bufferevent_getfd(c->bev), SHUT_WR);
    evbuffer_drain(bufferevent_get_input(c->bev), SIZE_MAX);
    bufferevent_set_timeouts(c->bev, NULL, NULL);
    c->idle_read = false;
    server_conn_deadline(c, SERVER_LINGER_S);
    bufferevent_enable(c->bev, EV_READ);
}

static void server_read_cb(struct bufferevent *bev, void *arg) {
    struct server_conn *c = arg;
    if (!c->arrival && c->state != SERVER_LINGER) c->arrival = reqlog_now(); /* its next request */
    if (c->state == SERVER_LINGER)
        evbuffer_drain(bufferevent_get_input(bev), SIZE_MAX);
    else
        server_conn_process(c);
}

/* The output drained: closes, or reads again after a pause. */
static void server_write_cb(struct bufferevent *bev, void *arg) {
    struct server_conn *c = arg;
    if (evbuffer_get_length(bufferevent_get_output(bev)) > 0) return;
    server_conn_drained(c);
    if (c->call && c->state != SERVER_CLOSING) { /* a stream's owed steps, first */
        rtcall_drained(c->call);
        if (evbuffer_get_length(bufferevent_get_output(bev)) > 0) return;
    }
    c->queued = 0;
    if (c->state == SERVER_CLOSING) {
        server_conn_linger(c);
    } else if (c->paused) {
        c->paused = false;
        bufferevent_enable(bev, EV_READ);
        server_conn_process(c);
    }
}

static void server_event_cb(struct bufferevent *bev, short events, void *arg) {
    (void)bev;
    if (events & (BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT)) server_conn_free(arg);
}

/* The head, body or linger deadline passed. */
static void server_deadline_cb(evutil_socket_t fd, short what, void *arg) {
    struct server_conn *c = arg;
    (void)fd;
    (void)what;
    if (c->state == SERVER_LINGER) {
        server_conn_free(c);
    } else if (c->state == SERVER_HEAD || c->state == SERVER_BODY) {
        if (c->state == SERVER_HEAD)
            c->srv->gate.n.head_timeouts++;
        else
            c->srv->gate.n.body_timeouts++;
        server_conn_refuse(c, INVOKE_TIMEOUT);
    }
}

/* A connection on fd (closed on failure), or NULL. */
static struct server_conn *server_conn_new(struct server *s, evutil_socket_t fd) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct server_conn *c = calloc(1, sizeof *c);
    SSL *ssl = c && s->ssl ? SSL_new(s->ssl) : NULL;
    int opts = BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS;
    if (c && ssl) /* libevent's from here on, freed by it even when this fails */
        c->bev = bufferevent_openssl_socket_new(s->base, fd, ssl, BUFFEREVENT_SSL_ACCEPTING, opts);
    else if (c && !s->ssl)
        c->bev = bufferevent_socket_new(s->base, fd, opts);
    if (c) c->deadline = evtimer_new(s->base, server_deadline_cb, c);
    if (c && c->bev && c->deadline) return c;
    if (c && c->bev)
        bufferevent_free(c->bev); /* closes fd */
    else
        evutil_closesocket(fd);
    if (c && c->deadline) event_free(c->deadline);
    free(c);
    return NULL;
}

static void server_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
                          int socklen, void *arg) {
    struct server *s = arg;
    (void)l;
    (void)sa;
    (void)socklen;
    struct server_conn *c = server_conn_new(s, fd);
    if (!c) return;
    c->srv = s;
    c->next = s->conns;
    if (s->conns) s->conns->prev = c;
    s->conns = c;
    c->verdict = gate_open(&s->gate);
    bufferevent_setcb(c->bev, server_read_cb, server_write_cb, server_event_cb, c);
    server_conn_read_limit(c, SERVER_HEAD_READ);
    server_conn_timeouts(c, true);
    bufferevent_enable(c->bev, EV_READ | EV_WRITE);
    if (c->verdict == GATE_REFUSE) server_conn_refuse(c, INVOKE_TOO_MANY_CONNS);
    server_listen_update(s);
}

/* --- set-up --- */

int server_init(struct server *s, struct event_base *base, struct invoke *inv,
                const struct server_config *cfg) {
    s->base = base;
    s->inv = inv;
    s->cfg = *cfg;
    gate_init(&s->gate, cfg->max_connections, cfg->max_body_buffer);
    s->retry_ev = evtimer_new(base, server_retry_cb, s);
    inv->send = server_send;
    inv->full = server_full;
    inv->gate = &s->gate;
    (void)server_date(s); /* the first gmtime_r reads the time zone files */
    return s->retry_ev ? SERVER_OK : SERVER_ERR_NOMEM;
}

/* Resolves "HOST:PORT" ("[V6]:PORT" too; port 0 = any) into ss. */
static int server_address(const char *addr, struct sockaddr_storage *ss, socklen_t *len,
                          char host[256]) {
    const char *colon = strrchr(addr, ':');
    char *end = NULL;
    if (!colon || colon == addr || (size_t)(colon - addr) >= 256) return SERVER_ERR_ADDRESS;
    unsigned long port = strtoul(colon + 1, &end, 10);
    if (end == colon + 1 || *end || port > 65535) return SERVER_ERR_ADDRESS;
    snprintf(host, 256, "%.*s", (int)(colon - addr), addr);
    char bare[256];
    size_t n = strlen(host);
    snprintf(bare, sizeof bare, "%.*s", (int)(host[0] == '[' ? n - 2 : n), host + (host[0] == '['));
    struct evutil_addrinfo hints = {.ai_family = AF_UNSPEC,
                                    .ai_socktype = SOCK_STREAM,
                                    .ai_flags = EVUTIL_AI_PASSIVE},
                           *res = NULL;
    char service[8];
    snprintf(service, sizeof service, "%lu", port);
    if (evutil_getaddrinfo(bare, service, &hints, &res) || !res) return SERVER_ERR_ADDRESS;
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    *len = (socklen_t)res->ai_addrlen;
    evutil_freeaddrinfo(res);
    return SERVER_OK;
}

int server_listen(struct server *s, const char *addr, struct buf *err) {
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    char host[256];
    if (server_address(addr, &ss, &len, host))
        return buf_fail(err, SERVER_ERR_ADDRESS, "--listen '%s': not HOST:PORT with a known host",
                        addr);
    s->listener = evconnlistener_new_bind(s->base, server_accept, s,
                                          LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE, 1024,
                                          (struct sockaddr *)&ss, (int)len);
    if (!s->listener)
        return buf_fail(err, SERVER_ERR_ADDRESS, "--listen '%s': %s", addr, strerror(errno));
    s->listening = true;
    evconnlistener_set_error_cb(s->listener, server_accept_error);
    len = sizeof ss;
    getsockname(evconnlistener_get_fd(s->listener), (struct sockaddr *)&ss, &len);
    unsigned port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                                   : ((struct sockaddr_in *)&ss)->sin_port);
    snprintf(s->url, sizeof s->url, "%s://%s:%u", s->ssl ? "https" : "http", host, port);
    return SERVER_OK;
}

int server_tls(struct server *s, const char *cert, const char *key, struct buf *err) {
    s->ssl = SSL_CTX_new(TLS_server_method());
    if (s->ssl && SSL_CTX_use_certificate_chain_file(s->ssl, cert) == 1 &&
        SSL_CTX_use_PrivateKey_file(s->ssl, key, SSL_FILETYPE_PEM) == 1 &&
        SSL_CTX_check_private_key(s->ssl) == 1)
        return SERVER_OK;
    char why[256];
    ERR_error_string_n(ERR_get_error(), why, sizeof why);
    return buf_fail(err, SERVER_ERR_TLS, "--tls-cert %s / --tls-key %s: %s", cert, key, why);
}

void server_close(struct server *s) {
    if (s->listener) evconnlistener_free(s->listener);
    s->listener = NULL;
    for (struct server_conn *c = s->conns, *next; c; c = next) {
        next = c->next;
        server_conn_free(c);
    }
    if (s->retry_ev) event_free(s->retry_ev);
    s->retry_ev = NULL;
    if (s->ssl) SSL_CTX_free(s->ssl);
    s->ssl = NULL;
}
