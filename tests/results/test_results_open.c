/* Unit tests of the open-loop comparison on hand-made files: the SLO options
 * and their one-line refusals (slo), t_intended_us read and checked (rfile),
 * latency from the intended start, late sends on the client's clock, the
 * arrival and completion rates (openloop), per-request goodput, each rate's
 * verdict, the capacity interpolated or bounded, its ratio and cost, the
 * warnings (openloop_cmp), and the guard on different schedules. */
#include <math.h>

#include "../check.h"
#include "cmp.h"
#include "comparison.h"
#include "guard.h"
#include "notes.h"
#include "openloop_report.h"
#include "rtest.h"
#include "slo.h"
#include "verdict.h"

#define OPEN_SETTINGS                                                                              \
    "{\"arrivals\": \"constant\", \"rates\": [1, 2, 4], \"duration_s\": 2, \"arrival_seed\": 1, "  \
    "\"max_concurrency\": 8, \"max_tokens\": 8, \"prompt\": \"p\"}"

static bool open_near(double got, double want) {
    return fabs(got - want) <= 1e-9 * fmax(1, fabs(want));
}

/* An open-loop result file (format 2) of client ("wrk" or "sm-stream"). */
static const char *open_file(const char *name, const char *label, const char *client,
                             const char *scale, const char *settings, const char *records) {
    static char text[1 << 16];
    snprintf(text, sizeof text,
             "{\"format\": \"wrk-sagemaker-result\", \"version\": 2, \"tool\": \"wrk-sagemaker "
             "0.1.0\", \"client\": \"%s\", \"api\": \"%s\", \"scenario\": \"rate\", \"run_id\": "
             "\"run-%s\", \"label\": \"%s\", \"endpoint\": {\"name\": \"ep\"}, \"time_scale\": "
             "%s, \"partial\": false, \"settings\": %s, \"records\": [%s]}",
             client, strcmp(client, "wrk") == 0 ? "invoke" : "stream", name, label, scale, settings,
             records);
    return rtest_write(name, text);
}

/* One record of round batch: intended start (< 0: none), start, end, ok, and
 * a streamed reply's fields (NULL: none). */
static const char *open_rec(int batch, long intended, long start, long end, bool ok,
                            const char *stream) {
    static char recs[64][1024];
    static int next;
    char *r = recs[next++ % 64], at[48] = "";
    if (intended >= 0) snprintf(at, sizeof at, ", \"t_intended_us\": %ld", intended);
    snprintf(r, sizeof recs[0],
             "{\"phase\": \"rate\", \"batch\": %d, \"max_tokens\": 8, \"completion_tokens\": %s, "
             "\"ok\": %s, \"error\": %s, \"t_start_us\": %ld, \"t_end_us\": %ld%s%s%s}",
             batch, ok ? "8" : "null", ok ? "true" : "false",
             ok ? "null" : "{\"code\": \"ServiceUnavailable\"}", start, end, at, stream ? ", " : "",
             stream ? stream : "");
    return r;
}

/* Rounds at 1, 2 and 4 requests/s for 2 s each (constant gaps), every request
 * e2e[i] seconds from its intended start, sent 100 us late; the first
 * fail[i] requests of round i failed (fail NULL: none), and the first slow[i]
 * took 3 s instead (slow NULL: none). */
static const char *open_rounds_slow(const char *name, const char *label, const double e2e[3],
                                    const int fail[3], const int slow[3]) {
    static const int rates[3] = {1, 2, 4};
    char recs[1 << 15];
    size_t k = 0;
    for (int i = 0; i < 3; i++) {
        long t0 = 100000000L * (i + 1);
        for (int j = 0; j < 2 * rates[i]; j++) {
            long at = t0 + j * 1000000L / rates[i];
            double e = slow && j < slow[i] ? 3 : e2e[i];
            k += (size_t)snprintf(
                recs + k, sizeof recs - k, "%s%s", k ? "," : "",
                open_rec(i, at, at + 100, at + lround(e * 1e6), j >= (fail ? fail[i] : 0), NULL));
        }
    }
    return open_file(name, label, "wrk", "1", OPEN_SETTINGS, recs);
}

static const char *open_rounds(const char *name, const char *label, const double e2e[3],
                               const int fail[3]) {
    return open_rounds_slow(name, label, e2e, fail, NULL);
}

struct open_pair {
    struct side b, c;
    struct cmp m;
    struct warnings w;
    struct buf err;
    struct buf verdict; /* verdict.h's */
    struct slo_set slo;
};

/* A set of the given SLO arguments and --max-error-rate (NULL: the default). */
static void open_slos(struct slo_set *set, const char *const *args, const char *errors) {
    struct buf err;
    buf_init(&err, 512);
    slo_init(set);
    for (size_t i = 0; args && args[i]; i++) CHECK(slo_parse(set, args[i], &err) == 0);
    if (errors) CHECK(slo_parse_error_rate(set, errors, &err) == 0);
    buf_free(&err);
}

