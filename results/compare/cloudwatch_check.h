/* cloudwatch_check: what the client recorded against what CloudWatch's metrics say,
 * per side and step (a result file).
 *
 * CloudWatch counts per period: 60 s, a model minute (60 / time_scale wall
 * seconds) for a time-scaled run against sm-emulator. A step's window (its
 * first request's start to its last reply) lies in whole periods [b0, b1);
 * over those the side's data points (cloudwatch_side.h) are added up, and the side's
 * requests of every step (src.h's calls) counted in the same periods. Where a
 * request falls is uncertain (CloudWatch may place it when SageMaker got it or
 * when it answered; the clocks may differ by CLOUDWATCH_CHECK_CLOCK_S), so the client's
 * counts are ranges: "surely" a request inside the periods, "maybe" one that
 * overlaps them. Rows:
 *   invocations  Invocations against the requests that may have reached
 *                SageMaker: at least those with a reply other than 403 (a
 *                refused signature reaches no variant), at most every request;
 *                outside that range is a warning (requests lost before
 *                SageMaker, or more counted than were sent);
 *   answered     Invocations less 4XX and 5XX errors against the replies with
 *                a 2xx status; more is a warning too: requests SageMaker counts
 *                as answered but the client got no reply for (lost between
 *                SageMaker and the client);
 *   latency      ModelLatency and OverheadLatency (Sum / SampleCount, ms)
 *                against the client's mean end-to-end latency of its 2xx
 *                replies in the periods: the rest is what the network and the
 *                client added;
 *   utilization  the mean GPUUtilization, GPUMemoryUtilization,
 *                CPUUtilization and MemoryUtilization of the periods.
 * Times in real units: milliseconds of a time-scaled run are multiplied by
 * its time_scale (the emulator's latencies are in model time already). */
#ifndef SM_CLOUDWATCH_CHECK_H
#define SM_CLOUDWATCH_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "side.h"

#define CLOUDWATCH_CHECK_PERIOD_S 60.0 /* the period sm-suite asks for (cwmetrics.h) */
#define CLOUDWATCH_CHECK_CLOCK_S                                                                   \
    0.05 /* the client's and CloudWatch's clocks may differ by this                                \
          */

enum cloudwatch_check_err { CLOUDWATCH_CHECK_OK = 0, CLOUDWATCH_CHECK_ERR_NOMEM = -1 };

/* A count of the client's requests: surely in the periods, maybe in them. */
struct cloudwatch_check_range {
    long lo, hi;
};

struct cloudwatch_check_row {
    const struct side *side;
    const struct src *src; /* the step's result file */
    double w0, w1;         /* the step's window, wall clock */
    double b0, b1;         /* the periods that hold it */
    bool ok;               /* compared; else why says why not */
    char why[200];
    double invocations, errors_4xx, errors_5xx, model_errors; /* CloudWatch's sums */
    struct cloudwatch_check_range requests, answered, client_4xx, client_5xx;
    bool lost;    /* invocations outside requests: a warning */
    bool unseen;  /* invocations - 4xx - 5xx outside answered: a warning */
    bool latency; /* the latency figures are there */
    double model_ms, overhead_ms, client_ms, added_ms; /* real units */
    size_t latency_n;                                  /* ModelLatency's samples */
    double gpu, gpu_memory, cpu, memory;               /* percent; NAN when CloudWatch has none */
};

struct cloudwatch_check {
    struct cloudwatch_check_row *rows;
    size_t n;
};

/* Adds a row per step of s when s has CloudWatch metrics. Returns 0, or
 * CLOUDWATCH_CHECK_ERR_NOMEM with err. */
__attribute__((warn_unused_result)) int
cloudwatch_check_side(struct cloudwatch_check *x, const struct side *s, struct buf *err);
void cloudwatch_check_free(struct cloudwatch_check *x);

#endif
