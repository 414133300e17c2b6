/* cwmetrics: an endpoint variant's metrics from CloudWatch.
 *
 * GetMetricData (service cloudwatch, signing name monitoring) over the AWS
 * JSON 1.0 protocol through awsj.h, which CloudWatch accepts besides the query
 * protocol (awsj.h says where that is documented): the queries of
 * cwdoc_metrics_asked (the SageMaker invocation metrics and the instance's
 * utilization), dimensions EndpointName and VariantName, one period for all,
 * over a window [start, end) in epoch seconds (CloudWatch rounds the start
 * down to the period; data points come oldest first here). Pages (NextToken)
 * are merged per query. Needs the IAM action cloudwatch:GetMetricData. */
#ifndef SM_CWMETRICS_H
#define SM_CWMETRICS_H

#include <stddef.h>

#include "awsj.h"
#include "buf.h"
#include "cwdoc.h"

#define CWMETRICS_PERIOD 60 /* seconds: SageMaker's metrics are per minute */

struct cwmetrics_query {
    const char *endpoint, *variant; /* the dimensions (variant: "AllTraffic" by default) */
    double start, end;              /* epoch seconds */
    int period;                     /* seconds; 0: CWMETRICS_PERIOD */
};

/* The MetricDataQueries list of q as JSON (what `aws cloudwatch get-metric-data
 * --metric-data-queries file://...` takes) into out (emptied first). Pure.
 * Returns 0, AWSJ_ERR_INPUT (names or period out of rule: err says which) or
 * AWSJ_ERR_NOMEM. */
__attribute__((warn_unused_result)) int cwmetrics_queries(const struct cwmetrics_query *q,
                                                          struct buf *out, struct buf *err);
/* The whole GetMetricData request of q into out (emptied first). Pure; returns
 * as cwmetrics_queries (a window that is not one is AWSJ_ERR_INPUT too). */
__attribute__((warn_unused_result)) int cwmetrics_request(const struct cwmetrics_query *q,
                                                          struct buf *out, struct buf *err);

/* Fetches q and writes what `aws cloudwatch get-metric-data` prints for it:
 * {"MetricDataResults": [one per query, its pages merged, oldest first,
 * ISO 8601 timestamps], "Messages": []} in doc (emptied first); *points: the
 * data points in it. Returns 0 or an awsj_error with one line in err (a reply
 * that is not GetMetricData's: AWSJ_ERR_REPLY; awsj_last(c)->code has the
 * service's code, AccessDeniedException without cloudwatch:GetMetricData). */
__attribute__((warn_unused_result)) int cwmetrics_fetch_doc(struct awsj_client *c,
                                                            const struct cwmetrics_query *q,
                                                            struct buf *doc, size_t *points,
                                                            struct buf *err);

#endif
