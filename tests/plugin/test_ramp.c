/* ramp: a ramp's text and curve file become pieces; steps, linear ramps and a
 * curve give exact arrival times (constant: arrival k where the rate's
 * integral reaches k); Poisson keeps the load's shape; bad input is refused in
 * one line naming the piece or the line. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "ramp.h"

/* The constant schedule of the ramp text, checked against want (n_want times in us). */
static void check_times(const char *text, const long long *want, long n_want) {
    struct arrivals_seg *segs;
    size_t n_segs;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(ramp_parse(text, &segs, &n_segs, &err), RAMP_OK);
    struct arrivals_spec s = {.process = ARRIVALS_CONSTANT, .segs = segs, .n_segs = n_segs};
    long long *at;
    long n;
    CHECK_INT(arrivals_draw(&s, &at, &n, &err), ARRIVALS_OK);
    CHECK_INT(n, n_want);
    for (long i = 0; i < n && i < n_want; i++) {
        if (at[i] != want[i])
            fprintf(stderr, "%s: arrival %ld at %lld, want %lld\n", text, i, at[i], want[i]);
        CHECK(at[i] == want[i]);
    }
    free(at);
    free(segs);
    buf_free(&err);
}

static void test_steps(void) {
    /* 2 per second for 3 s, then 4 per second for 1 s */
    static const long long want[] = {0,       500000,  1000000, 1500000, 2000000,
                                     2500000, 3000000, 3250000, 3500000, 3750000};
    check_times("2@3,4@1", want, 10);
    static const long long pause[] = {0, 1000000, 5000000, 5500000}; /* a step of rate 0 */
    check_times("1@2,0@3,2@1", pause, 4);
}

static void test_linear(void) {
    /* 0 to 2 per second over 2 s: the integral t^2 / 2 reaches k at sqrt(2k) */
    static const long long up[] = {0, 1414214};
    check_times("0..2@2", up, 2);
    /* 4 to 0 over 2 s: 4t - t^2 reaches k at 2 - sqrt(4 - k) */
    static const long long down[] = {0, 267949, 585786, 1000000};
    check_times("4..0@2", down, 4);
    /* a step, then a ramp from its rate: 1 s at 2, then 2 to 4 over 1 s */
    static const long long both[] = {0, 500000, 1000000, 1414214, 1732051};
    check_times("2@1, 2..4@1", both, 5);
}

static void test_curve_file(void) {
    static const char csv[] = "seconds,rate\r\n# a night\n100,2\n101,2\n\n103,0..\n";
    struct arrivals_seg *segs;
    size_t n;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(ramp_parse_csv("day.csv", csv, strlen(csv), &segs, &n, &err), RAMP_ERR_INPUT);
    CHECK_STR(buf_str(&err), "day.csv line 6 '103,0..': wants seconds,rate (numbers at least 0)");
    buf_reset(&err);
    static const char good[] = "seconds,rate\r\n# a night\n100,2\n101,2\n\n103,0\n";
    CHECK_INT(ramp_parse_csv("day.csv", good, strlen(good), &segs, &n, &err), RAMP_OK);
    CHECK_INT((long)n, 2);
    CHECK(segs[0].dur_s == 1 && segs[0].from == 2 && segs[0].to == 2);
    CHECK(segs[1].dur_s == 2 && segs[1].from == 2 && segs[1].to == 0);
    struct arrivals_spec s = {.process = ARRIVALS_CONSTANT, .segs = segs, .n_segs = n};
    long long *at;
    long k;
    CHECK_INT(arrivals_draw(&s, &at, &k, &err), ARRIVALS_OK);
    /* 2 in the first second, then 2 - t^2 / 2 ... : 4 arrivals in all (integral 2 + 2) */
    CHECK_INT(k, 4);
    CHECK(at[0] == 0 && at[1] == 500000 && at[2] == 1000000 && at[3] == 1585786);
    free(at);
    free(segs);
    buf_free(&err);
}

/* Poisson on a ramp: the same seed, the same schedule; a step ten times the rate
 * holds about ten times the arrivals (1,000 vs 10,000 expected: far beyond
 * chance either way). */
