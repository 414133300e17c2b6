#include "suite_search.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUITE_SEARCH_ARG_SHOWN 60 /* bytes of an argument echoed in a message */
#define SUITE_SEARCH_MAX_RATE  1e9

int suite_search_init(struct suite_search *s, double lo, double hi, int max_probes, double tol,
                      struct buf *err) {
    memset(s, 0, sizeof *s);
    if (!(lo > 0 && hi > lo && hi <= SUITE_SEARCH_MAX_RATE))
        return buf_fail(err, SUITE_SEARCH_ERR_USAGE,
                        "--capacity-search: the range must have 0 < LO < HI, got %g:%g", lo, hi);
    if (max_probes < 2 || max_probes > SUITE_SEARCH_MAX_PROBES)
        return buf_fail(err, SUITE_SEARCH_ERR_USAGE, "--search-probes must be from 2 to %d, got %d",
                        SUITE_SEARCH_MAX_PROBES, max_probes);
    if (!(tol > 0))
        return buf_fail(err, SUITE_SEARCH_ERR_USAGE, "the search's tolerance must be above 0");
    s->lo = lo;
    s->hi = hi;
    s->tol = tol;
    s->max_probes = max_probes;
    s->held = s->failed = NAN;
    s->end = SUITE_SEARCH_RUNNING;
    return SUITE_SEARCH_OK;
}

/* A decimal number filling all of the n bytes at a, or NAN. */
static double suite_search_number(const char *a, size_t n) {
    char tmp[64], *end;
    if (n == 0 || n >= sizeof tmp) return NAN;
    memcpy(tmp, a, n);
    tmp[n] = '\0';
    if (strspn(tmp, "0123456789.eE+-") != n) return NAN;
    errno = 0;
    double v = strtod(tmp, &end);
    return errno || *end || !isfinite(v) ? NAN : v;
}

int suite_search_parse_range(const char *arg, double *lo, double *hi, struct buf *err) {
    const char *colon = strchr(arg, ':');
    *lo = colon ? suite_search_number(arg, (size_t)(colon - arg)) : NAN;
    *hi = colon ? suite_search_number(colon + 1, strlen(colon + 1)) : NAN;
    if (!(*lo > 0 && *hi > *lo && *hi <= SUITE_SEARCH_MAX_RATE))
        return buf_fail(err, SUITE_SEARCH_ERR_USAGE,
                        "--capacity-search wants LO:HI, two rates (requests per second) with "
                        "0 < LO < HI, e.g. 1:16; got '%.*s'",
                        SUITE_SEARCH_ARG_SHOWN, arg);
    return SUITE_SEARCH_OK;
}

/* x rounded to 4 significant digits (so that a probe's rate reads back as written). */
static double suite_search_round(double x) {
    char text[32];
    snprintf(text, sizeof text, "%.4g", x);
    return strtod(text, NULL);
}

bool suite_search_next(const struct suite_search *s, double *rate) {
    if (s->end != SUITE_SEARCH_RUNNING) return false;
    if (s->probes == 0)
        *rate = s->lo;
    else if (s->probes == 1)
        *rate = s->hi;
    else
        *rate = suite_search_round(sqrt(s->held * s->failed));
    return true;
}

void suite_search_record(struct suite_search *s, double rate, bool held) {
    if (s->end != SUITE_SEARCH_RUNNING) return;
    s->probes++;
    if (held && !(rate <= s->held)) s->held = rate;
    if (!held && !(rate >= s->failed)) s->failed = rate;
    double mid;
    if (s->probes == 1 && !held)
        s->end = SUITE_SEARCH_BELOW;
    else if (s->probes == 2 && held)
        s->end = SUITE_SEARCH_ABOVE;
    else if (s->probes >= 2 &&
             (s->failed / s->held - 1 <= s->tol || /* or no 4-digit rate inside the bracket: */
              !((mid = suite_search_round(sqrt(s->held * s->failed))) > s->held &&
                mid < s->failed)))
        s->end = SUITE_SEARCH_NARROW;
    else if (s->probes == s->max_probes)
        s->end = SUITE_SEARCH_SPENT;
}

int suite_search_run(struct suite_search *s, suite_search_probe_fn *probe, void *ctx) {
    double rate;
    while (suite_search_next(s, &rate)) {
        bool held = false;
        int rc = probe(ctx, s->probes + 1, rate, &held);
        if (rc < 0) return rc;
        suite_search_record(s, rate, held);
    }
    return SUITE_SEARCH_OK;
}

void suite_search_text(const struct suite_search *s, char *out, size_t cap) {
    if (s->end == SUITE_SEARCH_BELOW)
        snprintf(out, cap, "below %g requests/s (LO failed)", s->lo);
    else if (s->end == SUITE_SEARCH_ABOVE)
        snprintf(out, cap, "at least %g requests/s (HI held)", s->hi);
    else if (isfinite(s->held) && isfinite(s->failed))
        snprintf(out, cap, "between %g (held) and %g requests/s (failed)", s->held, s->failed);
    else
        snprintf(out, cap, "not bracketed yet");
}
