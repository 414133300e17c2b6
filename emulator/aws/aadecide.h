/* aadecide: the scaling decisions of a target tracking policy on one scalable
 * target (a variant's instances), as Application Auto Scaling takes them, over
 * an injected clock in model seconds (the caller divides by --time-scale).
 *
 * The caller gives one datapoint of the policy's metric a period (the period
 * ending at t: InvocationsPerInstance's Sum, or the concurrency's Average, per
 * instance serving). Two alarms read them: the scale-out alarm fires when the
 * last out_points datapoints are all above the target, the scale-in alarm when
 * the last in_points are all below in_ratio x the target. A firing alarm sets
 * the desired count to ceil(current x metric / target) within [min, max],
 * unless a cooldown holds it: no scale-out within out_cooldown_s of the last
 * scale-out, no scale-in within in_cooldown_s of the last scaling activity.
 * New instances serve provision_s + load_s after the decision (the instance,
 * then the container's model load: the profile's load_s); an instance scaled
 * in stops taking requests at once and is released drain_s later (the calls
 * it holds finish). Instance-seconds count every instance from the moment it
 * serves until it is released. Pure. */
#ifndef EMU_AADECIDE_H
#define EMU_AADECIDE_H

#include <stdbool.h>
#include <stddef.h>

#define AADECIDE_POINTS_MAX 64 /* datapoints an alarm may read */
#define AADECIDE_BATCHES    8  /* scale-outs launching at once */

struct aadecide_conf {
    double period_s;                      /* metric period: 60, or 10 at high resolution */
    int out_points, in_points;            /* datapoints each alarm reads: 3 and 15 */
    double in_ratio;                      /* the scale-in alarm's threshold / the target */
    double out_cooldown_s, in_cooldown_s; /* 300 and 300 for SageMaker variants */
    double provision_s;                   /* an instance's start before its container loads */
    double load_s;                        /* the container's load: the profile's load_s */
    double drain_s;                       /* an instance scaled in serves its calls this long */
    double target;                        /* TargetValue */
    long min, max;                        /* the scalable target's capacities */
    bool disable_in;                      /* DisableScaleIn */
};

enum aadecide_kind { AADECIDE_NONE, AADECIDE_OUT, AADECIDE_IN };

/* A decision: at time at, from instances to to; the new ones serve at serving_at. */
struct aadecide_event {
    enum aadecide_kind kind;
    double at, serving_at;
    long from, to;
};

struct aadecide {
    struct aadecide_conf c;
    double now;
    long serving;   /* instances taking requests */
    long launching; /* decided, not yet serving: the batches below */
    struct {
        long n;
        double ready_at; /* when they serve */
    } batch[AADECIDE_BATCHES];
    size_t n_batches;
    long draining;               /* scaled in, still holding calls */
    double drained_at;           /* when they are released */
    double last_out, last_scale; /* times of the last scale-out and of any activity */
    long out_base;               /* the desired count before the last scale-out */
    double points[AADECIDE_POINTS_MAX];
    size_t n_points;   /* the newest last */
    double instance_s; /* instance-seconds billed up to now */
};

/* SageMaker's defaults (see the README's Autoscaling): a period of 60 s (10 s
 * when high_res), 3 datapoints to scale out and 15 to scale in, 300 s
 * cooldowns; provision_s, load_s, drain_s, target, min and max are the
 * caller's. */
void aadecide_defaults(struct aadecide_conf *c, bool high_res);

/* Starts with instances serving at now. */
void aadecide_init(struct aadecide *d, const struct aadecide_conf *c, long instances, double now);

/* Moves the clock to now (never back): launching instances serve, draining
 * ones are released, instance-seconds accrue. */
void aadecide_advance(struct aadecide *d, double now);

/* The datapoint of the period ending at t (advances to t first): the alarms'
 * decision, kind AADECIDE_NONE when there is none. */
struct aadecide_event aadecide_point(struct aadecide *d, double t, double value);

/* Step scaling (StepScalingPolicyConfiguration): the alarm's breach (its
 * metric less its threshold) picks the step whose bounds hold it (lower
 * inclusive and upper exclusive above the threshold, the reverse below; NAN
 * for an absent bound), and the step's adjustment sets the desired count:
 * ChangeInCapacity adds it, ExactCapacity is it, PercentChangeInCapacity adds
 * that percent of the desired count, rounded towards zero but at least 1 (and
 * at least MinAdjustmentMagnitude), all within [min, max]. Within the Cooldown
 * of a scale-out a further scale-out counts from the capacity before it (only
 * what exceeds the desired count is added), and a scale-in waits out the
 * Cooldown of any activity. */
#define AADECIDE_STEPS_MAX 20 /* StepAdjustments: AWS's quota */

enum aadecide_adjust { AADECIDE_CHANGE, AADECIDE_PERCENT, AADECIDE_EXACT };

struct aadecide_step {
    double lower, upper; /* MetricIntervalLowerBound, ...UpperBound; NAN: absent */
    double adjustment;   /* ScalingAdjustment */
};

struct aadecide_steps {
    enum aadecide_adjust type;
    struct aadecide_step step[AADECIDE_STEPS_MAX];
    size_t n;
    long min_magnitude; /* MinAdjustmentMagnitude (PercentChangeInCapacity); 0: none */
    double cooldown_s;  /* Cooldown */
};

/* The decision of step policy p when its alarm is in ALARM at t with breach
 * (metric - threshold); min, max, provision_s, load_s and drain_s are d's. */
struct aadecide_event aadecide_step(struct aadecide *d, const struct aadecide_steps *p, double t,
                                    double breach);

/* The desired count: serving and launching. */
long aadecide_desired(const struct aadecide *d);

#endif
