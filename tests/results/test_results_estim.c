/* Unit tests of estim (the statistics) and interval (the figures' intervals):
 * values computed by hand or with Python's statistics module. */
#include <math.h>
#include <string.h>

#include "../check.h"
#include "estim.h"
#include "interval.h"

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol))

static void test_order(void) {
    double odd[] = {5, 1, 4, 2, 3}, even[] = {10, 40, 20, 30}, one[] = {7};
    CHECK(estim_median(odd, 5) == 3);
    CHECK(estim_median(even, 4) == 25);
    CHECK(estim_median(one, 1) == 7);
    double x[101], y[101];
    for (int i = 0; i < 101; i++) x[i] = y[i] = (double)((i * 37) % 11);
    estim_sort(y, 101);
    CHECK(estim_median(x, 101) == y[50]);
    const double keep[] = {3, 1, 2};
    CHECK(estim_median_of(keep, 3) == 2 && keep[0] == 3);
    double q[] = {1, 2, 3, 4};
    CHECK(NEAR(estim_quantile(q, 4, 0.5), 2.5, 1e-12));
    CHECK(NEAR(estim_quantile(q, 4, 0.9), 3.7, 1e-12));
    CHECK(estim_quantile(q, 4, 1.0) == 4);
    double tx[] = {16, 128, 512, 16}, ty[4], a, b;
    for (int i = 0; i < 4; i++) ty[i] = 0.5 + tx[i] / 50;
    CHECK(estim_linfit(tx, ty, 4, &a, &b) == 0);
    CHECK(NEAR(a, 0.5, 1e-12) && NEAR(1 / b, 50, 1e-9));
    double flat[] = {3, 3};
    CHECK(estim_linfit(flat, flat, 2, &a, &b) < 0);
}

static void test_tests(void) {
    CHECK(estim_mcnemar(0, 0) == 1);
    CHECK(NEAR(estim_mcnemar(2, 2), 1.0, 1e-12));
    CHECK(NEAR(estim_mcnemar(0, 6), 0.03125, 1e-12));
    CHECK(NEAR(estim_mcnemar(1, 9), 0.021484375, 1e-12));
    CHECK(NEAR(estim_binom_half_cdf(1, 5), 6.0 / 32, 1e-12));
    /* Student's t: the tables' values */
    CHECK(NEAR(estim_t_quantile(0.975, 1), 12.706205, 1e-5));
    CHECK(NEAR(estim_t_quantile(0.975, 4), 2.776445, 1e-5));
    CHECK(NEAR(estim_t_quantile(0.975, 30), 2.042272, 1e-5));
    CHECK(NEAR(estim_t_quantile(0.975, INFINITY), 1.959964, 1e-5));
    CHECK(NEAR(estim_t_quantile(0.025, 4), -2.776445, 1e-5));
    CHECK(NEAR(estim_t_cdf(2, 4), 0.941942, 1e-5));
    CHECK(NEAR(estim_t_cdf(-2, 4), 1 - 0.941942, 1e-5));
    struct estim_rng r1, r2;
    estim_rng_seed(&r1, 42);
    estim_rng_seed(&r2, 42);
    int same = 1;
    for (int i = 0; i < 100; i++) same &= estim_rng_next(&r1) == estim_rng_next(&r2);
    CHECK(same);
}

static void test_normal(void) {
    const double x[] = {1, 2, 3, 4, 5};
    struct estim_norm m, two = {10, 1, 4}, d;
    CHECK(estim_mean(x, 5, &m) == 0);
    CHECK(m.est == 3 && NEAR(m.var, 2.5 / 5, 1e-12) && m.df == 4);
    CHECK(estim_mean(x, 1, &m) < 0);
    d = estim_lincomb(1, &two, -1, &two); /* Welch-Satterthwaite: (1 + 1)^2 / (1/4 + 1/4) */
    CHECK(d.est == 0 && d.var == 2 && NEAR(d.df, 8, 1e-12));
    double lo, hi;
    estim_t_interval(&two, 0.95, &lo, &hi);
    CHECK(NEAR(lo, 10 - 2.776445, 1e-5) && NEAR(hi, 10 + 2.776445, 1e-5));
    struct estim_norm num = {10, 1, INFINITY}, den = {5, 0.25, INFINITY}, zero = {0.5, 1, 10};
    CHECK(estim_fieller(&num, &den, 0.95, &lo, &hi) == 0);
    CHECK(NEAR(lo, 1.508954, 1e-5) && NEAR(hi, 2.650843, 1e-5));
    CHECK(estim_fieller(&num, &zero, 0.95, &lo, &hi) < 0); /* the denominator may be 0 */
}

