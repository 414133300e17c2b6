/* Unit tests of the peer views (peerview): each view's figures on a file of
 * three streamed requests and one failed, with times chosen so that every
 * figure can be worked out by hand (below, in milliseconds unless said), and
 * the percentile methods that tell the peers apart.
 *
 * The requests (t_start, t_first_token, chunk gaps, t_end in ms; tokens):
 *   A: 0, 100, [20, 40], 170; 5 tokens  (last chunk at 160)
 *   B: 1000, 1300, [50], 1400; 3 tokens (last chunk at 1350)
 *   C: 2000, 2200, [], 2210; 1 token    (last chunk at 2200)
 *   D: failed (left out by every view)
 * TTFT = 100, 300, 200; end-to-end = 170, 400, 210. */
#include <math.h>

#include "../check.h"
#include "peerread.h"
#include "peerview.h"
#include "aiperfimport.h"
#include "rtest.h"
#include "vllmimport.h"

static bool pv_near(double got, double want) {
    return fabs(got - want) <= 1e-9 * fmax(1, fabs(want));
}

static const char *pv_file(const char *name, const char *scale) {
    static const char recs[] =
        "{\"phase\": \"decode\", \"completion_tokens\": 5, \"ok\": true, \"error\": null, "
        "\"t_start_us\": 0, \"t_end_us\": 170000, \"t_first_token_us\": 100000, \"chunks\": 3, "
        "\"chunk_gaps_us\": [20000, 40000]},"
        "{\"phase\": \"decode\", \"completion_tokens\": 3, \"ok\": true, \"error\": null, "
        "\"t_start_us\": 1000000, \"t_end_us\": 1400000, \"t_first_token_us\": 1300000, "
        "\"chunks\": 2, \"chunk_gaps_us\": [50000]},"
        "{\"phase\": \"decode\", \"completion_tokens\": 1, \"ok\": true, \"error\": null, "
        "\"t_start_us\": 2000000, \"t_end_us\": 2210000, \"t_first_token_us\": 2200000, "
        "\"chunks\": 1, \"chunk_gaps_us\": []},"
        "{\"phase\": \"decode\", \"completion_tokens\": null, \"ok\": false, \"error\": {\"code\": "
        "\"ServiceUnavailable\"}, \"t_start_us\": 3000000, \"t_end_us\": 3001000}";
    return rtest_result(name, "decode", "a", scale, "{}", recs);
}

/* The metrics of view name over the test file (scale: its time_scale). */
static int pv_compute(const char *name, const char *scale, struct peerview_metric *m,
                      struct peerview_side *s) {
    char *paths[] = {(char *)pv_file("pv.json", scale)};
    struct buf err;
    buf_init(&err, 512);
    memset(s, 0, sizeof *s);
    CHECK(peerread_paths(s, paths, 1, &err) == 0);
    buf_free(&err);
    const struct peerview_view *v = peerview_find(name);
    CHECK(v != NULL);
    return v ? peerview_compute(v, s, m) : -1;
}

/* vLLM: TTFT 100, 200, 300: mean 200, median 200, std (population)
 * sqrt((100^2 + 0 + 100^2) / 3) = 81.6497, p99 (linear, rank 0.99 x 2 = 1.98)
 * 200 + 0.98 x 100 = 298. TPOT over requests of 2 tokens or more: A (170 -
 * 100) / 4 = 17.5, B (400 - 300) / 2 = 50: mean = median = 33.75, std 16.25,
 * p99 17.5 + 0.99 x 32.5 = 49.675. ITL: every chunk gap, 20, 40, 50 (three
 * values, not tokens): mean 36.667, median 40, std 12.4722, p99 40 + 0.98 x
 * 10 = 49.8. E2EL 170, 210, 400: mean 260, median 210, std 100.3328, p99 210
 * + 0.98 x 190 = 396.2. */
