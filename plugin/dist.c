#include "dist.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "prng.h"

/* The numbers of text after its kind (separated by ':'), at most 4, into v; *n of them. */
static int dist_numbers(const char *text, double *v, int *n) {
    *n = 0;
    for (const char *p = text; *p; (*n)++) {
        char *end;
        if (*n == 4 || *p++ != ':') return -1;
        v[*n] = strtod(p, &end);
        if (end == p || !isfinite(v[*n])) return -1;
        p = end;
    }
    return 0;
}

static int dist_fail(struct buf *err, const char *text) {
    return buf_fail(err, DIST_ERR_INPUT,
                    "'%.60s' is not a length distribution (N, fixed:N, uniform:A:B, "
                    "normal:MEAN:SD[:MIN:MAX] or lognormal:MEAN:SD[:MIN:MAX])",
                    text);
}

int dist_parse(const char *text, struct dist *d, struct buf *err) {
    static const char *const kinds[] = {"fixed", "uniform", "normal", "lognormal"};
    static const int wants[] = {1, 2, 2, 2};
    double v[4] = {0, 0, 0, 0};
    int n = 0, k = -1;
    *d = (struct dist){.min = 1, .max = DIST_MAX};
    if (text[strspn(text, "0123456789")] == '\0' && *text) {
        d->a = strtod(text, NULL);
        k = DIST_FIXED;
    } else {
        for (int i = 0; i < 4 && k < 0; i++) {
            size_t len = strlen(kinds[i]);
            if (strncmp(text, kinds[i], len) == 0 && text[len] == ':' &&
                dist_numbers(text + len, v, &n) == 0 &&
                (n == wants[i] || (i >= DIST_NORMAL && n == 4)))
                k = i;
        }
        if (k < 0) return dist_fail(err, text);
        d->a = v[0];
        d->b = k == DIST_FIXED ? 0 : v[1];
        if (n == 4) d->min = (long)v[2], d->max = (long)v[3];
    }
    d->kind = (enum dist_kind)k;
    bool bad = d->min < 1 || d->max > DIST_MAX || d->min > d->max ||
               (k == DIST_FIXED && (d->a < 1 || d->a > DIST_MAX || d->a != floor(d->a))) ||
               (k == DIST_UNIFORM && (d->a < 1 || d->b < d->a || d->b > DIST_MAX)) ||
               (k >= DIST_NORMAL && (d->a <= 0 || d->b < 0));
    return bad ? dist_fail(err, text) : DIST_OK;
}

static long dist_one(const struct dist *d, uint64_t *state) {
    double x;
    switch (d->kind) {
    case DIST_UNIFORM:
        x = floor(d->a + prng_uniform(state) * (d->b - d->a + 1));
        break;
    case DIST_NORMAL:
        x = d->a + d->b * prng_normal(state);
        break;
    case DIST_LOGNORMAL: { /* the underlying normal's parameters from the mean and sd */
        double s2 = log(1 + (d->b * d->b) / (d->a * d->a));
        x = exp(log(d->a) - s2 / 2 + sqrt(s2) * prng_normal(state));
        break;
    }
    default:
        x = d->a;
    }
    x = round(x);
    return x < (double)d->min ? d->min : x > (double)d->max ? d->max : (long)x;
}

void dist_draw(const struct dist *d, size_t n, uint64_t seed, long *out) {
    uint64_t state = seed;
    for (size_t i = 0; i < n; i++) out[i] = dist_one(d, &state);
}
