/* Unit tests of cmp (the comparison's rows), quiz_cmp (the quiz compared), notes,
 * verdict and fmt: ratios at full precision, each figure's requests and
 * intervals, unanswered questions, the warnings and the verdict's wording,
 * and how numbers are shown. */
#include <math.h>

#include "../check.h"
#include "cmp.h"
#include "comparison.h"
#include "fmt.h"
#include "notes.h"
#include "rtest.h"
#include "verdict.h"

/* A decode file of rate tokens/s with 5 replies of 16 and 512 tokens (the
 * first of 512 failed when fail) and a little spread. */
static const char *test_decode(const char *name, const char *label, double rate, bool fail) {
    char recs[8192];
    long t = 0;
    size_t k = 0;
    for (int rep = 0; rep < 5; rep++)
        for (int n = 16; n <= 512; n += 496) {
            long us = lround((0.5 + n / rate) * 1e6) + (long)(rep - 2) * 500;
            k += (size_t)snprintf(
                recs + k, sizeof recs - k, "%s%s", k ? "," : "",
                rtest_rec("decode", rep, n, t, t + us, !(fail && rep == 0 && n == 512)));
            t += us + 100;
        }
    return rtest_result(name, "decode", label, "1", "{\"lengths\": [16, 512], \"prompt\": \"p\"}",
                        recs);
}

/* A quiz file of 4 questions; the last two failed when fail. */
static const char *test_quiz(const char *name, const char *label, bool fail, const char *third) {
    char recs[4096];
    size_t k = 0;
    const char *ids[] = {"add-1", "add-2", "add-3", "cap-1"}, *answers[] = {"5", "6", "7", "X"};
    for (int i = 0; i < 4; i++) {
        bool failed = fail && i >= 2;
        const char *text = i == 2 ? third : answers[i];
        k += (size_t)snprintf(recs + k, sizeof recs - k,
                              "%s{\"phase\": \"quiz\", \"ok\": %s, \"question\": \"%s\", \"kind\": "
                              "\"%.3s\", \"text\": \"%s\", \"answer\": \"%s\", \"correct\": %s, "
                              "\"t_start_us\": %d, \"t_end_us\": %d%s}",
                              i ? "," : "", failed ? "false" : "true", ids[i], ids[i], text,
                              answers[i], strcmp(text, answers[i]) == 0 ? "true" : "false", i * 10,
                              i * 10 + 5,
                              failed ? ", \"error\": {\"code\": \"InternalFailure\"}" : "");
    }
    return rtest_result(name, "quiz", label, "1", "{\"quiz\": \"q\", \"questions\": 4}", recs);
}

struct test_pair {
    struct side b, c;
    struct cmp m;
    struct warnings w;
    struct buf err;
    struct buf verdict; /* verdict.h's */
};

static int test_compare(struct test_pair *p, char **pb, size_t nb, char **pc, size_t nc) {
    struct cmp_opts o = {true, 3.6, NULL, 0};
    warnings_init(&p->w);
    buf_init(&p->err, 2048);
    buf_init(&p->verdict, BUF_NO_CAP);
    if (rtest_side(&p->b, "baseline", pb, nb, &p->w, &p->err) < 0 ||
        rtest_side(&p->c, "candidate", pc, nc, &p->w, &p->err) < 0)
        return -1;
    int rc = comparison_build(&p->m, &p->b, &p->c, &o, &p->err);
    if (rc == 0) notes_add(&p->m, &p->w); /* the report's warnings on the figures */
    return rc == 0 ? verdict_build(&p->m, &p->verdict) : rc;
}

static void test_pair_free(struct test_pair *p) {
    cmp_free(&p->m);
    buf_free(&p->verdict);
    side_free(&p->b);
    side_free(&p->c);
    warnings_free(&p->w);
    buf_free(&p->err);
}

static bool test_warned(const struct warnings *w, const char *part) {
    for (size_t i = 0; i < w->n; i++)
        if (strstr(w->items[i], part)) return true;
    return false;
}

static void test_rows(void) {
    struct test_pair p;
    char *pb[] = {(char *)test_decode("b.json", "b", 50, true),
                  (char *)test_quiz("qb.json", "b", true, "7")};
    char *pc[] = {(char *)test_decode("c.json", "c", 100.3, false),
                  (char *)test_quiz("qc.json", "c", false, "8")};
    CHECK(test_compare(&p, pb, 2, pc, 2) == 0);
    const struct cmp_row *r = cmp_row(&p.m, "decode_tokens_per_second");
    CHECK(r && r->b.ok && r->c.ok && fabs(r->ratio.v - 100.3 / 50) < 1e-3);
    CHECK(r && r->ratio.v != round(r->ratio.v * 100) / 100); /* not rounded to 2 decimals */
    CHECK(r && r->tb && r->tb->ok == 9 && r->tb->sent == 10 && r->tc->ok == 10);
    CHECK(r && r->nb == 4 && r->nc == 5 && !r->ci_b.ok && r->ci_c.ok && !r->ci_r.ok);
    CHECK(r && strcmp(r->ci_b.why, "n = 4: no interval") == 0);
    const struct cmp_row *f = cmp_row(&p.m, "per_call_fixed_cost_seconds");
    CHECK(f && f->ci_c.ok && f->ci_c.lo < 0.5 && 0.5 < f->ci_c.hi && f->nc == 5);
    const struct cmp_row *q = cmp_row(&p.m, "quality_correct");
    CHECK(q && q->b.v == 2 && q->b_total == 2 && q->b_unanswered == 2 && q->c.v == 3 &&
          q->c_total == 4 && q->c_unanswered == 0);
    const struct cmp_row *k = cmp_row(&p.m, "quality_add_correct");
    CHECK(k && k->b_total == 2 && k->b_unanswered == 1 && k->c_total == 3);
    /* the quiz: questions 3 and 4 unanswered on the baseline side */
    const struct quiz_cmp *qc = &p.m.quiz;
    CHECK(qc->have && qc->asked == 4 && qc->both == 2 && qc->identical == 2);
    CHECK(qc->unanswered_b == 2 && qc->unanswered_c == 0 && qc->ndiffer == 0 && qc->ndis == 2);
    CHECK(qc->ndis == 2 && strcmp(qc->dis[0].right, "unanswered") == 0);
    CHECK(qc->have_mcnemar && qc->mc_b == 0 && qc->mc_c == 0);
    CHECK(test_warned(&p.w, "b decode: 1 of 10 requests failed (10.0%): unknown 1") ||
          test_warned(&p.w, "b decode: 1 of 10 requests failed (10.0%)"));
    CHECK(test_warned(&p.w, "b quiz: 2 of 4 requests failed (50.0%): InternalFailure 2"));
    CHECK(test_warned(&p.w, "decode_tokens_per_second: n = 4: no interval"));
    CHECK(strstr(buf_str(&p.verdict),
                 "Quiz: 3/4 answered against 2/2 answered (0 and 2 unanswered: "
                 "their requests failed); of the 2 questions both answered, 2 "
                 "answers identical") != NULL);
    CHECK(strstr(buf_str(&p.verdict), "Failures: 21.4% of b's requests (3 of 14) failed") != NULL);
    test_pair_free(&p);
}

