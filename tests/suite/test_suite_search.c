/* Unit tests of sm-suite's capacity search (suite_search.h): against a known
 * threshold it brackets the threshold within the tolerance in at most the
 * probes given; LO failing and HI holding end it at once; the probes are
 * bounded; a probe's error stops it; and the range's usage errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "suite_search.h"

/* A side whose SLOs hold up to threshold requests per second. */
struct fake_side {
    double threshold;
    int calls;
    double rates[SUITE_SEARCH_MAX_PROBES + 1];
    int fail_at; /* the probe whose measurement fails (0: none) */
};

static int fake_probe(void *ctx, int k, double rate, bool *held) {
    struct fake_side *f = ctx;
    CHECK_INT(k, f->calls + 1);
    if (f->calls <= SUITE_SEARCH_MAX_PROBES) f->rates[f->calls] = rate;
    f->calls++;
    if (k == f->fail_at) return -7;
    *held = rate <= f->threshold;
    return 0;
}

/* Rows: a threshold, a range, probes; the end and how many probes it takes. */
static void test_thresholds(void) {
    static const struct {
        double threshold, lo, hi;
        int probes;
        enum suite_search_end end;
        int used; /* 0: any up to probes */
    } rows[] = {
        {5.13, 1, 64, 20, SUITE_SEARCH_NARROW, 0},
        {5.13, 4, 6.25, 6, SUITE_SEARCH_SPENT, 6}, /* 1.5625^(1/16): 2.8% */
        {5.13, 4, 6.25, 7, SUITE_SEARCH_NARROW, 7},
        {5.13, 1, 64, 6, SUITE_SEARCH_SPENT, 6},
        {0.37, 0.1, 1000, 20, SUITE_SEARCH_NARROW, 0},
        {999, 0.1, 1000, 20, SUITE_SEARCH_NARROW, 0},
        {0.5, 1, 64, 6, SUITE_SEARCH_BELOW, 1}, /* LO fails */
        {64, 1, 64, 6, SUITE_SEARCH_ABOVE, 2},  /* HI holds (at the bound: held) */
        {100, 1, 64, 6, SUITE_SEARCH_ABOVE, 2}, /* HI holds */
        {1, 1, 64, 20, SUITE_SEARCH_NARROW, 0}, /* LO holds at its bound */
        {20, 10, 30, 2, SUITE_SEARCH_SPENT, 2}, /* two probes: LO and HI only */
    };
    struct buf err;
    buf_init(&err, 512);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct suite_search s;
        struct fake_side f = {.threshold = rows[i].threshold};
        CHECK_INT(suite_search_init(&s, rows[i].lo, rows[i].hi, rows[i].probes,
                                    SUITE_SEARCH_TOLERANCE, &err),
                  0);
        CHECK_INT(suite_search_run(&s, fake_probe, &f), 0);
        CHECK_INT((int)s.end, (int)rows[i].end);
        CHECK(f.calls == s.probes && s.probes <= rows[i].probes);
        if (rows[i].used) CHECK_INT(s.probes, rows[i].used);
        CHECK(f.rates[0] == rows[i].lo);
        if (f.calls > 1) CHECK(f.rates[1] == rows[i].hi);
        double rate;
        CHECK(!suite_search_next(&s, &rate)); /* ended: nothing more to probe */
        if (s.end == SUITE_SEARCH_BELOW) {
            CHECK(isnan(s.held) && s.failed == rows[i].lo);
            continue;
        }
        if (s.end == SUITE_SEARCH_ABOVE) {
            CHECK(s.held == rows[i].hi && isnan(s.failed));
            continue;
        }
        /* the bracket holds the threshold: held at or below it, failed above it */
        CHECK(s.held <= rows[i].threshold && rows[i].threshold < s.failed);
        if (s.end == SUITE_SEARCH_NARROW) CHECK(s.failed / s.held - 1 <= SUITE_SEARCH_TOLERANCE);
        /* every probe inside the bracket of those before it, and written in 4 digits */
        for (int k = 2; k < f.calls; k++) {
            char text[32];
            snprintf(text, sizeof text, "%.4g", f.rates[k]);
            CHECK(strtod(text, NULL) == f.rates[k]);
            CHECK(f.rates[k] > rows[i].lo && f.rates[k] < rows[i].hi);
        }
    }
    buf_free(&err);
}

