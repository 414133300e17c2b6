/* The emulator's per-family truth on generated quiz items (qtruth.h), and the
 * power claim of the plan (quiz_plan.h) checked by simulation: paired outcomes
 * drawn from that truth over repeated seeds, analysed as sm-compare does
 * (quiz_pair.h: McNemar per family, Holm across the three). */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "quiz_pair.h"
#include "quiz_plan.h"
#include "qtruth.h"
#include "quizgen.h"

#define BF16 "google/gemma-4-E2B-it"
#define QAT  "google/gemma-4-E2B-it-qat-w4a16-ct"

/* Counts n items of each family under seed: b and c per family. */
static void draw(uint64_t seed, long n, const char *base, const char *cand, struct quiz_pair *q) {
    struct quizgen_item it;
    quizgen_item_init(&it);
    for (unsigned f = 0; f < QUIZGEN_FAMILIES; f++) {
        q[f] = (struct quiz_pair){.n = n};
        for (long i = 0; i < n; i++) {
            CHECK_INT(quizgen_make(seed, (enum quizgen_family)f, (unsigned)i, &it), QUIZGEN_OK);
            bool x = qtruth_right(base, it.family, buf_str(&it.prompt));
            bool y = qtruth_right(cand, it.family, buf_str(&it.prompt));
            q[f].right_b += x;
            q[f].right_c += y;
            q[f].b += x && !y;
            q[f].c += y && !x;
        }
    }
    quizgen_item_free(&it);
}

/* Over 6000 items a family, each model's accuracy and the pair's discordance
 * are the table's, within 4 standard errors. */
static void test_truth_is_the_table(void) {
    struct quiz_pair q[QUIZGEN_FAMILIES];
    long n = 6000;
    draw(99, n, BF16, QAT, q);
    for (unsigned f = 0; f < QUIZGEN_FAMILIES; f++) {
        double ab = qtruth_accuracy(BF16, f), ac = qtruth_accuracy(QAT, f);
        double psi = qtruth_discordance(BF16, QAT, f);
        double se_b = sqrt(ab * (1 - ab) / n), se_c = sqrt(ac * (1 - ac) / n),
               se_psi = sqrt(psi * (1 - psi) / n);
        CHECK(fabs((double)q[f].right_b / n - ab) <= 4 * se_b);
        CHECK(fabs((double)q[f].right_c / n - ac) <= 4 * se_c);
        CHECK(fabs((double)(q[f].b + q[f].c) / n - psi) <= 4 * se_psi);
    }
    CHECK(fabs(qtruth_accuracy(BF16, QUIZGEN_FORMAT) - qtruth_accuracy(QAT, QUIZGEN_FORMAT) -
               0.03) < 1e-12);
    CHECK(qtruth_accuracy("emulated-model", QUIZGEN_FORMAT) == 1);
    CHECK(qtruth_discordance(QAT, QAT, QUIZGEN_FORMAT) == 0);
}

/* The share of runs of n items per family in which the format family comes
 * out "different" (Holm over the three families at 5%). */
static double simulated_power(long n, int runs) {
    int found = 0;
    for (int k = 0; k < runs; k++) {
        struct quiz_pair q[QUIZGEN_FAMILIES];
        draw(1000 + (uint64_t)k, n, BF16, QAT, q);
        for (unsigned f = 0; f < QUIZGEN_FAMILIES; f++) quiz_pair_tests(&q[f], QUIZ_PLAN_MARGIN);
        quiz_pair_judge(q, QUIZGEN_FAMILIES, QUIZ_PLAN_MARGIN, 0.05, 0.8);
        found += q[QUIZGEN_FORMAT].verdict == QUIZ_PAIR_DIFFERENT;
    }
    return (double)found / runs;
}

/* Planned with the true discordance, 80% power is reached within simulation
 * error (3 standard errors of 200 runs); the default plan (10% assumed, more
 * than the truth's 7.9%) reaches at least that. */
static void test_plan_power_holds_by_simulation(void) {
    struct quiz_plan p;
    struct buf err;
    buf_init(&err, 256);
    quiz_plan_defaults(&p);
    p.families = QUIZGEN_FAMILIES;
    CHECK_INT(quiz_plan_check(&p, &err), QUIZ_PLAN_OK);
    long n_default = quiz_plan_items(&p);
    p.discordance = qtruth_discordance(BF16, QAT, QUIZGEN_FORMAT);
    long n_true = quiz_plan_items(&p);
    CHECK(n_true < n_default);
    int runs = 200;
    double tol = 3 * sqrt(0.8 * 0.2 / runs);
    double at_true = simulated_power(n_true, runs), at_default = simulated_power(n_default, runs);
    fprintf(stderr, "power: %.3f at %ld items (planned 0.80), %.3f at the default plan's %ld\n",
            at_true, n_true, at_default, n_default);
    CHECK(fabs(at_true - 0.8) <= tol);
    CHECK(at_default >= 0.8 - tol);
    buf_free(&err);
}

/* A/A: the same model on both sides agrees on every item; the default plan's
 * items show equivalence within 2 points in every family. */
static void test_aa_is_equivalent(void) {
    struct quiz_plan p;
    quiz_plan_defaults(&p);
    p.families = QUIZGEN_FAMILIES;
    struct quiz_pair q[QUIZGEN_FAMILIES];
    draw(7, quiz_plan_items(&p), QAT, QAT, q);
    for (unsigned f = 0; f < QUIZGEN_FAMILIES; f++) quiz_pair_tests(&q[f], QUIZ_PLAN_MARGIN);
    quiz_pair_judge(q, QUIZGEN_FAMILIES, QUIZ_PLAN_MARGIN, 0.05, 0.8);
    for (unsigned f = 0; f < QUIZGEN_FAMILIES; f++) {
        CHECK_INT(q[f].b + q[f].c, 0);
        CHECK_INT(q[f].verdict, QUIZ_PAIR_EQUIVALENT);
    }
}

int main(void) {
    test_truth_is_the_table();
    test_aa_is_equivalent();
    test_plan_power_holds_by_simulation();
    return check_exit();
}
