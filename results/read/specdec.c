#include "specdec.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SPECDEC_MARK "SpecDecoding metrics:"

/* The first occurrence of the literal lit in [p, end), or NULL. */
static const char *specdec_find(const char *p, const char *end, const char *lit) {
    size_t n = strlen(lit);
    while ((size_t)(end - p) >= n) {
        const char *q = memchr(p, lit[0], (size_t)(end - p) - n + 1);
        if (!q) return NULL;
        if (memcmp(q, lit, n) == 0) return q;
        p = q + 1;
    }
    return NULL;
}

/* The number right after the member name lit in the line [p, end): a plain
 * decimal (digits, one point); false when absent or not a number. */
static bool specdec_number(const char *p, const char *end, const char *lit, double *out) {
    const char *at = specdec_find(p, end, lit);
    if (!at) return false;
    at += strlen(lit);
    char tmp[32];
    size_t k = 0;
    bool digits = false, point = false;
    for (; at < end && k < sizeof tmp - 1; at++) {
        if (*at >= '0' && *at <= '9')
            digits = true;
        else if (*at == '.' && !point)
            point = true;
        else
            break;
        tmp[k++] = *at;
    }
    if (!digits || (at < end && k == sizeof tmp - 1)) return false;
    tmp[k] = '\0';
    *out = strtod(tmp, NULL);
    return isfinite(*out);
}

/* One line [p, end) that holds the mark at mark. */
static void specdec_line(struct specdec *sd, const char *mark, const char *end) {
    double len, acc, draft;
    if (!specdec_number(mark, end, "Mean acceptance length: ", &len) ||
        !specdec_number(mark, end, "Accepted: ", &acc) ||
        !specdec_number(mark, end, "Drafted: ", &draft) || acc > draft || draft > 1e15)
        return;
    sd->lines++;
    sd->accepted += (uint64_t)acc;
    sd->drafted += (uint64_t)draft;
    sd->len_drafted += len * draft;
}

void specdec_scan(struct specdec *sd, const char *text, size_t n) {
    const char *p = text, *end = text + n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        const char *mark = specdec_find(p, eol, SPECDEC_MARK);
        if (mark) specdec_line(sd, mark, eol);
        p = nl ? nl + 1 : end;
    }
}

void specdec_merge(struct specdec *into, const struct specdec *from) {
    into->lines += from->lines;
    into->accepted += from->accepted;
    into->drafted += from->drafted;
    into->len_drafted += from->len_drafted;
}

double specdec_acceptance_rate(const struct specdec *sd) {
    return sd->drafted ? (double)sd->accepted / (double)sd->drafted : NAN;
}

double specdec_mean_length(const struct specdec *sd) {
    return sd->drafted ? sd->len_drafted / (double)sd->drafted : NAN;
}