static int open_side(struct side *s, const char *role, const char *path, const struct slo_set *slo,
                     struct warnings *w, struct buf *err) {
    struct inputs in;
    char *paths[] = {(char *)path};
    int rc = inputs_read(paths, 1, NULL, NULL, slo, &in, w, err);
    if (rc == 0) return side_build(s, role, &in, w, err);
    inputs_free(&in);
    memset(s, 0, sizeof *s);
    return rc;
}

/* Compares the files b and c at USD 3.6 per hour with the SLO set of p (slo:
 * &p->slo, or NULL for none). */
static int open_compare_set(struct open_pair *p, const char *b, const char *c,
                            const struct slo_set *slo) {
    struct cmp_opts o = {true, 3.6, slo, 0};
    warnings_init(&p->w);
    buf_init(&p->err, 2048);
    buf_init(&p->verdict, BUF_NO_CAP);
    if (open_side(&p->b, "baseline", b, slo, &p->w, &p->err) < 0 ||
        open_side(&p->c, "candidate", c, slo, &p->w, &p->err) < 0)
        return -1;
    int rc = comparison_build(&p->m, &p->b, &p->c, &o, &p->err);
    if (rc == 0) notes_add(&p->m, &p->w); /* the report's warnings on the figures */
    return rc == 0 ? verdict_build(&p->m, &p->verdict) : rc;
}

/* The same with the SLO arguments slos and --max-error-rate errors (both
 * NULL: no SLO). */
static int open_compare(struct open_pair *p, const char *b, const char *c, const char *const *slos,
                        const char *errors) {
    memset(p, 0, sizeof *p);
    if (slos || errors) open_slos(&p->slo, slos, errors);
    return open_compare_set(p, b, c, slos || errors ? &p->slo : NULL);
}

/* The same with --min-attainment attain (a percentage) beside the SLOs slos. */
static int open_compare_attain(struct open_pair *p, const char *b, const char *c,
                               const char *const *slos, const char *attain) {
    struct buf err;
    memset(p, 0, sizeof *p);
    open_slos(&p->slo, slos, NULL);
    buf_init(&err, 512);
    CHECK(slo_parse_attainment(&p->slo, attain, &err) == 0 && slo_check(&p->slo, &err) == 0);
    buf_free(&err);
    return open_compare_set(p, b, c, &p->slo);
}

static void open_pair_free(struct open_pair *p) {
    cmp_free(&p->m);
    buf_free(&p->verdict);
    side_free(&p->b);
    side_free(&p->c);
    warnings_free(&p->w);
    buf_free(&p->err);
}

static bool open_warned(const struct warnings *w, const char *part) {
    for (size_t i = 0; i < w->n; i++)
        if (strstr(w->items[i], part)) return true;
    return false;
}

