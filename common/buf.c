#include "buf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "utf8.h"

#define BUF_MIN_ALLOC 64

void buf_init(struct buf *b, size_t max) {
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->max = max;
}

void buf_free(struct buf *b) {
    free(b->data);
    buf_init(b, b->max);
}

void buf_free_secret(struct buf *b) {
    if (b->data) OPENSSL_cleanse(b->data, b->cap);
    buf_free(b);
}

void buf_reset(struct buf *b) {
    buf_truncate(b, 0);
}

/* Writes nothing when len is the length: resetting an empty buffer, as a parser
 * does per chunk, leaves its memory alone (and out of the cache). */
void buf_truncate(struct buf *b, size_t len) {
    if (len >= b->len) return;
    b->len = len;
    if (b->data) b->data[len] = '\0';
}

void buf_one_line(struct buf *b) {
    for (size_t i = 0, len; i < b->len; i += len) {
        bool control;
        len = utf8_char(b->data + i, b->len - i, &control);
        if (control) memset(b->data + i, '?', len);
    }
}

/* Makes room for n more bytes plus the NUL. The old block is wiped, not
 * realloc'ed, so that a secret never stays behind in freed memory. */
static int buf_reserve(struct buf *b, size_t n) {
    if (n > b->max - b->len) return BUF_ERR_CAP;
    size_t need = b->len + n + 1;
    if (need <= b->cap) return BUF_OK;
    size_t cap = b->cap ? b->cap : BUF_MIN_ALLOC;
    while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *p = malloc(cap);
    if (!p) return BUF_ERR_NOMEM;
    if (b->data) {
        memcpy(p, b->data, b->len + 1);
        OPENSSL_cleanse(b->data, b->cap);
        free(b->data);
    }
    b->data = p;
    b->cap = cap;
    return BUF_OK;
}

int buf_add_grow(struct buf *b, const void *p, size_t n) {
    int rc = buf_reserve(b, n);
    if (rc) return rc;
    if (n) memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return BUF_OK;
}

char *buf_grow(struct buf *b, size_t n) {
    if (buf_reserve(b, n)) return NULL;
    char *p = b->data + b->len;
    b->len += n;
    b->data[b->len] = '\0';
    return p;
}

int buf_fail(struct buf *err, int code, const char *fmt, ...) {
    if (!err) return code;
    va_list ap;
    va_start(ap, fmt);
    buf_reset(err);
    if (buf_vaddf(err, fmt, ap)) buf_reset(err);
    va_end(ap);
    return code;
}

int buf_vaddf(struct buf *b, const char *fmt, va_list ap) {
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    int rc = n < 0 ? BUF_ERR_NOMEM : buf_reserve(b, (size_t)n);
    if (!rc) {
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, again);
        b->len += (size_t)n;
    }
    va_end(again);
    return rc;
}

int buf_addf(struct buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int rc = buf_vaddf(b, fmt, ap);
    va_end(ap);
    return rc;
}

const char *buf_str(const struct buf *b) {
    return b->data ? b->data : "";
}

char *buf_take(struct buf *b) {
    char *s = b->data ? b->data : strdup("");
    buf_init(b, b->max);
    return s;
}
