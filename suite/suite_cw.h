/* suite_cw: after the steps, what CloudWatch saw of each side, fetched with
 * the project's own signed client (aws/cwlogs.h, aws/cwmetrics.h) into the
 * side's folder, where sm-compare reads it:
 *   OUT/LABEL/cloudwatch/STEP.logs.json     the container log over the step's
 *                                           window (FilterLogEvents), as
 *                                           `aws logs filter-log-events` prints it
 *   OUT/LABEL/cloudwatch/STEP.metrics.json  the variant's metrics over the same
 *                                           window, 1-minute periods (GetMetricData),
 *                                           as `aws cloudwatch get-metric-data` prints it
 *   OUT/LABEL/cloudwatch/startup.logs.json  the vLLM start-up lines of the two
 *                                           weeks before the last step (the facts)
 *   OUT/LABEL/cloudwatch/queries.json       the metric queries, for
 *                                           `aws cloudwatch get-metric-data
 *                                           --metric-data-queries file://...`
 * STEP is the step's result file name without ".json" (decode, sweep-c4, ...);
 * its window is the result file's started_at to ended_at. The variant is the
 * side's (--baseline-variant, ...), else the endpoint's first production
 * variant (DescribeEndpoint), else AllTraffic; a side that targets an inference
 * component gets the variant's figures (every component's on it), said in a
 * note. The calls go to --endpoint-url,
 * else --url (sm-emulator serves them on its one port), else AWS, where the
 * fetch first waits until SUITE_CW_SETTLE_S after the last step ended
 * (CloudWatch publishes a minute's metrics a minute or two after it; Ctrl-C
 * skips the wait and the fetch). Nothing here fails a run: a missing
 * permission is one warning naming the IAM action, any other error one
 * warning, and the rest goes on. */
#ifndef SM_SUITE_CW_H
#define SM_SUITE_CW_H

#include "suite_opts.h"
#include "suite_plan.h"

#define SUITE_CW_SETTLE_S     150.0 /* seconds after the last step before asking AWS */
#define SUITE_CW_STARTUP_DAYS 14    /* how far back the start-up lines are looked for */
#define SUITE_CW_DIR          "cloudwatch"

/* Receives one line to show the user (without "sm-suite: "). */
typedef void suite_cw_say_fn(void *ud, const char *line);

struct suite_cw_job {
    const struct suite_opts *o;
    const struct suite_plan *p;
    double settle_s; /* seconds to wait after the last step; < 0: SUITE_CW_SETTLE_S against AWS,
                        none elsewhere */
    suite_cw_say_fn *say;
    void *ud;
};

/* Where the calls go: --endpoint-url, else --url unless its host is AWS's
 * (*.amazonaws.com: a runtime or VPC endpoint), else NULL (AWS). Pure. */
const char *suite_cw_url(const struct suite_opts *o);

/* DIR/cloudwatch/ID.KIND.json (KIND "logs" or "metrics"; NULL: ID.json); the
 * caller frees it; NULL out of memory. Pure. */
char *suite_cw_path(const char *side_dir, const char *id, const char *kind);

/* Fetches everything; returns how many warnings it said (0: all fetched). */
int suite_cw_fetch(const struct suite_cw_job *j);

#endif
