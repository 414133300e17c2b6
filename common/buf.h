/* buf: a growable byte buffer with a size cap and checked appends.
 *
 * The data is always NUL-terminated (not counted in len), so buf_str() can be
 * handed to C string functions. An append that would pass the cap or fails to
 * allocate leaves the buffer unchanged and returns BUF_ERR_*. */
#ifndef SM_BUF_H
#define SM_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#define BUF_NO_CAP ((size_t)-1)

enum buf_error {
    BUF_OK = 0,
    BUF_ERR_NOMEM = -1,
    BUF_ERR_CAP = -2, /* the append would pass the buffer's cap */
};

struct buf {
    char *data; /* NULL until the first append */
    size_t len; /* bytes in use, without the terminating NUL */
    size_t cap; /* bytes allocated */
    size_t max; /* largest len allowed */
};

/* Starts an empty buffer holding at most max bytes (BUF_NO_CAP: no cap). */
void buf_init(struct buf *b, size_t max);
/* Frees the memory; the buffer may be used again after buf_init. */
void buf_free(struct buf *b);
/* Like buf_free, but first overwrites the bytes (for secrets). */
void buf_free_secret(struct buf *b);
/* Empties the buffer and keeps its memory for reuse. */
void buf_reset(struct buf *b);
/* Cuts the contents to the first len bytes (len <= b->len). */
void buf_truncate(struct buf *b, size_t len);
/* Makes b one line: what a terminal may obey (tty.h: C0 and C1 controls, DEL,
 * bytes that are no UTF-8) becomes '?', a byte each, for a message that quotes
 * text from outside. */
void buf_one_line(struct buf *b);

/* The slow path of buf_add: grows the buffer first. */
__attribute__((warn_unused_result)) int buf_add_grow(struct buf *b, const void *p, size_t n);

/* Appends n bytes; inline because signing appends many short runs. */
__attribute__((warn_unused_result)) static inline int buf_add(struct buf *b, const void *p,
                                                              size_t n) {
    if (n >= b->cap - b->len || n > b->max - b->len) return buf_add_grow(b, p, n);
    if (n) memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return BUF_OK;
}

__attribute__((warn_unused_result)) static inline int buf_adds(struct buf *b, const char *s) {
    return buf_add(b, s, strlen(s));
}

__attribute__((warn_unused_result)) static inline int buf_addc(struct buf *b, char c) {
    return buf_add(b, &c, 1);
}

__attribute__((warn_unused_result, format(printf, 2, 3))) int buf_addf(struct buf *b,
                                                                       const char *fmt, ...);
__attribute__((warn_unused_result)) int buf_vaddf(struct buf *b, const char *fmt, va_list ap);

/* The one way a function reports an error: err (NULL when the caller wants no
 * message) is emptied and gets a one-line message; returns code, so that a
 * failing path reads `return buf_fail(err, X_ERR_IO, "cannot open %s", path)`.
 * Out of memory, the message is left empty and code is still returned. */
__attribute__((format(printf, 3, 4))) int buf_fail(struct buf *err, int code, const char *fmt, ...);

/* Appends n bytes for the caller to fill and returns where they start, or
 * NULL (buffer unchanged) past the cap or out of memory. */
__attribute__((warn_unused_result)) char *buf_grow(struct buf *b, size_t n);

/* The contents as a C string; "" for an empty buffer. Valid until the next change. */
const char *buf_str(const struct buf *b);

/* Takes the contents out as a malloc'ed C string (the caller frees it) and
 * leaves the buffer empty. Returns NULL when out of memory. */
char *buf_take(struct buf *b);

#endif