static void test_vllm_view_by_hand(void) {
    struct peerview_metric m[PEERVIEW_MAX_METRICS] = {0};
    struct peerview_side s;
    int got = pv_compute("vllm", "1", m, &s);
    CHECK(got == 4);
    if (got != 4) return; /* no metrics to read */
    CHECK(s.n == 3 && s.failed == 1 && s.unstreamed == 0);
    CHECK(strcmp(m[0].name, "TTFT") == 0 && m[0].n == 3 && pv_near(m[0].mean, 200) &&
          pv_near(m[0].median, 200) && fabs(m[0].std - 81.64965809277261) < 1e-9 &&
          pv_near(m[0].pct[0], 298));
    CHECK(strcmp(m[1].name, "TPOT") == 0 && m[1].n == 2 && pv_near(m[1].mean, 33.75) &&
          pv_near(m[1].std, 16.25) && pv_near(m[1].pct[0], 49.675));
    CHECK(strcmp(m[2].name, "ITL") == 0 && m[2].n == 3 && pv_near(m[2].mean, 110.0 / 3) &&
          pv_near(m[2].median, 40) && fabs(m[2].std - 12.47219128924647) < 1e-9 &&
          pv_near(m[2].pct[0], 49.8));
    CHECK(m[2].ours == NULL && strstr(m[2].differs, "per chunk gap") != NULL); /* named */
    CHECK(strcmp(m[3].name, "E2EL") == 0 && pv_near(m[3].mean, 260) && pv_near(m[3].median, 210) &&
          fabs(m[3].std - 100.33277962194941) < 1e-9 && pv_near(m[3].pct[0], 396.2));
    peerview_side_free(&s);

    /* a time-scaled file: every time x 2 */
    got = pv_compute("vllm", "2", m, &s);
    CHECK(got == 4);
    if (got != 4) return; /* no metrics to read */
    CHECK(pv_near(m[0].mean, 400) && pv_near(m[2].median, 80));
    peerview_side_free(&s);
}

/* AIPerf: its "Inter Token Latency" is vLLM's TPOT, per request: 17.5 and 50;
 * p1 (linear) 17.5 + 0.01 x 32.5 = 17.825, p50 33.75; Request Latency as E2EL;
 * Output Sequence Length 5, 3, 1: mean 3, std sqrt(8/3) = 1.63299. */
static void test_aiperf_view_by_hand(void) {
    struct peerview_metric m[PEERVIEW_MAX_METRICS] = {0};
    struct peerview_side s;
    int got = pv_compute("aiperf", "1", m, &s);
    CHECK(got == 4);
    if (got != 4) return; /* no metrics to read */
    CHECK(strcmp(m[1].name, "Inter Token Latency") == 0 && m[1].n == 2);
    CHECK(pv_near(m[1].pct[0], 17.825) && pv_near(m[1].pct[3], 33.75) && pv_near(m[1].mean, 33.75));
    CHECK(strcmp(m[1].ours, "tpot") == 0 && strstr(m[1].differs, "named ITL") != NULL);
    CHECK(pv_near(m[2].mean, 260) && pv_near(m[0].pct[7], 298));
    CHECK(pv_near(m[3].mean, 3) && fabs(m[3].std - sqrt(8.0 / 3)) < 1e-12);
    peerview_side_free(&s);
}

/* GuideLLM: time_per_output_token_ms = (last - start) / tokens: A 160 / 5 =
 * 32, B 350 / 3 = 116.667, C 200 / 1 = 200 (TTFT included); its percentiles
 * take the first value whose cumulative share reaches p: median (3 values,
 * shares 1/3, 2/3, 1) = 116.667, p10 = 32, p99 = 200. inter_token_latency_ms
 * = (last - first) / (tokens - 1): A 60 / 4 = 15, B 50 / 2 = 25 (C has 1
 * token): median 15 (linear would say 20), p99 25; request_latency in s. */
static void test_guidellm_view_by_hand(void) {
    struct peerview_metric m[PEERVIEW_MAX_METRICS] = {0};
    struct peerview_side s;
    int got = pv_compute("guidellm", "1", m, &s);
    CHECK(got == 4);
    if (got != 4) return; /* no metrics to read */
    CHECK(strcmp(m[1].name, "time_per_output_token_ms") == 0 && m[1].n == 3 && !m[1].ours);
    CHECK(pv_near(m[1].mean, (32 + 350.0 / 3 + 200) / 3) && pv_near(m[1].median, 350.0 / 3));
    CHECK(pv_near(m[1].pct[3], 32) && pv_near(m[1].pct[9], 200)); /* p10, p99 */
    CHECK(strcmp(m[2].name, "inter_token_latency_ms") == 0 && m[2].n == 2);
    CHECK(pv_near(m[2].median, 15) && pv_near(m[2].pct[9], 25) && pv_near(m[2].std, 5));
    CHECK(strcmp(m[3].unit, "s") == 0 && pv_near(m[3].median, 0.21));
    peerview_side_free(&s);
}

/* LLMPerf: inter_token_latency_s = (last content chunk - start) / tokens, the
 * same three values as GuideLLM's TPOT, in s: 0.032, 0.11667, 0.2; mean
 * 0.116222, std (sample, n - 1) 0.0840009; TTFT std (sample) sqrt(0.02 / 2) =
 * 0.1; p25 (linear, rank 0.5) 0.15; request_output_throughput 5 / 0.17, 3 /
 * 0.4, 1 / 0.21: median 7.5. */
