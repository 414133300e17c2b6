#include "peerview.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "warmup.h"

/* ---- the views ---- */

static const double peerview_vllm_pcts[] = {99}; /* --metric-percentiles' default */
static const double peerview_aiperf_pcts[] = {1, 5, 25, 50, 75, 90, 95, 99};
static const double peerview_guidellm_pcts[] = {0.1, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9};
static const double peerview_llmperf_pcts[] = {25, 50, 75, 90, 95, 99};

static const struct peerview_view peerview_views[] = {
    {PEERVIEW_VLLM, "vllm", "vLLM (vllm bench serve)",
     "vllm-project/vllm vllm/benchmarks/serve.py (calculate_metrics), "
     "vllm/benchmarks/lib/endpoint_request_func.py",
     "np.mean, np.median, np.std (population), np.percentile (linear); successful requests",
     peerview_vllm_pcts, 1},
    {PEERVIEW_AIPERF, "aiperf", "NVIDIA AIPerf (and genai-perf's names)",
     "ai-dynamo/aiperf aiperf/metrics/types/{ttft,request_latency,inter_token_latency,"
     "output_sequence_length}_metric.py, aiperf/metrics/metric_dicts.py (MetricArray.to_result)",
     "np.mean (avg), np.std (population), np.percentile (linear) over each record's value",
     peerview_aiperf_pcts, 8},
    {PEERVIEW_GUIDELLM, "guidellm", "GuideLLM",
     "vllm-project/guidellm src/guidellm/schemas/request_stats.py (GenerativeRequestStats), "
     "src/guidellm/schemas/statistics.py (DistributionSummary, Percentiles.from_pdf)",
     "mean, population std_dev; median and percentiles: the first value whose cumulative "
     "share reaches p (no interpolation)",
     peerview_guidellm_pcts, 11},
    {PEERVIEW_LLMPERF, "llmperf", "LLMPerf (ray-project)",
     "ray-project/llmperf token_benchmark_ray.py (metrics_summary), "
     "src/llmperf/ray_clients/openai_chat_completions_client.py",
     "pandas mean, std (sample, n - 1), quantile (linear); requests without an error code",
     peerview_llmperf_pcts, 6},
};

const struct peerview_view *peerview_find(const char *name) {
    for (size_t i = 0; i < sizeof peerview_views / sizeof peerview_views[0]; i++)
        if (strcmp(name, peerview_views[i].name) == 0) return &peerview_views[i];
    return NULL;
}

/* ---- reading ---- */

int peerview_push_gap(struct peerview_side *s, double gap) {
    if (s->ngaps == s->capgaps) {
        size_t cap = s->capgaps ? 2 * s->capgaps : 256;
        double *p = realloc(s->gaps, cap * sizeof *p);
        if (!p) return PEERVIEW_ERR_NOMEM;
        s->gaps = p;
        s->capgaps = cap;
    }
    s->gaps[s->ngaps++] = gap;
    return PEERVIEW_OK;
}

int peerview_push_req(struct peerview_side *s, const struct peerview_req *r) {
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        struct peerview_req *p = realloc(s->r, cap * sizeof *p);
        if (!p) return PEERVIEW_ERR_NOMEM;
        s->r = p;
        s->cap = cap;
    }
    s->r[s->n++] = *r;
    return PEERVIEW_OK;
}

int peerview_add_file(struct peerview_side *s, const struct rfile *rf, double scale) {
    double k = scale / 1e6;
    for (size_t i = 0; i < rf->nrecs; i++) {
        const struct rfile_rec *x = &rf->recs[i];
        if (warmup_is(rf, x)) {
            s->warmup++;
            continue;
        }
        if (!x->ok) {
            s->failed++;
            continue;
        }
        if (!x->stream || x->t_first_us == RFILE_NONE) {
            s->unstreamed++;
            continue;
        }
        size_t ng = x->chunks > 1 ? (size_t)x->chunks - 1 : 0;
        struct peerview_req r = {(double)x->t_start_us * k,
                                 (double)x->t_first_us * k,
                                 0,
                                 (double)x->t_end_us * k,
                                 x->completion_tokens,
                                 s->ngaps,
                                 ng};
        r.last = r.first;
        for (size_t j = 0; j < ng; j++) {
            double g = (double)rf->gaps[x->gaps + j] * k;
            if (peerview_push_gap(s, g) < 0) return PEERVIEW_ERR_NOMEM;
            r.last += g;
        }
        if (peerview_push_req(s, &r) < 0) return PEERVIEW_ERR_NOMEM;
    }
    return PEERVIEW_OK;
}

