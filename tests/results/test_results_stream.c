/* Unit tests of the streaming figures: the reader's stream fields and its
 * one-line refusals (rfile), the values each record gives (stream: TTFT, ITL
 * per token, TPOT, end-to-end), their percentiles on hand-made files, the
 * clustered quantile and its interval (estim, interval), the check of ITL at
 * c1 against the decode rate (streamrows), and the guard on a streamed side
 * against one that was not. */
#include <math.h>

#include "../check.h"
#include "guard.h"
#include "notes.h"
#include "rtest.h"
#include "streamrows.h"
#include "stream.h"

#define TEST_C1 "{\"mode\": \"batch\", \"concurrency\": 1, \"max_tokens\": 5}"

/* A result file of sm-stream (format 2): head, then the records. */
static const char *test_file(const char *name, const char *scenario, const char *scale,
                             const char *settings, const char *records) {
    static char text[1 << 16];
    snprintf(text, sizeof text,
             "{\"format\": \"wrk-sagemaker-result\", \"version\": 2, \"tool\": \"wrk-sagemaker "
             "0.1.0\", \"client\": \"sm-stream\", \"api\": \"stream\", \"scenario\": \"%s\", "
             "\"run_id\": \"run-%s\", \"label\": \"s\", \"endpoint\": {\"name\": \"ep\"}, "
             "\"time_scale\": %s, \"partial\": false, \"settings\": %s, \"records\": [%s]}",
             scenario, name, scale, settings, records);
    return rtest_write(name, text);
}

/* One streamed record: batch, max_tokens and completion tokens, times
 * (first < 0: null), chunks, gaps and chunk tokens (JSON arrays; ctoks NULL:
 * absent), ok. */
static const char *test_rec(const char *phase, int batch, int tokens, long start, long first,
                            long end, int chunks, const char *gaps, const char *ctoks, int ok) {
    static char recs[64][512];
    static int next;
    char *r = recs[next++ % 64], f[32], ct[128] = "";
    snprintf(f, sizeof f, first < 0 ? "null" : "%ld", first);
    if (ctoks) snprintf(ct, sizeof ct, ", \"chunk_tokens\": %s", ctoks);
    snprintf(r, sizeof recs[0],
             "{\"phase\": \"%s\", \"batch\": %d, \"max_tokens\": %d, \"completion_tokens\": %d, "
             "\"ok\": %s, \"error\": %s, \"t_start_us\": %ld, \"t_end_us\": %ld, "
             "\"t_headers_us\": %ld, \"t_first_token_us\": %s, \"chunks\": %d, "
             "\"chunk_gaps_us\": %s%s}",
             phase, batch, tokens, tokens, ok ? "true" : "false",
             ok ? "null" : "{\"code\": \"ModelStreamError\"}", start, end, start, f, chunks, gaps,
             ct);
    return r;
}

/* One file read as the baseline side, with the reader's warnings and error. */
struct test_read {
    struct side s;
    struct warnings w;
    struct buf err;
};

/* Reads path into r (freed by test_read_free); returns the code. */
static int test_side(struct test_read *r, const char *path) {
    char *paths[] = {(char *)path};
    warnings_init(&r->w);
    buf_init(&r->err, 1024);
    return rtest_side(&r->s, "baseline", paths, 1, &r->w, &r->err);
}

static void test_read_free(struct test_read *r) {
    side_free(&r->s);
    warnings_free(&r->w);
    buf_free(&r->err);
}

static bool test_near(double got, double want) {
    return fabs(got - want) <= 1e-9 * fmax(1, fabs(want));
}

/* A gap before a chunk of k tokens is k tokens of gap / k: ITL's percentiles
 * are over tokens (200 us three times, 300 us once), not over chunks (300 and
 * 600 us); TPOT is (end - first token) / (tokens - 1). */
static void test_itl_per_token(void) {
    const char *path =
        test_file("itl.json", "sweep", "1", TEST_C1,
                  test_rec("sweep", 0, 5, 0, 100000, 101000, 3, "[300, 600]", "[1, 1, 3]", 1));
    struct test_read r;
    struct stream_fig f;
    CHECK(test_side(&r, path) == 0);
    CHECK(r.s.nlv == 1 && r.s.lv[0].streamed);
    if (r.s.nlv == 1) {
        stream_figures(&r.s.lv[0].stream, STREAM_ITL, 1, &f);
        CHECK(f.ok && f.tokens == 4 && f.requests == 1);
        CHECK(test_near(f.q[0], 200e-6) && test_near(f.q[1], 270e-6) && test_near(f.q[2], 297e-6));
        stream_figures(&r.s.lv[0].stream, STREAM_TPOT, 1, &f);
        CHECK(f.ok && f.requests == 1 && test_near(f.q[0], 250e-6));
        stream_figures(&r.s.lv[0].stream, STREAM_TTFT, 1, &f);
        CHECK(f.ok && test_near(f.q[0], 0.1));
        stream_figures(&r.s.lv[0].stream, STREAM_E2E, 1, &f);
        CHECK(f.ok && test_near(f.q[0], 0.101));
    }
    test_read_free(&r);
}

