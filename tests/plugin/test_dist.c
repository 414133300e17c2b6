/* dist: each form parses (or is refused in one line); fixed is fixed, uniform
 * stays in its range with the right mean, normal and lognormal draws have the
 * mean and standard deviation asked for, and every draw is kept in MIN..MAX. */
#include <math.h>
#include <stdlib.h>

#include "../check.h"
#include "dist.h"

#define N 200000

static struct dist parse(const char *text) {
    struct dist d;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(dist_parse(text, &d, &err), DIST_OK);
    buf_free(&err);
    return d;
}

/* Mean and standard deviation of n lengths drawn from text; lo and hi the extremes. */
static void moments(const char *text, double *mean, double *sd, long *lo, long *hi) {
    struct dist d = parse(text);
    long *x = malloc(N * sizeof *x);
    dist_draw(&d, N, 99, x);
    double s = 0, q = 0;
    *lo = *hi = x[0];
    for (size_t i = 0; i < N; i++) {
        s += (double)x[i];
        *lo = x[i] < *lo ? x[i] : *lo;
        *hi = x[i] > *hi ? x[i] : *hi;
    }
    *mean = s / N;
    for (size_t i = 0; i < N; i++) q += ((double)x[i] - *mean) * ((double)x[i] - *mean);
    *sd = sqrt(q / (N - 1));
    free(x);
}

static void test_draws(void) {
    double mean, sd;
    long lo, hi;
    moments("128", &mean, &sd, &lo, &hi);
    CHECK(mean == 128 && sd == 0);
    moments("uniform:10:20", &mean, &sd, &lo, &hi);
    CHECK(lo == 10 && hi == 20 && fabs(mean - 15) < 0.05);
    moments("normal:500:50", &mean, &sd, &lo, &hi);
    CHECK(fabs(mean - 500) < 1 && fabs(sd - 50) < 1);
    moments("lognormal:300:150", &mean, &sd, &lo, &hi);
    CHECK(fabs(mean / 300 - 1) < 0.01 && fabs(sd / 150 - 1) < 0.03);
    moments("normal:100:400:50:200", &mean, &sd, &lo, &hi);
    CHECK(lo == 50 && hi == 200);
    struct dist d = parse("normal:100:30");
    long a[50], b[50], c[50];
    dist_draw(&d, 50, 7, a);
    dist_draw(&d, 50, 7, b);
    dist_draw(&d, 50, 8, c);
    CHECK(memcmp(a, b, sizeof a) == 0 && memcmp(a, c, sizeof a) != 0);
}

static void test_refused(void) {
    static const char *const bad[] = {"",
                                      "0",
                                      "fixed:1.5",
                                      "uniform:5",
                                      "uniform:9:3",
                                      "normal:0:1",
                                      "normal:10:-1",
                                      "normal:10:1:5",
                                      "normal:10:1:9:3",
                                      "gauss:1:2",
                                      "lognormal:10:1:0:20",
                                      "uniform:1:2000000",
                                      "normal:1:x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct dist d;
        struct buf err;
        buf_init(&err, BUF_NO_CAP);
        CHECK_INT(dist_parse(bad[i], &d, &err), DIST_ERR_INPUT);
        CHECK(strstr(buf_str(&err), "is not a length distribution") != NULL);
        buf_free(&err);
    }
}

int main(void) {
    test_draws();
    test_refused();
    return check_exit();
}
