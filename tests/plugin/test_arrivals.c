/* arrivals: a seed gives one schedule; constant gaps are exact; Poisson gaps pass a
 * Kolmogorov-Smirnov test against the exponential; gamma gaps have the mean and the
 * coefficient of variation their shape says; a duration bounds the schedule; bad
 * input is refused in one line. */
#include <math.h>
#include <stdlib.h>

#include "../check.h"
#include "arrivals.h"

static long long *draw(struct arrivals_spec s, long *n) {
    long long *at;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(arrivals_draw(&s, &at, n, &err), ARRIVALS_OK);
    buf_free(&err);
    return at;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The gaps between consecutive arrivals, in seconds, sorted. */
static double *gaps(const long long *at, long n) {
    double *g = malloc((size_t)(n - 1) * sizeof *g);
    for (long i = 1; i < n; i++) g[i - 1] = (double)(at[i] - at[i - 1]) / 1e6;
    qsort(g, (size_t)(n - 1), sizeof *g, by_value);
    return g;
}

/* Kolmogorov-Smirnov distance of sorted x[0..n) from the exponential of rate. */
static double ks_exponential(const double *x, long n, double rate) {
    double d = 0;
    for (long i = 0; i < n; i++) {
        double f = 1 - exp(-rate * x[i]);
        d = fmax(d, fmax((double)(i + 1) / (double)n - f, f - (double)i / (double)n));
    }
    return d;
}

static void test_constant(void) {
    long n;
    long long *at = draw((struct arrivals_spec){ARRIVALS_CONSTANT, 4, 0, 1, 9, 0, NULL, 0}, &n);
    CHECK_INT(n, 9);
    for (long i = 0; i < n; i++) CHECK_INT(at[i], 250000 * i);
    free(at);
}

/* Twenty seeds of 2,000 gaps: at the 5% level the test rejects about one; more than
 * four rejections happen by chance 0.3% of the time (binomial), and a generator whose
 * gaps are not exponential is rejected by all. */
static void test_poisson_fit(void) {
    int rejected = 0;
    double mean_rate = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        long n;
        long long *at =
            draw((struct arrivals_spec){ARRIVALS_POISSON, 50, 0, seed, 2001, 0, NULL, 0}, &n);
        double *g = gaps(at, n);
        rejected += ks_exponential(g, n - 1, 50) > 1.358 / sqrt((double)(n - 1));
        mean_rate += (double)(n - 1) / ((double)at[n - 1] / 1e6) / 20;
        free(g);
        free(at);
    }
    CHECK(rejected <= 4);
    CHECK(fabs(mean_rate / 50 - 1) < 0.02);
}

/* Gamma gaps of shape b: mean 1 / rate, coefficient of variation 1 / sqrt(b). */
static void test_gamma_moments(void) {
    const double shapes[] = {0.25, 1, 4};
    for (size_t k = 0; k < 3; k++) {
        long n;
        long long *at =
            draw((struct arrivals_spec){ARRIVALS_GAMMA, 20, shapes[k], 7, 40001, 0, NULL, 0}, &n);
        double *g = gaps(at, n), sum = 0, sq = 0;
        for (long i = 0; i < n - 1; i++) sum += g[i];
        double mean = sum / (double)(n - 1);
        for (long i = 0; i < n - 1; i++) sq += (g[i] - mean) * (g[i] - mean);
        double cv = sqrt(sq / (double)(n - 2)) / mean;
        CHECK(fabs(mean * 20 - 1) < 0.03);
        CHECK(fabs(cv * sqrt(shapes[k]) - 1) < 0.05);
        if (shapes[k] == 1) CHECK(ks_exponential(g, n - 1, 20) < 1.63 / sqrt((double)(n - 1)));
        free(g);
        free(at);
    }
}

static void test_seed_and_duration(void) {
    long n1, n2, n3;
    struct arrivals_spec s = {ARRIVALS_POISSON, 100, 0, 42, 0, 5000000, NULL, 0};
    long long *a = draw(s, &n1), *b = draw(s, &n2);
    s.seed = 43;
    long long *c = draw(s, &n3);
    CHECK(n1 == n2 && memcmp(a, b, (size_t)n1 * sizeof *a) == 0);
    CHECK(n1 != n3 || memcmp(a, c, (size_t)n1 * sizeof *a) != 0);
    CHECK(n1 > 400 && n1 < 600); /* 500 expected: 4.5 standard deviations either way */
    CHECK(a[0] == 0 && a[n1 - 1] < 5000000);
    for (long i = 1; i < n1; i++) CHECK(a[i] >= a[i - 1]);
    free(a);
    free(b);
    free(c);
}

static void test_bad_input(void) {
    static const struct {
        struct arrivals_spec s;
        const char *why;
    } cases[] = {
        {{ARRIVALS_POISSON, 0, 0, 1, 10, 0, NULL, 0}, "the arrival rate must be above 0, got 0"},
        {{ARRIVALS_POISSON, NAN, 0, 1, 10, 0, NULL, 0},
         "the arrival rate must be above 0, got nan"},
        {{ARRIVALS_GAMMA, 1, -1, 1, 10, 0, NULL, 0}, "the burstiness must be above 0, got -1"},
        {{ARRIVALS_CONSTANT, 1, 0, 1, 0, 0, NULL, 0}, "needs a count of requests or a duration"},
        {{ARRIVALS_CONSTANT, 1e7, 0, 1, 0, 3600000000LL, NULL, 0}, "is too many"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long long *at;
        long n;
        struct buf err;
        buf_init(&err, BUF_NO_CAP);
        CHECK_INT(arrivals_draw(&cases[i].s, &at, &n, &err), ARRIVALS_ERR_INPUT);
        CHECK(at == NULL && strstr(buf_str(&err), cases[i].why) != NULL);
        buf_free(&err);
    }
    CHECK_INT(arrivals_process_of("poisson"), ARRIVALS_POISSON);
    CHECK_INT(arrivals_process_of("gamma"), ARRIVALS_GAMMA);
    CHECK_INT(arrivals_process_of("uniform"), -1);
}

int main(void) {
    test_constant();
    test_poisson_fit();
    test_gamma_moments();
    test_seed_and_duration();
    test_bad_input();
    return check_exit();
}
