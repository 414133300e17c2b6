/* Fuzzes the emulator's request-head parser on a stream of pipelined requests,
 * framed the way its server frames them: blank lines skipped, the head up to
 * the first CRLFCRLF (at most HTTP_MAX_HEAD bytes), then Content-Length body
 * bytes; a refused head ends the stream. Each head is parsed from a buffer of
 * exactly its size (an over-read is caught by ASan). The stream is read in one
 * piece, in two pieces, and one byte at a time: every way gives the same heads.
 * A head accepted lies inside its bytes, holds only what the syntax allows,
 * frames as its headers say, and parses the same once printed again. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http.h"

#define FUZZ_MAX_EVENTS 64
#define FUZZ_BYTEWISE   2048 /* longest input also read one byte at a time */

enum fuzz_event_kind { EV_HEAD, EV_BAD, EV_CHUNKED, EV_TOO_LARGE };

struct fuzz_event {
    enum fuzz_event_kind kind;
    size_t at, len;  /* stream offset and length of the head */
    uint64_t digest; /* of the parsed fields, offsets relative to the head */
};

struct fuzz_reader {
    char *buf; /* received, not yet consumed */
    size_t len;
    size_t at; /* stream offset of buf[0] */
    unsigned long long body_left;
    bool stopped;
    struct fuzz_event ev[FUZZ_MAX_EVENTS];
    size_t n;
};

static uint64_t fuzz_mix(uint64_t h, const void *p, size_t n) {
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 0x100000001b3ULL;
    return h;
}

static uint64_t fuzz_mix_n(uint64_t h, unsigned long long v) {
    return fuzz_mix(h, &v, sizeof v);
}

