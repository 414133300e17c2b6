/* http: parses the head of an HTTP/1.x request (request line and headers, up
 * to and including the blank line). Pointers in the result refer into the
 * parsed bytes; the caller keeps them alive. */
#ifndef EMU_HTTP_H
#define EMU_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "sigv4.h"

#define HTTP_MAX_HEADERS 100
#define HTTP_MAX_HEAD    ((size_t)64 * 1024)

struct http_head {
    const char *method;
    size_t method_len;
    const char *target;
    size_t target_len;
    int minor; /* HTTP/1.minor */
    struct sigv4_header headers[HTTP_MAX_HEADERS];
    size_t n_headers;
    unsigned long long content_length;
    bool chunked;
    bool keep_alive;
    bool expect_continue;
};

enum http_error {
    HTTP_OK = 0,
    HTTP_ERR_MALFORMED = -1, /* request line, header syntax or framing headers */
    HTTP_ERR_TOO_MANY = -2,  /* more than HTTP_MAX_HEADERS headers */
};

/* Parses data[0..len), which ends with "\r\n\r\n". Returns 0 or HTTP_ERR_*,
 * with one line in err (may be NULL) saying what is wrong. */
__attribute__((warn_unused_result)) int http_parse_head(const char *data, size_t len,
                                                        struct http_head *h, struct buf *err);

/* The first of hs[0..n) called name (case-insensitive), or NULL. */
const struct sigv4_header *http_find(const struct sigv4_header *hs, size_t n, const char *name);

/* The first header of h called name, or NULL. */
const struct sigv4_header *http_header(const struct http_head *h, const char *name);

/* Whether the method/target equal m/t exactly. */
bool http_is(const struct http_head *h, const char *m, const char *t);

#endif
