/* arrivals: when the requests of an open-loop round are meant to start, drawn
 * before the run from a seed: at a constant rate, as a Poisson process, or
 * with gamma-distributed gaps whose shape is the burstiness (vLLM's bench
 * --burstiness: shape b, scale 1 / (rate b); b = 1 is Poisson, b < 1 burstier,
 * b > 1 steadier). The first request starts at 0, each next one a gap later.
 *
 * A ramp (segments) makes the rate a function of time: steps and linear ramps,
 * one after the other. Its schedule is the same process drawn at rate 1 and
 * laid on the ramp's time: an arrival whose unit-rate time is e starts when
 * the ramp's expected count of arrivals (the integral of its rate) reaches e,
 * so constant gaps stay even within a step and Poisson stays Poisson.
 *
 * Pure C over prng.h, so a seed gives the same schedule on every machine. */
#ifndef SM_ARRIVALS_H
#define SM_ARRIVALS_H

#include <stdint.h>

#include "buf.h"

#define ARRIVALS_MAX 10000000L /* arrivals in one schedule */

enum arrivals_error {
    ARRIVALS_OK = 0,
    ARRIVALS_ERR_NOMEM = -1,
    ARRIVALS_ERR_INPUT = -2, /* err says what */
};

enum arrivals_process {
    ARRIVALS_CONSTANT = 0,
    ARRIVALS_POISSON,
    ARRIVALS_GAMMA,
};

/* A piece of a ramp: dur_s seconds whose rate goes linearly from `from` to
 * `to` requests per second (equal: a step). */
struct arrivals_seg {
    double dur_s;    /* > 0 */
    double from, to; /* >= 0 */
};

#define ARRIVALS_MAX_SEGS 100000L /* pieces of one ramp */

struct arrivals_spec {
    enum arrivals_process process;
    double rate;       /* requests per second, > 0 */
    double burstiness; /* GAMMA's shape, > 0 */
    uint64_t seed;
    long count;            /* > 0: this many arrivals; 0: as many as start before duration_us */
    long long duration_us; /* with count 0: the schedule's length */
    /* n_segs > 0: a ramp; rate, count and duration_us are unused, the schedule
     * ends with the last piece. */
    const struct arrivals_seg *segs;
    size_t n_segs;
};

/* The process named "constant", "poisson" or "gamma"; -1 for another name. */
int arrivals_process_of(const char *name);

/* Draws the schedule of s: *out (malloc'ed) holds *n start times in
 * microseconds from the round's start, non-decreasing. */
__attribute__((warn_unused_result)) int arrivals_draw(const struct arrivals_spec *s,
                                                      long long **out, long *n, struct buf *err);

#endif
