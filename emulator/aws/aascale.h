/* aascale: Application Auto Scaling's API (AWS JSON 1.1, X-Amz-Target
 * AnyScaleFrontendService.<op>, signing name application-autoscaling) for
 * SageMaker: RegisterScalableTarget, DescribeScalableTargets,
 * DeregisterScalableTarget, PutScalingPolicy, DescribeScalingPolicies,
 * DeleteScalingPolicy and DescribeScalingActivities, as botocore's service
 * model (application-autoscaling 2016-02-06) shapes them.
 *
 * A scalable target is a production variant (ResourceId
 * endpoint/NAME/variant/VARIANT, ScalableDimension
 * sagemaker:variant:DesiredInstanceCount) of an endpoint the control plane
 * knows in the request's region, or an inference component
 * (inference-component/NAME, sagemaker:inference-component:DesiredCopyCount,
 * MinCapacity 0 allowed) the control plane knows (cpic.h). Policies:
 * TargetTrackingScaling on SageMaker's predefined metrics (or a customized
 * metric, kept and described), and StepScaling. Activities are what the
 * scaling decisions (aadecide.h) record with aascale_activity. Errors as the
 * service writes them ({"__type":..., "message":...}, 400). Pure: the caller
 * gives the time. */
#ifndef EMU_AASCALE_H
#define EMU_AASCALE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cplane.h"
#include "cwalarm.h"

#define AASCALE_MAX_TARGETS    64
#define AASCALE_MAX_POLICIES   128 /* across targets; 50 a target, as AWS's quota */
#define AASCALE_MAX_ACTIVITIES 512 /* the newest kept */
#define AASCALE_ID_MAX         320 /* ResourceId (SageMaker's names make it short) */

enum aascale_dim { AASCALE_VARIANT, AASCALE_COMPONENT };

struct aascale_target {
    char region[CPCONF_REGION_MAX];
    char resource[AASCALE_ID_MAX];
    enum aascale_dim dim;
    long min, max;
    double created; /* wall clock */
    char arn[160];
    bool in_suspended, out_suspended, scheduled_suspended;
};

enum aascale_kind { AASCALE_TRACKING, AASCALE_STEP };

struct aascale_policy {
    char region[CPCONF_REGION_MAX];
    char resource[AASCALE_ID_MAX];
    enum aascale_dim dim;
    char name[256];
    enum aascale_kind kind;
    char *config; /* the configuration as given (JSON, malloc'ed), described back */
    char arn[768];
    char alarm_high[400], alarm_low[400]; /* target tracking's alarms; "" for step */
    double created;
};

struct aascale_activity {
    char region[CPCONF_REGION_MAX];
    char resource[AASCALE_ID_MAX];
    enum aascale_dim dim;
    char id[40];
    char description[256], cause[512];
    double start, end;  /* wall clock; end 0: not ended */
    const char *status; /* Pending, InProgress, Successful, Failed (static) */
};

struct aascale {
    char account[32];
    uint64_t rng; /* ids */
    struct aascale_target targets[AASCALE_MAX_TARGETS];
    size_t n_targets;
    struct aascale_policy policies[AASCALE_MAX_POLICIES];
    size_t n_policies;
    struct aascale_activity *activities; /* a ring of AASCALE_MAX_ACTIVITIES */
    size_t n_activities, first_activity;
};

/* An empty service for account, ids drawn from seed. */
void aascale_init(struct aascale *s, const char *account, uint64_t seed);
void aascale_free(struct aascale *s);

/* Answers AnyScaleFrontendService.<op> with body[0..len) in region at wall
 * time now into r; the control plane says which endpoints exist. Returns 0 or
 * CPLANE_ERR_NOMEM. */
__attribute__((warn_unused_result)) int aascale_call(struct aascale *s, const struct cplane *cp,
                                                     const char *op, const char *body, size_t len,
                                                     const char *region, double now,
                                                     struct cplane_reply *r);

/* The two CloudWatch alarms target tracking policy p creates, as CloudWatch
 * describes them (out[0] AlarmHigh, out[1] AlarmLow, named as PutScalingPolicy
 * answered): its metric (InvocationsPerInstance by EndpointName and
 * VariantName, InvocationsPerCopy by InferenceComponentName, Sum over 60 s;
 * the high-resolution concurrency metrics' Average over 10 s; a customized
 * metric as given), AlarmHigh over the TargetValue for 3 periods, AlarmLow
 * under 0.9 x it for 15 (aadecide's defaults), the policy's ARN their action.
 * Returns false when p has none (a step policy, or no TargetValue). Pure. */
bool aascale_tracking_alarms(const struct aascale_policy *p, struct cwalarm_spec out[2]);

/* The target of resource in region, or NULL. */
struct aascale_target *aascale_target(struct aascale *s, const char *region, const char *resource);

/* Records an activity of target t (the newest replaces the oldest past
 * AASCALE_MAX_ACTIVITIES); returns it for its status and end, or NULL out of
 * memory. */
struct aascale_activity *aascale_activity(struct aascale *s, const struct aascale_target *t,
                                          double start, const char *description, const char *cause);

#endif
