#include "epwait.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum epwait_verdict epwait_judge(const char *status, double elapsed, double timeout) {
    if (strcmp(status, "InService") == 0) return EPWAIT_IN_SERVICE;
    if (strcmp(status, "Failed") == 0 || strcmp(status, "UpdateRollbackFailed") == 0)
        return EPWAIT_FAILED;
    if (strcmp(status, "Deleting") == 0 || strcmp(status, "OutOfService") == 0) return EPWAIT_GONE;
    return timeout > 0 && elapsed >= timeout ? EPWAIT_TIMEOUT : EPWAIT_ON;
}

double epwait_cost(double elapsed, double time_scale, double usd_per_hour) {
    if (!(elapsed > 0) || !(time_scale > 0) || !(usd_per_hour > 0)) return 0;
    return elapsed * time_scale / 3600.0 * usd_per_hour;
}

void epwait_clock(double seconds, char out[32]) {
    long s = seconds > 0 && seconds < 1e9 ? (long)floor(seconds) : 0;
    if (s >= 3600)
        snprintf(out, 32, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    else
        snprintf(out, 32, "%ld:%02ld", s / 60, s % 60);
}

int epwait_line(struct buf *out, const char *name, const char *region, const char *status,
                double elapsed, double billed, double time_scale, double price, const char *type) {
    char clock[32];
    bool scaled = time_scale > 0 && time_scale != 1;
    epwait_clock(elapsed * (scaled ? time_scale : 1), clock);
    int rc = buf_addf(out, "%s in %s: %s, %s %selapsed", name, region, status, clock,
                      scaled ? "emulated " : "");
    if (rc) return rc;
    if (price > 0)
        return buf_addf(out, ", USD %.2f so far at USD %g/h%s%s%s",
                        epwait_cost(billed, scaled ? time_scale : 1, price), price,
                        type && *type ? " (" : "", type && *type ? type : "",
                        type && *type ? ")" : "");
    return buf_addf(out, ", price unknown%s%s (pass --price-per-hour)",
                    type && *type ? " for " : "", type && *type ? type : "");
}

bool epwait_no_capacity(const char *reason) {
    return strstr(reason, "InsufficientInstanceCapacity") != NULL ||
           strstr(reason, "Unable to provision requested ML compute capacity") != NULL;
}
