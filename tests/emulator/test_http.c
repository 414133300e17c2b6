/* The request-head parser: framing, keep-alive, Expect, and what it refuses
 * (with the one-line reason). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "http.h"

static const struct {
    const char *name;
    const char *head;
    int rc;
    unsigned long long length;
    bool keep_alive, expect, chunked;
    size_t headers;
} cases[] = {
    {"get", "GET /ping HTTP/1.1\r\nHost: x\r\n\r\n", 0, 0, true, false, false, 1},
    {"post with length", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n\r\n", 0, 12, true,
     false, false, 2},
    {"http/1.0 closes", "GET / HTTP/1.0\r\n\r\n", 0, 0, false, false, false, 0},
    {"http/1.0 keep-alive", "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", 0, 0, true, false,
     false, 1},
    {"connection close", "GET / HTTP/1.1\r\nConnection: close\r\n\r\n", 0, 0, false, false, false,
     1},
    {"expect", "POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n", 0, 3, true,
     true, false, 2},
    {"chunked", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 0, 0, true, false, true,
     1},
    {"value trimmed", "GET / HTTP/1.1\r\nX:   a b  \r\n\r\n", 0, 0, true, false, false, 1},
    {"same lengths twice", "POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n", 0,
     2, true, false, false, 2},
};

/* Heads refused, each with its code and reason. */
static const struct {
    const char *name;
    const char *head;
    int rc;
    const char *why;
} refused[] = {
    {"no version", "GET /\r\n\r\n", HTTP_ERR_MALFORMED, "not a request line"},
    {"http/2", "GET / HTTP/2.0\r\n\r\n", HTTP_ERR_MALFORMED, "not a request line"},
    {"garbage", "\x16\x03\x01 hello\r\n\r\n", HTTP_ERR_MALFORMED, "not a request line"},
    {"no colon", "GET / HTTP/1.1\r\nHost x\r\n\r\n", HTTP_ERR_MALFORMED,
     "header 1 is not 'Name: value'"},
    {"space before colon", "GET / HTTP/1.1\r\nA: b\r\nHost : x\r\n\r\n", HTTP_ERR_MALFORMED,
     "header 2 is not"},
    {"obs-fold", "GET / HTTP/1.1\r\nA: b\r\n c\r\n\r\n", HTTP_ERR_MALFORMED, "header 2 is not"},
    {"bare LF", "GET / HTTP/1.1\nHost: x\r\n\r\n", HTTP_ERR_MALFORMED, "not a request line"},
    {"control in value", "GET / HTTP/1.1\r\nA: b\x01\r\n\r\n", HTTP_ERR_MALFORMED,
     "header 1 is not"},
    {"bad length", "POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", HTTP_ERR_MALFORMED,
     "Content-Length is not a number"},
    {"negative length", "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", HTTP_ERR_MALFORMED,
     "Content-Length is not a number"},
    {"length as a list", "POST / HTTP/1.1\r\nContent-Length: 5, 5\r\n\r\n", HTTP_ERR_MALFORMED,
     "Content-Length is not a number"},
    {"16 digits", "POST / HTTP/1.1\r\nContent-Length: 1000000000000000\r\n\r\n", HTTP_ERR_MALFORMED,
     "Content-Length is not a number of 1 to 15 digits"},
    {"two lengths", "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
     HTTP_ERR_MALFORMED, "two Content-Length headers that differ"},
    {"length and chunked",
     "POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
     HTTP_ERR_MALFORMED, "both Transfer-Encoding and Content-Length"},
    {"unknown coding", "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", HTTP_ERR_MALFORMED,
     "a Transfer-Encoding other than chunked"},
};

/* HTTP_MAX_HEADERS headers pass; one more is HTTP_ERR_TOO_MANY. */
static void test_many_headers(void) {
    for (int extra = 0; extra < 2; extra++) {
        char head[8192];
        size_t n = (size_t)snprintf(head, sizeof head, "GET / HTTP/1.1\r\n");
        for (int i = 0; i < HTTP_MAX_HEADERS + extra; i++)
            n += (size_t)snprintf(head + n, sizeof head - n, "X-%d: v\r\n", i);
        n += (size_t)snprintf(head + n, sizeof head - n, "\r\n");
        struct http_head h;
        struct buf err;
        buf_init(&err, 256);
        CHECK_INT(http_parse_head(head, n, &h, &err), extra ? HTTP_ERR_TOO_MANY : HTTP_OK);
        if (extra) CHECK_STR(buf_str(&err), "more than 100 headers");
        if (!extra) CHECK_INT(h.n_headers, HTTP_MAX_HEADERS);
        buf_free(&err);
    }
}

int main(void) {
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct http_head h;
        int rc = http_parse_head(cases[i].head, strlen(cases[i].head), &h, NULL);
        if (rc != cases[i].rc) fprintf(stderr, "case '%s'\n", cases[i].name);
        CHECK_INT(rc, cases[i].rc);
        if (rc) continue;
        CHECK_INT(h.content_length, cases[i].length);
        CHECK_INT(h.keep_alive, cases[i].keep_alive);
        CHECK_INT(h.expect_continue, cases[i].expect);
        CHECK_INT(h.chunked, cases[i].chunked);
        CHECK_INT(h.n_headers, cases[i].headers);
    }
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        struct http_head h;
        struct buf err;
        buf_init(&err, 256);
        int rc = http_parse_head(refused[i].head, strlen(refused[i].head), &h, &err);
        if (rc != refused[i].rc || !strstr(buf_str(&err), refused[i].why))
            fprintf(stderr, "case '%s': %d %s\n", refused[i].name, rc, buf_str(&err));
        CHECK_INT(rc, refused[i].rc);
        CHECK(strstr(buf_str(&err), refused[i].why) != NULL);
        buf_free(&err);
    }
    test_many_headers();
    struct http_head h;
    const char *req = "POST /endpoints/e/invocations?x=1 HTTP/1.1\r\nX-Amz-Date: 1\r\n"
                      "x-amz-date: 2\r\nB:   a b  \r\n\r\n";
    CHECK_INT(http_parse_head(req, strlen(req), &h, NULL), 0);
    CHECK(h.target_len == 28 && memcmp(h.target, "/endpoints/e/invocations?x=1", 28) == 0);
    CHECK(http_header(&h, "X-AMZ-DATE") == &h.headers[0]);
    CHECK(http_header(&h, "b")->value_len == 3);
    CHECK(http_header(&h, "missing") == NULL);
    CHECK(http_is(&h, "POST", "/endpoints/e/invocations?x=1"));
    CHECK(!http_is(&h, "GET", "/endpoints/e/invocations?x=1"));
    return check_exit();
}