/* --slo and --max-error-rate: what is accepted, and each refusal's one line. */
static void test_slo_options_parsed_or_refused_in_one_line(void) {
    static const struct {
        const char *arg;
        const char *err; /* NULL: accepted */
    } rows[] = {
        {"ttft:p90:1", NULL},
        {"e2e:p99.9:2.5", NULL},
        {"itl:p50:0.05", NULL},
        {"ttft:90:1", "--slo ttft:90:1: the percentile must be p and a number above 0 and below "
                      "100 (p50, p90, p99.9)"},
        {"ttft:p100:1", "--slo ttft:p100:1: the percentile must be p and a number above 0 and "
                        "below 100 (p50, p90, p99.9)"},
        {"ttft:p0x5a:1", "--slo ttft:p0x5a:1: the percentile must be p and a number above 0 and "
                         "below 100 (p50, p90, p99.9)"},
        {"latency:p90:1", "--slo latency:p90:1: the metric must be e2e, ttft, tpot or itl"},
        {"ttft:p90", "--slo ttft:p90: give METRIC:pQ:SECONDS (e.g. ttft:p90:1)"},
        {"ttft:p90:1:2", "--slo ttft:p90:1:2: give METRIC:pQ:SECONDS (e.g. ttft:p90:1)"},
        {"ttft:p90:-1", "--slo ttft:p90:-1: the bound must be a number of seconds above 0 (at "
                        "most 1e+06)"},
        {"ttft:p90:0", "--slo ttft:p90:0: the bound must be a number of seconds above 0 (at most "
                       "1e+06)"},
        {"ttft:p90:inf", "--slo ttft:p90:inf: the bound must be a number of seconds above 0 (at "
                         "most 1e+06)"},
        {"ttft:p90:1s", "--slo ttft:p90:1s: the bound must be a number of seconds above 0 (at "
                        "most 1e+06)"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct slo_set set;
        struct buf err;
        slo_init(&set);
        buf_init(&err, 512);
        int rc = slo_parse(&set, rows[i].arg, &err);
        if (rows[i].err) {
            CHECK(rc == SLO_ERR_INPUT && set.n == 0);
            CHECK_STR(buf_str(&err), rows[i].err);
        } else {
            CHECK(rc == 0 && set.n == 1 && err.len == 0);
        }
        buf_free(&err);
    }
    struct slo_set set;
    struct buf err;
    buf_init(&err, 512);
    slo_init(&set);
    CHECK(slo_parse(&set, "tpot:p50:0.05", &err) == 0);
    CHECK(set.s[0].metric == STREAM_TPOT && set.s[0].q == 0.5 && set.s[0].bound == 0.05);
    CHECK(!set.error_given && set.max_error == SLO_DEFAULT_ERROR && slo_any(&set));
    CHECK(slo_parse(&set, "tpot:p50:1", &err) == SLO_ERR_INPUT);
    CHECK_STR(buf_str(&err), "--slo tpot:p50:1: tpot at p50 is bounded twice");
    for (int i = 0; i < SLO_MAX - 1; i++) {
        char arg[32];
        snprintf(arg, sizeof arg, "e2e:p%d:1", 10 + i);
        CHECK(slo_parse(&set, arg, &err) == 0);
    }
    CHECK(slo_parse(&set, "e2e:p99:1", &err) == SLO_ERR_INPUT);
    CHECK_STR(buf_str(&err), "--slo e2e:p99:1: at most 8 SLOs");
    static const char *const bad_rates[] = {"1.5", "-0.1", "x", "", "0.01%", "nan"};
    for (size_t i = 0; i < sizeof bad_rates / sizeof bad_rates[0]; i++) {
        char want[200];
        snprintf(want, sizeof want,
                 "--max-error-rate %s: give a fraction from 0 to 1 (0.01 allows 1%% of a round's "
                 "requests to fail)",
                 bad_rates[i]);
        CHECK(slo_parse_error_rate(&set, bad_rates[i], &err) == SLO_ERR_INPUT);
        CHECK_STR(buf_str(&err), want);
    }
    CHECK(slo_parse_error_rate(&set, "0", &err) == 0 && set.error_given && set.max_error == 0);
    buf_free(&err);
}

/* --min-attainment: a percentage above 0 and at most 100, and only with an --slo. */
static void test_min_attainment_parsed_or_refused_in_one_line(void) {
    static const char *const bad[] = {"0", "100.5", "-5", "x", "", "90%", "nan"};
    struct slo_set set;
    struct buf err;
    buf_init(&err, 512);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[200];
        slo_init(&set);
        snprintf(want, sizeof want,
                 "--min-attainment %s: give a percentage above 0, at most 100 (90: at least 90%% "
                 "of a rate's requests meet every SLO at once)",
                 bad[i]);
        CHECK(slo_parse_attainment(&set, bad[i], &err) == SLO_ERR_INPUT && !set.attain_given);
        CHECK_STR(buf_str(&err), want);
    }
    slo_init(&set);
    CHECK(slo_parse_attainment(&set, "90", &err) == 0 && set.attain_given && set.attain == 0.9);
    CHECK(slo_any(&set));
    CHECK(slo_check(&set, &err) == SLO_ERR_INPUT);
    CHECK_STR(buf_str(&err), "--min-attainment 90: give the SLOs to attain with --slo "
                             "METRIC:pQ:SECONDS (the share of requests meeting all of them at "
                             "once)");
    CHECK(slo_parse(&set, "e2e:p90:1", &err) == 0 && slo_check(&set, &err) == 0);
    CHECK(slo_parse_attainment(&set, "100", &err) == 0 && set.attain == 1);
    buf_free(&err);
}

/* t_intended_us: read, and a record that left before it refused in one line. */
static void test_intended_after_start_refused(void) {
    const char *path = open_file("early.json", "a", "wrk", "1", OPEN_SETTINGS,
                                 open_rec(0, 5000, 4000, 9000, true, NULL));
    struct side s;
    struct warnings w;
    struct buf err;
    char *paths[] = {(char *)path};
    warnings_init(&w);
    buf_init(&err, 512);
    CHECK(rtest_side(&s, "baseline", paths, 1, &w, &err) == RFILE_ERR_INPUT);
    char want[600];
    snprintf(want, sizeof want,
             "%s: record 1: t_intended_us is after t_start_us (a request never leaves before its "
             "intended start)",
             path);
    CHECK_STR(buf_str(&err), want);
    side_free(&s);
    warnings_free(&w);
    buf_free(&err);
}

