/* scaler: Application Auto Scaling at run time. For every scalable target of
 * the runtime region (a production variant, aascale.h) with a target tracking
 * policy on a predefined metric, a libevent timer feeds the decision core
 * (aadecide.h) one datapoint each metric period, on the model clock
 * (monotonic seconds x --time-scale): InvocationsPerInstance, the calls the
 * variant received in the period / its instances serving, or for the
 * high-resolution ConcurrentRequestsPerModel metric the calls in flight at
 * the period's end / its instances serving. An inference component's target
 * (inference-component/NAME) runs on its copies the same way:
 * InvocationsPerCopy, or ConcurrentRequestsPerCopy (the calls in flight on
 * its copies at the period's end / its copies serving). A decision launches instances of
 * the variant (fleet_launch: each a container and batch of its own, serving
 * provisioning + the profile's load_s later; provisioning is the control
 * plane's --create-time) or drains them (fleet_drain: no new call, released
 * once their calls ended); DescribeEndpoint's counts follow (cplane_scaled:
 * Updating while instances launch) and each decision is an activity of
 * DescribeScalingActivities, InProgress until its instances serve (or are
 * released), then Successful with its EndTime. Step scaling policies run
 * when an alarm invokes them (scaler_step). */
#ifndef EMU_SCALER_H
#define EMU_SCALER_H

#include <stdbool.h>
#include <stddef.h>

#include "aadecide.h"
#include "aascale.h"
#include "cplane.h"
#include "fleet.h"

struct event_base; /* libevent's */
struct event;

/* The fleet endpoint serving the endpoint called name now, or NULL. */
typedef struct fleet_endpoint *scaler_find_fn(void *ud, const char *name);

#define SCALER_OPEN_MAX (AADECIDE_BATCHES + 2) /* activities in progress on one target */

/* One scalable target being scaled. */
struct scaler_run {
    char resource[AASCALE_ID_MAX];
    char policy[256];
    char alarm_high[400], alarm_low[400];
    const struct fleet_endpoint *ep; /* what it started on: a new one starts it anew */
    bool seen;                       /* its target has a policy at this tick */
    bool high_res;                   /* the concurrency metric */
    struct aadecide d;
    double next_point;        /* model time of the next datapoint */
    unsigned long calls;      /* the variant's requests counted at the last datapoint */
    struct fleet_census told; /* the counts DescribeEndpoint was last given */
    struct {
        char id[40];
        enum aadecide_kind kind;
        double serving_at; /* a scale-out's: when its instances serve */
    } open[SCALER_OPEN_MAX];
    size_t n_open;
};

/* What a scaler works on. */
struct scaler_conf {
    struct aascale *aa;   /* the targets, policies and activities (borrowed) */
    struct cplane *cp;    /* DescribeEndpoint's counts (borrowed) */
    const char *region;   /* the runtime region (borrowed) */
    double time_scale;    /* model seconds per real second */
    double provision_s;   /* an instance's start before its container loads */
    scaler_find_fn *find; /* the fleets (find_ud: its argument) */
    void *find_ud;
};

struct scaler {
    struct event_base *base; /* not owned */
    struct event *timer;
    struct scaler_conf c;
    struct scaler_run *runs; /* AASCALE_MAX_TARGETS of them */
    size_t n_runs;
};

enum scaler_error { SCALER_OK = 0, SCALER_ERR_NOMEM = -1, SCALER_ERR_NOTFOUND = -2 };

/* Starts a scaler with nothing to scale (its timer on base). Returns 0 or SCALER_ERR_NOMEM. */
__attribute__((warn_unused_result)) int scaler_init(struct scaler *s, struct event_base *base,
                                                    const struct scaler_conf *c);
void scaler_free(struct scaler *s);

/* Takes the targets and policies as they are now, runs what is due (the
 * datapoints, launches serving, drains released) and arms the timer for what
 * comes next. Call after every Application Auto Scaling call. */
void scaler_tick(struct scaler *s);

/* Step scaling: alarm (cwalarm.h), in ALARM, invokes the StepScaling policy
 * of the runtime region whose PolicyARN is policy_arn with breach, its newest
 * datapoint less its threshold. The policy's steps and Cooldown decide
 * (aadecide_step, as https://docs.aws.amazon.com/autoscaling/application/
 * userguide/step-scaling-policy-overview.html describes: the step whose
 * bounds, relative to the threshold, hold the breach); a decision launches or
 * drains instances as target tracking's do and is an activity whose Cause
 * names the alarm and the policy. On an inference component's target
 * (inference-component/NAME) the decision sets its desired copies (from 0
 * too), new copies serving the model's load time later, as target
 * tracking's. Targets with step policies and no target
 * tracking one are kept between alarms (no datapoints of their own). Returns
 * 0, or SCALER_ERR_NOTFOUND when no step policy has that ARN or its variant
 * serves nothing now. */
int scaler_step(struct scaler *s, const char *policy_arn, const char *alarm, double breach);

#endif
