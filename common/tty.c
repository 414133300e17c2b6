#include "tty.h"

#include <stdint.h>

#include "scrub.h"
#include "utf8.h"

size_t tty_char(const char *s, size_t n, bool *control) {
    return utf8_char(s, n, control);
}

int tty_escape(struct buf *out, const char *s, size_t n, unsigned flags) {
    size_t i = 0, run = 0; /* s[i - run, i) waits to be copied */
    int rc = 0;
    while (i < n && !rc) {
        bool control;
        size_t len = tty_char(s + i, n - i, &control);
        unsigned char b = (unsigned char)s[i];
        if (!control || ((flags & TTY_LINES) && (b == '\n' || b == '\t'))) {
            i += len, run += len;
            continue;
        }
        rc = buf_add(out, s + i - run, run);
        uint32_t c = len == 2 ? (uint32_t)(b & 0x1f) << 6 | ((unsigned char)s[i + 1] & 0x3f) : b;
        if (rc) break;
        if (flags & TTY_JSON)
            rc = len == 1 && b >= 0x80 ? buf_adds(out, "\\ufffd") : buf_addf(out, "\\u%04x", c);
        else
            rc = len == 2 ? buf_addf(out, "\\u%04x", c) : buf_addf(out, "\\x%02x", b);
        i += len;
        run = 0;
    }
    return rc ? rc : buf_add(out, s + i - run, run);
}

int tty_write(FILE *f, const char *s, size_t n, unsigned flags) {
    struct buf clean, shown;
    buf_init(&clean, BUF_NO_CAP);
    buf_init(&shown, BUF_NO_CAP);
    int rc = scrub_append(&clean, s, n);
    if (!rc) rc = tty_escape(&shown, clean.data ? clean.data : "", clean.len, flags);
    if (!rc) fwrite(buf_str(&shown), 1, shown.len, f);
    buf_free(&clean);
    buf_free(&shown);
    return rc ? BUF_ERR_NOMEM : 0;
}