/* Latency counts from the intended start; a send more than 1 ms late on the
 * client's clock is late (at time_scale 10 a 500 us delay is 5 ms of real
 * time, and not late); arrivals over the seconds of arrivals; completions over
 * first intended start to last end. */
static void test_latency_from_intended_start_and_late_sends(void) {
    static const char *const scales[] = {"1", "10"};
    for (int s = 0; s < 2; s++) {
        double k = s ? 10 : 1;
        char recs[4096], name[32];
        size_t n = 0;
        static const long late[] = {100, 500, 3000, 100};
        for (int j = 0; j < 4; j++) {
            long at = 1000000 + j * 500000L;
            n += (size_t)snprintf(recs + n, sizeof recs - n, "%s%s", j ? "," : "",
                                  open_rec(1, at, at + late[j], at + 1000000, true, NULL));
        }
        snprintf(name, sizeof name, "late-%d.json", s);
        const char *path = open_file(name, "a", "wrk", scales[s], OPEN_SETTINGS, recs);
        struct open_pair p;
        CHECK(open_compare(&p, path, path, NULL, NULL) == 0);
        const struct openloop_cmp_point *x = openloop_cmp_point(&p.m.open.x[0], 2);
        CHECK(p.m.open.have && p.m.open.x[0].n == 1 && x);
        if (x) {
            for (int q = 0; q < STREAM_QUANTILES; q++)
                CHECK(open_near(x->lat[STREAM_E2E].q[q], 1.0 * k)); /* not 0.997 from the start */
            CHECK(x->lat[STREAM_E2E].requests == 4 && !x->lat[STREAM_TTFT].ok);
            CHECK(open_near(x->late_share, 0.25));
            CHECK(open_near(x->late_p99, (500 + 0.97 * 2500) * 1e-6 * k));
            CHECK(open_near(x->arrival, 4 / 2.0)); /* settings.duration_s: real seconds */
            CHECK(open_near(x->completion, 4 / (2.5 * k)));
            CHECK(open_near(x->tokens, 32 / (2.5 * k)));
            CHECK(isnan(x->goodput)); /* no SLO */
        }
        CHECK(!p.m.open.any_slo && p.m.open.x[0].cap.rel == OPENLOOP_CMP_NONE);
        CHECK(open_warned(&p.w, "1 ms after their intended start"));
        open_pair_free(&p);
    }
}

/* A record without t_intended_us counts from when it was sent, with a warning. */
static void test_records_without_intended_start(void) {
    const char *path = open_file("noat.json", "a", "wrk", "1", OPEN_SETTINGS,
                                 open_rec(0, -1, 2000000, 3500000, true, NULL));
    struct open_pair p;
    CHECK(open_compare(&p, path, path, NULL, NULL) == 0);
    const struct openloop_cmp_point *x = openloop_cmp_point(&p.m.open.x[0], 1);
    CHECK(x && open_near(x->lat[STREAM_E2E].q[0], 1.5) && isnan(x->late_share));
    CHECK(open_warned(&p.w, "1 records without t_intended_us: their latency counts from when"));
    open_pair_free(&p);
}

/* A streamed record's fields: TTFT from the intended start. */
static const char *open_stream(long at, double ttft, long gap, long big, int nbig) {
    static char out[8][512];
    static int next;
    char *o = out[next++ % 8], gaps[256];
    size_t k = 0;
    for (int i = 0; i < 7; i++)
        k += (size_t)snprintf(gaps + k, sizeof gaps - k, "%s%ld", i ? ", " : "",
                              i < 7 - nbig ? gap : big);
    snprintf(o, sizeof out[0], "\"t_first_token_us\": %ld, \"chunks\": 8, \"chunk_gaps_us\": [%s]",
             at + lround(ttft * 1e6), gaps);
    return o;
}

/* Four requests of one round at 1, 1.5, 2 and 2.5 s, each 2 s long from its
 * intended start and sent 100 us late: request i streamed (open_stream with
 * ttft[i], gap[i], big[i], nbig[i]) when ok[i], else failed. */
static const char *open_four(const char *name, const double ttft[4], const long gap[4],
                             const long big[4], const int nbig[4], const bool ok[4]) {
    char recs[4096];
    size_t k = 0;
    for (int i = 0; i < 4; i++) {
        long at = 1000000 + 500000L * i;
        k += (size_t)snprintf(
            recs + k, sizeof recs - k, "%s%s", i ? "," : "",
            open_rec(0, at, at + 100, at + 2000000, ok[i],
                     ok[i] ? open_stream(at, ttft[i], gap[i], big[i], nbig[i]) : NULL));
    }
    return open_file(name, "s", "sm-stream", "1", OPEN_SETTINGS, recs);
}

