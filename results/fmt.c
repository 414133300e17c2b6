#include "fmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void fmt_num(double x, int decimals, char *out, size_t cap) {
    if (!isfinite(x)) {
        snprintf(out, cap, "n/a");
        return;
    }
    double r = cmp_round(x, decimals);
    if (r == 0 && x != 0)
        snprintf(out, cap, "%.3g", x);
    else
        snprintf(out, cap, "%.15g", r == 0 ? 0.0 : r);
}

void fmt_val(const struct row *r, const struct val *v, long total, char *out, size_t cap) {
    if (!v->ok)
        snprintf(out, cap, "n/a");
    else if (total > 0)
        snprintf(out, cap, "%.0f/%ld", v->v, total);
    else
        fmt_num(v->v, r->decimals, out, cap);
}

void fmt_ratio(const struct row *r, char *out, size_t cap) {
    if (r->no_ratio)
        snprintf(out, cap, "%s", "");
    else if (!r->ratio.ok)
        snprintf(out, cap, "n/a");
    else
        fmt_num(r->ratio.v, 2, out, cap);
}

void fmt_ci(const struct ci *ci, int decimals, char *out, size_t cap) {
    if (!ci->ok || !isfinite(ci->lo) || !isfinite(ci->hi)) {
        snprintf(out, cap, "n/a");
        return;
    }
    char lo[FMT_CELL], hi[FMT_CELL];
    fmt_num(ci->lo, decimals < 2 ? 2 : decimals, lo, sizeof lo);
    fmt_num(ci->hi, decimals < 2 ? 2 : decimals, hi, sizeof hi);
    snprintf(out, cap, "%s to %s", lo, hi);
}

void fmt_reply(const char *s, size_t max, char *out, size_t cap) {
    size_t k = 0, used = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && k + 8 < cap; p++) {
        if (used >= max && (*p & 0xC0) != 0x80) {
            k += (size_t)snprintf(out + k, cap - k, "...");
            break;
        }
        if (*p == '\n')
            k += (size_t)snprintf(out + k, cap - k, "\\n");
        else if (*p == '\t')
            k += (size_t)snprintf(out + k, cap - k, "\\t");
        else if (*p < 0x20 || *p == 0x7f)
            k += (size_t)snprintf(out + k, cap - k, "\\x%02x", *p);
        else
            out[k++] = (char)*p;
        used++;
    }
    out[k] = '\0';
}

int fmt_xml(struct buf *b, const char *s) {
    int rc = 0;
    for (; *s && !rc; s++) {
        switch (*s) {
        case '&':
            rc = buf_adds(b, "&amp;");
            break;
        case '<':
            rc = buf_adds(b, "&lt;");
            break;
        case '>':
            rc = buf_adds(b, "&gt;");
            break;
        case '"':
            rc = buf_adds(b, "&quot;");
            break;
        default:
            rc = buf_addc(b, *s);
        }
    }
    return rc;
}
