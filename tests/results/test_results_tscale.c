/* tscale: a time-scaled record's times in real units, its client's share kept
 * as measured when it carries the emulator's service time (server_us). */
#include <math.h>

#include "../check.h"
#include "tscale.h"

#define NEAR(a, b) CHECK(fabs((a) - (b)) < 1e-9)

static struct rfile_rec tscale_rec(int64_t start, int64_t headers, int64_t end, int64_t server) {
    return (struct rfile_rec){.t_start_us = start,
                              .t_headers_us = headers,
                              .t_end_us = end,
                              .t_first_us = RFILE_NONE,
                              .server_us = server};
}

int main(void) {
    /* A whole reply: 5 ms of server at K = 10 (50 ms of model time) and 150 us of
     * the client's: 50.15 ms real, not 51.5. */
    struct rfile_rec w = tscale_rec(1000, RFILE_NONE, 6150, 50000);
    NEAR(tscale_since_start(&w, 10, w.t_end_us), 0.05015);
    CHECK(tscale_exact(&w, 10));
    /* Without server_us: every microsecond times K (the old conversion, biased). */
    struct rfile_rec old = tscale_rec(1000, RFILE_NONE, 6150, RFILE_NONE);
    NEAR(tscale_since_start(&old, 10, old.t_end_us), 0.0515);
    CHECK(!tscale_exact(&old, 10) && tscale_exact(&old, 1));
    /* K = 1: as measured, with or without it. */
    NEAR(tscale_since_start(&w, 1, w.t_end_us), 0.00515);
    /* A stream: the head after 1.1 ms (1 ms of server, its 10 ms of model time), the
     * first token 1 ms later and the end 4 ms after the head, times K. */
    struct rfile_rec s = tscale_rec(0, 1100, 5100, 10000);
    s.t_first_us = 2100;
    NEAR(tscale_since_start(&s, 10, s.t_first_us), 0.0201);
    NEAR(tscale_since_start(&s, 10, s.t_end_us), 0.0501);
    NEAR(tscale_since_start(&s, 10, 550), 0.00505); /* before the head: in proportion */
    /* A server_us longer than the head allows (bad input): no client share, never
     * negative. */
    struct rfile_rec bad = tscale_rec(0, RFILE_NONE, 100, 5000000);
    NEAR(tscale_since_start(&bad, 10, bad.t_end_us), 5.0);
    struct rfile_rec zero = tscale_rec(7, RFILE_NONE, 7, 0);
    NEAR(tscale_since_start(&zero, 10, zero.t_end_us), 0);
    return check_exit();
}