/* 20 probes narrow a range of 1:1000 to 2%; 6 cannot, and stop at 6. */
static void test_bounded(void) {
    struct suite_search s;
    struct buf err;
    buf_init(&err, 512);
    struct fake_side f = {.threshold = 123.4};
    CHECK_INT(suite_search_init(&s, 1, 1000, 6, SUITE_SEARCH_TOLERANCE, &err), 0);
    CHECK_INT(suite_search_run(&s, fake_probe, &f), 0);
    CHECK_INT(f.calls, 6);
    CHECK_INT((int)s.end, SUITE_SEARCH_SPENT);
    CHECK(s.failed / s.held - 1 > SUITE_SEARCH_TOLERANCE);
    /* geometric halving: after LO and HI, 4 probes leave 1000^(1/16) */
    CHECK(fabs(s.failed / s.held - pow(1000, 1.0 / 16)) < 0.01);
    /* a probe whose measurement fails stops the search where it is */
    struct fake_side g = {.threshold = 123.4, .fail_at = 3};
    CHECK_INT(suite_search_init(&s, 1, 1000, 6, SUITE_SEARCH_TOLERANCE, &err), 0);
    CHECK_INT(suite_search_run(&s, fake_probe, &g), -7);
    CHECK_INT(s.probes, 2);
    CHECK_INT((int)s.end, SUITE_SEARCH_RUNNING);
    double rate;
    CHECK(suite_search_next(&s, &rate) && rate == 31.62); /* the same probe again */
    char text[96];
    suite_search_text(&s, text, sizeof text);
    CHECK_STR(text, "between 1 (held) and 1000 requests/s (failed)");
    buf_free(&err);
}

static void test_usage(void) {
    static const struct {
        const char *arg;
        double lo, hi; /* 0: refused */
    } rows[] = {
        {"1:16", 1, 16}, {"0.5:2.5", 0.5, 2.5}, {"16:1", 0, 0}, {"0:4", 0, 0},
        {"4:4", 0, 0},   {"a:b", 0, 0},         {"4", 0, 0},    {"1:2:3", 0, 0},
        {":3", 0, 0},    {"1:inf", 0, 0},       {"-1:3", 0, 0}, {"1:nan", 0, 0},
    };
    struct buf err;
    buf_init(&err, 512);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double lo, hi;
        buf_reset(&err);
        int rc = suite_search_parse_range(rows[i].arg, &lo, &hi, &err);
        if (rows[i].lo > 0) {
            CHECK_INT(rc, 0);
            CHECK(lo == rows[i].lo && hi == rows[i].hi);
        } else {
            CHECK_INT(rc, SUITE_SEARCH_ERR_USAGE);
            CHECK(strstr(buf_str(&err), rows[i].arg) != NULL);
        }
    }
    struct suite_search s;
    CHECK_INT(suite_search_init(&s, 1, 2, 1, 0.02, &err), SUITE_SEARCH_ERR_USAGE);
    CHECK_STR(buf_str(&err), "--search-probes must be from 2 to 20, got 1");
    CHECK_INT(suite_search_init(&s, 1, 2, 21, 0.02, &err), SUITE_SEARCH_ERR_USAGE);
    CHECK_INT(suite_search_init(&s, 2, 1, 6, 0.02, &err), SUITE_SEARCH_ERR_USAGE);
    CHECK_INT(suite_search_init(&s, 1, 2, 6, 0, &err), SUITE_SEARCH_ERR_USAGE);
    buf_free(&err);
}

int main(void) {
    test_thresholds();
    test_bounded();
    test_usage();
    return check_exit();
}
