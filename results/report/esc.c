#include "esc.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

/* Whether code point c is shown as an escape rather than itself. */
static bool esc_hidden(uint32_t c) {
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029 || c == 0x200e ||
           c == 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

int esc_text(struct buf *b, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    int rc = BUF_OK;
    while (n && !rc) {
        uint32_t c = 0;
        size_t len = utf8_decode(p, n, &c);
        if (len == 0)
            rc = buf_addf(b, "\\x%02x", p[0]);
        else if (c == '\n')
            rc = buf_adds(b, "\\n");
        else if (c == '\t')
            rc = buf_adds(b, "\\t");
        else if (c == '\r')
            rc = buf_adds(b, "\\r");
        else if (esc_hidden(c))
            rc = buf_addf(b, c < 0x80 ? "\\x%02x" : "\\u%04x", (unsigned)c);
        else
            rc = buf_add(b, p, len);
        len = len ? len : 1;
        p += len;
        n -= len;
    }
    return rc;
}

/* s through esc_text into a fresh buffer (the caller frees t). */
static int esc_plain(struct buf *t, const char *s) {
    buf_init(t, BUF_NO_CAP);
    return esc_text(t, s);
}

static bool esc_word(char c) {
    return isalnum((unsigned char)c) || (unsigned char)c >= 0x80;
}

int esc_markdown(struct buf *b, const char *s) {
    struct buf t;
    int rc = esc_plain(&t, s);
    const char *p = buf_str(&t);
    for (size_t i = 0; p[i] && !rc; i++) {
        char c = p[i];
        if (c == '&')
            rc = buf_adds(b, "&amp;");
        else if (c == '<')
            rc = buf_adds(b, "&lt;");
        else if (c == '>')
            rc = buf_adds(b, "&gt;");
        else if (strchr("\\`*[]|#~", c) || (i == 0 && strchr("-+=", c)) ||
                 (c == '_' && !(i > 0 && esc_word(p[i - 1]) && esc_word(p[i + 1]))))
            rc = buf_addc(b, '\\') || buf_addc(b, c);
        else
            rc = buf_addc(b, c);
    }
    buf_free(&t);
    return rc;
}

int esc_xml(struct buf *b, const char *s) {
    static const struct {
        char c;
        const char *entity;
    } map[] = {{'&', "&amp;"}, {'<', "&lt;"}, {'>', "&gt;"}, {'"', "&quot;"}, {'\'', "&#39;"}};
    struct buf t;
    int rc = esc_plain(&t, s);
    for (const char *p = buf_str(&t); *p && !rc; p++) {
        const char *entity = NULL;
        for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
            if (*p == map[i].c) entity = map[i].entity;
        rc = entity ? buf_adds(b, entity) : buf_addc(b, *p);
    }
    buf_free(&t);
    return rc;
}

/* Whether a field starting this way would be a formula in a spreadsheet. */
static bool esc_formula(const char *p) {
    if (*p == '=' || *p == '@') return true;
    return (*p == '+' || *p == '-') && !(isdigit((unsigned char)p[1]) || p[1] == '.');
}

int esc_csv(struct buf *b, const char *s) {
    struct buf t;
    int rc = esc_plain(&t, s);
    const char *p = buf_str(&t);
    bool quote = strpbrk(p, ",\"") || (*p && (p[0] == ' ' || p[t.len - 1] == ' '));
    if (!rc && quote) rc = buf_addc(b, '"');
    if (!rc && esc_formula(p)) rc = buf_addc(b, '\'');
    for (; *p && !rc; p++) rc = *p == '"' ? buf_adds(b, "\"\"") : buf_addc(b, *p);
    if (!rc && quote) rc = buf_addc(b, '"');
    buf_free(&t);
    return rc;
}

char *esc_utf8(const char *s) {
    struct buf b;
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    int rc = BUF_OK;
    buf_init(&b, BUF_NO_CAP);
    while (n && !rc) {
        uint32_t c;
        size_t len = utf8_decode(p, n, &c);
        rc = len ? buf_add(&b, p, len) : buf_adds(&b, "\xef\xbf\xbd");
        len = len ? len : 1;
        p += len;
        n -= len;
    }
    if (rc) {
        buf_free(&b);
        return NULL;
    }
    return buf_take(&b);
}