/* Goodput counts the successful requests that met every SLO, each on its own
 * values: a slow first token, or its own tokens' p90 gap above an ITL bound,
 * fails it, though the round's percentiles hold; failures count against the
 * error rate. */
static void test_goodput_per_request(void) {
    static const double ttft[4] = {0.3, 0.6, 0.3, 0};
    static const long gap[4] = {10000, 10000, 10000, 0}, big[4] = {0, 0, 100000, 0};
    static const int nbig[4] = {0, 0, 2, 0};
    static const bool ok[4] = {true, true, true, false};
    const char *path = open_four("good.json", ttft, gap, big, nbig, ok);
    static const char *const slos[] = {"ttft:p50:0.5", "itl:p90:0.02", NULL};
    struct open_pair p;
    CHECK(open_compare(&p, path, path, slos, NULL) == 0);
    const struct openloop_cmp_point *x = openloop_cmp_point(&p.m.open.x[0], 1);
    CHECK(x != NULL);
    if (x) {
        CHECK(x->r->good == 1 && x->r->tally.ok == 3 && x->r->tally.sent == 4);
        CHECK(open_near(x->goodput, 1 / 3.5));                   /* over 1 s to 4.5 s */
        CHECK(x->check[0].ok && open_near(x->check[0].v, 0.3));  /* the round's p50 TTFT */
        CHECK(x->check[1].ok && open_near(x->check[1].v, 0.01)); /* all tokens' p90 gap */
        CHECK(!x->err.ok && open_near(x->err.v, 0.25) && !x->held);
    }
    char cell[200];
    openloop_report_verdict_cell(&p.m.open, x, cell, sizeof cell);
    CHECK_STR(cell, "failed: 25.0% failed");
    open_pair_free(&p);
}

/* The attainment is joint: of four streamed requests, two have a fast first
 * token (0.3 s) but slow tokens (p90 gap 0.1 s), two a slow first token
 * (0.8 s) and fast tokens (0.01 s). The round's p40 TTFT (0.3 s) and p40 ITL
 * (0.01 s: 14 of 28 tokens) each hold on their own, yet no request meets both
 * bounds: the attainment is 0 of 4, and with --min-attainment 50 the rate
 * fails on it though every per-percentile check held. */
static void test_attainment_is_joint_over_the_slos(void) {
    static const double ttft[4] = {0.3, 0.3, 0.8, 0.8};
    static const long gap[4] = {100000, 100000, 10000, 10000}, big[4] = {0};
    static const int nbig[4] = {0};
    static const bool ok[4] = {true, true, true, true};
    const char *path = open_four("joint.json", ttft, gap, big, nbig, ok);
    static const char *const slos[] = {"ttft:p40:0.5", "itl:p40:0.05", NULL};
    struct open_pair p;
    CHECK(open_compare(&p, path, path, slos, NULL) == 0);
    const struct openloop_cmp_point *x = openloop_cmp_point(&p.m.open.x[0], 1);
    CHECK(x && x->check[0].ok && x->check[1].ok && x->held); /* each on its own holds */
    CHECK(x && x->r->good == 0 && x->attainment == 0);       /* none meets both */
    const struct cmp_row *r = cmp_row(&p.m, "rate_1_slo_attainment");
    CHECK(r && r->b.ok && r->b.v == 0 && r->no_ratio);
    open_pair_free(&p);

    CHECK(open_compare_attain(&p, path, path, slos, "50") == 0);
    x = openloop_cmp_point(&p.m.open.x[0], 1);
    CHECK(x && x->check[0].ok && x->check[1].ok && !x->att.ok && !x->held);
    char cell[200];
    openloop_report_verdict_cell(&p.m.open, x, cell, sizeof cell);
    CHECK_STR(cell, "failed: 0.0% met every SLO");
    CHECK(p.m.open.x[0].cap.rel == OPENLOOP_CMP_LT && p.m.open.x[0].cap.by == -3);
    open_pair_free(&p);
}

/* The capacity on the attainment: 2 of 2, 3 of 4 and 4 of 8 requests within
 * e2e 1 s at 1, 2 and 4 req/s (attainment 1, 0.75, 0.5). At 80% the share
 * missing, 0 at 1 and 0.25 at 2, crosses 0.2 at 1 + (2 - 1) x 0.2 / 0.25 =
 * 1.8 req/s, limited by the attainment; the per-percentile criterion (p50 e2e:
 * 0.5 s at 2, 3 s at 4 by the lower middle) reads another capacity. */
