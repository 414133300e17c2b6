/* quiz_plan (items for a paired A/B) and quiz_pair (the paired analysis): values
 * computed by hand from the formulas in quiz_plan.h and quiz_pair.h, and the
 * paired-bootstrap interval's coverage by simulation. */
#include <math.h>
#include <string.h>

#include "../check.h"
#include "estim.h"
#include "quiz_family.h"
#include "quiz_family_report.h"
#include "quiz_pair.h"
#include "quiz_plan.h"
#include "src.h"

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol))

/* Connor's formula by hand: z(0.975) = 1.959964, z(0.8) = 0.841621;
 * (1.959964 sqrt(0.079) + 0.841621 sqrt(0.0781))^2 / 0.0009 = 686.6. */
static void test_plan_items_from_connor(void) {
    struct quiz_plan p;
    struct buf err;
    buf_init(&err, 256);
    quiz_plan_defaults(&p);
    p.discordance = 0.079;
    CHECK_INT(quiz_plan_check(&p, &err), QUIZ_PLAN_OK);
    long n = quiz_plan_items(&p);
    CHECK_INT(n, 687);
    CHECK(quiz_plan_power(&p, n) >= 0.80 && quiz_plan_power(&p, n - 1) < 0.80);
    /* three families: each at alpha / 3, z(1 - 0.05/6) = 2.393980 */
    p.families = 3;
    double root = 2.393980 * sqrt(0.079) + 0.841621 * sqrt(0.0781);
    CHECK_INT(quiz_plan_items(&p), (long)ceil(root * root / 0.0009 - 1e-6));
    CHECK(quiz_plan_items(&p) > n);
    /* a larger difference needs fewer items; more power more */
    p.families = 1;
    p.detect = 0.06;
    CHECK(quiz_plan_items(&p) < n / 3);
    p.detect = 0.03;
    p.power = 0.9;
    CHECK(quiz_plan_items(&p) > n);
    buf_free(&err);
}

static void test_plan_refuses_bad_values(void) {
    struct quiz_plan p;
    struct buf err;
    buf_init(&err, 256);
    quiz_plan_defaults(&p);
    p.detect = 0.2; /* more than the 10% discordance allows */
    CHECK_INT(quiz_plan_check(&p, &err), QUIZ_PLAN_ERR_INPUT);
    CHECK(strstr(buf_str(&err), "--discordance 0.1") != NULL);
    quiz_plan_defaults(&p);
    p.power = 1;
    CHECK_INT(quiz_plan_check(&p, &err), QUIZ_PLAN_ERR_INPUT);
    CHECK(strstr(buf_str(&err), "--power") != NULL);
    double v;
    CHECK(quiz_plan_share("2%", &v) && NEAR(v, 0.02, 1e-15));
    CHECK(quiz_plan_share("0.8", &v) && NEAR(v, 0.8, 1e-15));
    CHECK(!quiz_plan_share("80", &v));
    CHECK(!quiz_plan_share("2%%", &v));
    CHECK(!quiz_plan_share("nan", &v));
    CHECK(!quiz_plan_share("", &v));
    buf_free(&err);
}

/* Holm by hand: sorted 0.01 0.03 0.04 times 3 2 1 = 0.03 0.06 0.04, step-down 0.06. */
static void test_holm_by_hand(void) {
    double p[] = {0.01, 0.04, 0.03, 0.9}, adj[4];
    quiz_pair_holm(p, adj, 4);
    CHECK(NEAR(adj[0], 0.04, 1e-15));
    CHECK(NEAR(adj[2], 0.09, 1e-15));
    CHECK(NEAR(adj[1], 0.09, 1e-15)); /* 0.08, raised to the earlier 0.09 */
    CHECK(NEAR(adj[3], 0.9, 1e-15));
}

/* An A/A run (no item disagrees) of 1000 items is equivalent within 2 points;
 * of 100 it is inconclusive and says how many more; a 3-point one-sided
 * disagreement of 1000 is different. */
static void test_verdicts(void) {
    struct quiz_pair q[3] = {{.n = 1000}, {.n = 100}, {.n = 1000, .b = 40, .c = 10}};
    for (int i = 0; i < 3; i++) quiz_pair_analyse(&q[i], 0.02, 0.05, 7);
    CHECK(NEAR(q[2].diff, -0.03, 1e-15) && NEAR(q[2].psi, 0.05, 1e-15));
    CHECK(q[2].lo < -0.03 && q[2].hi > -0.03 && q[2].hi < 0);
    quiz_pair_judge(q, 1, 0.02, 0.05, 0.8);
    CHECK_INT(q[0].verdict, QUIZ_PAIR_EQUIVALENT);
    quiz_pair_judge(&q[1], 1, 0.02, 0.05, 0.8);
    CHECK_INT(q[1].verdict, QUIZ_PAIR_INCONCLUSIVE);
    /* psi taken as 3/100: (1.644854 + 0.841621)^2 0.03 / 0.02^2 = 463.8 -> 464, less 100 */
    CHECK_INT(q[1].more, 364);
    quiz_pair_judge(&q[2], 1, 0.02, 0.05, 0.8);
    CHECK_INT(q[2].verdict, QUIZ_PAIR_DIFFERENT);
    CHECK_STR(quiz_pair_verdict_name(q[2].verdict), "different");
    /* Holm over the three: the different one stays different (p ~ 1e-5 times 3) */
    quiz_pair_judge(q, 3, 0.02, 0.05, 0.8);
    CHECK_INT(q[2].verdict, QUIZ_PAIR_DIFFERENT);
    CHECK(q[2].p_diff_adj > q[2].p_diff);
}