/* Five requests (TTFT 100, 120, 140, 160 and 200 ms) and three that give
 * fewer figures: a failure (TTFT 10 ms: none), a reply of one token (no TPOT,
 * no ITL) and one without content (only its end-to-end latency).
 * Percentiles interpolate between ranks; time_scale 2 doubles every time. */
static void test_percentiles(void) {
    char recs[4096];
    static const long ttft[] = {100, 160, 120, 200, 140};
    size_t k = 0;
    for (int i = 0; i < 5; i++) {
        long start = i * 1000000L, first = start + ttft[i] * 1000;
        char gaps[64];
        snprintf(gaps, sizeof gaps, "[%d, %d]", 1000 * (i + 1), 1000 * (i + 1));
        k += (size_t)snprintf(
            recs + k, sizeof recs - k, "%s,",
            test_rec("sweep", i, 3, start, first, first + 2000L * (i + 1), 3, gaps, NULL, 1));
    }
    snprintf(recs + k, sizeof recs - k, "%s,%s,%s",
             test_rec("sweep", 5, 3, 6000000, 6010000, 6020000, 3, "[5000, 5000]", NULL, 0),
             test_rec("sweep", 6, 1, 7000000, 7100000, 7100000, 1, "[]", NULL, 1),
             test_rec("sweep", 7, 0, 8000000, -1, 8100000, 0, "[]", NULL, 1));
    struct test_read r;
    struct stream_fig f;
    CHECK(test_side(&r, test_file("pct.json", "sweep", "2", TEST_C1, recs)) == 0);
    if (r.s.nlv == 1) {
        const struct stream_meas *m = &r.s.lv[0].stream;
        stream_figures(m, STREAM_TTFT, 2, &f); /* 6 requests: 100 ... 200 and 100 ms (x2) */
        CHECK(f.ok && f.requests == 6 && f.clusters == 6);
        CHECK(test_near(f.q[0], 0.26) && test_near(f.q[1], 0.36) && test_near(f.q[2], 0.396));
        stream_figures(m, STREAM_TPOT, 2, &f); /* (end - first) / 2: 1 to 5 ms (x2) */
        CHECK(f.ok && f.requests == 5 && test_near(f.q[0], 0.006) && test_near(f.q[1], 0.0092));
        stream_figures(m, STREAM_ITL, 2, &f); /* two gaps of 1 to 5 ms (x2) each */
        CHECK(f.ok && f.requests == 5 && f.tokens == 10 && test_near(f.q[0], 0.006));
        CHECK(test_near(f.q[1], 0.01) && test_near(f.q[2], 0.01));
        CHECK(!f.ci[0].ok && strcmp(f.ci[0].why, "n = 5: no interval") == 0);
        stream_figures(m, STREAM_E2E, 2, &f);
        CHECK(f.ok && f.requests == 7);
    }
    CHECK(r.s.lv && r.s.lv[0].tally.failed == 1 && r.s.lv[0].tally.sent == 8);
    test_read_free(&r);
}

/* Each inconsistency of a streamed record is refused in one line naming the
 * file, the record and the field. */
