/* openloop_cmp: the open-loop part of a comparison (rate.lua's runs; docs/compare.md,
 * Open-loop runs).
 *
 * Per side and asked rate: the achieved arrival rate (the intended starts'),
 * the achieved completion rate, tokens and goodput per second, the share of
 * failed requests, the share of late sends and the p99 lateness, and the
 * latency figures from the intended start (end-to-end; TTFT, TPOT and ITL when
 * streamed) at p50, p90 and p99 of the successful requests, with their n. With
 * SLOs (slo.h): each SLO's value and whether it holds at each rate, and the
 * capacity at the SLOs: the highest rate whose SLOs hold, interpolated between
 * the last rate that held and the first that did not, or bounded (">= the
 * highest rate" when every rate held, "< the lowest" when none did); its ratio
 * candidate / baseline, and its cost per million tokens.
 *
 * No figure here gets a confidence interval: a round's requests queue behind
 * each other (one slow step delays every request in flight and those that
 * arrive during it), so they are not the independent samples, nor the
 * independent batches, that the intervals of interval.h assume (taking the
 * requests, or blocks of time, as independent covers 14% to 87% in
 * tests/results/test_results_coverage.c); and the capacity is read where a
 * curve measured at a few rates crosses a bound. The
 * bracket [last rate held, first rate failed] is the probes' resolution, not a
 * confidence interval.
 *
 * The SLO attainment (slo.h) is each round's share of sent requests that met
 * every SLO at once; with --min-attainment it is the capacity's criterion (with
 * the error rate) in place of the per-percentile checks, which are still shown:
 * the capacity is then read where the share of requests missing an SLO crosses
 * 1 - the attainment asked. */
#ifndef SM_OPENLOOP_CMP_H
#define SM_OPENLOOP_CMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "openloop.h"
#include "side.h"
#include "climit.h"
#include "slo.h"
#include "stream.h"

#define OPENLOOP_CMP_MAX_RATES ((size_t)2 * OPENLOOP_MAX_RATES) /* rates of both sides */

enum openloop_cmp_err {
    OPENLOOP_CMP_OK = 0,
    OPENLOOP_CMP_ERR_NOMEM = -1,
    OPENLOOP_CMP_ERR_INPUT = -3
};

/* Why the capacities have no ratio (openloop_cmp_noratio_why says it in words). */
enum openloop_cmp_noratio {
    OPENLOOP_CMP_NORATIO_NONE,     /* there is a ratio */
    OPENLOOP_CMP_NORATIO_NO_SLO,   /* no SLO given */
    OPENLOOP_CMP_NORATIO_NO_RUN_B, /* no open-loop run on the baseline side */
    OPENLOOP_CMP_NORATIO_NO_RUN_C, /* nor on the candidate's */
    OPENLOOP_CMP_NORATIO_ALL_HELD, /* every rate held on both sides: both bounded from below */
    OPENLOOP_CMP_NORATIO_NONE_HELD /* no rate held on either: both bounded from above */
};

/* What the open-loop part is computed with. */
struct openloop_cmp_opts {
    const struct slo_set *slo; /* the SLOs, or NULL (none) */
    bool have_price;
    double price; /* USD per hour */
};

/* The order the latency metrics are shown in: e2e, ttft, tpot, itl. */
extern const enum stream_metric openloop_cmp_order[STREAM_METRICS];

/* How a bounded figure relates to its value. */
enum openloop_cmp_rel {
    OPENLOOP_CMP_NONE,
    OPENLOOP_CMP_EQ,
    OPENLOOP_CMP_GE,
    OPENLOOP_CMP_GT,
    OPENLOOP_CMP_LE,
    OPENLOOP_CMP_LT
};

/* One latency metric of one round. */
struct openloop_cmp_lat {
    bool ok;                    /* some value */
    double q[STREAM_QUANTILES]; /* seconds at p50, p90, p99 */
    size_t requests;            /* requests behind them */
    uint64_t tokens;            /* ITL: the tokens; others 0 */
};

