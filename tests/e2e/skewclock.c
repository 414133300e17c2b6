/* skewclock: an LD_PRELOAD library for the clock-skew test. time() runs
 * $SKEW_SECONDS ahead of the real clock (behind when negative), so a process
 * signs its requests with a wrong date, as a machine with a bad clock would. */
#include <stdlib.h>
#include <time.h>

time_t time(time_t *out) {
    struct timespec now;
    const char *skew = getenv("SKEW_SECONDS");
    clock_gettime(CLOCK_REALTIME, &now);
    time_t t = now.tv_sec + (skew ? strtol(skew, NULL, 10) : 0);
    if (out) *out = t;
    return t;
}