static void test_refused(void) {
    static const struct {
        const char *rec, *want;
    } rows[] = {
        {"\"t_first_token_us\": 50, \"chunks\": 3, \"chunk_gaps_us\": [10]",
         "chunk_gaps_us: 1 gaps for 3 chunks (chunks - 1 expected)"},
        {"\"t_first_token_us\": 50, \"chunks\": 2, \"chunk_gaps_us\": [-1]",
         "field chunk_gaps_us: a gap is negative"},
        {"\"t_first_token_us\": 5, \"chunks\": 2, \"chunk_gaps_us\": [10]",
         "t_first_token_us is before t_start_us"},
        {"\"t_first_token_us\": 50, \"chunks\": 2, \"chunk_gaps_us\": [10], \"chunk_tokens\": [2]",
         "chunk_tokens: 1 counts for 2 chunks (one a chunk expected)"},
        {"\"t_first_token_us\": 50, \"chunks\": 2, \"chunk_gaps_us\": [10], "
         "\"chunk_tokens\": [2, 0]",
         "field chunk_tokens: a chunk's tokens are not 1 to 65535"},
        {"\"t_first_token_us\": null, \"chunks\": 2, \"chunk_gaps_us\": [10]",
         "t_first_token_us is null but chunks is 2"},
        {"\"t_first_token_us\": 150, \"chunks\": 1, \"chunk_gaps_us\": []",
         "t_first_token_us is after t_end_us"},
        {"\"t_first_token_us\": 50, \"chunks\": 2, \"chunk_gaps_us\": [60]",
         "chunk_gaps_us add up to 60, past t_end_us (50 after the first token)"},
        {"\"chunks\": 2, \"chunk_gaps_us\": [10]",
         "t_first_token_us is missing (a streamed record has t_first_token_us, chunks and "
         "chunk_gaps_us)"},
        {"\"t_headers_us\": 5, \"t_first_token_us\": 50, \"chunks\": 2, \"chunk_gaps_us\": [10]",
         "t_headers_us is before t_start_us"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char rec[512], want[512];
        snprintf(rec, sizeof rec,
                 "{\"phase\": \"sweep\", \"ok\": true, \"t_start_us\": 10, \"t_end_us\": 100, %s}",
                 rows[i].rec);
        const char *path = test_file("bad.json", "sweep", "1", TEST_C1, rec);
        struct rfile *rf = NULL;
        struct buf err;
        buf_init(&err, 1024);
        CHECK(rfile_read(path, &rf, &err) == RFILE_ERR_INPUT && !rf);
        snprintf(want, sizeof want, "%s: record 1: %s", path, rows[i].want);
        if (!strstr(rows[i].want, "field "))
            CHECK_STR(buf_str(&err), want);
        else
            CHECK(strstr(buf_str(&err), path) && strstr(buf_str(&err), "record 1, ") &&
                  strstr(buf_str(&err), rows[i].want) && !strchr(buf_str(&err), '\n'));
        buf_free(&err);
    }
}

/* A successful record of a streamed run without stream fields is counted,
 * kept out of TTFT (never a silent 0), and said. */
static void test_unstreamed(void) {
    char recs[1024];
    snprintf(recs, sizeof recs, "%s,%s",
             test_rec("sweep", 0, 3, 0, 100, 300, 3, "[100, 100]", NULL, 1),
             rtest_rec("sweep", 1, 3, 1000, 2000, 1));
    struct test_read r;
    struct stream_fig f;
    CHECK(test_side(&r, test_file("some.json", "sweep", "1", TEST_C1, recs)) == 0);
    if (r.s.nlv == 1) {
        stream_figures(&r.s.lv[0].stream, STREAM_TTFT, 1, &f);
        CHECK(f.requests == 1);
        stream_figures(&r.s.lv[0].stream, STREAM_E2E, 1, &f);
        CHECK(f.requests == 2);
    }
    CHECK(r.w.n == 1 && strstr(r.w.items[0], "1 successful records of a streamed run carry no "
                                             "stream times"));
    test_read_free(&r);
}

/* The clustered quantile and its share's standard error, by hand: values 1, 2
 * (twice) in cluster 0 and 3, 4 in cluster 1. */
static void test_clustered(void) {
    struct estim_cval x[] = {{4, 1, 1}, {2, 2, 0}, {1, 1, 0}, {3, 1, 1}};
    double se;
    estim_csort(x, 4);
    CHECK(x[0].v == 1 && x[1].v == 2 && x[3].v == 4);
    /* 1 2 2 3 4: type 7 */
    CHECK(test_near(estim_cquantile(x, 4, 5, 0.5), 2));
    CHECK(test_near(estim_cquantile(x, 4, 5, 0.9), 3.6));
    CHECK(test_near(estim_cquantile(x, 4, 5, 0.25), 2));
    /* below 2.5 at q 0.5: cluster 0 has 3 of 3 (u = 1.5), cluster 1 0 of 2 (u = -1) */
    CHECK(estim_cshare_se(x, 4, 2, 2.5, 0.5, &se) == 0);
    CHECK(test_near(se, sqrt((1.5 * 1.5 + 1) * 2) / 5));
    CHECK(estim_cshare_se(x, 4, 1, 2.5, 0.5, &se) < 0);
    struct interval_fig fig;
    struct interval ci;
    interval_quantile(x, 4, 2, 5, 0.5, 0, 0, &fig, &ci);
    CHECK(!ci.ok && !fig.ok && strcmp(ci.why, "n = 2: no interval") == 0);
}

/* 8 batches of 2 simultaneous requests are 8 clusters (their tokens share the
 * server's steps), and the median gets an interval that holds it; decode's
 * requests are a cluster each. */
static void test_clusters(void) {
    static char recs[16384];
    size_t k = 0;
    for (int b = 0; b < 8; b++)
        for (int i = 0; i < 2; i++) {
            long start = b * 1000000L + i * 10L, first = start + 100000 + 1000L * b;
            char gaps[256];
            size_t g = (size_t)snprintf(gaps, sizeof gaps, "[");
            for (int j = 0; j < 15; j++) /* the same spread in every batch, shifted a little */
                g += (size_t)snprintf(gaps + g, sizeof gaps - g, "%s%d", j ? ", " : "",
                                      20000 + 97 * ((j * 7 + i * 3) % 15) + 10 * b);
            snprintf(gaps + g, sizeof gaps - g, "]");
            k += (size_t)snprintf(
                recs + k, sizeof recs - k, "%s%s", k ? "," : "",
                test_rec("sweep", b, 16, start, first, first + 400000, 16, gaps, NULL, 1));
        }
    const char *st = "{\"mode\": \"batch\", \"concurrency\": 2, \"max_tokens\": 16}";
    struct test_read r;
    struct stream_fig f;
    CHECK(test_side(&r, test_file("c2.json", "sweep", "1", st, recs)) == 0);
    if (r.s.nlv == 1) {
        stream_figures(&r.s.lv[0].stream, STREAM_ITL, 1, &f);
        CHECK(f.clusters == 8 && f.requests == 16 && f.tokens == 240);
        CHECK(f.ci[0].ok && f.ci[0].lo <= f.q[0] && f.q[0] <= f.ci[0].hi);
        CHECK(f.ci[1].ok);                                     /* ITL's p90 has one */
        CHECK(!f.ci[2].ok && strstr(f.ci[2].why, "p99"));      /* a p99 none */
        stream_figures(&r.s.lv[0].stream, STREAM_TTFT, 1, &f); /* a p90 of requests none */
        CHECK(f.ci[0].ok && !f.ci[1].ok && strstr(f.ci[1].why, "p90 of requests"));
    }
    test_read_free(&r);
}

/* A side with a decode of rate 50 tokens/s and a c1 sweep whose ITL says
 * factor x 50: the check warns above 2% and not below. */
static bool test_check(double factor, struct warnings *w) {
    char dec[4096], sw[4096], gaps[64];
    size_t k = 0;
    for (int rep = 0; rep < 5; rep++)
        for (int n = 16; n <= 64; n += 48) {
            long start = rep * 10000000L + n * 100000L, us = lround((0.5 + n / 50.0) * 1e6);
            k += (size_t)snprintf(dec + k, sizeof dec - k, "%s%s", k ? "," : "",
                                  rtest_rec("decode", rep, n, start, start + us, 1));
        }
    long gap = lround(1e6 / (50 * factor));
    snprintf(gaps, sizeof gaps, "[%ld, %ld]", gap, gap);
    snprintf(sw, sizeof sw, "%s",
             test_rec("sweep", 0, 3, 0, 1000, 1000 + 2 * gap, 3, gaps, NULL, 1));
    char *paths[] = {(char *)rtest_result("dec.json", "decode", "s", "1",
                                          "{\"lengths\": [16, 64], \"prompt\": \"p\"}", dec),
                     (char *)test_file("c1.json", "sweep", "1", TEST_C1, sw)};
    struct side s;
    struct buf err;
    buf_init(&err, 1024);
    CHECK(rtest_side(&s, "baseline", paths, 2, w, &err) == 0);
    CHECK(s.dec.rate.ok && fabs(s.dec.rate.v - 50) < 1e-3);
    bool warned = notes_itl_check(&s, "s", w);
    side_free(&s);
    buf_free(&err);
    return warned;
}

static void test_itl_check(void) {
    struct warnings w;
    warnings_init(&w);
    CHECK(!test_check(1.019, &w) && !test_check(0.981, &w));
    size_t before = w.n;
    CHECK(test_check(1.021, &w) && w.n == before + 1);
    CHECK(strstr(w.items[w.n - 1],
                 "s c1 (sweep): 1 / median ITL is 51.05 tokens/s (n = 2 tokens of 1 requests), "
                 "the decode rate from length differencing 50 tokens/s (n = 5 and 5 replies of "
                 "16 and 64 tokens): they differ by 2.1%, more than 2%") != NULL);
    CHECK(test_check(0.97, &w) && w.n == before + 2);
    warnings_free(&w);
}

/* A streamed side against one that was not: refused in one line, or with
 * allow_mixed a warning that says so loudly. */
static void test_mixed(void) {
    const char *st = "{\"mode\": \"batch\", \"concurrency\": 1, \"max_tokens\": 3}";
    char *streamed[] = {
        (char *)test_file("st.json", "sweep", "1", st,
                          test_rec("sweep", 0, 3, 0, 100, 300, 3, "[100, 100]", NULL, 1))};
    char *plain[] = {(char *)rtest_result("wrk.json", "sweep", "s", "1", st,
                                          rtest_rec("sweep", 0, 3, 0, 300, 1))};
    struct side b, c;
    struct warnings w;
    struct buf err;
    warnings_init(&w);
    buf_init(&err, 1024);
    CHECK(rtest_side(&b, "baseline", plain, 1, &w, &err) == 0);
    CHECK(rtest_side(&c, "candidate", streamed, 1, &w, &err) == 0);
    CHECK(guard_check(&b, &c, false, &w, &err) == GUARD_ERR_MIXED);
    CHECK(strstr(buf_str(&err), "streamed its replies (sm-stream)") &&
          strstr(buf_str(&err), "did not (wrk): TTFT and ITL exist only for streamed replies"));
    CHECK(!strstr(buf_str(&err), "different clients"));
    buf_reset(&err);
    CHECK(guard_check(&b, &c, true, &w, &err) == 0);
    CHECK(w.n == 2 && strncmp(w.items[1], "MIXED COMPARISON:", 17) == 0);
    side_free(&b);
    side_free(&c);
    /* A streamed sweep beside a quiz measured by wrk, on both sides: each measurement
     * agrees with itself, so nothing is mixed (sm-suite --stream's run). */
    const char *qs = "{\"max_tokens\": 32}";
    char *mine[] = {streamed[0], (char *)rtest_result("q.json", "quiz", "s", "1", qs,
                                                      rtest_rec("quiz", 0, 3, 0, 300, 1))};
    warnings_free(&w);
    warnings_init(&w);
    buf_reset(&err);
    CHECK(rtest_side(&b, "baseline", mine, 2, &w, &err) == 0);
    CHECK(rtest_side(&c, "candidate", mine, 2, &w, &err) == 0);
    size_t before = w.n; /* the readers' own warnings */
    CHECK(guard_check(&b, &c, false, &w, &err) == 0 && w.n == before);
    side_free(&b);
    side_free(&c);
    warnings_free(&w);
    buf_free(&err);
}

/* A time-scaled run: TTFT (one time read late) is widened by the time scale's
 * bias bound, ITL (a difference of two times read alike) is not: eight batches
 * of gaps 2.000 to 2.007 ms at time_scale 10 keep ITL's interval within 20.00
 * to 20.07 ms, where a bias of 10 ms would have swamped it. */
static void test_scaled_bias(void) {
    char recs[4096];
    size_t k = 0;
    for (int i = 0; i < 8; i++) {
        char gaps[64];
        long start = i * 1000000L, first = start + 5000;
        snprintf(gaps, sizeof gaps, "[%d, %d]", 2000 + i, 2000 + i);
        k += (size_t)snprintf(
            recs + k, sizeof recs - k, "%s%s", i ? "," : "",
            test_rec("sweep", i, 3, start, first, first + 2L * (2000 + i), 3, gaps, NULL, 1));
    }
    struct test_read r;
    struct stream_fig f;
    CHECK(test_side(&r, test_file("scaled.json", "sweep", "10", TEST_C1, recs)) == 0);
    if (r.s.nlv == 1) {
        stream_figures(&r.s.lv[0].stream, STREAM_ITL, 10, &f);
        CHECK(f.ci[0].ok && f.ci[0].lo >= 0.02 - 1e-12 && f.ci[0].hi <= 0.02007 + 1e-12);
        stream_figures(&r.s.lv[0].stream, STREAM_TTFT, 10, &f);
        CHECK(f.ci[0].ok && f.ci[0].lo < 0.05 * (1 - 0.19)); /* 10 ms of 50: widened below */
    }
    test_read_free(&r);
}

int main(void) {
    test_scaled_bias();
    test_itl_per_token();
    test_percentiles();
    test_refused();
    test_unstreamed();
    test_clustered();
    test_clusters();
    test_itl_check();
    test_mixed();
    return check_exit();
}
