#include "ramp.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "readall.h"

#define RAMP_SHOWN 40 /* characters of a bad piece or line quoted in an error */

/* The first n characters of s (at most RAMP_SHOWN), printable, into show. */
static void ramp_show(char *show, const char *s, size_t n) {
    size_t k = 0;
    for (; k < n && k < RAMP_SHOWN; k++) show[k] = isprint((unsigned char)s[k]) ? s[k] : '?';
    show[k] = 0;
}

/* A number spanning all of s[0..n) (spaces around it allowed), or false. */
static bool ramp_number(const char *s, size_t n, double *v) {
    char tmp[64];
    while (n && isspace((unsigned char)*s)) s++, n--;
    while (n && isspace((unsigned char)s[n - 1])) n--;
    if (!n || n >= sizeof tmp) return false;
    memcpy(tmp, s, n);
    tmp[n] = 0;
    if (!isdigit((unsigned char)tmp[0]) && tmp[0] != '.') return false; /* no sign, no inf */
    char *end;
    errno = 0;
    *v = strtod(tmp, &end);
    return *end == 0 && errno == 0 && isfinite(*v);
}

/* Appends a piece to *segs (room *cap). */
static int ramp_push(struct arrivals_seg **segs, size_t *n, size_t *cap, struct arrivals_seg g,
                     struct buf *err) {
    if (*n >= (size_t)ARRIVALS_MAX_SEGS)
        return buf_fail(err, RAMP_ERR_INPUT, "a ramp has at most %ld pieces", ARRIVALS_MAX_SEGS);
    if (*n == *cap) {
        size_t grown_cap = *cap ? 2 * *cap : 16;
        struct arrivals_seg *grown = realloc(*segs, grown_cap * sizeof *grown);
        if (!grown) return buf_fail(err, RAMP_ERR_NOMEM, "out of memory");
        *segs = grown;
        *cap = grown_cap;
    }
    (*segs)[(*n)++] = g;
    return RAMP_OK;
}

/* One piece "R@D" or "R1..R2@D" of n characters. */
static int ramp_piece(const char *s, size_t n, size_t index, struct arrivals_seg *g,
                      struct buf *err) {
    char show[RAMP_SHOWN + 1];
    ramp_show(show, s, n);
    const char *at = memchr(s, '@', n);
    if (!at)
        return buf_fail(err, RAMP_ERR_INPUT,
                        "ramp piece %zu '%s': wants RATE@SECONDS or FROM..TO@SECONDS", index, show);
    size_t rn = (size_t)(at - s);
    const char *dots = NULL;
    for (size_t i = 0; i + 1 < rn; i++)
        if (s[i] == '.' && s[i + 1] == '.') {
            dots = s + i;
            break;
        }
    bool ok = ramp_number(at + 1, n - rn - 1, &g->dur_s) &&
              (dots ? ramp_number(s, (size_t)(dots - s), &g->from) &&
                          ramp_number(dots + 2, (size_t)(at - dots - 2), &g->to)
                    : ramp_number(s, rn, &g->from));
    if (!ok)
        return buf_fail(err, RAMP_ERR_INPUT,
                        "ramp piece %zu '%s': wants RATE@SECONDS or FROM..TO@SECONDS (numbers "
                        "at least 0)",
                        index, show);
    if (!dots) g->to = g->from;
    if (!(g->dur_s > 0))
        return buf_fail(err, RAMP_ERR_INPUT, "ramp piece %zu '%s': the seconds must be above 0",
                        index, show);
    return RAMP_OK;
}

int ramp_parse(const char *text, struct arrivals_seg **out, size_t *n, struct buf *err) {
    struct arrivals_seg *segs = NULL;
    size_t count = 0, cap = 0;
    int rc = RAMP_OK;
    *out = NULL;
    *n = 0;
    const char *p = text ? text : "";
    if (!*p) return buf_fail(err, RAMP_ERR_INPUT, "a ramp needs at least one piece, got ''");
    for (size_t index = 1; !rc; index++) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        struct arrivals_seg g;
        rc = ramp_piece(p, len, index, &g, err);
        if (!rc) rc = ramp_push(&segs, &count, &cap, g, err);
        if (!comma) break;
        p = comma + 1;
    }
    if (rc) {
        free(segs);
        return rc;
    }
    *out = segs;
    *n = count;
    return RAMP_OK;
}

int ramp_parse_csv(const char *name, const char *text, size_t len, struct arrivals_seg **out,
                   size_t *n, struct buf *err) {
    struct arrivals_seg *segs = NULL;
    size_t count = 0, cap = 0;
    double last_s = 0, last_rate = 0;
    long points = 0, number = 0;
    int rc = RAMP_OK;
    *out = NULL;
    *n = 0;
    for (size_t i = 0; !rc && i < len;) {
        const char *line = text + i, *nl = memchr(line, '\n', len - i);
        size_t ln = nl ? (size_t)(nl - line) : len - i;
        i += ln + 1;
        number++;
        if (ln && line[ln - 1] == '\r') ln--;
        char show[RAMP_SHOWN + 1];
        ramp_show(show, line, ln);
        const char *comma = memchr(line, ',', ln);
        double t, rate;
        size_t lead = 0;
        while (lead < ln && isspace((unsigned char)line[lead])) lead++;
        if (lead == ln || line[lead] == '#') continue;
        if (!comma || !ramp_number(line, (size_t)(comma - line), &t) ||
            !ramp_number(comma + 1, ln - (size_t)(comma - line) - 1, &rate)) {
            if (number == 1 && !points) continue; /* a header */
            rc = buf_fail(err, RAMP_ERR_INPUT,
                          "%s line %ld '%s': wants seconds,rate (numbers at least 0)", name, number,
                          show);
            break;
        }
        if (points && !(t > last_s))
            rc = buf_fail(err, RAMP_ERR_INPUT,
                          "%s line %ld '%s': the seconds must grow from line to line", name, number,
                          show);
        else if (points)
            rc = ramp_push(&segs, &count, &cap, (struct arrivals_seg){t - last_s, last_rate, rate},
                           err);
        points++;
        last_s = t;
        last_rate = rate;
    }
    if (!rc && points < 2)
        rc = buf_fail(err, RAMP_ERR_INPUT, "%s: a curve needs at least two seconds,rate lines",
                      name);
    if (rc) {
        free(segs);
        return rc;
    }
    *out = segs;
    *n = count;
    return RAMP_OK;
}

int ramp_load(const char *path, struct arrivals_seg **out, size_t *n, struct buf *err) {
    struct buf text;
    buf_init(&text, (size_t)RAMP_MAX_BYTES);
    int rc = readall_regular(path, &text);
    *out = NULL;
    *n = 0;
    if (rc) {
        buf_free(&text);
        if (rc == BUF_ERR_NOMEM) return RAMP_ERR_NOMEM;
        return buf_fail(err, RAMP_ERR_INPUT, "cannot read the ramp curve %s: %s", path,
                        readall_why(rc, "larger than 64 MiB"));
    }
    rc = ramp_parse_csv(path, text.data ? text.data : "", text.len, out, n, err);
    buf_free(&text);
    return rc;
}
