#include "http.h"

#include <string.h>
#include <strings.h>

static bool http_tchar(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* The line at p (ends at CRLF); returns its length without CRLF, or -1. A CR
 * or NUL inside the line is refused by the request-line and header checks. */
static long http_line(const char *p, const char *end) {
    const char *lf = memchr(p, '\n', (size_t)(end - p));
    if (!lf || lf == p || lf[-1] != '\r') return -1;
    return lf - 1 - p;
}

static int http_request_line(const char *p, size_t n, struct http_head *h) {
    size_t i = 0;
    while (i < n && http_tchar((unsigned char)p[i])) i++;
    if (i == 0 || i == n || p[i] != ' ') return HTTP_ERR_MALFORMED;
    h->method = p;
    h->method_len = i;
    size_t t = ++i;
    while (i < n && (unsigned char)p[i] > ' ' && p[i] != 0x7f) i++;
    if (i == t || i == n || p[i] != ' ') return HTTP_ERR_MALFORMED;
    h->target = p + t;
    h->target_len = i - t;
    i++;
    if (n - i != 8 || memcmp(p + i, "HTTP/1.", 7) != 0 || p[i + 7] < '0' || p[i + 7] > '9')
        return HTTP_ERR_MALFORMED;
    h->minor = p[i + 7] - '0';
    return HTTP_OK;
}

static bool http_value_is(const struct sigv4_header *v, const char *token) {
    /* a comma-separated list containing token (case-insensitive) */
    size_t n = strlen(token);
    const char *p = v->value, *end = v->value + v->value_len;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t' || *p == ',')) p++;
        const char *s = p;
        while (p < end && *p != ',') p++;
        const char *e = p;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t')) e--;
        if ((size_t)(e - s) == n && strncasecmp(s, token, n) == 0) return true;
    }
    return false;
}

static int http_content_length(const struct sigv4_header *v, struct http_head *h, bool *seen,
                               struct buf *err) {
    unsigned long long x = 0;
    if (v->value_len == 0 || v->value_len > 15)
        return buf_fail(err, HTTP_ERR_MALFORMED,
                        "Content-Length is not a number of 1 to 15 digits");
    for (size_t i = 0; i < v->value_len; i++) {
        if (v->value[i] < '0' || v->value[i] > '9')
            return buf_fail(err, HTTP_ERR_MALFORMED, "Content-Length is not a number");
        x = x * 10 + (unsigned)(v->value[i] - '0');
    }
    if (*seen && x != h->content_length)
        return buf_fail(err, HTTP_ERR_MALFORMED, "two Content-Length headers that differ");
    *seen = true;
    h->content_length = x;
    return HTTP_OK;
}

static int http_header_line(const char *p, size_t n, struct sigv4_header *out) {
    size_t i = 0;
    while (i < n && http_tchar((unsigned char)p[i])) i++;
    if (i == 0 || i == n || p[i] != ':') return HTTP_ERR_MALFORMED;
    out->name = p;
    out->name_len = i;
    i++;
    while (i < n && (p[i] == ' ' || p[i] == '\t')) i++;
    size_t e = n;
    while (e > i && (p[e - 1] == ' ' || p[e - 1] == '\t')) e--;
    for (size_t k = i; k < e; k++)
        if (((unsigned char)p[k] < ' ' && p[k] != '\t') || p[k] == 0x7f) return HTTP_ERR_MALFORMED;
    out->value = p + i;
    out->value_len = e - i;
    return HTTP_OK;
}

/* Applies the headers that shape the message: length, connection, expect. */
static int http_framing(struct http_head *h, struct buf *err) {
    bool has_length = false, has_te = false;
    h->keep_alive = h->minor >= 1;
    for (size_t i = 0; i < h->n_headers; i++) {
        const struct sigv4_header *v = &h->headers[i];
        if (v->name_len == 14 && strncasecmp(v->name, "content-length", 14) == 0) {
            int rc = http_content_length(v, h, &has_length, err);
            if (rc) return rc;
        } else if (v->name_len == 17 && strncasecmp(v->name, "transfer-encoding", 17) == 0) {
            has_te = true;
            h->chunked = http_value_is(v, "chunked");
        } else if (v->name_len == 10 && strncasecmp(v->name, "connection", 10) == 0) {
            if (http_value_is(v, "close"))
                h->keep_alive = false;
            else if (http_value_is(v, "keep-alive"))
                h->keep_alive = true;
        } else if (v->name_len == 6 && strncasecmp(v->name, "expect", 6) == 0) {
            h->expect_continue = http_value_is(v, "100-continue");
        }
    }
    if (has_te && has_length)
        return buf_fail(err, HTTP_ERR_MALFORMED, "both Transfer-Encoding and Content-Length");
    if (has_te && !h->chunked)
        return buf_fail(err, HTTP_ERR_MALFORMED, "a Transfer-Encoding other than chunked");
    return HTTP_OK;
}

int http_parse_head(const char *data, size_t len, struct http_head *h, struct buf *err) {
    const char *p = data, *end = data + len;
    memset(h, 0, sizeof *h);
    long n = http_line(p, end);
    if (n < 0 || http_request_line(p, (size_t)n, h))
        return buf_fail(err, HTTP_ERR_MALFORMED, "not a request line 'METHOD TARGET HTTP/1.x'");
    p += n + 2;
    while ((n = http_line(p, end)) > 0) {
        if (h->n_headers == HTTP_MAX_HEADERS)
            return buf_fail(err, HTTP_ERR_TOO_MANY, "more than %d headers", HTTP_MAX_HEADERS);
        if (http_header_line(p, (size_t)n, &h->headers[h->n_headers]))
            return buf_fail(err, HTTP_ERR_MALFORMED, "header %zu is not 'Name: value'",
                            h->n_headers + 1);
        h->n_headers++;
        p += n + 2;
    }
    if (n != 0 || p + 2 != end)
        return buf_fail(err, HTTP_ERR_MALFORMED, "a line does not end with CRLF");
    return http_framing(h, err);
}

const struct sigv4_header *http_find(const struct sigv4_header *hs, size_t n, const char *name) {
    size_t len = strlen(name);
    for (size_t i = 0; i < n; i++)
        if (hs[i].name_len == len && strncasecmp(hs[i].name, name, len) == 0) return &hs[i];
    return NULL;
}

const struct sigv4_header *http_header(const struct http_head *h, const char *name) {
    return http_find(h->headers, h->n_headers, name);
}

bool http_is(const struct http_head *h, const char *m, const char *t) {
    return h->method_len == strlen(m) && memcmp(h->method, m, h->method_len) == 0 &&
           h->target_len == strlen(t) && memcmp(h->target, t, h->target_len) == 0;
}
