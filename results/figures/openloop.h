/* openloop: the rounds of an open-loop run (rate.lua): one round per asked rate,
 * its requests started at the times a schedule drew (docs/compare.md,
 * Open-loop runs).
 *
 * A record's latency counts from its intended start (t_intended_us; a record
 * without one from t_start_us): end-to-end latency and TTFT include how late the
 * client sent it, TPOT and ITL do not change. Only successful requests give
 * latencies, lateness and tokens; every record counts as an arrival and in the
 * tally. A round's requests are queued behind each other, not independent
 * draws: the streaming sample's clusters are single requests and no interval
 * is given (openloop_cmp.h). Times are real seconds (the file's time_scale applied);
 * the asked rates are real already (settings.rates). */
#ifndef SM_OPENLOOP_H
#define SM_OPENLOOP_H

#include <stdbool.h>
#include <stddef.h>

#include "climit.h"
#include "field.h"
#include "rfile.h"
#include "slo.h"
#include "src.h"
#include "stream.h"
#include "warnings.h"

#define OPENLOOP_LATE_US                                                                           \
    CLIMIT_LATE_US              /* a send later than this after its intended start is late */
#define OPENLOOP_MAX_RATES 1000 /* rates of one run */
#define OPENLOOP_MIN_RATE  1e-6 /* requests per second */
#define OPENLOOP_MAX_RATE  1e9

enum openloop_err { OPENLOOP_OK = 0, OPENLOOP_ERR_NOMEM = -1, OPENLOOP_ERR_INPUT = -3 };

/* One asked rate: one file's round, or a side's rounds of that rate pooled. */
struct openloop_round {
    double rate;               /* asked, requests per second (real) */
    double arr_n, arr_s;       /* arrivals over seconds of arrivals: the achieved arrival rate */
    double span_s;             /* first intended start to last end (pooled: the sum), real s */
    double tokens;             /* completion tokens of the successful requests */
    long good;                 /* successful requests that met every SLO */
    long late;                 /* successful requests sent more than OPENLOOP_LATE_US late */
    double *lateness;          /* each successful request's lateness, real seconds (sorted by
                                  openloop_finish); none for records without t_intended_us */
    size_t nlate, caplate;     /* values of lateness */
    size_t no_intended;        /* records without t_intended_us */
    bool streamed;             /* some input streamed its replies */
    uint32_t nreq;             /* successful requests added (the stream sample's clusters) */
    struct stream_meas stream; /* latency from the intended start, one cluster a request */
    struct src_tally tally;
};

/* The rounds of one file (index: the records' batch) or of one side (ascending rate). */
struct openloop {
    struct openloop_round *r; /* owned */
    size_t n;
    const struct src *first; /* a side's first open-loop input (settings, messages) */
};

/* The rules of a rate run's own settings (with the common ones, native.c). */
extern const struct field_rule openloop_rules[];
extern const size_t openloop_nrules;

/* Reads the records of phase (a string id of rf) of the open-loop file s
 * (its settings, time_scale and client already read) into *out (malloc'ed;
 * the caller frees it with openloop_free and free). slo (may be NULL) decides
 * which successful requests were good. Returns 0, or a negative enum
 * openloop_err with one line in err; warnings go to w. */
__attribute__((warn_unused_result)) int openloop_read(const struct rfile *rf, uint32_t phase,
                                                      const struct src *s,
                                                      const struct slo_set *slo,
                                                      struct openloop **out, struct warnings *w,
                                                      struct buf *err);
/* Adds the rounds of from (one file's, src its input) to a side's into: a rate
 * already there is pooled. Returns 0, or -1 out of memory. */
__attribute__((warn_unused_result)) int
openloop_pool(struct openloop *into, const struct openloop *from, const struct src *src);
/* Sorts a side's rounds by rate and their samples. Returns 0, or -1 out of memory. */
__attribute__((warn_unused_result)) int openloop_finish(struct openloop *o);
/* Frees what o owns (not o) and zeroes it. */
void openloop_free(struct openloop *o);

/* Whether the successful record rec of the open-loop file s (rf's) met every
 * SLO of slo (NULL: none), its latency from its intended start, as a round
 * counts it. Returns 0, or -1 out of memory. */
__attribute__((warn_unused_result)) int
openloop_record_good(const struct rfile *rf, const struct src *s, const struct slo_set *slo,
                     const struct rfile_rec *rec, bool *good);

/* A finished round's figures (NAN when there is none). */
double openloop_arrival_rate(const struct openloop_round *r); /* arrivals per second */
double
openloop_completion_rate(const struct openloop_round *r);    /* successful requests per second */
double openloop_tokens_rate(const struct openloop_round *r); /* completion tokens per second */
double openloop_goodput(const struct openloop_round *r);     /* good requests per second */
double openloop_attainment(const struct openloop_round *r);  /* good over sent (SLO attainment) */
double openloop_error_share(const struct openloop_round *r); /* failed over sent */
double openloop_late_share(const struct openloop_round *r);  /* late over those with lateness */
double openloop_late_p99(const struct openloop_round *r);    /* seconds */

#endif
