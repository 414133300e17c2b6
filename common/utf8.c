#include "utf8.h"

/* The length of the sequence lead byte b starts, or 0. */
static size_t utf8_len(unsigned char b) {
    if (b < 0x80) return 1;
    if (b >= 0xc2 && b < 0xe0) return 2;
    if (b >= 0xe0 && b < 0xf0) return 3;
    if (b >= 0xf0 && b < 0xf5) return 4;
    return 0;
}

size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *c) {
    static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    size_t len = utf8_len(s[0]);
    if (len == 0 || len > n) return 0;
    uint32_t v = len == 1 ? s[0] : s[0] & (0x7fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        v = v << 6 | (s[i] & 0x3f);
    }
    if (v < least[len] || (v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff) return 0;
    *c = v;
    return len;
}

size_t utf8_char(const char *s, size_t n, bool *control) {
    const unsigned char *u = (const unsigned char *)s;
    uint32_t c;
    size_t len = utf8_decode(u, n, &c);
    if (len == 0) { /* no UTF-8: one byte, obeyed by an 8-bit terminal when 0x80-0x9F */
        *control = true;
        return 1;
    }
    *control = c < 0x20 || (c >= 0x7f && c <= 0x9f);
    return len;
}
