/* jscan: a small validating JSON pull scanner over a byte span.
 *
 * It allocates nothing and copies nothing: strings come back as spans of the
 * input (struct jstr), decoded only on request. sm-compare uses it for the
 * records of result files (millions of small objects), where building a cJSON
 * tree costs seconds and gigabytes; everything else goes through cJSON.
 *
 * Every function returns 0 (or a count, where said) on success and -1 on bad
 * input; the first error is kept in the scanner (err, err_at) and every later
 * call fails too. */
#ifndef SM_JSCAN_H
#define SM_JSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define JSCAN_MAX_DEPTH 256

struct jscan {
    const char *p;      /* next unread byte */
    const char *end;    /* one past the last byte */
    const char *start;  /* first byte, for error positions */
    const char *err;    /* static text of the first error, or NULL */
    const char *err_at; /* where it happened */
};

struct jscan_str {
    const char *s; /* the raw bytes between the quotes */
    size_t n;
    bool escaped; /* holds backslash escapes: decode with jstr_decode */
};

void jscan_init(struct jscan *s, const char *data, size_t n);

/* The white space case of jscan_peek. */
int jscan_peek_space(struct jscan *s);

/* Skips white space; returns the first byte of the next token ('{', '[', '"',
 * 't', 'f', 'n', '-' or a digit; '}', ']', ',' or ':'), or 0 at the end.
 * Inline: a stream's client calls it for every value of every chunk. */
static inline int jscan_peek(struct jscan *s) {
    if (!s->err && s->p < s->end && (unsigned char)*s->p > ' ') return (unsigned char)*s->p;
    return jscan_peek_space(s);
}

/* Enters an object (consumes '{'). */
__attribute__((warn_unused_result)) int jscan_object(struct jscan *s);
/* Reads the next member's key and its ':'. *count is the caller's member
 * counter, 0 after jscan_object. Returns 1 with *key set, 0 after the closing
 * '}', -1 on bad input. */
__attribute__((warn_unused_result)) int jscan_member(struct jscan *s, size_t *count,
                                                     struct jscan_str *key);
/* Enters an array (consumes '['). */
__attribute__((warn_unused_result)) int jscan_array(struct jscan *s);
/* Moves to the next element: 1 when one follows, 0 after the closing ']'. */
__attribute__((warn_unused_result)) int jscan_item(struct jscan *s, size_t *count);

__attribute__((warn_unused_result)) int jscan_string(struct jscan *s, struct jscan_str *out);
__attribute__((warn_unused_result)) int jscan_number(struct jscan *s, double *out);
/* An integral number (a fraction or exponent that still gives an integer is fine). */
__attribute__((warn_unused_result)) int jscan_int(struct jscan *s, int64_t *out);
__attribute__((warn_unused_result)) int jscan_bool(struct jscan *s, bool *out);
/* Consumes a null and returns 1, or returns 0 when the next value is not null. */
__attribute__((warn_unused_result)) int jscan_null(struct jscan *s);
/* Skips one value of any type, checking its syntax. */
__attribute__((warn_unused_result)) int jscan_skip(struct jscan *s);
/* Sets the error (when none is set yet) and returns -1. */
int jscan_fail(struct jscan *s, const char *msg);

/* 1-based line and column of the error (or of the next byte when none). */
void jscan_where(const struct jscan *s, size_t *line, size_t *col);

/* Appends the string's decoded UTF-8 bytes to out. */
__attribute__((warn_unused_result)) int jscan_str_decode(const struct jscan_str *str,
                                                         struct buf *out);
/* True when the (undecoded) string equals lit. */
bool jscan_str_is(const struct jscan_str *str, const char *lit);

#endif
