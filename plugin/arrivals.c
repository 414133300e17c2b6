#include "arrivals.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prng.h"

/* The gap before the next arrival, in seconds. */
static double arrivals_gap(const struct arrivals_spec *s, uint64_t *state) {
    switch (s->process) {
    case ARRIVALS_POISSON:
        return -log(prng_uniform(state)) / s->rate;
    case ARRIVALS_GAMMA:
        return prng_gamma(state, s->burstiness) / (s->rate * s->burstiness);
    default:
        return 1.0 / s->rate;
    }
}

int arrivals_process_of(const char *name) {
    static const char *const names[] = {"constant", "poisson", "gamma"};
    for (int i = 0; i < 3; i++)
        if (name && strcmp(name, names[i]) == 0) return i;
    return -1;
}

static int arrivals_check(const struct arrivals_spec *s, struct buf *err) {
    if (!(s->rate > 0 && isfinite(s->rate)))
        return buf_fail(err, ARRIVALS_ERR_INPUT, "the arrival rate must be above 0, got %g",
                        s->rate);
    if (s->process == ARRIVALS_GAMMA && !(s->burstiness > 0 && isfinite(s->burstiness)))
        return buf_fail(err, ARRIVALS_ERR_INPUT, "the burstiness must be above 0, got %g",
                        s->burstiness);
    if (s->count < 0 || (s->count == 0 && s->duration_us <= 0))
        return buf_fail(err, ARRIVALS_ERR_INPUT,
                        "an open-loop round needs a count of requests or a duration");
    double expected = s->count ? (double)s->count : s->rate * (double)s->duration_us / 1e6;
    if (expected > ARRIVALS_MAX / 2.0)
        return buf_fail(err, ARRIVALS_ERR_INPUT,
                        "%.0f arrivals in one round is too many (at most %ld)", expected,
                        ARRIVALS_MAX / 2);
    return ARRIVALS_OK;
}

/* at with twice the room (*cap updated), or NULL (at freed). */
static long long *arrivals_grow(long long *at, size_t *cap) {
    long long *grown = realloc(at, 2 * *cap * sizeof *at);
    if (!grown) free(at);
    *cap *= 2;
    return grown;
}

int arrivals_draw(const struct arrivals_spec *s, long long **out, long *n, struct buf *err) {
    *out = NULL;
    *n = 0;
    int rc = arrivals_check(s, err);
    if (rc) return rc;
    size_t cap = s->count ? (size_t)s->count : 1024;
    long long *at = malloc(cap * sizeof *at);
    uint64_t state = s->seed;
    double t = 0;
    long k = 0;
    if (!at) return buf_fail(err, ARRIVALS_ERR_NOMEM, "out of memory");
    for (; k < ARRIVALS_MAX; k++) {
        long long us = llround(t * 1e6);
        if (s->count ? k == s->count : us >= s->duration_us) break;
        if ((size_t)k == cap && !(at = arrivals_grow(at, &cap)))
            return buf_fail(err, ARRIVALS_ERR_NOMEM, "out of memory");
        at[k] = us;
        t += arrivals_gap(s, &state);
    }
    *out = at;
    *n = k;
    return ARRIVALS_OK;
}
