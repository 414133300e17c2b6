#include "slo.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLO_ARG_SHOWN 60 /* bytes of an argument echoed in a message */

void slo_init(struct slo_set *set) {
    memset(set, 0, sizeof *set);
    set->max_error = SLO_DEFAULT_ERROR;
}

bool slo_any(const struct slo_set *set) {
    return set->n > 0 || set->error_given || set->attain_given;
}

int slo_check(const struct slo_set *set, struct buf *err) {
    if (set->attain_given && set->n == 0)
        return buf_fail(err, SLO_ERR_INPUT,
                        "--min-attainment %g: give the SLOs to attain with --slo "
                        "METRIC:pQ:SECONDS (the share of requests meeting all of them at once)",
                        100 * set->attain);
    return SLO_OK;
}

const char *slo_metric_text(enum stream_metric k) {
    static const char *const names[STREAM_METRICS] = {"TTFT", "ITL", "TPOT", "end-to-end latency"};
    return names[k];
}

/* A decimal number filling all of the n bytes at s, or NAN. */
static double slo_number(const char *s, size_t n) {
    char tmp[64], *end;
    if (n == 0 || n >= sizeof tmp || strspn(s, "0123456789.") == 0 || memchr(s, 'x', n) ||
        memchr(s, 'X', n))
        return NAN;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    errno = 0;
    double v = strtod(tmp, &end);
    return errno || *end || !isfinite(v) ? NAN : v;
}

static int slo_metric_of(const char *s, size_t n) {
    for (int k = 0; k < STREAM_METRICS; k++) {
        const char *name = stream_name((enum stream_metric)k);
        if (strlen(name) == n && memcmp(name, s, n) == 0) return k;
    }
    return -1;
}

int slo_parse(struct slo_set *set, const char *arg, struct buf *err) {
    const char *a = strchr(arg, ':'), *b = a ? strchr(a + 1, ':') : NULL;
    if (!a || !b || strchr(b + 1, ':'))
        return buf_fail(err, SLO_ERR_INPUT, "--slo %.*s: give METRIC:pQ:SECONDS (e.g. ttft:p90:1)",
                        SLO_ARG_SHOWN, arg);
    int metric = slo_metric_of(arg, (size_t)(a - arg));
    if (metric < 0)
        return buf_fail(err, SLO_ERR_INPUT, "--slo %.*s: the metric must be e2e, ttft, tpot or itl",
                        SLO_ARG_SHOWN, arg);
    double pct = a[1] == 'p' ? slo_number(a + 2, (size_t)(b - a - 2)) : NAN;
    if (!(pct > 0 && pct < 100))
        return buf_fail(err, SLO_ERR_INPUT,
                        "--slo %.*s: the percentile must be p and a number above 0 and below 100 "
                        "(p50, p90, p99.9)",
                        SLO_ARG_SHOWN, arg);
    double bound = slo_number(b + 1, strlen(b + 1));
    if (!(bound > 0 && bound <= SLO_MAX_SECONDS))
        return buf_fail(err, SLO_ERR_INPUT,
                        "--slo %.*s: the bound must be a number of seconds above 0 (at most %g)",
                        SLO_ARG_SHOWN, arg, SLO_MAX_SECONDS);
    for (size_t i = 0; i < set->n; i++)
        if (set->s[i].metric == (enum stream_metric)metric && set->s[i].pct == pct)
            return buf_fail(err, SLO_ERR_INPUT, "--slo %.*s: %s at p%g is bounded twice",
                            SLO_ARG_SHOWN, arg, stream_name((enum stream_metric)metric), pct);
    if (set->n == SLO_MAX)
        return buf_fail(err, SLO_ERR_INPUT, "--slo %.*s: at most %d SLOs", SLO_ARG_SHOWN, arg,
                        SLO_MAX);
    set->s[set->n++] = (struct slo){(enum stream_metric)metric, pct, pct / 100, bound};
    return SLO_OK;
}

int slo_parse_error_rate(struct slo_set *set, const char *arg, struct buf *err) {
    double v = slo_number(arg, strlen(arg));
    if (!(v >= 0 && v <= 1))
        return buf_fail(err, SLO_ERR_INPUT,
                        "--max-error-rate %.*s: give a fraction from 0 to 1 (0.01 allows 1%% of "
                        "a round's requests to fail)",
                        SLO_ARG_SHOWN, arg);
    set->max_error = v;
    set->error_given = true;
    return SLO_OK;
}

int slo_parse_attainment(struct slo_set *set, const char *arg, struct buf *err) {
    double v = slo_number(arg, strlen(arg));
    if (!(v > 0 && v <= 100))
        return buf_fail(err, SLO_ERR_INPUT,
                        "--min-attainment %.*s: give a percentage above 0, at most 100 (90: at "
                        "least 90%% of a rate's requests meet every SLO at once)",
                        SLO_ARG_SHOWN, arg);
    set->attain = v / 100;
    set->attain_given = true;
    return SLO_OK;
}

void slo_text(const struct slo *s, char *out, size_t cap) {
    snprintf(out, cap, "p%g %s <= %g s", s->pct, slo_metric_text(s->metric), s->bound);
}

void slo_key(const struct slo *s, char *out, size_t cap) {
    snprintf(out, cap, "%s:p%g", stream_name(s->metric), s->pct);
}
