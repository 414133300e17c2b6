/* Unit tests of the server's token figures: the prefix cache's hit ratio and
 * the tokens per chunk over hand-made records (rtally), and vLLM's
 * speculative-decoding log lines read and pooled (specdec). */
#include <math.h>

#include "../check.h"
#include "rtally.h"
#include "specdec.h"

#define TOK_NEAR(got, want) CHECK(fabs((got) - (want)) < 1e-12)

static struct rfile_rec tok_rec(bool ok, int32_t prompt, int32_t cached, int32_t completion,
                                int32_t chunks) {
    return (struct rfile_rec){.ok = ok,
                              .prompt_tokens = prompt,
                              .cached_tokens = cached,
                              .completion_tokens = completion,
                              .stream = chunks != RFILE_NONE,
                              .chunks = chunks};
}

/* cached / prompt tokens summed over the successful records that said both:
 * a failed record and one without cached_tokens are left out of the ratio. */
static void test_hit_ratio_over_successful_records_that_said_it(void) {
    struct rtally t = {0};
    CHECK(isnan(rtally_hit_ratio(&t)));
    rtally_add(&t, &(struct rfile_rec){0}); /* failed: nothing */
    struct rfile_rec r[] = {
        tok_rec(true, 100, 0, 10, RFILE_NONE), tok_rec(true, 300, 256, 10, RFILE_NONE),
        tok_rec(false, 500, 500, 10, RFILE_NONE),       /* failed */
        tok_rec(true, 200, RFILE_NONE, 10, RFILE_NONE), /* did not say */
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) rtally_add(&t, &r[i]);
    CHECK_INT(t.ok, 3);
    CHECK_INT(t.cache_n, 2);
    TOK_NEAR(rtally_hit_ratio(&t), 256.0 / 400.0);
    struct rtally u = {0};
    rtally_add(&u, &r[1]);
    rtally_merge(&u, &t);
    CHECK_INT(u.cache_n, 3);
    TOK_NEAR(rtally_hit_ratio(&u), 512.0 / 700.0);
}

/* Tokens per chunk: completion tokens over chunks of the successful streamed
 * records; whole replies and records without a count are left out. */
static void test_tokens_per_chunk_over_streamed_records(void) {
    struct rtally t = {0};
    CHECK(isnan(rtally_tokens_per_chunk(&t)));
    struct rfile_rec r[] = {
        tok_rec(true, 10, RFILE_NONE, 30, 10),         tok_rec(true, 10, RFILE_NONE, 50, 20),
        tok_rec(true, 10, RFILE_NONE, 40, RFILE_NONE), /* whole reply */
        tok_rec(true, 10, RFILE_NONE, RFILE_NONE, 5),  /* no count */
        tok_rec(false, 10, RFILE_NONE, 90, 1),         /* failed */
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) rtally_add(&t, &r[i]);
    CHECK_INT(t.chunk_n, 2);
    TOK_NEAR(rtally_tokens_per_chunk(&t), 80.0 / 30.0);
}

/* vLLM's line (vllm/v1/spec_decode/metrics.py), an older one with its members
 * in another order, a CloudWatch-stamped one; other lines and malformed ones
 * add nothing; the pooled rate is sum accepted / sum drafted and the mean
 * length the lines' weighted by their drafted tokens. */
static void test_spec_decode_lines_read_and_pooled(void) {
    static const char log[] =
        "INFO 09-25 18:40:12 [loggers.py:123] Engine 000: Avg prompt throughput: 1.0 tokens/s, "
        "Avg generation throughput: 80.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs\n"
        "INFO 09-25 18:40:12 [metrics.py:96] SpecDecoding metrics: Mean acceptance length: "
        "2.50, Accepted throughput: 30.00 tokens/s, Drafted throughput: 60.00 tokens/s, "
        "Accepted: 300 tokens, Drafted: 600 tokens, Per-position acceptance rate: 0.800, "
        "0.500, 0.200, Avg Draft acceptance rate: 50.0%\n"
        "2026-09-25T18:40:22.000000+00:00 stream INFO 09-25 18:40:22 [metrics.py:96] "
        "SpecDecoding metrics: Draft acceptance rate: 25.0%, Mean acceptance length: 1.75, "
        "Accepted: 150 tokens, Drafted: 600 tokens, Per-position acceptance rate: 0.5, 0.2, "
        "0.05\n"
        "SpecDecoding metrics: Mean acceptance length: 9.00, Accepted: 9 tokens\n" /* no D */
        "SpecDecoding metrics: Mean acceptance length: x, Accepted: 1 tokens, Drafted: 3 "
        "tokens\n"
        "Accepted: 999 tokens, Drafted: 999 tokens\n" /* not vLLM's line */
        "SpecDecoding metrics: Mean acceptance length: 1.00, Accepted: 0 tokens, Drafted: 0 "
        "tokens"; /* the last line, without its newline: read, adds no draft */
    struct specdec sd = {0};
    CHECK(isnan(specdec_acceptance_rate(&sd)) && isnan(specdec_mean_length(&sd)));
    specdec_scan(&sd, log, sizeof log - 1);
    CHECK_INT(sd.lines, 3);
    CHECK_INT(sd.accepted, 450);
    CHECK_INT(sd.drafted, 1200);
    TOK_NEAR(specdec_acceptance_rate(&sd), 450.0 / 1200.0);
    TOK_NEAR(specdec_mean_length(&sd), (2.5 * 600 + 1.75 * 600) / 1200.0);
    struct specdec more = {0};
    specdec_scan(&more, log, 340); /* cut before the first spec line's Drafted: not read */
    specdec_merge(&more, &sd);
    CHECK_INT(more.lines, 3);
}

int main(void) {
    test_hit_ratio_over_successful_records_that_said_it();
    test_tokens_per_chunk_over_streamed_records();
    test_spec_decode_lines_read_and_pooled();
    return check_exit();
}
