#include "jsonw.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "utf8.h"

/* A byte a JSON string holds as it is: ASCII from the space on, but the quote
 * and the backslash. The rest is escaped or checked as UTF-8. */
static bool jsonw_plain(unsigned char c) {
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

char *jsonw_put_str(char *p, const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    *p++ = '"';
    while (i < n) {
        size_t run = i;
        while (run < n && jsonw_plain(u[run])) run++;
        if (run > i) {
            p = jsonw_put(p, s + i, run - i);
            i = run;
            continue;
        }
        uint32_t c;
        size_t k = utf8_decode(u + i, n - i, &c);
        if (k == 0) {
            p = JSONW_PUT(p, "\xef\xbf\xbd");
            k = 1;
        } else if (c == '"' || c == '\\') {
            *p++ = '\\';
            *p++ = (char)c;
        } else if (c < 0x20) {
            p = JSONW_PUT(p, "\\u00");
            *p++ = hex[c >> 4];
            *p++ = hex[c & 15];
        } else {
            p = jsonw_put(p, s + i, k);
        }
        i += k;
    }
    *p++ = '"';
    return p;
}

char *jsonw_put_cstr(char *p, const char *s) {
    return s ? jsonw_put_str(p, s, strlen(s)) : JSONW_PUT(p, "null");
}

/* Two digits a step: what %lld prints, without printf's cost. */
char *jsonw_put_int(char *p, long long v) {
    static const char pairs[] = "000102030405060708091011121314151617181920212223242526272829303132"
                                "3334353637383940414243444546474849"
                                "505152535455565758596061626364656667686970717273747576777879808182"
                                "8384858687888990919293949596979899";
    char digits[24], *d = digits + sizeof digits;
    unsigned long long m = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
    for (; m >= 100; m /= 100) memcpy(d -= 2, pairs + m % 100 * 2, 2);
    if (m >= 10)
        memcpy(d -= 2, pairs + m * 2, 2);
    else
        *--d = (char)('0' + m);
    if (v < 0) *--d = '-';
    return jsonw_put(p, d, (size_t)(digits + sizeof digits - d));
}

/* Written in place when the most it can take fits under the buffer's cap; else
 * elsewhere first, so that a string whose escaped form fits is never refused. */
int jsonw_str(struct buf *b, const char *s, size_t len) {
    size_t room = jsonw_str_room(len);
    if (room <= b->max - b->len) {
        char *p = buf_grow(b, room);
        if (!p) return BUF_ERR_NOMEM;
        buf_truncate(b, (size_t)(jsonw_put_str(p, s, len) - b->data));
        return BUF_OK;
    }
    char *tmp = malloc(room);
    if (!tmp) return BUF_ERR_NOMEM;
    int rc = buf_add(b, tmp, (size_t)(jsonw_put_str(tmp, s, len) - tmp));
    free(tmp);
    return rc;
}

int jsonw_cstr(struct buf *b, const char *s) {
    return s ? jsonw_str(b, s, strlen(s)) : buf_adds(b, "null");
}
