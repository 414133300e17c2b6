/* skewclock: an LD_PRELOAD library for the clock tests.
 * - time() runs $SKEW_SECONDS ahead of the real clock (behind when negative), so a
 *   process signs its requests with a wrong date, as a machine with a bad clock would.
 * - With $SLEW_RATE (a fraction, such as 0.25), clock_gettime's CLOCK_REALTIME runs
 *   that much faster than CLOCK_MONOTONIC from the first call on, as a wall clock
 *   the host slews or steps; the other clocks are left as they are. */
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

typedef int skewclock_gettime_fn(clockid_t, struct timespec *);

time_t time(time_t *out) {
    struct timespec now;
    const char *skew = getenv("SKEW_SECONDS");
    clock_gettime(CLOCK_REALTIME, &now);
    time_t t = now.tv_sec + (skew ? strtol(skew, NULL, 10) : 0);
    if (out) *out = t;
    return t;
}

static double skewclock_seconds(const struct timespec *ts) {
    return (double)ts->tv_sec + (double)ts->tv_nsec * 1e-9;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    static skewclock_gettime_fn *real;
    static double first_mono = -1;
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "clock_gettime");
    const char *slew = getenv("SLEW_RATE");
    if (id != CLOCK_REALTIME || !slew) return real(id, ts);
    struct timespec mono;
    if (real(CLOCK_MONOTONIC, &mono) || real(id, ts)) return -1;
    if (first_mono < 0) first_mono = skewclock_seconds(&mono);
    double t = skewclock_seconds(ts) + strtod(slew, NULL) * (skewclock_seconds(&mono) - first_mono);
    ts->tv_sec = (time_t)t;
    ts->tv_nsec = (long)((t - (double)ts->tv_sec) * 1e9);
    return 0;
}
