/* Fuzzes the streaming JSON scanner: walks the input value by value with the
 * typed calls (a stream of values, as in a journal) and checks that the walk
 * agrees with jscan_skip, that every string decodes to no more bytes than it
 * has, and that a number read as an integer is the same number as a double. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jscan.h"

static void fuzz_string(const struct jscan_str *str, struct buf *tmp) {
    buf_reset(tmp);
    if (jscan_str_decode(str, tmp) != BUF_OK) abort();
    if (str->escaped ? tmp->len >= str->n : tmp->len != str->n) abort();
    if (!str->escaped && memcmp(buf_str(tmp), str->s, str->n) != 0) abort();
    if (!str->escaped && !memchr(str->s, '\0', str->n) && !jscan_str_is(str, buf_str(tmp))) abort();
}

/* Reads the number at s as jscan_skip, jscan_number and jscan_int do. */
static int fuzz_number(struct jscan *s) {
    struct jscan as_double = *s, as_int = *s;
    double d;
    int64_t i;
    int rs = jscan_skip(s), rd = jscan_number(&as_double, &d), ri = jscan_int(&as_int, &i);
    if (rd == 0 && (rs != 0 || as_double.p != s->p)) abort();
    if (ri == 0 && (rd != 0 || d != (double)i || as_int.p != s->p)) abort();
    return rs;
}

static int fuzz_walk(struct jscan *s, int depth, struct buf *tmp) {
    struct jscan_str str;
    size_t count = 0;
    bool b;
    int more;
    if (depth > JSCAN_MAX_DEPTH) return jscan_fail(s, "nested too deeply");
    switch (jscan_peek(s)) {
    case '{':
        if (jscan_object(s) < 0) return -1;
        while ((more = jscan_member(s, &count, &str)) > 0) {
            fuzz_string(&str, tmp);
            if (fuzz_walk(s, depth + 1, tmp) < 0) return -1;
        }
        return more;
    case '[':
        if (jscan_array(s) < 0) return -1;
        while ((more = jscan_item(s, &count)) > 0)
            if (fuzz_walk(s, depth + 1, tmp) < 0) return -1;
        return more;
    case '"':
        if (jscan_string(s, &str) < 0) return -1;
        fuzz_string(&str, tmp);
        return 0;
    case 't':
    case 'f':
        return jscan_bool(s, &b);
    case 'n':
        return jscan_null(s) == 1 ? 0 : -1;
    default:
        return fuzz_number(s);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct jscan walked, skipped;
    struct buf tmp;
    size_t line, col;
    int rw = 0, rs = 0;
    buf_init(&tmp, BUF_NO_CAP);
    jscan_init(&walked, (const char *)data, size);
    jscan_init(&skipped, (const char *)data, size);
    while (rw == 0 && rs == 0 && (jscan_peek(&walked) || jscan_peek(&skipped))) {
        rw = fuzz_walk(&walked, 0, &tmp);
        rs = jscan_skip(&skipped);
        if (rw != rs || (rw == 0 && walked.p != skipped.p)) abort();
    }
    jscan_where(&walked, &line, &col);
    if (line < 1 || col < 1 || col > size + 1 || (rw < 0) != (walked.err != NULL)) abort();
    buf_free(&tmp);
    return 0;
}