static void test_capacity_on_the_attainment(void) {
    const int slow[3] = {0, 1, 4};
    const double fast[3] = {0.5, 0.5, 0.5};
    const char *a = open_rounds_slow("attain-a.json", "a", fast, NULL, slow);
    static const char *const slos[] = {"e2e:p50:1", NULL};
    struct open_pair p;
    CHECK(open_compare_attain(&p, a, a, slos, "80") == 0);
    const struct openloop_cmp_side *x = &p.m.open.x[0];
    CHECK(x->n == 3 && x->p[0].attainment == 1 && x->p[1].attainment == 0.75 &&
          x->p[2].attainment == 0.5);
    CHECK(x->p[0].held && !x->p[1].held && x->p[1].check[0].ok); /* p50 held, 75% < 80% */
    CHECK(x->cap.rel == OPENLOOP_CMP_EQ && x->cap.by == -3 && open_near(x->cap.v, 1.8));
    CHECK(x->cap.pass == 1 && x->cap.fail == 2);
    CHECK(strstr(buf_str(&p.verdict),
                 "At p50 end-to-end latency <= 1 s, all met at once by at least 80% "
                 "of requests, with at most 1% failed") != NULL);
    open_pair_free(&p);

    CHECK(open_compare(&p, a, a, slos, NULL) == 0); /* the percentiles alone: held at 2 */
    CHECK(p.m.open.x[0].p[1].held && p.m.open.x[0].cap.by == 0 && p.m.open.x[0].cap.pass == 2);
    open_pair_free(&p);
}

/* The capacity between the last rate that held and the first that failed,
 * on the line through their values (a: p90 e2e 2, 3, 5 s at 1, 2, 4 req/s
 * crosses 4 s at 3 req/s); every rate held: ">= 4"; the ratio then ">="; the
 * tokens and cost at the capacity; the verdict's sentence. */
static void test_capacity_interpolated_and_bounded(void) {
    const double ea[3] = {2, 3, 5}, eb[3] = {1, 1.5, 2.5};
    const char *a = open_rounds("cap-a.json", "a", ea, NULL),
               *b = open_rounds("cap-b.json", "b", eb, NULL);
    static const char *const slos[] = {"e2e:p90:4", NULL};
    struct open_pair p;
    CHECK(open_compare(&p, a, b, slos, NULL) == 0);
    const struct openloop_cmp_cap *ca = &p.m.open.x[0].cap, *cb = &p.m.open.x[1].cap;
    CHECK(ca->rel == OPENLOOP_CMP_EQ && open_near(ca->v, 3) && ca->pass == 2 && ca->fail == 4 &&
          ca->by == 0 && !ca->nonmonotone);
    CHECK(open_near(ca->tokens_per_request, 8) && open_near(ca->tokens, 24));
    CHECK(open_near(ca->usd, 3.6e6 / 3600 / 24));
    CHECK(cb->rel == OPENLOOP_CMP_GE && cb->v == 4 && cb->pass == 4 && isnan(cb->fail));
    CHECK(p.m.open.ratio_rel == OPENLOOP_CMP_GE && open_near(p.m.open.ratio, 4 / 3.0));
    const struct cmp_row *r = cmp_row(&p.m, "capacity_requests_per_second");
    CHECK(r && r->b.ok && open_near(r->b.v, 3) && r->ratio.ok);
    CHECK(r && r->bound_b == CMP_EXACT && r->bound_c == CMP_AT_LEAST &&
          r->bound_ratio == CMP_AT_LEAST);
    r = cmp_row(&p.m, "rate_4_slos_held");
    CHECK(r && r->b.v == 0 && r->c.v == 1 && r->no_ratio);
    CHECK(strstr(buf_str(&p.verdict),
                 "At p90 end-to-end latency <= 4 s with at most 1% failed, b serves "
                 "at least 4 requests/s vs 3 for a (at least 1.33x).") != NULL);
    open_pair_free(&p);

    /* none holds on either side: "< 1" both, no ratio */
    static const char *const tight[] = {"e2e:p90:0.5", NULL};
    CHECK(open_compare(&p, a, b, tight, NULL) == 0);
    CHECK(p.m.open.x[0].cap.rel == OPENLOOP_CMP_LT && p.m.open.x[0].cap.v == 1 &&
          p.m.open.x[0].cap.fail == 1 && p.m.open.x[0].cap.by == 0);
    CHECK(p.m.open.ratio_rel == OPENLOOP_CMP_NONE &&
          p.m.open.ratio_none == OPENLOOP_CMP_NORATIO_NONE_HELD &&
          strcmp(openloop_cmp_noratio_why(p.m.open.ratio_none),
                 "both capacities are bounded the same way: no rate held on either") == 0);
    open_pair_free(&p);

    /* the candidate fails at 2: against a baseline that held everywhere, the ratio is "<=" */
    static const char *const mid[] = {"e2e:p90:2.6", NULL};
    CHECK(open_compare(&p, b, a, mid, NULL) == 0);
    CHECK(p.m.open.x[0].cap.rel == OPENLOOP_CMP_GE && p.m.open.x[1].cap.rel == OPENLOOP_CMP_EQ);
    CHECK(open_near(p.m.open.x[1].cap.v, 1.6)); /* 2 s at 1, 3 s at 2: 2.6 s at 1.6 */
    CHECK(p.m.open.ratio_rel == OPENLOOP_CMP_LE && open_near(p.m.open.ratio, 1.6 / 4));
    open_pair_free(&p);
}

