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
#include <event2/util.h>
#include <openssl/err.h>

#include "rng.h"
#include "smerr.h"

#define SRV_MAX_BODY  6291456ULL
#define SRV_READ_HIGH (SRV_MAX_BODY + HTTP_MAX_HEAD + 65536)
#define SRV_LINGER_S  2 /* how long a closing connection reads what the client still sends */

enum conn_state {
    CONN_HEAD,    /* waiting for a request head */
    CONN_BODY,    /* head parsed, waiting for the body */
    CONN_BUSY,    /* a call is answering the request */
    CONN_CLOSING, /* the last reply is being written */
    CONN_LINGER,  /* written and shut down for writing: reading until the client closes */
};

struct conn {
    struct server *srv;
    struct bufferevent *bev;
    enum conn_state state;
    size_t head_len;
    unsigned long long body_len;
    const char *head_at;   /* where head was parsed; still valid if the buffer did not move */
    struct http_head head; /* the parsed head of the request being read */
    bool keep_alive;
    bool processing; /* inside conn_process */
    struct call *call;
    struct conn *prev, *next;
};

double server_now_real(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void server_arm(struct event *ev, double due_real) {
    double delay = due_real - SERVER_WAKE_LEAD - server_now_real();
    struct timeval tv = {0, 0};
    if (delay > 0) {
        tv.tv_sec = (time_t)delay;
        tv.tv_usec = (suseconds_t)((delay - (double)tv.tv_sec) * 1e6);
    }
    evtimer_add(ev, &tv);
}

void server_wait_until(double due_real) {
    while (server_now_real() < due_real) {
    }
}

const char *server_date(struct server *s) {
    time_t now = time(NULL);
    if (now != s->date_at) {
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(s->date, sizeof s->date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
        s->date_at = now;
    }
    return s->date;
}

static void conn_idle_timeout(struct conn *c, bool on) {
    struct timeval tv = {(time_t)c->srv->idle_timeout_real, 0};
    bufferevent_set_timeouts(c->bev, on ? &tv : NULL, NULL);
}

static void conn_free(struct conn *c) {
    struct server *s = c->srv;
    if (c->call) invoke_abort(c->call);
    if (c->prev)
        c->prev->next = c->next;
    else
        s->conns = c->next;
    if (c->next) c->next->prev = c->prev;
    bufferevent_free(c->bev);
    free(c);
}

static void conn_process(struct conn *c);

void conn_set_call(struct conn *c, struct call *call) {
    c->call = call;
    if (call) {
        c->state = CONN_BUSY;
        conn_idle_timeout(c, false);
    }
}

void conn_send(struct conn *c, const struct reply *r) {
    struct evbuffer *out = bufferevent_get_output(c->bev);
    size_t length = r->mode == REPLY_TRUNCATE ? r->body_len / 2 : r->body_len;
    size_t sent = r->mode == REPLY_DROP ? r->body_len / 2 : length;
    bool close = !c->keep_alive || r->mode == REPLY_DROP;
    evbuffer_add_printf(out,
                        "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                        "Date: %s\r\nx-amzn-RequestId: %s\r\n",
                        r->status, smerr_reason(r->status),
                        r->content_type ? r->content_type : "application/json", length,
                        server_date(c->srv), r->request_id);
    if (r->error_type)
        evbuffer_add_printf(out, "x-amzn-ErrorType: %s" SMERR_TYPE_SUFFIX "\r\n", r->error_type);
    if (r->variant)
        evbuffer_add_printf(out, "x-Amzn-Invoked-Production-Variant: %s\r\n", r->variant);
    evbuffer_add(out, close ? "Connection: close\r\n\r\n" : "\r\n", close ? 21 : 2);
    evbuffer_add(out, r->body, sent);
    if (close) {
        c->state = CONN_CLOSING;
        bufferevent_disable(c->bev, EV_READ);
        return;
    }
    c->state = CONN_HEAD;
    conn_idle_timeout(c, true);
    if (!c->processing) conn_process(c);
}

void server_request_id(struct server *s, char out[SERVER_ID_LEN]) {
    uint64_t a = rng_next(&s->rng), b = rng_next(&s->rng);
    snprintf(out, SERVER_ID_LEN, "%08x-%04x-4%03x-a%03x-%012llx", (unsigned)(a >> 32),
             (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xfff, (unsigned)(b >> 52) & 0xfff,
             (unsigned long long)(b & 0xffffffffffffULL));
}

/* Answers a request that cannot be framed, then closes. */
static void conn_refuse(struct conn *c, int status, const char *message) {
    char body[160], id[SERVER_ID_LEN];
    server_request_id(c->srv, id);
    int n = snprintf(body, sizeof body, "{\"message\":\"%s\"}", message);
    invoke_bad_request(c->srv, status, id);
    c->keep_alive = false;
    conn_send(c, &(struct reply){status, NULL, NULL, NULL, id, body, (size_t)n, REPLY_FULL});
}

/* Reads the head; returns false when more bytes are needed or it failed. */
static bool conn_head(struct conn *c, struct evbuffer *in) {
    struct http_head *h = &c->head;
    const unsigned char *p;
    while (evbuffer_get_length(in) >= 2 && (p = evbuffer_pullup(in, 2)) && p[0] == '\r' &&
           p[1] == '\n')
        evbuffer_drain(in, 2);
    struct evbuffer_ptr end = evbuffer_search(in, "\r\n\r\n", 4, NULL);
    if (end.pos < 0 || (size_t)end.pos + 4 > HTTP_MAX_HEAD) {
        if (evbuffer_get_length(in) > HTTP_MAX_HEAD)
            conn_refuse(c, 431, "Request Header Fields Too Large");
        return false;
    }
    c->head_len = (size_t)end.pos + 4;
    const char *data = (const char *)evbuffer_pullup(in, (ev_ssize_t)c->head_len);
    c->head_at = data;
    if (!data || http_parse_head(data, c->head_len, h)) {
        conn_refuse(c, 400, "Bad Request");
        return false;
    }
    if (h->chunked) {
        conn_refuse(c, 411, "Length Required");
        return false;
    }
    c->keep_alive = h->keep_alive;
    if (h->content_length > SRV_MAX_BODY) {
        c->keep_alive = false;
        invoke_too_large(c->srv, c);
        return false;
    }
    c->body_len = h->content_length;
    c->state = CONN_BODY;
    if (h->expect_continue && evbuffer_get_length(in) < c->head_len + c->body_len)
        bufferevent_write(c->bev, "HTTP/1.1 100 Continue\r\n\r\n", 25);
    return true;
}

/* Hands a complete request to invoke.c; returns false when more bytes are needed. */
static bool conn_request(struct conn *c, struct evbuffer *in) {
    size_t total = c->head_len + (size_t)c->body_len;
    if (evbuffer_get_length(in) < total) return false;
    const char *data = (const char *)evbuffer_pullup(in, (ev_ssize_t)total);
    /* the head's pointers hold unless pulling up the body moved the bytes */
    if (!data || (data != c->head_at && http_parse_head(data, c->head_len, &c->head))) {
        conn_refuse(c, 400, "Bad Request");
        return false;
    }
    c->state = CONN_BUSY;
    invoke_request(c->srv, c, &c->head, data + c->head_len, (size_t)c->body_len);
    evbuffer_drain(in, total);
    return true;
}

static void conn_process(struct conn *c) {
    struct evbuffer *in = bufferevent_get_input(c->bev);
    c->processing = true;
    for (bool more = true; more;) {
        if (c->state == CONN_HEAD)
            more = conn_head(c, in);
        else if (c->state == CONN_BODY)
            more = conn_request(c, in);
        else
            more = false;
    }
    c->processing = false;
}

static void conn_read_cb(struct bufferevent *bev, void *arg) {
    struct conn *c = arg;
    if (c->state == CONN_LINGER)
        evbuffer_drain(bufferevent_get_input(bev), SIZE_MAX);
    else
        conn_process(c);
}

/* Once the last reply is out: shuts the socket down for writing and reads on
 * for a moment, so unread request bytes do not turn the close into a reset
 * that destroys the reply before the client reads it. */
static void conn_write_cb(struct bufferevent *bev, void *arg) {
    struct conn *c = arg;
    if (c->state != CONN_CLOSING || evbuffer_get_length(bufferevent_get_output(bev)) > 0) return;
    struct timeval tv = {SRV_LINGER_S, 0};
    c->state = CONN_LINGER;
    shutdown(bufferevent_getfd(bev), SHUT_WR);
    evbuffer_drain(bufferevent_get_input(bev), SIZE_MAX);
    bufferevent_set_timeouts(bev, &tv, NULL);
    bufferevent_enable(bev, EV_READ);
}

static void conn_event_cb(struct bufferevent *bev, short events, void *arg) {
    (void)bev;
    if (events & (BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT)) conn_free(arg);
}

static void server_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
                          int socklen, void *arg) {
    struct server *s = arg;
    (void)l;
    (void)sa;
    (void)socklen;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct conn *c = calloc(1, sizeof *c);
    SSL *ssl = s->ssl ? SSL_new(s->ssl) : NULL;
    int opts = BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS;
    if (c && s->ssl && ssl)
        c->bev = bufferevent_openssl_socket_new(s->base, fd, ssl, BUFFEREVENT_SSL_ACCEPTING, opts);
    else if (c && !s->ssl)
        c->bev = bufferevent_socket_new(s->base, fd, opts);
    if (!c || !c->bev) {
        if (ssl && !(c && c->bev)) SSL_free(ssl);
        free(c);
        evutil_closesocket(fd);
        return;
    }
    c->srv = s;
    c->next = s->conns;
    if (s->conns) s->conns->prev = c;
    s->conns = c;
    s->connections++;
    bufferevent_setcb(c->bev, conn_read_cb, conn_write_cb, conn_event_cb, c);
    bufferevent_setwatermark(c->bev, EV_READ, 0, SRV_READ_HIGH);
    conn_idle_timeout(c, true);
    bufferevent_enable(c->bev, EV_READ | EV_WRITE);
}

/* Resolves "HOST:PORT" ("[V6]:PORT" too; port 0 = any) into ss. */
static int server_address(const char *addr, struct sockaddr_storage *ss, socklen_t *len,
                          char host[256]) {
    const char *colon = strrchr(addr, ':');
    char *end = NULL;
    if (!colon || colon == addr || (size_t)(colon - addr) >= 256) return -1;
    unsigned long port = strtoul(colon + 1, &end, 10);
    if (end == colon + 1 || *end || port > 65535) return -1;
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
    if (evutil_getaddrinfo(bare, service, &hints, &res) || !res) return -1;
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    *len = (socklen_t)res->ai_addrlen;
    evutil_freeaddrinfo(res);
    return 0;
}

int server_listen(struct server *s, const char *addr, struct buf *err) {
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    char host[256];
    if (server_address(addr, &ss, &len, host)) {
        (void)!buf_addf(err, "--listen '%s': not HOST:PORT with a known host", addr);
        return -1;
    }
    s->listener = evconnlistener_new_bind(s->base, server_accept, s,
                                          LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE, 1024,
                                          (struct sockaddr *)&ss, (int)len);
    if (!s->listener) {
        (void)!buf_addf(err, "--listen '%s': %s", addr, strerror(errno));
        return -1;
    }
    len = sizeof ss;
    getsockname(evconnlistener_get_fd(s->listener), (struct sockaddr *)&ss, &len);
    unsigned port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                                   : ((struct sockaddr_in *)&ss)->sin_port);
    snprintf(s->url, sizeof s->url, "%s://%s:%u", s->ssl ? "https" : "http", host, port);
    return 0;
}

int server_tls(struct server *s, const char *cert, const char *key, struct buf *err) {
    s->ssl = SSL_CTX_new(TLS_server_method());
    if (s->ssl && SSL_CTX_use_certificate_chain_file(s->ssl, cert) == 1 &&
        SSL_CTX_use_PrivateKey_file(s->ssl, key, SSL_FILETYPE_PEM) == 1 &&
        SSL_CTX_check_private_key(s->ssl) == 1)
        return 0;
    char why[256];
    ERR_error_string_n(ERR_get_error(), why, sizeof why);
    (void)!buf_addf(err, "--tls-cert %s / --tls-key %s: %s", cert, key, why);
    return -1;
}

void server_close(struct server *s) {
    for (struct conn *c = s->conns, *next; c; c = next) {
        next = c->next;
        conn_free(c);
    }
    if (s->listener) evconnlistener_free(s->listener);
    s->listener = NULL;
    if (s->ssl) SSL_CTX_free(s->ssl);
    s->ssl = NULL;
}