static void test_median(void) {
    const double five[] = {1, 2, 3, 4, 5}, eight[] = {1, 2, 3, 4, 5, 6, 7, 8};
    double lo, hi, level, se;
    estim_median_ci(five, 5, 0.95, &lo, &hi, &level);
    CHECK(lo == 1 && hi == 5 && NEAR(level, 0.9375, 1e-12));
    estim_median_ci(eight, 8, 0.95, &lo, &hi, &level); /* Hettmansperger-Sheather */
    CHECK(NEAR(lo, 1.935644, 1e-5) && NEAR(hi, 7.064356, 1e-5) && level == 0.95);
    CHECK(estim_log_median_se(five, 5, &se) == 0 && NEAR(se, 0.432010, 1e-5));
    const double nonpos[] = {0, 1};
    CHECK(estim_log_median_se(nonpos, 2, &se) < 0);
}

static void test_batches(void) {
    const double four[] = {40, 41, 39, 40}, five[] = {40, 41, 39, 40, 42};
    struct interval_fig f;
    struct interval ci;
    interval_batches(four, 4, 1, 5, &f, &ci);
    CHECK(!ci.ok && !f.ok);
    CHECK_STR(ci.why, "n = 4: no interval");
    interval_batches(five, 5, 1, 5, &f, &ci);
    CHECK(ci.ok && ci.lo == 39 && ci.hi == 42 && f.ok && f.kind == INTERVAL_MEDIAN);
    CHECK(NEAR(f.log_median, log(40.0), 1e-12) && f.up == 0);
    /* time-scaled: a batch of 5 s may read 10 x 1 ms long, the throughput 0.2% low */
    interval_batches(five, 5, 10, 5, &f, &ci);
    CHECK(ci.lo == 39 && NEAR(ci.hi, 42 * 1.002, 1e-9) && NEAR(f.up, 0.002, 1e-12));
    struct interval_fig g = f, r8 = f;
    struct interval rci;
    interval_ratio(&f, &g, &rci); /* five batches: a side's interval, no ratio's */
    CHECK(!rci.ok && strstr(rci.why, "8 batches per side needed"));
    r8.n = g.n = 8;
    interval_ratio(&r8, &g, &rci);
    CHECK(rci.ok && rci.lo < 1 && rci.hi > 1);
}

/* Walls fixed + n / rate for n = 16 and 512, with a systematic offset and a small spread. */
static void test_walls(double rate, double fixed, double offset, double *ws, double *wl) {
    for (int i = 0; i < 5; i++) {
        double e = (i - 2) * 1e-6;
        ws[i] = fixed + 16 / rate + offset + e;
        wl[i] = fixed + 512 / rate + offset - e;
    }
}

static void test_decode(void) {
    double ws[5], wl[5];
    struct interval_fig rate, fixed, rate2, fixed2;
    struct interval rci, fci, ratio;
    test_walls(50, 0.5, 0, ws, wl);
    interval_decode(16, 512, ws, 5, wl, 5, 1, &rate, &rci, &fixed, &fci);
    CHECK(rci.ok && rci.lo <= 50 && 50 <= rci.hi && rci.hi - rci.lo < 1e-3);
    CHECK(fci.ok && fci.lo <= 0.5 && 0.5 <= fci.hi);
    interval_decode(16, 512, ws, 4, wl, 5, 1, &rate, &rci, &fixed, &fci);
    CHECK(!rci.ok && !fci.ok);
    CHECK_STR(rci.why, "n = 4: no interval");
    /* a jitter-free run at time_scale 10 whose times all read 5 ms (0.5 ms real) long: the
     * per-call cost reads high, and only the bias bound keeps the truth in the interval */
    test_walls(50, 0.5, 0.005, ws, wl);
    interval_decode(16, 512, ws, 5, wl, 5, 1, &rate, &rci, &fixed, &fci);
    CHECK(fci.ok && fci.lo > 0.5);
    interval_decode(16, 512, ws, 5, wl, 5, 10, &rate, &rci, &fixed, &fci);
    CHECK(fci.ok && fci.lo <= 0.5 && 0.5 <= fci.hi && rci.lo <= 50 && 50 <= rci.hi);
    /* the ratio of 100 over 50 tokens/s */
    test_walls(50, 0.5, 0, ws, wl);
    interval_decode(16, 512, ws, 5, wl, 5, 1, &rate, &rci, &fixed, &fci);
    test_walls(100, 0.5, 0, ws, wl);
    interval_decode(16, 512, ws, 5, wl, 5, 1, &rate2, &rci, &fixed2, &fci);
    interval_ratio(&rate, &rate2, &ratio);
    CHECK(ratio.ok && ratio.lo <= 2 && 2 <= ratio.hi && ratio.hi - ratio.lo < 1e-4);
    interval_ratio(&fixed, &fixed2, &ratio);
    CHECK(ratio.ok && ratio.lo <= 1 && 1 <= ratio.hi);
    interval_inverse(&rci, 1000, &ratio); /* a cost from a rate */
    CHECK(ratio.ok && NEAR(ratio.lo, 1000 / rci.hi, 1e-12) && NEAR(ratio.hi, 1000 / rci.lo, 1e-12));
}

int main(void) {
    test_order();
    test_tests();
    test_normal();
    test_median();
    test_batches();
    test_decode();
    return check_exit();
}
