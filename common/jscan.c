#include "jscan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void jscan_init(struct jscan *s, const char *data, size_t n) {
    s->p = data;
    s->end = data + n;
    s->start = data;
    s->err = NULL;
    s->err_at = NULL;
}

int jscan_fail(struct jscan *s, const char *msg) {
    if (!s->err) {
        s->err = msg;
        s->err_at = s->p;
    }
    return -1;
}

int jscan_peek_space(struct jscan *s) {
    if (s->err) return 0;
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
        s->p++;
    return s->p < s->end ? (unsigned char)*s->p : 0;
}

static int jscan_expect(struct jscan *s, char c, const char *msg) {
    if (jscan_peek(s) != c) return jscan_fail(s, msg);
    s->p++;
    return 0;
}

int jscan_object(struct jscan *s) {
    return jscan_expect(s, '{', "expected an object");
}

int jscan_array(struct jscan *s) {
    return jscan_expect(s, '[', "expected an array");
}

/* The separator before the next member or element: 1 when one follows. */
static int jscan_next_in(struct jscan *s, size_t *count, char close) {
    int c = jscan_peek(s);
    if (c == close) {
        s->p++;
        return 0;
    }
    if (*count > 0) {
        if (c != ',')
            return jscan_fail(s, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
        s->p++;
    }
    (*count)++;
    return 1;
}

int jscan_member(struct jscan *s, size_t *count, struct jscan_str *key) {
    int more = jscan_next_in(s, count, '}');
    if (more <= 0) return more;
    if (jscan_peek(s) != '"') return jscan_fail(s, "expected a member name");
    if (jscan_string(s, key) < 0 || jscan_expect(s, ':', "expected ':'") < 0) return -1;
    return 1;
}

int jscan_item(struct jscan *s, size_t *count) {
    return jscan_next_in(s, count, ']');
}

static int jscan_hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Checks the escape at p (after the backslash); returns its length or -1. */
static int jscan_escape_len(const char *p, const char *end) {
    if (p >= end) return -1;
    if (*p && strchr("\"\\/bfnrt", *p)) return 1;
    if (*p != 'u' || end - p < 5) return -1;
    for (int i = 1; i <= 4; i++)
        if (jscan_hexval(p[i]) < 0) return -1;
    return 5;
}

/* Bytes that end the plain run of a string: quote, backslash, control characters. */
static const bool special[256] = {
#define JSCAN_SPECIAL4(c) [(c)] = true, [(c) + 1] = true, [(c) + 2] = true, [(c) + 3] = true
    JSCAN_SPECIAL4(0x00), JSCAN_SPECIAL4(0x04), JSCAN_SPECIAL4(0x08), JSCAN_SPECIAL4(0x0c),
    JSCAN_SPECIAL4(0x10), JSCAN_SPECIAL4(0x14), JSCAN_SPECIAL4(0x18), JSCAN_SPECIAL4(0x1c),
#undef JSCAN_SPECIAL4
    ['"'] = true,         ['\\'] = true,
};

/* Whether any of the 8 bytes in v is '"', '\\' or below 0x20: the word-at-a-time
 * tests for a zero byte (x - 0x01.. & ~x & 0x80..) and for a byte below n. */
static bool jscan_special8(uint64_t v) {
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    uint64_t quote = v ^ (ones * '"'), bslash = v ^ (ones * '\\');
    return (((quote - ones) & ~quote) | ((bslash - ones) & ~bslash) | ((v - ones * 0x20) & ~v)) &
           highs;
}

/* The first byte at or after p that ends a string's plain run, or end. */
static const char *jscan_plain_run(const char *p, const char *end) {
    uint64_t v;
    while (end - p >= 8 && (memcpy(&v, p, 8), !jscan_special8(v))) p += 8;
    while (p < end && !special[(unsigned char)*p]) p++;
    return p;
}

int jscan_string(struct jscan *s, struct jscan_str *out) {
    if (jscan_expect(s, '"', "expected a string") < 0) return -1;
    const char *p = s->p;
    bool escaped = false;
    for (;;) {
        p = jscan_plain_run(p, s->end);
        if (p >= s->end || *p == '"') break;
        unsigned char c = (unsigned char)*p;
        if (c < 0x20) {
            s->p = p;
            return jscan_fail(s, "control character in a string");
        }
        if (c == '\\') {
            int n = jscan_escape_len(p + 1, s->end);
            if (n < 0) {
                s->p = p;
                return jscan_fail(s, "bad escape in a string");
            }
            escaped = true;
            p += n;
        }
        p++;
    }
    if (p >= s->end) return jscan_fail(s, "unterminated string");
    out->s = s->p;
    out->n = (size_t)(p - s->p);
    out->escaped = escaped;
    s->p = p + 1;
    return 0;
}

static const char *jscan_digits(const char *p, const char *end) {
    while (p < end && *p >= '0' && *p <= '9') p++;
    return p;
}

/* Checks the number syntax at s->p; returns its end, or NULL. */
static const char *jscan_number_end(struct jscan *s, bool *integral) {
    const char *p = s->p, *e = s->end;
    if (p < e && *p == '-') p++;
    if (p >= e || *p < '0' || *p > '9') return NULL;
    p = *p == '0' ? p + 1 : jscan_digits(p, e);
    *integral = true;
    if (p < e && *p == '.') {
        const char *q = jscan_digits(p + 1, e);
        if (q == p + 1) return NULL;
        p = q;
        *integral = false;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-')) p++;
        const char *q = jscan_digits(p, e);
        if (q == p) return NULL;
        p = q;
        *integral = false;
    }
    return p;
}

int jscan_number(struct jscan *s, double *out) {
    jscan_peek(s);
    bool integral;
    const char *e = jscan_number_end(s, &integral);
    if (!e) return jscan_fail(s, "expected a number");
    char tmp[64];
    size_t n = (size_t)(e - s->p);
    if (n >= sizeof tmp) return jscan_fail(s, "number too long");
    memcpy(tmp, s->p, n);
    tmp[n] = '\0';
    double v = strtod(tmp, NULL);
    if (!isfinite(v)) return jscan_fail(s, "number out of range");
    *out = v;
    s->p = e;
    return 0;
}

int jscan_int(struct jscan *s, int64_t *out) {
    jscan_peek(s);
    bool integral;
    const char *e = jscan_number_end(s, &integral);
    if (!e) return jscan_fail(s, "expected an integer");
    if (integral && e - s->p <= 18) {
        const char *p = s->p;
        bool neg = *p == '-';
        int64_t v = 0;
        for (p += neg; p < e; p++) v = v * 10 + (*p - '0');
        *out = neg ? -v : v;
        s->p = e;
        return 0;
    }
    const char *at = s->p;
    double d;
    if (jscan_number(s, &d) < 0) return -1;
    if (d != floor(d) || fabs(d) > 9e15) {
        s->p = at;
        return jscan_fail(s, "expected an integer");
    }
    *out = (int64_t)d;
    return 0;
}

static int jscan_literal(struct jscan *s, const char *lit) {
    size_t n = strlen(lit);
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, lit, n) != 0) return 0;
    s->p += n;
    return 1;
}

