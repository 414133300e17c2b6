#include "s3xml.h"

#include <stdbool.h>
#include <string.h>

#define S3XML_TAG_MAX 512 /* bytes of a tag after its name (attributes): longer is no tag */

/* Whether xml[at..) opens (close: closes) an element called name, with or
 * without a "prefix:"; *after is past the tag's '>' (*empty for "<name/>"). */
static bool s3xml_tag(const char *xml, size_t len, size_t at, const char *name, bool close,
                      size_t *after, bool *empty) {
    size_t n = strlen(name), i = at + 1 + close;
    if (at + 1 + close > len || xml[at] != '<' || (close && xml[at + 1] != '/')) return false;
    size_t colon = i;
    while (colon < len && colon < i + 64 && xml[colon] != ':' && xml[colon] != '>' &&
           xml[colon] != ' ' && xml[colon] != '/')
        colon++;
    if (colon < len && xml[colon] == ':') i = colon + 1; /* a namespace prefix */
    if (i + n > len || memcmp(xml + i, name, n) != 0) return false;
    i += n;
    if (i >= len || (xml[i] != '>' && xml[i] != ' ' && xml[i] != '\t' && xml[i] != '\r' &&
                     xml[i] != '\n' && xml[i] != '/'))
        return false;
    const char *gt = memchr(xml + i, '>', len - i < S3XML_TAG_MAX ? len - i : S3XML_TAG_MAX);
    if (!gt) return false;
    *after = (size_t)(gt - xml) + 1;
    *empty = !close && gt > xml + i && gt[-1] == '/';
    return true;
}

/* The inner span of the first element called name at or after *from. Returns
 * 0 (and moves *from past the element), S3XML_ABSENT or S3XML_ERR_MALFORMED. */
static int s3xml_find(const char *xml, size_t len, const char *name, size_t *from, size_t *start,
                      size_t *end) {
    for (size_t i = *from; i < len; i++) {
        const char *lt = memchr(xml + i, '<', len - i);
        if (!lt) return S3XML_ABSENT;
        i = (size_t)(lt - xml);
        size_t after;
        bool empty;
        if (!s3xml_tag(xml, len, i, name, false, &after, &empty)) continue;
        *start = after;
        if (empty) {
            *end = *from = after;
            return S3XML_OK;
        }
        for (size_t k = after; k < len; k++) {
            const char *c = memchr(xml + k, '<', len - k);
            if (!c) break;
            k = (size_t)(c - xml);
            size_t close_after;
            if (s3xml_tag(xml, len, k, name, true, &close_after, &empty)) {
                *end = k;
                *from = close_after;
                return S3XML_OK;
            }
        }
        return S3XML_ERR_MALFORMED;
    }
    return S3XML_ABSENT;
}

/* A character reference's code point as UTF-8 into out; false when it is none. */
static bool s3xml_char(struct buf *out, const char *p, size_t n, int *rc) {
    unsigned long cp = 0;
    bool hex = n > 1 && (p[1] == 'x' || p[1] == 'X');
    size_t i = hex ? 2 : 1;
    if (n <= i || p[0] != '#') return false;
    for (; i < n; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9'          ? c - '0'
                : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
                : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10
                                              : -1;
        if (d < 0 || cp > 0x10ffff) return false;
        cp = cp * (hex ? 16 : 10) + (unsigned long)d;
    }
    if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    unsigned char u[4];
    size_t k;
    if (cp < 0x80) {
        u[0] = (unsigned char)cp;
        k = 1;
    } else if (cp < 0x800) {
        u[0] = (unsigned char)(0xc0 | cp >> 6);
        u[1] = (unsigned char)(0x80 | (cp & 0x3f));
        k = 2;
    } else if (cp < 0x10000) {
        u[0] = (unsigned char)(0xe0 | cp >> 12);
        u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (unsigned char)(0x80 | (cp & 0x3f));
        k = 3;
    } else {
        u[0] = (unsigned char)(0xf0 | cp >> 18);
        u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
        u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        u[3] = (unsigned char)(0x80 | (cp & 0x3f));
        k = 4;
    }
    *rc = buf_add(out, (const char *)u, k);
    return true;
}

/* Appends s[0..n) with entities decoded. */
static int s3xml_decode(struct buf *out, const char *s, size_t n) {
    static const struct {
        const char *name;
        char c;
    } ents[] = {{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
    int rc = BUF_OK;
    for (size_t i = 0; i < n && rc == BUF_OK;) {
        const char *amp = memchr(s + i, '&', n - i);
        size_t run = amp ? (size_t)(amp - s) - i : n - i;
        if (run) rc = buf_add(out, s + i, run);
        i += run;
        if (!amp || rc) break;
        const char *semi = memchr(s + i, ';', n - i < 12 ? n - i : 12);
        bool done = false;
        if (semi) {
            size_t k = (size_t)(semi - s) - i - 1;
            for (size_t e = 0; !done && e < sizeof ents / sizeof ents[0]; e++)
                if (strlen(ents[e].name) == k && memcmp(s + i + 1, ents[e].name, k) == 0) {
                    rc = buf_addc(out, ents[e].c);
                    done = true;
                }
            if (!done) done = s3xml_char(out, s + i + 1, k, &rc);
            if (done) i = (size_t)(semi - s) + 1;
        }
        if (!done) {
            rc = buf_addc(out, '&');
            i++;
        }
    }
    return rc ? S3XML_ERR_NOMEM : S3XML_OK;
}

int s3xml_text(const char *xml, size_t len, const char *name, struct buf *out) {
    size_t from = 0, start, end;
    int rc = s3xml_find(xml, len, name, &from, &start, &end);
    return rc ? rc : s3xml_decode(out, xml + start, end - start);
}

int s3xml_each(const char *xml, size_t len, const char *name, s3xml_each_fn *fn, void *ud) {
    size_t from = 0, start, end;
    for (;;) {
        int rc = s3xml_find(xml, len, name, &from, &start, &end);
        if (rc == S3XML_ABSENT) return S3XML_OK;
        if (rc) return rc;
        if ((rc = fn(ud, xml + start, end - start))) return rc;
    }
}

int s3xml_escape(struct buf *out, const char *s, size_t n) {
    int rc = BUF_OK;
    for (size_t i = 0; i < n && rc == BUF_OK; i++) switch (s[i]) {
        case '&':
            rc = buf_adds(out, "&amp;");
            break;
        case '<':
            rc = buf_adds(out, "&lt;");
            break;
        case '>':
            rc = buf_adds(out, "&gt;");
            break;
        case '"':
            rc = buf_adds(out, "&quot;");
            break;
        case '\'':
            rc = buf_adds(out, "&apos;");
            break;
        default:
            rc = buf_addc(out, s[i]);
        }
    return rc;
}