/* One SLO at one round. */
struct openloop_cmp_check {
    bool have; /* a value (no successful request with the metric: none, and it fails) */
    double v;  /* seconds, or the share of failed requests */
    bool ok;
};

/* One side at one asked rate (NAN: no figure). */
struct openloop_cmp_point {
    const struct openloop_round *r;
    double rate;                 /* asked, requests per second */
    double arrival, completion;  /* achieved, requests per second */
    double tokens, goodput;      /* per second (goodput NAN without SLOs) */
    double errors;               /* failed / sent */
    double attainment;           /* good / sent: every SLO met at once (NAN without --slo) */
    double late_share, late_p99; /* late sends / sends with an intended start; seconds */
    struct openloop_cmp_lat lat[STREAM_METRICS];
    struct openloop_cmp_check check[SLO_MAX]; /* the SLOs of openloop_cmp.slo, in order */
    struct openloop_cmp_check err;            /* the error rate */
    struct openloop_cmp_check att; /* the attainment (--min-attainment; v: good / sent) */
    bool held; /* every SLO held (with --min-attainment: the attainment and the error rate) */
    char limited[CLIMIT_WHY]; /* "" or why the client limited this rate's figures */
    char itl_why[CLIMIT_WHY]; /* "" or why ITL has no value (climit_itl) */
};

/* The capacity at the SLOs of one side. */
struct openloop_cmp_cap {
    enum openloop_cmp_rel rel; /* EQ interpolated, GE every rate held, LT none; NONE: no SLO */
    double v;                  /* requests per second (the bound when rel is GE or LT) */
    double pass, fail;         /* the last rate that held and the first that failed (NAN: none) */
    int by; /* what failed first: an SLO's index, -1 the error rate, -2 none, -3 the attainment */
    bool nonmonotone;          /* a rate above the first failure held again */
    double tokens_per_request; /* completion tokens of the successful requests, mean */
    double tokens;             /* per second at the capacity (v x tokens_per_request) */
    double usd;                /* per million tokens at the capacity (--price-per-hour) */
};

struct openloop_cmp_side {
    const struct side *s;
    const char *name;
    struct openloop_cmp_point *p; /* owned, ascending rate */
    size_t n;
    bool streamed;
    struct openloop_cmp_cap cap;
};

struct openloop_cmp {
    bool have;          /* some side measured open-loop */
    bool any_slo;       /* SLOs were given: verdicts and capacity */
    bool streamed;      /* some side streamed: TTFT, TPOT and ITL */
    struct slo_set slo; /* a copy of the options' */
    bool have_price;    /* the options' price: a ramp's cost over its instance-hours */
    double price;       /* USD per instance-hour */
    struct openloop_cmp_side x[2];
    enum openloop_cmp_rel ratio_rel; /* the capacity's ratio candidate / baseline */
    double ratio;
    enum openloop_cmp_noratio ratio_none; /* when ratio_rel is OPENLOOP_CMP_NONE: why */
};

/* Fills o from the sides b and c (names[k]: side k's display name; both must
 * outlive o, and so must opts->slo). Returns 0, OPENLOOP_CMP_ERR_NOMEM, or
 * OPENLOOP_CMP_ERR_INPUT with one line in err (SLOs without an open-loop run, or on a
 * metric a side lacks). Numbers only: the report says them (openloop_report.h), and
 * notes.h warns of what they show. */
__attribute__((warn_unused_result)) int
openloop_cmp_build(struct openloop_cmp *o, const struct side *b, const struct side *c,
                   const char *const names[2], const struct openloop_cmp_opts *opts,
                   struct buf *err);
void openloop_cmp_free(struct openloop_cmp *o);
/* The point of x at rate, or NULL. */
const struct openloop_cmp_point *openloop_cmp_point(const struct openloop_cmp_side *x, double rate);
/* The sorted union of both sides' rates into out (cap of them); returns how many. */
size_t openloop_cmp_rates(const struct openloop_cmp *o, double *out, size_t cap);
/* Why there is no ratio, in words ("" for OPENLOOP_CMP_NORATIO_NONE): constant text. */
const char *openloop_cmp_noratio_why(enum openloop_cmp_noratio why);

#endif
