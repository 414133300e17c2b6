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

/* The ramp's expected arrivals in total (its rate's integral), or -1 when a
 * piece is malformed (err says which). */
static double arrivals_ramp_total(const struct arrivals_spec *s, struct buf *err) {
    double total = 0;
    if (s->n_segs > (size_t)ARRIVALS_MAX_SEGS)
        return buf_fail(err, -1, "a ramp has at most %ld pieces, got %zu", ARRIVALS_MAX_SEGS,
                        s->n_segs);
    for (size_t i = 0; i < s->n_segs; i++) {
        const struct arrivals_seg *g = &s->segs[i];
        if (!(g->dur_s > 0 && isfinite(g->dur_s)) || !(g->from >= 0 && isfinite(g->from)) ||
            !(g->to >= 0 && isfinite(g->to)))
            return buf_fail(err, -1,
                            "ramp piece %zu: the duration must be above 0 and the rates at "
                            "least 0, got %g s from %g to %g per second",
                            i + 1, g->dur_s, g->from, g->to);
        total += (g->from + g->to) / 2 * g->dur_s;
    }
    if (!(total > 0 && isfinite(total)))
        return buf_fail(err, -1, "a ramp must expect at least one arrival, got %g", total);
    return total;
}

static int arrivals_check(const struct arrivals_spec *s, struct buf *err) {
    if (s->n_segs) {
        double expected = arrivals_ramp_total(s, err);
        if (expected < 0) return ARRIVALS_ERR_INPUT;
        if (expected > ARRIVALS_MAX / 2.0)
            return buf_fail(err, ARRIVALS_ERR_INPUT,
                            "%.0f arrivals in one ramp is too many (at most %ld)", expected,
                            ARRIVALS_MAX / 2);
        if (s->process == ARRIVALS_GAMMA && !(s->burstiness > 0 && isfinite(s->burstiness)))
            return buf_fail(err, ARRIVALS_ERR_INPUT, "the burstiness must be above 0, got %g",
                            s->burstiness);
        return ARRIVALS_OK;
    }
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

/* The walk along a ramp: the piece reached and the expected arrivals before it. */
struct arrivals_walk {
    size_t seg;
    double before, start_s; /* arrivals expected and seconds before the piece */
};

/* The time in seconds at which the ramp's expected arrivals reach e, or -1
 * past its end. e never goes back between calls on one walk. */
static double arrivals_ramp_time(const struct arrivals_spec *s, struct arrivals_walk *w, double e) {
    for (; w->seg < s->n_segs; w->seg++) {
        const struct arrivals_seg *g = &s->segs[w->seg];
        double in = (g->from + g->to) / 2 * g->dur_s;
        double x = e - w->before;
        if (x < in) {
            if (x <= 0) return w->start_s;
            /* from t + (to - from) t^2 / (2 dur) = x, solved without cancellation */
            double slope = (g->to - g->from) / g->dur_s;
            double t = 2 * x / (g->from + sqrt(g->from * g->from + 2 * slope * x));
            return w->start_s + fmin(fmax(t, 0), g->dur_s);
        }
        w->before += in;
        w->start_s += g->dur_s;
    }
    return -1;
}

/* The ramp's schedule: the process at rate 1, laid on the ramp's time. */
static int arrivals_draw_ramp(const struct arrivals_spec *s, long long **out, long *n,
                              struct buf *err) {
    struct arrivals_spec unit = *s;
    unit.rate = 1;
    size_t cap = 1024;
    long long *at = malloc(cap * sizeof *at);
    uint64_t state = s->seed;
    struct arrivals_walk w = {0, 0, 0};
    double e = 0;
    long k = 0;
    if (!at) return buf_fail(err, ARRIVALS_ERR_NOMEM, "out of memory");
    for (; k < ARRIVALS_MAX; k++) {
        double t = arrivals_ramp_time(s, &w, e);
        if (t < 0) break;
        if ((size_t)k == cap && !(at = arrivals_grow(at, &cap)))
            return buf_fail(err, ARRIVALS_ERR_NOMEM, "out of memory");
        at[k] = llround(t * 1e6);
        if (k && at[k] < at[k - 1]) at[k] = at[k - 1]; /* rounding never goes back */
        e += arrivals_gap(&unit, &state);
    }
    *out = at;
    *n = k;
    return ARRIVALS_OK;
}

int arrivals_draw(const struct arrivals_spec *s, long long **out, long *n, struct buf *err) {
    *out = NULL;
    *n = 0;
    int rc = arrivals_check(s, err);
    if (rc) return rc;
    if (s->n_segs) return arrivals_draw_ramp(s, out, n, err);
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
