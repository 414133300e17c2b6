/* The clock offset from Date headers (clockoff.h): probes at the times the
 * plan picks, against a simulated server, find its offset to about a round
 * trip; a server whose clock lags a little (a coarse clock) is still measured;
 * one that jumps is not. */
#include <stdlib.h>

#include "../check.h"
#include "clockoff.h"

/* floor(a / b) for b > 0. */
static long long floor_div(long long a, long long b) {
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* Probes a server offset_us ahead whose Date reads lag_us behind its clock,
 * with round trips of rtt_us, from local time t0, n probes; returns the state. */
static struct clockoff probe(long long offset_us, long long lag_us, long long rtt_us, long n) {
    struct clockoff c;
    clockoff_init(&c);
    long long now = 1700000000LL * 1000000 + 123457; /* local wall clock, us */
    for (long i = 0; i < n; i++) {
        long long t0 = clockoff_next(&c, now);
        CHECK(t0 >= now);
        long long stamp = t0 + rtt_us / 2 + offset_us - lag_us; /* the server's clock, read */
        clockoff_add(&c, t0, t0 + rtt_us, floor_div(stamp, 1000000));
        now = t0 + rtt_us;
    }
    return c;
}

static void test_converges(void) {
    static const long long offsets[] = {0, 3456, -250000, 987654321, -7};
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++) {
        struct clockoff c = probe(offsets[i], 0, 800, 60);
        long long off, unc;
        CHECK(clockoff_get(&c, &off, &unc));
        CHECK(llabs(off - offsets[i]) <= unc);
        CHECK(unc <= 1000); /* about a round trip */
    }
    /* A few probes (no tick seen yet) only bound it to about a second. */
    struct clockoff c = probe(3456, 0, 800, 3);
    long long off, unc;
    CHECK(clockoff_get(&c, &off, &unc));
    CHECK(llabs(off - 3456) <= unc);
    CHECK(unc > 400000);
}

static void test_coarse_and_jumping_clocks(void) {
    /* A Date 3 ms behind the server's clock (time() reads a coarse clock):
     * measured, the lag within what it says. */
    struct clockoff c = probe(20000, 3000, 500, 60);
    long long off, unc;
    CHECK(clockoff_get(&c, &off, &unc));
    CHECK(llabs(off - (20000 - 3000)) <= unc + 3000);
    CHECK(!c.inconsistent);
    /* A server that says 10:00:05 and then 10:00:02: not measurable. */
    clockoff_init(&c);
    clockoff_add(&c, 0, 1000, 5);
    clockoff_add(&c, 2000, 3000, 2);
    CHECK(c.inconsistent);
    CHECK(!clockoff_get(&c, &off, &unc));
    /* Nothing added: nothing measured, and the first probe leaves at once. */
    clockoff_init(&c);
    CHECK(!clockoff_get(&c, &off, &unc));
    CHECK_INT(clockoff_next(&c, 42), 42);
}

int main(void) {
    test_converges();
    test_coarse_and_jumping_clocks();
    return check_exit();
}
