/* epscale: the autoscaling of an endpoint's variant through Application Auto
 * Scaling (service application-autoscaling, JSON 1.1, X-Amz-Target
 * AnyScaleFrontendService.<Op>, host application-autoscaling.REGION.amazonaws.com;
 * aws/awsj.h signs it like SageMaker's calls, to --endpoint-url when given).
 *
 *   set     RegisterScalableTarget on sagemaker:variant:DesiredInstanceCount
 *           (MinCapacity, MaxCapacity) and one target-tracking PutScalingPolicy,
 *           named EPSCALE_POLICY, on a predefined metric:
 *             invocations  SageMakerVariantInvocationsPerInstance (a minute, per instance)
 *             concurrency  SageMakerVariantConcurrentRequestsPerModelHighResolution
 *                          (concurrent requests per model copy; newer than Debian 12's
 *                          botocore 1.29.27, which knows only the first)
 *   show    DescribeScalableTargets, DescribeScalingPolicies and the last
 *           DescribeScalingActivities of the endpoint's variants
 *   remove  DeleteScalingPolicy of every policy on the variant, then
 *           DeregisterScalableTarget
 *
 * set and remove act only on an endpoint wrk-sagemaker created (its tag
 * wrk-sagemaker:created-by says so, epown.h): else EPOPS_ERR_REFUSED with the
 * line "refusing to change the autoscaling of endpoint 'x' in REGION: <why>"
 * and nothing sent but the reads. A dry run does the reads (the endpoint, its
 * tags, the policies) and writes the changing calls into out instead of
 * sending them. The request builders are pure, for tests and previews. */
#ifndef SM_EPSCALE_H
#define SM_EPSCALE_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "epops.h"

#define EPSCALE_POLICY    "wrk-sagemaker-target-tracking"
#define EPSCALE_DIMENSION "sagemaker:variant:DesiredInstanceCount"
#define EPSCALE_MAX_CAP   1000 /* instances a variant may scale to, here */
#define EPSCALE_MAX_COOL  86400L

enum epscale_metric { EPSCALE_INVOCATIONS, EPSCALE_CONCURRENCY };

/* What set asks for. */
struct epscale_set_req {
    const char *name;    /* the endpoint */
    const char *variant; /* NULL: the endpoint's only variant (AllTraffic for a deploy) */
    long min, max;       /* instances, 1 <= min <= max <= EPSCALE_MAX_CAP */
    enum epscale_metric metric;
    double target;             /* the metric's target value, > 0 */
    long scale_in_cooldown_s;  /* < 0: the service's default */
    long scale_out_cooldown_s; /* < 0: the service's default */
    bool disable_scale_in;
};

/* The predefined metric type of m. */
const char *epscale_metric_type(enum epscale_metric m);

/* Checks r's values (not the names); EPOPS_ERR_INPUT with one line in err. */
__attribute__((warn_unused_result)) int epscale_check(const struct epscale_set_req *r,
                                                      struct buf *err);

/* The requests, JSON text in out (emptied first); variant must be set. Return
 * 0, EPOPS_ERR_INPUT (a name too long for a ResourceId) or EPOPS_ERR_NOMEM. */
__attribute__((warn_unused_result)) int epscale_req_register(const struct epscale_set_req *r,
                                                             const char *variant, struct buf *out);
__attribute__((warn_unused_result)) int epscale_req_policy(const struct epscale_set_req *r,
                                                           const char *variant, struct buf *out);
/* {ServiceNamespace, ResourceId, ScalableDimension} with "PolicyName" when policy is
 * not NULL: DeregisterScalableTarget, DeleteScalingPolicy. */
__attribute__((warn_unused_result)) int epscale_req_key(const char *name, const char *variant,
                                                        const char *policy, struct buf *out);

/* The calls set would make, one "application-autoscaling OP JSON" line each,
 * appended to out (a preview that sends nothing; variant NULL: AllTraffic, the
 * variant a deploy makes, as the endpoint is not read). */
__attribute__((warn_unused_result)) int epscale_set_calls(const struct epscale_set_req *r,
                                                          const char *variant, struct buf *out);

/* The operations (see above); out gets text and JSON. */
__attribute__((warn_unused_result)) int epscale_set(struct epops *o, const char *region,
                                                    const struct epscale_set_req *r, bool dry_run,
                                                    struct epops_out *out, struct buf *err);
__attribute__((warn_unused_result)) int epscale_show(struct epops *o, const char *region,
                                                     const char *name, struct epops_out *out,
                                                     struct buf *err);
/* variant NULL: every variant of the endpoint that has a scalable target. */
__attribute__((warn_unused_result)) int epscale_remove(struct epops *o, const char *region,
                                                       const char *name, const char *variant,
                                                       bool dry_run, struct epops_out *out,
                                                       struct buf *err);

#endif