static void test_llmperf_view_by_hand(void) {
    struct peerview_metric m[PEERVIEW_MAX_METRICS] = {0};
    struct peerview_side s;
    int got = pv_compute("llmperf", "1", m, &s);
    CHECK(got == 5);
    if (got != 5) return; /* no metrics to read */
    CHECK(strcmp(m[0].name, "ttft_s") == 0 && pv_near(m[0].std, 0.1) && pv_near(m[0].pct[0], 0.15));
    CHECK(strcmp(m[1].name, "inter_token_latency_s") == 0 && m[1].n == 3 && !m[1].ours);
    CHECK(pv_near(m[1].mean, 0.11622222222222223) && fabs(m[1].std - 0.08400088182958647) < 1e-12);
    CHECK(pv_near(m[3].median, 7.5) && pv_near(m[3].max, 5 / 0.17));
    peerview_side_free(&s);
}

/* A `vllm bench serve --save-detailed` file of the same four requests (its
 * field names as vllm/benchmarks/serve.py writes them) gives the vLLM view the
 * same figures as our file (TTFT mean 200, ITL median 40, E2EL median 210),
 * the failed one (errors[3] not "") left out. Without "latencies" the end is
 * TTFT + the ITLs: 160, 350, 200 from each start, E2EL mean 236.667. A bad
 * entry is refused in one line naming the file and the entry. */
static void test_vllm_file_imported(void) {
    static const char doc[] =
        "{\"completed\": 3, \"failed\": 1, \"ttfts\": [0.1, 0.3, 0.2, 0.0], "
        "\"itls\": [[0.02, 0.04], [0.05], [], []], \"output_lens\": [5, 3, 1, 0], "
        "\"input_lens\": [10, 10, 10, 10], \"errors\": [\"\", \"\", \"\", \"boom\"]%s}";
    char text[1024];
    struct peerview_metric m[PEERVIEW_MAX_METRICS] = {0};
    struct peerview_side s = {0};
    struct buf err;
    buf_init(&err, 512);
    snprintf(text, sizeof text, doc,
             ", \"latencies\": [0.17, 0.4, 0.21, 0], \"start_times\": [0, 1, 2, 3]");
    char *paths[] = {(char *)rtest_write("vllm-detailed.json", text)};
    CHECK(peerread_paths(&s, paths, 1, &err) == 0);
    CHECK(s.n == 3 && s.failed == 1);
    CHECK(peerview_compute(peerview_find("vllm"), &s, m) == 4);
    CHECK(pv_near(m[0].mean, 200) && pv_near(m[0].pct[0], 298) && pv_near(m[1].mean, 33.75));
    CHECK(m[2].n == 3 && pv_near(m[2].median, 40) && pv_near(m[3].median, 210));
    peerview_side_free(&s);

    snprintf(text, sizeof text, doc, "");
    paths[0] = (char *)rtest_write("vllm-old.json", text);
    CHECK(peerread_paths(&s, paths, 1, &err) == 0);
    CHECK(peerview_compute(peerview_find("vllm"), &s, m) == 4);
    CHECK(pv_near(m[3].mean, (160 + 350 + 200) / 3.0));
    peerview_side_free(&s);

    snprintf(text, sizeof text, doc, ", \"latencies\": [0.17, 0.4]");
    paths[0] = (char *)rtest_write("vllm-short.json", text);
    CHECK(peerread_paths(&s, paths, 1, &err) == VLLMIMPORT_ERR_INPUT);
    CHECK(strstr(buf_str(&err), "vllm-short.json: vLLM result: \"latencies\" must list one "
                                "entry per request (4, as \"ttfts\")") != NULL);
    peerview_side_free(&s);
    static const char bad[] = "{\"ttfts\": [0.1], \"itls\": [[-0.01]], \"output_lens\": [2], "
                              "\"errors\": [\"\"]}";
    paths[0] = (char *)rtest_write("vllm-bad.json", bad);
    CHECK(peerread_paths(&s, paths, 1, &err) == VLLMIMPORT_ERR_INPUT);
    CHECK(strstr(buf_str(&err), "vllm-bad.json: vLLM result: itls[0][0] must be seconds from 0 to "
                                "1e+06") != NULL);
    peerview_side_free(&s);
    buf_free(&err);
}

/* AIPerf's profile_export.jsonl of the same four requests (its fields as
 * AIPerf's docs/tutorials/working-with-profile-exports.md gives them, each
 * value in its own unit) gives the AIPerf view the same figures as our file:
 * Inter Token Latency (170 - 100) / 4 = 17.5 and (400 - 300) / 2 = 50, mean
 * 33.75; Request Latency mean 260; and the vLLM view its chunk gaps (median
 * 40). A value in an unknown unit is refused in one line naming the line. */