void peerview_side_free(struct peerview_side *s) {
    free(s->r);
    free(s->gaps);
    memset(s, 0, sizeof *s);
}

/* ---- statistics ---- */

static int peerview_cmp_dbl(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double peerview_pct_linear(const double *sorted, size_t n, double p) {
    double h = (double)(n - 1) * p / 100;
    size_t lo = (size_t)floor(h);
    if (lo + 1 >= n) return sorted[n - 1];
    return sorted[lo] + (h - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

double peerview_pct_lower(const double *sorted, size_t n, double p) {
    double c = ceil((double)n * p / 100);
    size_t i = c < 1 ? 0 : (size_t)c - 1;
    return sorted[i < n ? i : n - 1];
}

/* How a view takes its statistics. */
enum peerview_method { PEERVIEW_NUMPY, PEERVIEW_PANDAS, PEERVIEW_PDF };

static enum peerview_method peerview_method_of(const struct peerview_view *v) {
    return v->peer == PEERVIEW_LLMPERF    ? PEERVIEW_PANDAS
           : v->peer == PEERVIEW_GUIDELLM ? PEERVIEW_PDF
                                          : PEERVIEW_NUMPY;
}

/* The statistics of the n values of x (sorted here) into m. */
static void peerview_stats(const struct peerview_view *v, double *x, size_t n,
                           struct peerview_metric *m) {
    enum peerview_method how = peerview_method_of(v);
    m->n = n;
    m->mean = m->median = m->std = m->min = m->max = NAN;
    for (size_t i = 0; i < PEERVIEW_MAX_PCT; i++) m->pct[i] = NAN;
    if (!n) return;
    qsort(x, n, sizeof *x, peerview_cmp_dbl);
    double sum = 0, ss = 0;
    for (size_t i = 0; i < n; i++) sum += x[i];
    m->mean = sum / (double)n;
    for (size_t i = 0; i < n; i++) ss += (x[i] - m->mean) * (x[i] - m->mean);
    m->std =
        how == PEERVIEW_PANDAS ? (n > 1 ? sqrt(ss / (double)(n - 1)) : NAN) : sqrt(ss / (double)n);
    m->min = x[0];
    m->max = x[n - 1];
    m->median = how == PEERVIEW_PDF ? peerview_pct_lower(x, n, 50) : peerview_pct_linear(x, n, 50);
    for (size_t i = 0; i < v->npct; i++)
        m->pct[i] = how == PEERVIEW_PDF ? peerview_pct_lower(x, n, v->pcts[i])
                                        : peerview_pct_linear(x, n, v->pcts[i]);
}

/* One metric's per-request value (have false: the request has none). */
typedef double peerview_value(const struct peerview_req *r, bool *have);

static double peerview_ttft(const struct peerview_req *r, bool *have) {
    *have = true;
    return r->first - r->start;
}

static double peerview_e2e(const struct peerview_req *r, bool *have) {
    *have = true;
    return r->end - r->start;
}

/* (end - first) / (tokens - 1), tokens >= 2: vLLM's TPOT, AIPerf's ITL, our TPOT. */
static double peerview_tpot(const struct peerview_req *r, bool *have) {
    *have = r->tokens >= 2;
    return *have ? (r->end - r->first) / (r->tokens - 1) : 0;
}

/* GuideLLM: (last - start) / tokens, tokens >= 1. */
static double peerview_g_tpot(const struct peerview_req *r, bool *have) {
    *have = r->tokens >= 1;
    return *have ? (r->last - r->start) / r->tokens : 0;
}

/* GuideLLM: (last - first) / (tokens - 1), tokens >= 2. */
static double peerview_g_itl(const struct peerview_req *r, bool *have) {
    *have = r->tokens >= 2;
    return *have ? (r->last - r->first) / (r->tokens - 1) : 0;
}

/* LLMPerf: the sum of the gaps before each content chunk, the first's from the
 * start, over the tokens (0 without tokens). */
static double peerview_l_itl(const struct peerview_req *r, bool *have) {
    *have = true;
    return r->tokens > 0 ? (r->last - r->start) / r->tokens : 0;
}

static double peerview_tokens(const struct peerview_req *r, bool *have) {
    *have = r->tokens >= 0;
    return r->tokens;
}

/* LLMPerf: tokens / end-to-end latency (0 when the latency is 0). */
static double peerview_l_tput(const struct peerview_req *r, bool *have) {
    *have = r->tokens >= 0;
    return r->end > r->start ? r->tokens / (r->end - r->start) : 0;
}

/* One metric of a view: its names, the value (NULL: vLLM's pooled chunk gaps). */
struct peerview_def {
    const char *name, *key, *unit, *defn, *ours, *differs;
    peerview_value *value;
    double factor; /* seconds to the unit */
};

static const struct peerview_def peerview_vllm_defs[] = {
    {"TTFT", "ttft", "ms", "first content chunk - send", "ttft", NULL, peerview_ttft, 1e3},
    {"TPOT", "tpot", "ms", "(latency - TTFT) / (output tokens - 1), requests of 2 tokens or more",
     "tpot", NULL, peerview_tpot, 1e3},
    {"ITL", "itl", "ms", "every gap between two chunks of every request, one value a chunk", NULL,
     "one value per chunk gap; ours (itl) is per token: a chunk of k tokens is k values of gap/k",
     NULL, 1e3},
    {"E2EL", "e2el", "ms", "the last SSE event - send", "e2e", NULL, peerview_e2e, 1e3},
};

static const struct peerview_def peerview_aiperf_defs[] = {
    {"Time to First Token", "time_to_first_token", "ms", "first response - request start", "ttft",
     NULL, peerview_ttft, 1e3},
    {"Inter Token Latency", "inter_token_latency", "ms",
     "(request latency - TTFT) / (output sequence length - 1), per request", "tpot",
     "named ITL, but a per-request mean: our (and vLLM's) TPOT, not our per-token itl",
     peerview_tpot, 1e3},
    {"Request Latency", "request_latency", "ms", "last response - request start", "e2e", NULL,
     peerview_e2e, 1e3},
    {"Output Sequence Length", "output_sequence_length", "tokens", "output tokens of the request",
     NULL, "the server's completion_tokens (ours); AIPerf may count with its tokenizer",
     peerview_tokens, 1},
};

static const struct peerview_def peerview_guidellm_defs[] = {
    {"time_to_first_token_ms", "ttft", "ms", "first token iteration - request start", "ttft", NULL,
     peerview_ttft, 1e3},
    {"time_per_output_token_ms", "tpot", "ms",
     "(last token iteration - request start) / output tokens", NULL,
     "includes the wait for the first token and divides by every token: not our tpot "
     "((end - first) / (tokens - 1))",
     peerview_g_tpot, 1e3},
    {"inter_token_latency_ms", "itl", "ms",
     "(last token iteration - first token iteration) / (output tokens - 1)", NULL,
     "a per-request mean to the last content chunk: about our tpot, not our per-token itl",
     peerview_g_itl, 1e3},
    {"request_latency", "request_latency", "s", "request end - request start", "e2e", NULL,
     peerview_e2e, 1},
};

static const struct peerview_def peerview_llmperf_defs[] = {
    {"ttft_s", "ttft", "s", "first content chunk - start", "ttft", NULL, peerview_ttft, 1},
    {"inter_token_latency_s", "itl", "s",
     "sum of the gaps before each content chunk (the first from the start) / output tokens", NULL,
     "includes TTFT and divides by every token: neither our tpot nor our itl", peerview_l_itl, 1},
    {"end_to_end_latency_s", "e2e", "s", "end of the stream - start", "e2e", NULL, peerview_e2e, 1},
    {"request_output_throughput_token_per_s", "throughput", "tokens/s",
     "output tokens / end-to-end latency, per request", NULL, "no metric of ours", peerview_l_tput,
     1},
    {"number_output_tokens", "output_tokens", "tokens", "output tokens (LLMPerf re-tokenizes)",
     NULL, "the server's completion_tokens (ours); LLMPerf counts with its tokenizer",
     peerview_tokens, 1},
};

int peerview_compute(const struct peerview_view *v, const struct peerview_side *s,
                     struct peerview_metric *out) {
    const struct peerview_def *defs[] = {peerview_vllm_defs, peerview_aiperf_defs,
                                         peerview_guidellm_defs, peerview_llmperf_defs};
    const size_t ndefs[] = {
        sizeof peerview_vllm_defs / sizeof peerview_vllm_defs[0],
        sizeof peerview_aiperf_defs / sizeof peerview_aiperf_defs[0],
        sizeof peerview_guidellm_defs / sizeof peerview_guidellm_defs[0],
        sizeof peerview_llmperf_defs / sizeof peerview_llmperf_defs[0],
    };
    const struct peerview_def *d = defs[v->peer];
    size_t cap = s->n > s->ngaps ? s->n : s->ngaps;
    double *x = malloc((cap ? cap : 1) * sizeof *x);
    if (!x) return -1;
    for (size_t i = 0; i < ndefs[v->peer]; i++) {
        struct peerview_metric *m = &out[i];
        size_t n = 0;
        if (!d[i].value) {
            for (size_t j = 0; j < s->ngaps; j++) x[n++] = s->gaps[j] * d[i].factor;
        } else {
            for (size_t j = 0; j < s->n; j++) {
                bool have;
                double val = d[i].value(&s->r[j], &have);
                if (have) x[n++] = val * d[i].factor;
            }
        }
        memset(m, 0, sizeof *m);
        m->name = d[i].name;
        m->key = d[i].key;
        m->unit = d[i].unit;
        m->defn = d[i].defn;
        m->ours = d[i].ours;
        m->differs = d[i].differs;
        peerview_stats(v, x, n, m);
    }
    free(x);
    return (int)ndefs[v->peer];
}

/* ---- rendering ---- */

static cJSON *peerview_num(double v) {
    return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static cJSON *peerview_side_json(const struct peerview_view *v, const struct peerview_side *s,
                                 const char *name, const struct peerview_metric *m, int nm) {
    cJSON *o = cJSON_CreateObject(), *ms = cJSON_CreateArray();
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddNumberToObject(o, "requests", (double)s->n);
    cJSON_AddNumberToObject(o, "failed_left_out", (double)s->failed);
    cJSON_AddNumberToObject(o, "without_first_token_left_out", (double)s->unstreamed);
    cJSON_AddNumberToObject(o, "warmup_left_out", (double)s->warmup);
    for (int i = 0; i < nm; i++) {
        cJSON *x = cJSON_CreateObject(), *p = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "key", m[i].key);
        cJSON_AddStringToObject(x, "name", m[i].name);
        cJSON_AddStringToObject(x, "unit", m[i].unit);
        cJSON_AddStringToObject(x, "definition", m[i].defn);
        cJSON_AddItemToObject(x, "ours",
                              m[i].ours ? cJSON_CreateString(m[i].ours) : cJSON_CreateNull());
        cJSON_AddItemToObject(x, "differs",
                              m[i].differs ? cJSON_CreateString(m[i].differs) : cJSON_CreateNull());
        cJSON_AddNumberToObject(x, "n", (double)m[i].n);
        cJSON_AddItemToObject(x, "mean", peerview_num(m[i].mean));
        cJSON_AddItemToObject(x, "median", peerview_num(m[i].median));
        cJSON_AddItemToObject(x, "std", peerview_num(m[i].std));
        cJSON_AddItemToObject(x, "min", peerview_num(m[i].min));
        cJSON_AddItemToObject(x, "max", peerview_num(m[i].max));
        for (size_t k = 0; k < v->npct; k++) {
            char key[16];
            snprintf(key, sizeof key, "p%g", v->pcts[k]);
            cJSON_AddItemToObject(p, key, peerview_num(m[i].pct[k]));
        }
        cJSON_AddItemToObject(x, "percentiles", p);
        cJSON_AddItemToArray(ms, x);
    }
    cJSON_AddItemToObject(o, "metrics", ms);
    return o;
}

static int peerview_json(const struct peerview_view *v, const struct peerview_side *sides[2],
                         const char *const names[2], struct buf *out) {
    static const char *const roles[] = {"baseline", "candidate"};
    struct peerview_metric m[PEERVIEW_MAX_METRICS] = {0};
    cJSON *root = cJSON_CreateObject(), *ss = cJSON_CreateObject();
    int rc = 0;
    cJSON_AddStringToObject(root, "view", v->name);
    cJSON_AddStringToObject(root, "tool", v->title);
    cJSON_AddStringToObject(root, "definitions_from", v->source);
    cJSON_AddStringToObject(root, "statistics", v->method);
    for (int k = 0; k < 2 && rc == 0; k++) {
        int nm = peerview_compute(v, sides[k], m);
        if (nm < 0)
            rc = -1;
        else
            cJSON_AddItemToObject(ss, roles[k], peerview_side_json(v, sides[k], names[k], m, nm));
    }
    cJSON_AddItemToObject(root, "sides", ss);
    char *text = rc == 0 ? cJSON_Print(root) : NULL;
    if (!text || buf_adds(out, text) < 0 || buf_addc(out, '\n') < 0) rc = -1;
    free(text);
    cJSON_Delete(root);
    return rc;
}

static void peerview_cell(double v, char *out, size_t cap) {
    if (isfinite(v))
        snprintf(out, cap, "%.4g", v);
    else
        snprintf(out, cap, "n/a");
}

static int peerview_text(const struct peerview_view *v, const struct peerview_side *sides[2],
                         const char *const names[2], struct buf *out) {
    struct peerview_metric m[2][PEERVIEW_MAX_METRICS] = {0};
    int nm = 0;
    for (int k = 0; k < 2; k++)
        if ((nm = peerview_compute(v, sides[k], m[k])) < 0) return -1;
    int rc = buf_addf(out,
                      "Peer view: %s, by its own definitions, from our records\n"
                      "Definitions from %s.\nStatistics: %s.\n\n",
                      v->title, v->source, v->method);
    for (int k = 0; k < 2; k++)
        rc |= buf_addf(out,
                       "%s: %zu requests (left out: %zu failed, %zu without a first token, "
                       "%zu warm-up)\n",
                       names[k], sides[k]->n, sides[k]->failed, sides[k]->unstreamed,
                       sides[k]->warmup);
    rc |= buf_addf(out, "\n%-40s %-10s %6s %10s %10s %10s", "metric (unit)", "side", "n", "mean",
                   "median", "std");
    for (size_t q = 0; q < v->npct; q++) {
        char h[16];
        snprintf(h, sizeof h, "p%g", v->pcts[q]);
        rc |= buf_addf(out, " %10s", h);
    }
    rc |= buf_adds(out, "\n");
    for (int i = 0; i < nm; i++)
        for (int k = 0; k < 2; k++) {
            char label[64], c[4][32];
            const struct peerview_metric *x = &m[k][i];
            snprintf(label, sizeof label, "%s (%s)", x->name, x->unit);
            peerview_cell(x->mean, c[0], sizeof c[0]);
            peerview_cell(x->median, c[1], sizeof c[1]);
            peerview_cell(x->std, c[2], sizeof c[2]);
            rc |= buf_addf(out, "%-40s %-10.10s %6zu %10s %10s %10s", k ? "" : label, names[k],
                           x->n, c[0], c[1], c[2]);
            for (size_t q = 0; q < v->npct; q++) {
                peerview_cell(x->pct[q], c[3], sizeof c[3]);
                rc |= buf_addf(out, " %10s", c[3]);
            }
            rc |= buf_adds(out, "\n");
        }
    rc |= buf_adds(out, "\nAgainst our names:\n");
    for (int i = 0; i < nm; i++) {
        const struct peerview_metric *x = &m[0][i];
        if (x->ours && !x->differs)
            rc |= buf_addf(out, "  %s = our %s (%s)\n", x->name, x->ours, x->defn);
        else if (x->ours)
            rc |= buf_addf(out, "  %s = our %s (%s); beware: %s\n", x->name, x->ours, x->defn,
                           x->differs);
        else
            rc |= buf_addf(out, "  %s is not ours: %s (%s)\n", x->name, x->differs, x->defn);
    }
    return rc < 0 ? -1 : 0;
}

int peerview_render(const struct peerview_view *v, const struct peerview_side *sides[2],
                    const char *const names[2], bool json, struct buf *out) {
    return json ? peerview_json(v, sides, names, out) : peerview_text(v, sides, names, out);
}