/* The error rate alone: interpolated on the share of failed requests. */
static void test_capacity_on_the_error_rate(void) {
    const double e[3] = {1, 1, 1};
    const int fail[3] = {0, 0, 2}; /* 2 of 8 failed at 4 req/s */
    const char *a = open_rounds("err-a.json", "a", e, fail);
    struct open_pair p;
    CHECK(open_compare(&p, a, a, NULL, "0.1") == 0);
    const struct openloop_cmp_cap *c = &p.m.open.x[0].cap;
    CHECK(c->rel == OPENLOOP_CMP_EQ && c->by == -1 && open_near(c->v, 2 + 2 * 0.1 / 0.25));
    const struct openloop_cmp_point *x = openloop_cmp_point(&p.m.open.x[0], 4);
    CHECK(x && !x->held && open_near(x->errors, 0.25) && open_near(x->goodput, x->completion));
    CHECK(open_warned(&p.w, "a (baseline) rate 4/s: 2 of 8 requests failed (25.0%)"));
    CHECK(strstr(buf_str(&p.verdict),
                 "With at most 10% failed, a (candidate) serves 2.8 requests/s") != NULL);
    open_pair_free(&p);
}

/* Verdicts that fail at 2 and hold again at 4: the capacity is read below the
 * first failure, with a warning. */
static void test_capacity_not_monotone_warns(void) {
    const double e[3] = {2, 5, 3};
    const char *a = open_rounds("mono-a.json", "a", e, NULL);
    static const char *const slos[] = {"e2e:p50:4", NULL};
    struct open_pair p;
    CHECK(open_compare(&p, a, a, slos, NULL) == 0);
    const struct openloop_cmp_cap *c = &p.m.open.x[0].cap;
    CHECK(c->rel == OPENLOOP_CMP_EQ && c->nonmonotone && open_near(c->v, 1 + 2.0 / 3));
    CHECK(open_warned(&p.w, "the SLOs held again at a rate above the first that failed them (2 "
                            "requests/s)"));
    open_pair_free(&p);
}

/* SLOs that cannot be judged are refused in one line. */
static void test_slo_refused_without_its_metric(void) {
    const double e[3] = {1, 1, 1};
    const char *a = open_rounds("wrk-a.json", "a", e, NULL);
    static const char *const ttft[] = {"ttft:p90:1", NULL};
    struct open_pair p;
    CHECK(open_compare(&p, a, a, ttft, NULL) == CMP_ERR_INPUT);
    char want[600];
    snprintf(want, sizeof want,
             "--slo ttft:p90: the baseline %s did not stream its replies (wrk): it has no TTFT "
             "(measure with sm-stream)",
             a);
    CHECK_STR(buf_str(&p.err), want);
    open_pair_free(&p);
    const char *dec = rtest_result("dec.json", "decode", "d", "1", "{\"lengths\": [4, 8]}",
                                   rtest_rec("decode", 0, 4, 0, 100, 1));
    CHECK(open_compare(&p, dec, dec, NULL, "0.05") == CMP_ERR_INPUT);
    CHECK_STR(buf_str(&p.err), "--slo and --max-error-rate judge open-loop runs (rate.lua), and "
                               "neither side has one");
    open_pair_free(&p);
}

/* A record whose batch has no asked rate is bad input. */
static void test_batch_without_rate_refused(void) {
    const char *path = open_file("batch.json", "a", "wrk", "1", OPEN_SETTINGS,
                                 open_rec(3, 1000, 1100, 2000, true, NULL));
    struct open_pair p;
    CHECK(open_compare(&p, path, path, NULL, NULL) < 0);
    char want[600];
    snprintf(want, sizeof want, "%s: record 1: batch 3 has no rate (settings.rates lists 3)", path);
    CHECK_STR(buf_str(&p.err), want);
    open_pair_free(&p);
}