static void test_verdict_levels(void) {
    char r1[4096], r2[4096];
    const char *st = "{\"mode\": \"batch\", \"concurrency\": 1, \"max_tokens\": 100}";
    const char *st4 = "{\"mode\": \"batch\", \"concurrency\": 4, \"max_tokens\": 100}";
    snprintf(r1, sizeof r1, "%s", rtest_rec("sweep", 0, 100, 0, 1000000, 1));
    snprintf(r2, sizeof r2, "%s,%s,%s,%s", rtest_rec("sweep", 0, 100, 0, 1000000, 1),
             rtest_rec("sweep", 0, 100, 0, 1000000, 1), rtest_rec("sweep", 0, 100, 0, 1000000, 1),
             rtest_rec("sweep", 0, 100, 0, 1000000, 1));
    char *pb[] = {(char *)rtest_result("vb1.json", "sweep", "b", "1", st, r1),
                  (char *)rtest_result("vb4.json", "sweep", "b", "1", st4, r2)};
    char *pc[] = {(char *)rtest_result("vc1.json", "sweep", "c", "1", st, r1),
                  (char *)rtest_result("vc4.json", "sweep", "c", "1", st4, r2)};
    struct test_pair p;
    CHECK(test_compare(&p, pb, 2, pc, 2) == 0);
    CHECK(strstr(buf_str(&p.verdict),
                 "Under load it serves 1.00x the tokens per second at every level "
                 "(c1, c4).") != NULL);
    const struct cmp_row *cost = cmp_row(&p.m, "cost_c1_usd_per_million_tokens");
    CHECK(cost && fabs(cost->b.v - 3.6 / (100 * 3600.0) * 1e6) < 1e-9);
    test_pair_free(&p);
}

static void test_fmt(void) {
    static const struct {
        double v;
        const char *want;
    } sig[] = {{1.0, "1.00"},    {0.8215, "0.822"}, {2.0487, "2.05"},
               {1234.6, "1235"}, {12.34, "12.3"},   {0.000123456, "0.000123"}};
    char out[FMT_CELL];
    for (size_t i = 0; i < sizeof sig / sizeof sig[0]; i++) {
        fmt_sig(sig[i].v, out, sizeof out);
        CHECK_STR(out, sig[i].want);
    }
    struct interval ci = {.ok = true, .lo = 1.004, .hi = 1.012};
    fmt_interval(&ci, -1, out, sizeof out); /* 2 decimals would read "1.00 to 1.01" */
    CHECK_STR(out, "1.004 to 1.012");
    ci = (struct interval){.ok = true, .lo = 0.99, .hi = 0.9999};
    fmt_interval(&ci, -1, out, sizeof out);
    CHECK_STR(out, "0.9900 to 0.9999");
    ci = (struct interval){.ok = true, .lo = 51.2364, .hi = 51.3637};
    fmt_interval(&ci, 2, out, sizeof out);
    CHECK_STR(out, "51.24 to 51.36");
    interval_none(&ci, "n = %d: no interval", 2);
    fmt_interval(&ci, 2, out, sizeof out);
    CHECK_STR(out, "n = 2: no interval");
    struct cmp_row r;
    memset(&r, 0, sizeof r);
    r.ratio = (struct side_val){.ok = true, .v = 1.004};
    r.ci_r = (struct interval){.ok = true, .lo = 1.0035, .hi = 1.0045};
    fmt_ratio(&r, out, sizeof out);
    CHECK_STR(out, "1.0040");
    struct side_val v = {.ok = true, .v = 37};
    fmt_val(&r, &v, 38, 2, out, sizeof out);
    CHECK_STR(out, "37/38 answered (2 unanswered)");
    fmt_val(&r, &v, 40, 0, out, sizeof out);
    CHECK_STR(out, "37/40");
    fmt_num(NAN, 2, out, sizeof out);
    CHECK_STR(out, "n/a");
    fmt_num(0.004, 2, out, sizeof out);
    CHECK_STR(out, "0.004");
    fmt_reply("Bras\xc3\xadlia", 5, out, sizeof out);
    CHECK_STR(out, "Bras\xc3\xad...");
}

int main(void) {
    test_rows();
    test_verdict_levels();
    test_fmt();
    return check_exit();
}
