#include "fmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FMT_MAX_DECIMALS 12

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

/* The decimals that show three significant digits of x. */
static int fmt_sig_decimals(double x) {
    if (!(fabs(x) > 0)) return 2;
    int d = 2 - (int)floor(log10(fabs(x)));
    return d < 0 ? 0 : d > FMT_MAX_DECIMALS ? FMT_MAX_DECIMALS : d;
}

void fmt_sig(double x, char *out, size_t cap) {
    if (!isfinite(x))
        snprintf(out, cap, "n/a");
    else
        snprintf(out, cap, "%.*f", fmt_sig_decimals(x), x);
}

void fmt_val(const struct cmp_row *r, const struct side_val *v, long total, long unanswered,
             char *out, size_t cap) {
    if (!v->ok)
        snprintf(out, cap, "n/a");
    else if (total > 0 && unanswered > 0)
        snprintf(out, cap, "%.0f/%ld answered (%ld unanswered)", v->v, total, unanswered);
    else if (total > 0 || unanswered > 0)
        snprintf(out, cap, "%.0f/%ld", v->v, total);
    else
        fmt_num(v->v, r->decimals, out, cap);
}

/* Whether the ends at d decimals tell what the numbers do: apart when apart,
 * and on the same side of 1 as the numbers (for ratios). */
static bool fmt_enough(double lo, double hi, int d, bool ratio) {
    char a[FMT_CELL], b[FMT_CELL];
    snprintf(a, sizeof a, "%.*f", d, lo);
    snprintf(b, sizeof b, "%.*f", d, hi);
    if (lo != hi && strcmp(a, b) == 0) return false;
    if (!ratio) return true;
    double ra = strtod(a, NULL), rb = strtod(b, NULL);
    return (lo > 1) == (ra > 1) && (hi < 1) == (rb < 1);
}

/* The decimals an interval's ends are shown with (see fmt_interval). */
static int fmt_interval_decimals(const struct interval *ci, int decimals) {
    bool ratio = decimals < 0;
    int d = fmt_sig_decimals(ci->lo), dh = fmt_sig_decimals(ci->hi);
    if (dh > d) d = dh;
    if (decimals > d) d = decimals;
    while (d < FMT_MAX_DECIMALS && !fmt_enough(ci->lo, ci->hi, d, ratio)) d++;
    return d;
}

void fmt_interval(const struct interval *ci, int decimals, char *out, size_t cap) {
    if (!ci->ok || !isfinite(ci->lo) || !isfinite(ci->hi)) {
        snprintf(out, cap, "%s", ci->ok ? "no interval" : ci->why);
        return;
    }
    int d = fmt_interval_decimals(ci, decimals);
    snprintf(out, cap, "%.*f to %.*f", d, ci->lo, d, ci->hi);
}

void fmt_ratio(const struct cmp_row *r, char *out, size_t cap) {
    if (r->no_ratio) {
        snprintf(out, cap, "%s", "");
    } else if (!r->ratio.ok) {
        snprintf(out, cap, "n/a");
    } else {
        int d = fmt_sig_decimals(r->ratio.v);
        if (r->ci_r.ok && isfinite(r->ci_r.lo) && isfinite(r->ci_r.hi)) {
            int di = fmt_interval_decimals(&r->ci_r, -1);
            if (di > d) d = di;
        }
        snprintf(out, cap, "%.*f", d, r->ratio.v);
    }
}

void fmt_requests(const struct src_tally *t, char *out, size_t cap) {
    if (!t)
        snprintf(out, cap, "%s", "");
    else
        snprintf(out, cap, "%ld/%ld", t->ok, t->sent);
}

void fmt_reply(const char *s, size_t max, char *out, size_t cap) {
    size_t k = 0, used = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && k + 4 < cap; p++) {
        if (used >= max && (*p & 0xC0) != 0x80) {
            k += (size_t)snprintf(out + k, cap - k, "...");
            break;
        }
        out[k++] = (char)*p;
        used++;
    }
    out[k] = '\0';
}