static void test_poisson_shape(void) {
    struct arrivals_seg segs[] = {{100, 10, 10}, {100, 100, 100}};
    struct arrivals_spec s = {.process = ARRIVALS_POISSON, .seed = 9, .segs = segs, .n_segs = 2};
    long long *a, *b;
    long na, nb, first = 0;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(arrivals_draw(&s, &a, &na, &err), ARRIVALS_OK);
    CHECK_INT(arrivals_draw(&s, &b, &nb, &err), ARRIVALS_OK);
    CHECK(na == nb && memcmp(a, b, (size_t)na * sizeof *a) == 0);
    for (long i = 0; i < na; i++) {
        if (i) CHECK(a[i] >= a[i - 1]);
        first += a[i] < 100000000;
    }
    CHECK(a[0] == 0 && a[na - 1] < 200000000);
    CHECK(first > 850 && first < 1150);
    CHECK(na - first > 9500 && na - first < 10500);
    free(a);
    free(b);
    buf_free(&err);
}

static void test_bad_text(void) {
    static const struct {
        const char *text, *why;
    } cases[] = {
        {"", "a ramp needs at least one piece, got ''"},
        {"10", "ramp piece 1 '10': wants RATE@SECONDS or FROM..TO@SECONDS"},
        {"10@60,x@5", "ramp piece 2 'x@5': wants RATE@SECONDS or FROM..TO@SECONDS (numbers at "
                      "least 0)"},
        {"10@60,-1@5", "ramp piece 2 '-1@5': wants RATE@SECONDS"},
        {"10@0", "ramp piece 1 '10@0': the seconds must be above 0"},
        {"1..@5", "ramp piece 1 '1..@5': wants"},
        {"10@60,", "ramp piece 2 '': wants"},
        {"nan@5", "ramp piece 1 'nan@5': wants"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct arrivals_seg *segs;
        size_t n;
        struct buf err;
        buf_init(&err, BUF_NO_CAP);
        CHECK_INT(ramp_parse(cases[i].text, &segs, &n, &err), RAMP_ERR_INPUT);
        if (!strstr(buf_str(&err), cases[i].why))
            fprintf(stderr, "'%s': got '%s'\n", cases[i].text, buf_str(&err));
        CHECK(segs == NULL && strstr(buf_str(&err), cases[i].why) != NULL);
        buf_free(&err);
    }
    struct arrivals_seg zero[] = {{10, 0, 0}};
    struct arrivals_spec s = {.process = ARRIVALS_CONSTANT, .segs = zero, .n_segs = 1};
    long long *at;
    long n;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(arrivals_draw(&s, &at, &n, &err), ARRIVALS_ERR_INPUT);
    CHECK_STR(buf_str(&err), "a ramp must expect at least one arrival, got 0");
    buf_reset(&err);
    struct arrivals_seg *segs;
    size_t k;
    CHECK_INT(ramp_parse_csv("c.csv", "1,1\n1,2\n", 8, &segs, &k, &err), RAMP_ERR_INPUT);
    CHECK_STR(buf_str(&err), "c.csv line 2 '1,2': the seconds must grow from line to line");
    buf_reset(&err);
    CHECK_INT(ramp_parse_csv("c.csv", "seconds,rate\n5,1\n", 17, &segs, &k, &err), RAMP_ERR_INPUT);
    CHECK_STR(buf_str(&err), "c.csv: a curve needs at least two seconds,rate lines");
    buf_reset(&err);
    CHECK_INT(ramp_load("/nonexistent/day.csv", &segs, &k, &err), RAMP_ERR_INPUT);
    CHECK_STR(buf_str(&err),
              "cannot read the ramp curve /nonexistent/day.csv: No such file or directory");
    buf_reset(&err);
    CHECK_INT(ramp_load("/", &segs, &k, &err), RAMP_ERR_INPUT);
    CHECK_STR(buf_str(&err), "cannot read the ramp curve /: not a regular file");
    buf_free(&err);
}

int main(void) {
    test_steps();
    test_linear();
    test_curve_file();
    test_poisson_shape();
    test_bad_text();
    return check_exit();
}