/* Coverage of the 95% paired-bootstrap interval: 1000 runs of 150 pairs with 6%
 * right only on the baseline and 3% only on the candidate (d = -0.03). */
static void test_bootstrap_coverage(void) {
    struct estim_rng r;
    estim_rng_seed(&r, 20261202);
    int covered = 0, runs = 1000;
    for (int k = 0; k < runs; k++) {
        struct quiz_pair q = {.n = 150};
        for (long i = 0; i < q.n; i++) {
            double u = estim_rng_unit(&r);
            q.b += u < 0.06;
            q.c += u >= 0.06 && u < 0.09;
        }
        q.diff = (double)(q.c - q.b) / (double)q.n;
        quiz_pair_bootstrap(&q, 0.95, (uint64_t)k + 1);
        covered += q.lo <= -0.03 && -0.03 <= q.hi;
    }
    double share = (double)covered / runs;
    fprintf(stderr, "bootstrap coverage %.3f\n", share);
    CHECK(share >= 0.93 && share <= 0.97);
}

/* Families are told apart by their whole kind (two long kinds sharing their
 * first 50 bytes stay two rows), and a kind that is not UTF-8 reaches the JSON
 * as U+FFFD. */
static void test_families_by_whole_kind_and_valid_json(void) {
    enum { N = 120 };
    static struct src_quiz_item bi[N], ci[N];
    static char ids[N][8];
    const char *k1 = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\xff"
                     "1",
               *k2 = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\xff"
                     "2";
    for (int i = 0; i < N; i++) {
        snprintf(ids[i], sizeof ids[i], "q%d", i);
        bi[i] = (struct src_quiz_item){
            .id = ids[i], .kind = (char *)(i % 2 ? k1 : k2), .text = "7", .correct = 1};
        ci[i] = bi[i];
        ci[i].correct = i % 10 != 0;
    }
    struct src_quiz x = {.items = bi, .n = N}, y = {.items = ci, .n = N};
    struct quiz_family f;
    quiz_family_build(&f, &x, &y, 0.02, 0.05, 0.8);
    CHECK(f.have);
    CHECK_INT(f.n, 2);
    CHECK_INT(f.all.q.n, N);
    CHECK_INT(f.all.q.b, 12);
    cJSON *j = quiz_family_report_json(&f);
    char *text = j ? cJSON_PrintUnformatted(j) : NULL;
    CHECK(text &&
          strstr(text, "\xef\xbf\xbd"
                       "1") &&
          !strchr(text, 0xff));
    CHECK(text && strstr(text, "\"correction\":\"holm\""));
    cJSON_free(text);
    cJSON_Delete(j);
    /* the same items in the reverse order: the same table */
    static struct src_quiz_item rb[N], rc[N];
    for (int i = 0; i < N; i++) {
        rb[i] = bi[N - 1 - i];
        rc[i] = ci[N - 1 - i];
    }
    struct src_quiz rx = {.items = rb, .n = N}, ry = {.items = rc, .n = N};
    struct quiz_family g;
    quiz_family_build(&g, &rx, &ry, 0.02, 0.05, 0.8);
    CHECK_INT(g.n, 2);
    for (size_t i = 0; i < 2 && g.n == 2 && f.n == 2; i++) {
        CHECK_STR(g.rows[i].kind, f.rows[i].kind);
        CHECK(g.rows[i].q.lo == f.rows[i].q.lo && g.rows[i].q.hi == f.rows[i].q.hi);
    }
    struct src_quiz few = {.items = bi, .n = QUIZ_FAMILY_MIN_ITEMS - 1};
    quiz_family_build(&f, &few, &few, 0.02, 0.05, 0.8);
    CHECK(!f.have);
}

/* TOST's level: with the true difference at the margin (-2 points: 5% right
 * only on the baseline, 3% only on the candidate), 2000 runs of 1000 items
 * call "equivalent" at most 5% of the time, within 3 standard errors. */
static void test_tost_level_at_the_margin(void) {
    struct estim_rng r;
    estim_rng_seed(&r, 35);
    int equivalent = 0, runs = 2000;
    for (int k = 0; k < runs; k++) {
        struct quiz_pair q = {.n = 1000};
        for (long i = 0; i < q.n; i++) {
            double u = estim_rng_unit(&r);
            q.b += u < 0.05;
            q.c += u >= 0.05 && u < 0.08;
        }
        quiz_pair_tests(&q, 0.02);
        equivalent += q.p_equiv < 0.05;
    }
    double share = (double)equivalent / runs;
    fprintf(stderr, "TOST at the margin: equivalent in %.3f of runs\n", share);
    CHECK(share <= 0.05 + 3 * sqrt(0.05 * 0.95 / runs));
}

int main(void) {
    test_plan_items_from_connor();
    test_plan_refuses_bad_values();
    test_holm_by_hand();
    test_verdicts();
    test_families_by_whole_kind_and_valid_json();
    test_tost_level_at_the_margin();
    test_bootstrap_coverage();
    return check_exit();
}
