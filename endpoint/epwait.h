/* epwait: the pure parts of waiting for an endpoint: what a status means for
 * the wait, the cost so far at an hourly price (an endpoint bills from its
 * creation until its deletion), and the progress line. Times are real
 * seconds; time_scale (sm-emulator's --time-scale) turns them into the
 * emulated ones the cost and the line speak of. */
#ifndef SM_EPWAIT_H
#define SM_EPWAIT_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

enum epwait_verdict {
    EPWAIT_ON,         /* Creating, Updating, ...: wait on */
    EPWAIT_IN_SERVICE, /* done */
    EPWAIT_FAILED,     /* Failed (its FailureReason says why) */
    EPWAIT_GONE,       /* Deleting or OutOfService: it will not serve */
    EPWAIT_TIMEOUT,    /* still not InService after the timeout */
};

/* The verdict on status after elapsed of at most timeout (0: none) seconds. */
enum epwait_verdict epwait_judge(const char *status, double elapsed, double timeout);

/* USD the endpoint cost over elapsed real seconds at usd_per_hour. */
double epwait_cost(double elapsed, double time_scale, double usd_per_hour);

/* "4:05", "1:02:03" for seconds. */
void epwait_clock(double seconds, char out[32]);

/* The progress line:
 *   "gemma-4-e2b in us-east-2: Creating, 2:31 elapsed, USD 0.05 so far at USD 1.1267/h
 * (ml.g6.xlarge)" elapsed: of the wait; billed: since the endpoint's creation (the cost's); both
 * emulated when time_scale is not 1 ("2:31 emulated elapsed"); price 0: "price unknown". Returns 0
 * or BUF_ERR_*. */
__attribute__((warn_unused_result)) int
epwait_line(struct buf *out, const char *name, const char *region, const char *status,
            double elapsed, double billed, double time_scale, double price, const char *type);

/* Whether a FailureReason (or error message) is SageMaker's want of capacity. */
bool epwait_no_capacity(const char *reason);

#endif
