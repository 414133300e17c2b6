#include "conntime.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "estim.h"

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

int conntime_summarize(const struct conntime *const *parts, size_t n,
                       struct conntime_summary *out) {
    *out = (struct conntime_summary){.opened_share = NAN, .connect_ms = NAN, .tls_ms = NAN};
    for (size_t i = 0; i < n; i++) {
        out->timed += parts[i]->timed;
        out->opened += parts[i]->opened;
    }
    if (out->timed) out->opened_share = (double)out->opened / (double)out->timed;
    if (!out->opened) return 0;
    double *c = malloc(out->opened * sizeof *c), *s = malloc(out->opened * sizeof *s);
    if (!c || !s) {
        free(c);
        free(s);
        return -1;
    }
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < parts[i]->opened; j++, at++) {
            c[at] = (double)parts[i]->connect[j] / 1000;
            s[at] = (double)parts[i]->tls[j] / 1000;
        }
    }
    out->connect_ms = estim_median(c, at);
    out->tls_ms = estim_median(s, at);
    free(c);
    free(s);
    return 0;
}