static void test_aiperf_file_imported(void) {
    static const char lines[] =
        "{\"metadata\": {\"request_start_ns\": 1}, \"metrics\": {\"time_to_first_token\": "
        "{\"value\": 100, \"unit\": \"ms\"}, \"request_latency\": {\"value\": 170, \"unit\": "
        "\"ms\"}, \"inter_chunk_latency\": {\"value\": [20, 40], \"unit\": \"ms\"}, "
        "\"output_sequence_length\": {\"value\": 5, \"unit\": \"tokens\"}}, \"error\": null}\n"
        "{\"metadata\": {}, \"metrics\": {\"time_to_first_token\": {\"value\": 300000000, "
        "\"unit\": \"%s\"}, \"request_latency\": {\"value\": 0.4, \"unit\": \"sec\"}, "
        "\"inter_chunk_latency\": {\"value\": [50], \"unit\": \"ms\"}, "
        "\"output_sequence_length\": {\"value\": 3, \"unit\": \"tokens\"}}, \"error\": null}\n"
        "{\"metadata\": {}, \"metrics\": {\"time_to_first_token\": {\"value\": 200, \"unit\": "
        "\"ms\"}, \"request_latency\": {\"value\": 210, \"unit\": \"ms\"}, "
        "\"inter_chunk_latency\": {\"value\": [], \"unit\": \"ms\"}, "
        "\"output_sequence_length\": {\"value\": 1, \"unit\": \"tokens\"}}, \"error\": null}\n"
        "{\"metadata\": {}, \"metrics\": {\"error_isl\": {\"value\": 550, \"unit\": "
        "\"tokens\"}}, \"error\": {\"code\": 500, \"type\": \"x\", \"message\": \"y\"}}\n";
    char text[4096];
    struct peerview_metric m[PEERVIEW_MAX_METRICS] = {0};
    struct peerview_side s = {0};
    struct buf err;
    buf_init(&err, 512);
    snprintf(text, sizeof text, lines, "ns");
    char *paths[] = {(char *)rtest_write("profile_export.jsonl", text)};
    CHECK(aiperfimport_is(paths[0]));
    CHECK(peerread_paths(&s, paths, 1, &err) == 0);
    CHECK(s.n == 3 && s.failed == 1);
    CHECK(peerview_compute(peerview_find("aiperf"), &s, m) == 4);
    CHECK(pv_near(m[0].mean, 200) && pv_near(m[1].mean, 33.75) && pv_near(m[1].pct[0], 17.825));
    CHECK(pv_near(m[2].mean, 260) && pv_near(m[3].mean, 3));
    CHECK(peerview_compute(peerview_find("vllm"), &s, m) == 4);
    CHECK(m[2].n == 3 && pv_near(m[2].median, 40));
    peerview_side_free(&s);

    snprintf(text, sizeof text, lines, "minutes");
    paths[0] = (char *)rtest_write("bad_export.jsonl", text);
    CHECK(peerread_paths(&s, paths, 1, &err) == AIPERFIMPORT_ERR_INPUT);
    CHECK(strstr(buf_str(&err),
                 "bad_export.jsonl: line 2: AIPerf record: time_to_first_token "
                 "must be {\"value\": a time from 0, \"unit\": ns, us, ms, s}") != NULL);
    peerview_side_free(&s);
    buf_free(&err);
}

/* The two percentile methods on 1..4: linear p50 2.5, the first value whose
 * share reaches 0.5 is 2; p99: 3.97 and 4; p0.1: 1.003 and 1. */
static void test_percentile_methods(void) {
    const double x[] = {1, 2, 3, 4};
    CHECK(pv_near(peerview_pct_linear(x, 4, 50), 2.5) && pv_near(peerview_pct_lower(x, 4, 50), 2));
    CHECK(pv_near(peerview_pct_linear(x, 4, 99), 3.97) && peerview_pct_lower(x, 4, 99) == 4);
    CHECK(pv_near(peerview_pct_linear(x, 4, 0.1), 1.003) && peerview_pct_lower(x, 4, 0.1) == 1);
    CHECK(peerview_find("vllm") && peerview_find("llmperf") && !peerview_find("VLLM") &&
          !peerview_find("genai-perf"));
}

int main(void) {
    test_vllm_view_by_hand();
    test_aiperf_view_by_hand();
    test_guidellm_view_by_hand();
    test_llmperf_view_by_hand();
    test_vllm_file_imported();
    test_aiperf_file_imported();
    test_percentile_methods();
    return check_exit();
}