static bool fuzz_tchar(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool fuzz_named(const struct sigv4_header *v, const char *name) {
    return v->name_len == strlen(name) && strncasecmp(v->name, name, v->name_len) == 0;
}

/* The fields of h; with base, their offsets from base too. */
static uint64_t fuzz_digest(const struct http_head *h, const char *base) {
    uint64_t d = fuzz_mix(0xcbf29ce484222325ULL, h->method, h->method_len);
    d = fuzz_mix(fuzz_mix_n(d, h->method_len), h->target, h->target_len);
    d = fuzz_mix_n(fuzz_mix_n(d, h->target_len), (unsigned long long)h->minor);
    d = fuzz_mix_n(d, h->n_headers);
    for (size_t i = 0; i < h->n_headers; i++) {
        const struct sigv4_header *v = &h->headers[i];
        d = fuzz_mix(fuzz_mix_n(d, v->name_len), v->name, v->name_len);
        d = fuzz_mix(fuzz_mix_n(d, v->value_len), v->value, v->value_len);
        if (base)
            d = fuzz_mix_n(fuzz_mix_n(d, (size_t)(v->name - base)), (size_t)(v->value - base));
    }
    if (base) d = fuzz_mix_n(fuzz_mix_n(d, (size_t)(h->method - base)), (size_t)(h->target - base));
    d = fuzz_mix_n(d, h->content_length);
    return fuzz_mix_n(d, (unsigned)h->chunked * 4 + (unsigned)h->keep_alive * 2 +
                             (unsigned)h->expect_continue);
}

static bool fuzz_inside(const char *p, size_t n, const char *d, size_t len) {
    return p >= d && n <= len && (size_t)(p - d) <= len - n;
}

/* The request line: METHOD SP TARGET SP HTTP/1.x CRLF, at the start of d. */
static void fuzz_check_line(const struct http_head *h, const char *d, size_t len) {
    if (h->method != d || h->method_len == 0 || h->target != d + h->method_len + 1 ||
        h->target_len == 0 || h->minor < 0 || h->minor > 9 ||
        !fuzz_inside(h->target, h->target_len + 11, d, len))
        abort();
    for (size_t i = 0; i < h->method_len; i++)
        if (!fuzz_tchar((unsigned char)d[i])) abort();
    for (size_t i = 0; i < h->target_len; i++)
        if ((unsigned char)h->target[i] <= ' ' || h->target[i] == 0x7f) abort();
    char tail[24];
    snprintf(tail, sizeof tail, " HTTP/1.%d\r\n", h->minor);
    if (memcmp(h->target + h->target_len, tail, 11) != 0) abort();
}

/* One header: inside d, after the previous one, a token name and a trimmed
 * value without control characters. */
static void fuzz_check_header(const struct sigv4_header *v, const char *after, const char *d,
                              size_t len) {
    if (v->name < after || v->name_len == 0 || !fuzz_inside(v->name, v->name_len, d, len) ||
        !fuzz_inside(v->value, v->value_len, d, len) || v->value < v->name + v->name_len + 1 ||
        v->name[v->name_len] != ':')
        abort();
    for (size_t i = 0; i < v->name_len; i++)
        if (!fuzz_tchar((unsigned char)v->name[i])) abort();
    for (size_t i = 0; i < v->value_len; i++) {
        unsigned char c = (unsigned char)v->value[i];
        if ((c < ' ' && c != '\t') || c == 0x7f) abort();
    }
    if (v->value_len && strchr(" \t", v->value[0])) abort();
    if (v->value_len && strchr(" \t", v->value[v->value_len - 1])) abort();
}

/* The framing fields agree with the headers they come from. */
static void fuzz_check_framing(const struct http_head *h) {
    bool has_length = false, has_te = false, has_connection = false;
    for (size_t i = 0; i < h->n_headers; i++) {
        const struct sigv4_header *v = &h->headers[i];
        if (fuzz_named(v, "content-length")) {
            char text[32];
            if (v->value_len == 0 || v->value_len >= sizeof text) abort();
            memcpy(text, v->value, v->value_len);
            text[v->value_len] = '\0';
            if (strspn(text, "0123456789") != v->value_len ||
                strtoull(text, NULL, 10) != h->content_length)
                abort();
            has_length = true;
        }
        has_te = has_te || fuzz_named(v, "transfer-encoding");
        has_connection = has_connection || fuzz_named(v, "connection");
        char name[128];
        if (v->name_len < sizeof name) {
            memcpy(name, v->name, v->name_len);
            name[v->name_len] = '\0';
            const struct sigv4_header *first = http_header(h, name);
            if (!first || first > v || !fuzz_named(first, name)) abort();
        }
    }
    if (!has_length && h->content_length) abort();
    if (h->chunked && (!has_te || has_length)) abort();
    if (!has_connection && h->keep_alive != (h->minor >= 1)) abort();
}

static void fuzz_check_round_trip(const struct http_head *h) {
    size_t n = h->method_len + h->target_len + 14;
    for (size_t i = 0; i < h->n_headers; i++)
        n += h->headers[i].name_len + h->headers[i].value_len + 4;
    char *text = malloc(n), *p = text;
    if (!text) abort();
    p += sprintf(p, "%.*s %.*s HTTP/1.%d\r\n", (int)h->method_len, h->method, (int)h->target_len,
                 h->target, h->minor);
    for (size_t i = 0; i < h->n_headers; i++) {
        const struct sigv4_header *v = &h->headers[i];
        memcpy(p, v->name, v->name_len);
        p += v->name_len;
        *p++ = ':';
        *p++ = ' ';
        memcpy(p, v->value, v->value_len);
        p += v->value_len;
        *p++ = '\r';
        *p++ = '\n';
    }
    memcpy(p, "\r\n", 2);
    if ((size_t)(p + 2 - text) != n) abort();
    struct http_head again;
    if (http_parse_head(text, n, &again, NULL) || fuzz_digest(&again, NULL) != fuzz_digest(h, NULL))
        abort();
    free(text);
}

static void fuzz_check_head(const struct http_head *h, const char *d, size_t len) {
    fuzz_check_line(h, d, len);
    if (h->n_headers > HTTP_MAX_HEADERS) abort();
    size_t lines = 0;
    for (size_t i = 0; i + 1 < len; i++) lines += d[i] == '\r' && d[i + 1] == '\n';
    if (lines != h->n_headers + 2) abort();
    const char *after = h->target + h->target_len + 11;
    for (size_t i = 0; i < h->n_headers; i++) {
        fuzz_check_header(&h->headers[i], after, d, len);
        after = h->headers[i].value + h->headers[i].value_len;
    }
    fuzz_check_framing(h);
    char *m = strndup(h->method, h->method_len), *t = strndup(h->target, h->target_len);
    if (!m || !t || !http_is(h, m, t) || http_is(h, m, "")) abort();
    free(m);
    free(t);
    fuzz_check_round_trip(h);
}

static void fuzz_event(struct fuzz_reader *r, enum fuzz_event_kind kind, size_t len,
                       uint64_t digest) {
    r->ev[r->n++] = (struct fuzz_event){kind, r->at, len, digest};
    r->stopped = kind != EV_HEAD || r->n == FUZZ_MAX_EVENTS;
}

static void fuzz_consume(struct fuzz_reader *r, size_t n) {
    memmove(r->buf, r->buf + n, r->len - n);
    r->len -= n;
    r->at += n;
}

/* Parses the head at the start of the buffer, of len bytes, from a copy of its own. */
static void fuzz_head(struct fuzz_reader *r, size_t len) {
    char *copy = malloc(len);
    struct http_head h;
    if (!copy) abort();
    memcpy(copy, r->buf, len);
    if (http_parse_head(copy, len, &h, NULL)) {
        fuzz_event(r, EV_BAD, len, 0);
    } else {
        fuzz_check_head(&h, copy, len);
        fuzz_event(r, h.chunked ? EV_CHUNKED : EV_HEAD, len, fuzz_digest(&h, copy));
        r->body_left = h.content_length;
        fuzz_consume(r, len);
    }
    free(copy);
}

/* Frames what the buffer holds, as the server does after each read. */
static void fuzz_process(struct fuzz_reader *r) {
    while (!r->stopped) {
        size_t body = r->body_left < r->len ? (size_t)r->body_left : r->len;
        fuzz_consume(r, body);
        r->body_left -= body;
        if (r->body_left) return;
        while (r->len >= 2 && r->buf[0] == '\r' && r->buf[1] == '\n') fuzz_consume(r, 2);
        const char *end = memmem(r->buf, r->len, "\r\n\r\n", 4);
        size_t head_len = end ? (size_t)(end - r->buf) + 4 : 0;
        if (!end || head_len > HTTP_MAX_HEAD) {
            if (r->len > HTTP_MAX_HEAD) fuzz_event(r, EV_TOO_LARGE, 0, 0);
            return;
        }
        fuzz_head(r, head_len);
    }
}

/* Appends a piece into a new buffer (the bytes move, as in an evbuffer) and frames. */
static void fuzz_feed(struct fuzz_reader *r, const uint8_t *p, size_t n) {
    char *grown = malloc(r->len + n + 1);
    if (!grown) abort();
    if (r->len) memcpy(grown, r->buf, r->len);
    if (n) memcpy(grown + r->len, p, n);
    free(r->buf);
    r->buf = grown;
    r->len += n;
    fuzz_process(r);
}

/* Reads data in pieces of at most step bytes, the first one first bytes long. */
static void fuzz_read(const uint8_t *data, size_t size, size_t first, size_t step,
                      struct fuzz_reader *r) {
    memset(r, 0, sizeof *r);
    fuzz_feed(r, data, first);
    for (size_t at = first; at < size && !r->stopped; at += step)
        fuzz_feed(r, data + at, size - at < step ? size - at : step);
    free(r->buf);
}

static void fuzz_same(const struct fuzz_reader *a, const struct fuzz_reader *b) {
    if (a->n != b->n) abort();
    for (size_t i = 0; i < a->n; i++)
        if (a->ev[i].kind != b->ev[i].kind || a->ev[i].at != b->ev[i].at ||
            a->ev[i].len != b->ev[i].len || a->ev[i].digest != b->ev[i].digest)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static struct fuzz_reader whole, split;
    fuzz_read(data, size, size, 1, &whole);
    size_t cut = size ? (data[0] * 257u + (size > 1 ? data[1] : 0u)) % (size + 1) : 0;
    fuzz_read(data, size, cut, size, &split);
    fuzz_same(&whole, &split);
    fuzz_read(data, size, size / 2, size, &split);
    fuzz_same(&whole, &split);
    if (size <= FUZZ_BYTEWISE) {
        fuzz_read(data, size, 0, 1, &split);
        fuzz_same(&whole, &split);
    }
    return 0;
}