/* Two files of one side pool their rounds of the same rate. */
static void test_runs_of_one_side_pooled_by_rate(void) {
    const double e[3] = {2, 3, 5};
    const char *a = open_rounds("pool-1.json", "a", e, NULL),
               *b = open_rounds("pool-2.json", "a", e, NULL);
    struct side s;
    struct warnings w;
    struct buf err;
    char *paths[] = {(char *)a, (char *)b};
    warnings_init(&w);
    buf_init(&err, 512);
    CHECK(rtest_side(&s, "baseline", paths, 2, &w, &err) == 0);
    CHECK(s.rate.n == 3 && s.rate.r[2].rate == 4 && s.rate.r[2].tally.sent == 16);
    CHECK(s.rate.n == 3 && open_near(openloop_arrival_rate(&s.rate.r[2]), 4));
    CHECK(s.rate.n == 3 && open_near(openloop_completion_rate(&s.rate.r[2]), 16 / (2 * 6.75)));
    side_free(&s);
    warnings_free(&w);
    buf_free(&err);
}

/* Sides whose schedules differ (another seed) are refused unless --allow-mixed. */
static void test_guard_refuses_another_schedule(void) {
    const char *a = open_file("seed-1.json", "a", "wrk", "1", OPEN_SETTINGS,
                              open_rec(0, 1000, 1100, 2000, true, NULL));
    const char *b =
        open_file("seed-2.json", "b", "wrk", "1",
                  "{\"arrivals\": \"constant\", \"rates\": [1, 2, 4], \"duration_s\": 2, "
                  "\"arrival_seed\": 2, \"max_concurrency\": 8, \"max_tokens\": 8, "
                  "\"prompt\": \"p\"}",
                  open_rec(0, 1000, 1100, 2000, true, NULL));
    struct side x, y;
    struct warnings w;
    struct buf err;
    char *pa[] = {(char *)a}, *pb[] = {(char *)b};
    warnings_init(&w);
    buf_init(&err, 1024);
    CHECK(rtest_side(&x, "baseline", pa, 1, &w, &err) == 0);
    CHECK(rtest_side(&y, "candidate", pb, 1, &w, &err) == 0);
    CHECK(guard_check(&x, &y, false, &w, &err) == GUARD_ERR_MIXED);
    char want[800];
    snprintf(want, sizeof want,
             "baseline %s and candidate %s: open-loop arrival_seed 1 and 2 differ (--allow-mixed "
             "compares them anyway)",
             a, b);
    CHECK_STR(buf_str(&err), want);
    CHECK(guard_check(&x, &y, true, &w, &err) == 0 && open_warned(&w, "arrival_seed 1 and 2"));
    side_free(&x);
    side_free(&y);
    warnings_free(&w);
    buf_free(&err);
}

/* A request is good (goodput, attainment) on the figures the comparison shows
 * (stream.h defines them once): at time_scale 10 an open-loop request's
 * latency is multiplied whole (docs/compare.md, Time-scaled runs), server_us
 * or not, so a reply of 0.1 s measured is 1 s for its figure and its SLO
 * alike, and misses an SLO of 0.95 s. */
static void test_slo_judged_on_the_shown_time_scaled_figure(void) {
    char recs[4096];
    size_t n = 0;
    for (int j = 0; j < 4; j++) {
        long at = 1000000 + j * 500000L;
        n += (size_t)snprintf(recs + n, sizeof recs - n, "%s%s", j ? "," : "",
                              open_rec(1, at, at, at + 100000, true, "\"server_us\": 900000"));
    }
    const char *path = open_file("scaled-slo.json", "a", "wrk", "10", OPEN_SETTINGS, recs);
    static const char *const slos[] = {"e2e:p90:0.95", NULL};
    struct open_pair p;
    CHECK(open_compare(&p, path, path, slos, NULL) == 0);
    const struct openloop_cmp_point *x = openloop_cmp_point(&p.m.open.x[0], 2);
    CHECK(x != NULL);
    if (x) {
        CHECK(open_near(x->lat[STREAM_E2E].q[1], 1.0)); /* not 0.91: 0.9 s of model time */
        CHECK(x->check[0].have && open_near(x->check[0].v, 1.0) && !x->held);
        CHECK(open_near(x->attainment, 0)); /* every request missed the SLO it is shown to miss */
        CHECK(open_near(x->goodput, 0));
    }
    open_pair_free(&p);
}

int main(void) {
    test_slo_options_parsed_or_refused_in_one_line();
    test_intended_after_start_refused();
    test_latency_from_intended_start_and_late_sends();
    test_records_without_intended_start();
    test_goodput_per_request();
    test_min_attainment_parsed_or_refused_in_one_line();
    test_attainment_is_joint_over_the_slos();
    test_capacity_on_the_attainment();
    test_capacity_interpolated_and_bounded();
    test_capacity_on_the_error_rate();
    test_capacity_not_monotone_warns();
    test_slo_refused_without_its_metric();
    test_batch_without_rate_refused();
    test_runs_of_one_side_pooled_by_rate();
    test_guard_refuses_another_schedule();
    test_slo_judged_on_the_shown_time_scaled_figure();
    return check_exit();
}
