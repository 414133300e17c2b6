/* jsonw: the one JSON writer of wrk-sagemaker. A string is written by one rule
 * everywhere: the quote and the backslash escaped, control characters as
 * \u00XX, well-formed UTF-8 kept as it is, and every byte that is not part of
 * well-formed UTF-8 replaced by U+FFFD, so what is written is always valid JSON
 * in valid UTF-8 whatever came in (a reply, a header, a prompt).
 *
 * Two forms: appends to a buf, and a cursor into room the caller reserved
 * (jsonw_str_room), for the recorder, which writes a record's line in one pass. */
#ifndef SM_JSONW_H
#define SM_JSONW_H

#include <stddef.h>
#include <string.h>

#include "buf.h"

/* The most jsonw_put_str writes for len bytes (every byte escaped, the quotes). */
static inline size_t jsonw_str_room(size_t len) {
    return 6 * len + 2;
}

/* Writes s[0..len) as a JSON string at p; returns the end of what was written. */
char *jsonw_put_str(char *p, const char *s, size_t len);
/* jsonw_put_str over a C string; NULL writes null (jsonw_str_room(strlen(s)) or 4 bytes). */
char *jsonw_put_cstr(char *p, const char *s);
/* A decimal integer, at most 20 bytes. */
char *jsonw_put_int(char *p, long long v);

/* n bytes at p, as they are; returns their end. */
static inline char *jsonw_put(char *p, const char *s, size_t n) {
    memcpy(p, s, n);
    return p + n;
}
/* A literal (a member's name with its punctuation): JSONW_PUT(p, ",\"ok\":"). */
#define JSONW_PUT(p, lit) jsonw_put(p, lit, sizeof(lit) - 1)

/* Appends s[0..len) as a JSON string. Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int jsonw_str(struct buf *b, const char *s, size_t len);
/* jsonw_str over a C string; NULL appends null. */
__attribute__((warn_unused_result)) int jsonw_cstr(struct buf *b, const char *s);

#endif
