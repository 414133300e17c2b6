#include "suite_progress.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool suite_progress_parse(const char *line, const char *scenario, long *done, long *total,
                          long *failed) {
    size_t n = strlen(scenario);
    if (strncmp(line, scenario, n) != 0 || strncmp(line + n, ": ", 2) != 0) return false;
    char *end;
    const char *p = line + n + 2;
    *done = strtol(p, &end, 10);
    if (end == p || *done < 0) return false;
    *total = -1;
    if (*end == '/') {
        p = end + 1;
        *total = strtol(p, &end, 10);
        if (end == p || *total < 0) return false;
    }
    if (strncmp(end, " done, ", 7) != 0) return false;
    p = end + 7;
    *failed = strtol(p, &end, 10);
    return end != p && strncmp(end, " failed", 7) == 0;
}

bool suite_progress_eta(const struct suite_progress_work *e, double *left) {
    bool timed = e->step_sched_s > 0;
    double stretch = e->timed_sched_s > 0 && e->timed_took_s > e->timed_sched_s
                         ? e->timed_took_s / e->timed_sched_s
                         : 1;
    double frac = e->step_frac > 0 && e->step_frac <= 1 ? e->step_frac : 0;
    double pace = NAN; /* seconds per unit of closed-loop work */
    if (e->done_w > 0 && e->done_s > 0)
        pace = e->done_s / e->done_w;
    else if (!timed && frac > 0 && e->step_s >= 1 && e->step_w > 0)
        pace = e->step_s / (e->step_w * frac);
    bool closed_left = e->rest_w > 0 || (!timed && e->step_w > 0);
    if (closed_left && !isfinite(pace)) return false;
    /* A closed-loop step: by its own progress, trusted as much as the part done
     * (1 request of 256 after 2 s says 8 minutes), the rest at the pace. */
    double by_pace = e->step_w > 0 && isfinite(pace) ? pace * e->step_w - e->step_s : 0;
    double by_frac = frac > 0 ? e->step_s * (1 - frac) / frac : 0;
    double step_left = timed                       ? stretch * e->step_sched_s - e->step_s
                       : frac > 0 && e->step_w > 0 ? frac * by_frac + (1 - frac) * by_pace
                       : frac > 0                  ? by_frac
                                                   : by_pace;
    *left = fmax(step_left, 0) + (e->rest_w > 0 ? pace * e->rest_w : 0) +
            stretch * fmax(e->rest_sched_s, 0);
    return true;
}

void suite_progress_clock(double seconds, char *out, size_t len) {
    long s = isfinite(seconds) && seconds > 0 ? lround(seconds) : 0;
    if (s >= 3600)
        snprintf(out, len, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    else
        snprintf(out, len, "%ld:%02ld", s / 60, s % 60);
}