int jscan_bool(struct jscan *s, bool *out) {
    jscan_peek(s);
    if (jscan_literal(s, "true"))
        *out = true;
    else if (jscan_literal(s, "false"))
        *out = false;
    else
        return jscan_fail(s, "expected true or false");
    return 0;
}

int jscan_null(struct jscan *s) {
    if (jscan_peek(s) != 'n') return 0;
    if (!jscan_literal(s, "null")) return jscan_fail(s, "expected a value");
    return 1;
}

static int jscan_skip_depth(struct jscan *s, int depth) {
    if (depth > JSCAN_MAX_DEPTH) return jscan_fail(s, "nested too deeply");
    struct jscan_str str;
    bool b;
    size_t count = 0;
    int more;
    switch (jscan_peek(s)) {
    case '{':
        if (jscan_object(s) < 0) return -1;
        while ((more = jscan_member(s, &count, &str)) > 0)
            if (jscan_skip_depth(s, depth + 1) < 0) return -1;
        return more;
    case '[':
        if (jscan_array(s) < 0) return -1;
        while ((more = jscan_item(s, &count)) > 0)
            if (jscan_skip_depth(s, depth + 1) < 0) return -1;
        return more;
    case '"':
        return jscan_string(s, &str);
    case 't':
    case 'f':
        return jscan_bool(s, &b);
    case 'n':
        return jscan_null(s) == 1 ? 0 : -1;
    case 0:
        return jscan_fail(s, "unexpected end of input");
    default: {
        bool integral;
        const char *e = jscan_number_end(s, &integral);
        if (!e) return jscan_fail(s, "expected a value");
        s->p = e;
        return 0;
    }
    }
}

int jscan_skip(struct jscan *s) {
    return jscan_skip_depth(s, 0);
}

void jscan_where(const struct jscan *s, size_t *line, size_t *col) {
    const char *at = s->err ? s->err_at : s->p;
    size_t l = 1;
    const char *bol = s->start;
    for (const char *p = s->start; p < at; p++)
        if (*p == '\n') {
            l++;
            bol = p + 1;
        }
    *line = l;
    *col = (size_t)(at - bol) + 1;
}

static int jscan_add_utf8(struct buf *out, uint32_t cp) {
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        u[0] = (char)(0xF0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return buf_add(out, u, n);
}

static uint32_t jscan_hex4(const char *p) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v = v * 16 + (uint32_t)jscan_hexval(p[i]);
    return v;
}

/* Decodes the \u escape at p (pointing at 'u'); returns the bytes used. */
static size_t jscan_unicode_escape(const char *p, const char *end, uint32_t *cp) {
    uint32_t hi = jscan_hex4(p + 1);
    *cp = hi;
    if (hi >= 0xD800 && hi < 0xDC00 && end - p >= 11 && p[5] == '\\' && p[6] == 'u') {
        uint32_t lo = jscan_hex4(p + 7);
        if (lo >= 0xDC00 && lo < 0xE000) {
            *cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
            return 11;
        }
    }
    if (hi >= 0xD800 && hi < 0xE000) *cp = 0xFFFD; /* a lone surrogate */
    return 5;
}

int jscan_str_decode(const struct jscan_str *str, struct buf *out) {
    if (!str->escaped) return buf_add(out, str->s, str->n);
    const char *p = str->s, *end = str->s + str->n;
    int rc = 0;
    while (p < end && !rc) {
        const char *bs = memchr(p, '\\', (size_t)(end - p));
        if (!bs) return buf_add(out, p, (size_t)(end - p));
        rc = buf_add(out, p, (size_t)(bs - p));
        if (rc) break;
        const char *e = bs + 1;
        static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
        if (*e == 'u') {
            uint32_t cp;
            p = e + jscan_unicode_escape(e, end, &cp);
            rc = jscan_add_utf8(out, cp);
        } else {
            rc = buf_addc(out, to[strchr(from, *e) - from]);
            p = e + 1;
        }
    }
    return rc;
}

bool jscan_str_is(const struct jscan_str *str, const char *lit) {
    size_t n = strlen(lit);
    return !str->escaped && str->n == n && memcmp(str->s, lit, n) == 0;
}
