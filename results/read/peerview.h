/* peerview: another benchmark tool's figures, computed by that tool's own
 * definitions from the records of our result files (sm-compare --view PEER;
 * docs/compare.md, "Peer views").
 *
 * Same names, other meanings: vLLM's ITL is one value per chunk gap, AIPerf's
 * and GuideLLM's "ITL" is a per-request mean (what vLLM calls TPOT), GuideLLM's
 * TPOT includes the first token's wait, LLMPerf's inter-token latency includes
 * it too. Each metric of a view carries the peer's name and unit, the peer's
 * statistics (mean, median, standard deviation and percentiles, by the peer's
 * method), which of our metrics it equals (or NULL), and when it equals none,
 * in what it differs: a view never passes a peer's figure off as ours.
 *
 * The definitions are transcribed (facts, no code) from the peers' sources:
 *   vLLM: vllm-project/vllm vllm/benchmarks/serve.py (calculate_metrics) and
 *     vllm/benchmarks/lib/endpoint_request_func.py (ttft, itl, latency);
 *   AIPerf: ai-dynamo/aiperf aiperf/metrics/types/inter_token_latency_metric.py,
 *     ttft_metric.py, request_latency_metric.py, output_sequence_length_metric.py
 *     and aiperf/metrics/metric_dicts.py (MetricArray.to_result);
 *   GuideLLM: vllm-project/guidellm src/guidellm/schemas/request_stats.py
 *     (GenerativeRequestStats) and src/guidellm/schemas/statistics.py
 *     (DistributionSummary, Percentiles.from_pdf);
 *   LLMPerf: ray-project/llmperf token_benchmark_ray.py (metrics_summary) and
 *     src/llmperf/ray_clients/openai_chat_completions_client.py.
 *
 * Times of a request, from our record (real seconds, the file's time_scale
 * applied): start = t_start_us (the send, not the intended start: the peers
 * time from their send), first = t_first_token_us, last = first + the sum of
 * chunk_gaps_us (the last content chunk), end = t_end_us (the stream's end);
 * tokens = completion_tokens (the server's usage; LLMPerf counts by
 * re-tokenizing the text, which we cannot). Only successful streamed records
 * with a first token count. */
#ifndef SM_PEERVIEW_H
#define SM_PEERVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "rfile.h"

enum peerview_err { PEERVIEW_OK = 0, PEERVIEW_ERR_NOMEM = -1, PEERVIEW_ERR_INPUT = -3 };

enum peerview_peer { PEERVIEW_VLLM, PEERVIEW_AIPERF, PEERVIEW_GUIDELLM, PEERVIEW_LLMPERF };

#define PEERVIEW_MAX_PCT     12 /* percentiles of one metric */
#define PEERVIEW_MAX_METRICS 6  /* metrics of one view */

/* One request as the peers see it (seconds; first NAN: no content came). */
struct peerview_req {
    double start, first, last, end;
    int32_t tokens;     /* completion tokens, < 0 when unknown */
    size_t gap0, ngaps; /* its chunk gaps in the side's gaps[] */
};

/* The requests of one side. */
struct peerview_side {
    struct peerview_req *r; /* owned */
    size_t n, cap;
    double *gaps; /* owned: every request's chunk gaps, seconds */
    size_t ngaps, capgaps;
    size_t failed, unstreamed; /* records left out: failed; successful without a first token */
    size_t warmup;             /* and warm-up requests (warmup.h) */
};

/* One metric of a view over one side. */
struct peerview_metric {
    const char *name;                   /* the peer's name ("TTFT", "inter_token_latency") */
    const char *key;                    /* a stable key for JSON ("ttft", "itl") */
    const char *unit;                   /* the peer's unit: "ms", "s", "tokens", "tokens/s" */
    const char *defn;                   /* the peer's definition, in words */
    const char *ours;                   /* our metric it equals ("ttft", "tpot", "e2e"), or NULL */
    const char *differs;                /* when ours is NULL: how it differs from ours */
    size_t n;                           /* values */
    double mean, median, std, min, max; /* NAN without values */
    double pct[PEERVIEW_MAX_PCT];       /* at the view's percentiles */
};

/* A view: its peer, where its definitions come from, its percentiles. */
struct peerview_view {
    enum peerview_peer peer;
    const char *name;   /* "vllm" */
    const char *title;  /* "vLLM (vllm bench serve)" */
    const char *source; /* the files its definitions come from */
    const char *method; /* how it takes the mean, std and percentiles */
    const double *pcts; /* percentiles, 0 to 100 */
    size_t npct;
};

/* The view named name ("vllm", "aiperf", "guidellm", "llmperf"), or NULL. */
const struct peerview_view *peerview_find(const char *name);

/* Adds the successful streamed records of rf (scale: its time_scale) to s.
 * Returns 0, or PEERVIEW_ERR_NOMEM. */
__attribute__((warn_unused_result)) int peerview_add_file(struct peerview_side *s,
                                                          const struct rfile *rf, double scale);
/* Appends one gap (seconds) to s->gaps, or r (its gaps pushed before it) to
 * s->r. Return 0, or PEERVIEW_ERR_NOMEM. */
__attribute__((warn_unused_result)) int peerview_push_gap(struct peerview_side *s, double gap);
__attribute__((warn_unused_result)) int peerview_push_req(struct peerview_side *s,
                                                          const struct peerview_req *r);
/* A side's files are read by peerread.h (it knows the importers, which use this side). */
void peerview_side_free(struct peerview_side *s);

/* The metrics of view v over s into out (PEERVIEW_MAX_METRICS of them);
 * returns how many, or -1 out of memory. */
int peerview_compute(const struct peerview_view *v, const struct peerview_side *s,
                     struct peerview_metric *out);

/* Statistics by each peer's method, over the n values of x (sorted by the
 * call; n > 0). Linear between ranks (numpy's and pandas' default): */
double peerview_pct_linear(const double *sorted, size_t n, double p);
/* The first value whose cumulative share reaches p (GuideLLM's Percentiles): */
double peerview_pct_lower(const double *sorted, size_t n, double p);

/* The view of both sides as text or JSON (json true) into out. Returns 0 or
 * -1 out of memory. */
__attribute__((warn_unused_result)) int peerview_render(const struct peerview_view *v,
                                                        const struct peerview_side *sides[2],
                                                        const char *const names[2], bool json,
                                                        struct buf *out);

#endif
