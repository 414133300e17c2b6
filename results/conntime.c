#include "conntime.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int conntime_add(struct conntime *t, const struct rfile_rec *r) {
    if (r->connect_us == RFILE_NONE) return 0;
    t->timed++;
    if (r->connect_us <= 0) return 0;
    if (t->opened == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        int64_t *c = realloc(t->connect, cap * sizeof *c);
        if (!c) return -1;
        t->connect = c;
        int64_t *s = realloc(t->tls, cap * sizeof *s);
        if (!s) return -1;
        t->tls = s;
        t->cap = cap;
    }
    t->connect[t->opened] = r->connect_us;
    t->tls[t->opened] = r->tls_us > 0 ? r->tls_us : 0;
    t->opened++;
    return 0;
}

void conntime_free(struct conntime *t) {
    free(t->connect);
    free(t->tls);
    memset(t, 0, sizeof *t);
}

static int conntime_cmp(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) in milliseconds (sorts v); NAN when n is 0. */
static double conntime_median_ms(int64_t *v, size_t n) {
    if (!n) return NAN;
    qsort(v, n, sizeof *v, conntime_cmp);
    double m = n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
    return m / 1000;
}

int conntime_summarize(const struct conntime *const *parts, size_t n,
                       struct conntime_summary *out) {
    *out = (struct conntime_summary){.opened_share = NAN, .connect_ms = NAN, .tls_ms = NAN};
    for (size_t i = 0; i < n; i++) {
        out->timed += parts[i]->timed;
        out->opened += parts[i]->opened;
    }
    if (out->timed) out->opened_share = (double)out->opened / (double)out->timed;
    if (!out->opened) return 0;
    int64_t *c = malloc(out->opened * sizeof *c), *s = malloc(out->opened * sizeof *s);
    if (!c || !s) {
        free(c);
        free(s);
        return -1;
    }
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        if (!parts[i]->opened) continue;
        memcpy(c + at, parts[i]->connect, parts[i]->opened * sizeof *c);
        memcpy(s + at, parts[i]->tls, parts[i]->opened * sizeof *s);
        at += parts[i]->opened;
    }
    out->connect_ms = conntime_median_ms(c, at);
    out->tls_ms = conntime_median_ms(s, at);
    free(c);
    free(s);
    return 0;
}
