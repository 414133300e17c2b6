/* stream: the streaming figures of one measurement (a decode run, a sweep
 * level): time to first token (TTFT), inter-token latency (ITL), time per
 * output token (TPOT) and end-to-end latency, each at p50, p90 and p99 with
 * 95% intervals (interval_quantile).
 *
 * Only successful requests give values. TTFT = t_first_token_us - t_start_us.
 * ITL is per token: the gap before a chunk of k tokens counts as k tokens of
 * gap / k each, so its percentiles are over every token of every request, not
 * over per-request summaries. TPOT = (t_end_us - t_first_token_us) /
 * (completion_tokens - 1), for requests of 2 tokens or more (vLLM bench's
 * definition). End-to-end latency = t_end_us - t_start_us, for every
 * successful request (also a wrk file's: a streamed and a whole reply both
 * have one). Times are real seconds (a file's time_scale applied).
 *
 * Every value belongs to a cluster, the unit its measurement's samples are
 * independent in: a batch of simultaneous requests (they share the server's
 * steps, so their tokens are one sample, not c), a steady mode's round, or one
 * request when requests ran one at a time (decode). The intervals treat the
 * clusters, never the tokens, as independent.
 *
 * A thinking model streams its reasoning before its answer: TTFT, ITL and TPOT
 * are over every generated token (reasoning and answer: completion_tokens
 * counts both); TTFOT = t_first_output_us - t_start_us, ITL answer-only the
 * gaps after the first answer chunk came, TPOT answer-only = (t_end_us -
 * t_first_output_us) / (completion_tokens - reasoning_tokens - 1). */
#ifndef SM_STREAM_H
#define SM_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "estim.h"
#include "interval.h"
#include "rfile.h"
#include "rtally.h"

/* The first four are every stream's figures; the last three a thinking model's
 * answer-only ones (time to first output token, ITL and TPOT of the answer),
 * given when some request reasoned before it answered. */
enum stream_metric {
    STREAM_TTFT,
    STREAM_ITL,
    STREAM_TPOT,
    STREAM_E2E,
    STREAM_TTFOT,
    STREAM_ITL_ANSWER,
    STREAM_TPOT_ANSWER
};
#define STREAM_METRICS     4 /* every stream's figures */
#define STREAM_ALL_METRICS 7 /* with the answer-only ones */
#define STREAM_QUANTILES   3 /* p50, p90, p99 */

/* The quantiles every figure is given at. */
extern const double stream_quantiles[STREAM_QUANTILES];

/* One metric's values over a measurement's successful requests. */
struct stream_sample {
    struct estim_cval *x; /* owned; sorted by stream_finish */
    size_t n, cap;
    uint64_t total;    /* the weights' sum: requests, or ITL's tokens */
    size_t requests;   /* requests that gave a value */
    uint32_t clusters; /* after stream_finish: the clusters its values come from */
};

struct stream_meas {
    struct stream_sample s[STREAM_ALL_METRICS];
    size_t reasoned;             /* streamed requests that reasoned before they answered */
    size_t itl_token, itl_chunk; /* streamed requests whose ITL was per token / per chunk */
    uint32_t clusters;    /* before stream_finish: one past the largest id; after: how many */
    size_t unstreamed;    /* successful requests of a streamed file without stream fields */
    uint64_t gaps, burst; /* ITL's gaps, and those below the read resolution (climit.h) */
    struct rtally tally;  /* prefix-cache hits and tokens per chunk (rtally.h) */
};

/* The figures of one successful record r of rf, each defined here and nowhere
 * else (the streaming figures below and the open-loop rounds, openloop.h, use them
 * alike), in real seconds at the file's time scale (tscale.h). */
/* End-to-end latency: t_end_us - t_start_us. */
double stream_e2e(const struct rfile_rec *r, double scale);
/* TTFT: t_first_token_us - t_start_us; false (no TTFT) when r was not streamed
 * or no token came. */
bool stream_ttft(const struct rfile_rec *r, double scale, double *out);
/* TPOT: (t_end_us - t_first_token_us) / (completion_tokens - 1); false when r
 * has no TTFT or fewer than 2 tokens. */
bool stream_tpot(const struct rfile_rec *r, double scale, double *out);
/* ITL of chunk j (1 to r->chunks - 1): the gap before it over its tokens
 * (*tokens, the weight of the value). */
double stream_itl(const struct rfile *rf, const struct rfile_rec *r, size_t j, double scale,
                  uint32_t *tokens);

/* Adds the successful record r of rf (cluster: its unit; scale: the file's
 * time_scale): its end-to-end latency, and its TTFT, ITL and TPOT when r was
 * streamed. Returns 0, or -1 out of memory. */
__attribute__((warn_unused_result)) int stream_add(struct stream_meas *m, const struct rfile *rf,
                                                   const struct rfile_rec *r, uint32_t cluster,
                                                   double scale);
/* Adds from's values to into (from's clusters after into's). Returns 0 or -1. */
__attribute__((warn_unused_result)) int stream_merge(struct stream_meas *into,
                                                     const struct stream_meas *from);
/* Sorts the values and numbers the clusters in use 0 to clusters - 1.
 * Returns 0, or -1 out of memory. */
__attribute__((warn_unused_result)) int stream_finish(struct stream_meas *m);
/* Whether m holds streamed values (TTFT, ITL or TPOT). */
bool stream_streamed(const struct stream_meas *m);
void stream_free(struct stream_meas *m);

/* One metric's figures. */
struct stream_fig {
    bool ok;                    /* some value: q holds them */
    double q[STREAM_QUANTILES]; /* seconds at p50, p90, p99 */
    struct interval_fig fig[STREAM_QUANTILES];
    struct interval ci[STREAM_QUANTILES]; /* 95% intervals, or why none */
    size_t requests;                      /* requests behind the values */
    uint64_t tokens;                      /* ITL: the tokens; others: 0 */
    uint32_t clusters;                    /* the intervals' independent units */
};

/* The figures of metric k of the finished m; scale: the largest time_scale of
 * its files (a time-scaled run's bias bound widens the intervals). */
void stream_figures(const struct stream_meas *m, enum stream_metric k, double scale,
                    struct stream_fig *out);
/* "ttft", "itl", "tpot" or "e2e". */
const char *stream_name(enum stream_metric k);

#endif
