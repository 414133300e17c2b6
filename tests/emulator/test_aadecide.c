/* Target tracking's decisions (aadecide.h) over an injected model clock: the
 * bar-style check of issue 33. A load step from 20% to 150% of one instance's
 * capacity: the scale-out is decided when the scale-out alarm has its 3
 * datapoints (15 to scale in), the new instances serve exactly the configured
 * provisioning plus container load later, and the instance-seconds the core
 * accounts equal those computed here from the configured delays. The metric is
 * InvocationsPerInstance as SageMaker publishes it: each call counts
 * 1/instances serving when it arrives. */
#include <math.h>
#include <stdio.h>

#include "../check.h"
#include "aadecide.h"

#define CAPACITY  100.0 /* calls a minute one instance serves */
#define PROVISION 240.0
#define LOAD_S    82.751806 /* bf16-l4's load_s */
#define DRAIN     30.0

#define CHECK_NEAR(got, want)                                                                      \
    do {                                                                                           \
        double g_ = (got), w_ = (want);                                                            \
        if (fabs(g_ - w_) > 1e-6 * (1 + fabs(w_))) {                                               \
            fprintf(stderr, "%s:%d: %s = %.9f, want %.9f\n", __FILE__, __LINE__, #got, g_, w_);    \
            check_failed++;                                                                        \
        }                                                                                          \
    } while (0)

/* The load in calls a minute at model time t. */
struct load {
    double step_at, drop_at; /* 20% before step_at, 150% until drop_at, 20% after */
};

static double load_rate(const struct load *l, double t) {
    return (t >= l->step_at && t < l->drop_at ? 1.5 : 0.2) * CAPACITY / 60; /* a second */
}

/* The period (t - p, t]'s InvocationsPerInstance: calls over the instances
 * serving at each moment (the core's own count, changing at known times), by
 * steps of 1 ms of model time. */
static double load_point(const struct load *l, const struct aadecide *d, double t, double p) {
    double sum = 0, dt = 0.001;
    long steps = lround(p / dt);
    for (long k = 0; k < steps; k++) {
        double s = t - p + dt / 2 + (double)k * dt;
        long serving = d->serving;
        for (size_t i = 0; i < d->n_batches; i++)
            if (s >= d->batch[i].ready_at) serving += d->batch[i].n;
        sum += load_rate(l, s) * dt / (double)serving;
    }
    return sum;
}

static void test_step_scale_out_then_in(void) {
    struct aadecide_conf c;
    aadecide_defaults(&c, false);
    CHECK(c.period_s == 60 && c.out_points == 3 && c.in_points == 15);
    CHECK(c.out_cooldown_s == 300 && c.in_cooldown_s == 300);
    c.target = 0.8 * CAPACITY; /* 150 / 2 = 75 is not below 0.9 x 80 */
    c.min = 1;
    c.max = 4;
    c.provision_s = PROVISION;
    c.load_s = LOAD_S;
    c.drain_s = DRAIN;
    c.out_cooldown_s = 600; /* longer than the new capacity takes: one scale-out */
    struct aadecide d;
    aadecide_init(&d, &c, 1, 0);
    struct load l = {600, 3600};
    struct aadecide_event out = {0}, in = {0};
    int n_out = 0, n_in = 0;
    for (int k = 1; k <= 120; k++) {
        double t = 60.0 * k, v = load_point(&l, &d, t, 60);
        struct aadecide_event ev = aadecide_point(&d, t, v);
        if (ev.kind == AADECIDE_OUT) out = ev, n_out++;
        if (ev.kind == AADECIDE_IN) in = ev, n_in++;
    }
    /* out: 3 datapoints of 150 > 80 after the step; ceil(1 x 150 / 80) = 2 */
    CHECK_INT(n_out, 1);
    CHECK_NEAR(out.at, 600 + 3 * 60);
    CHECK_INT(out.from, 1);
    CHECK_INT(out.to, 2);
    CHECK_NEAR(out.serving_at - out.at, PROVISION + LOAD_S); /* the time to new capacity */
    /* in: 15 datapoints of 20 / 2 < 72 after the drop; ceil(2 x 10 / 80) = 1 */
    CHECK_INT(n_in, 1);
    CHECK_NEAR(in.at, 3600 + 15 * 60);
    CHECK_INT(in.from, 2);
    CHECK_INT(in.to, 1);
    CHECK_INT(d.serving, 1);
    CHECK_INT(d.draining, 0);
    /* instance-seconds: 1 until the new one serves, 2 until the scale-in, the one
     * leaving billed while it drains, then 1 */
    double ready = out.serving_at;
    double want = 1 * ready + 2 * (in.at - ready) + 2 * DRAIN + 1 * (7200 - in.at - DRAIN);
    CHECK_NEAR(d.instance_s, want);
    CHECK_NEAR(d.instance_s, 10627.248194); /* 2.952 instance-hours */
}

/* The scale-out cooldown shorter than provisioning: the alarm fires again while
 * the first instances launch (the metric still counts only those serving) and
 * scales out once more, to max. */
static void test_cooldown_shorter_than_provisioning_scales_out_twice(void) {
    struct aadecide_conf c;
    aadecide_defaults(&c, false);
    c.target = 0.7 * CAPACITY;
    c.min = 1;
    c.max = 4;
    c.provision_s = PROVISION;
    c.load_s = LOAD_S;
    struct aadecide d;
    aadecide_init(&d, &c, 1, 0);
    struct load l = {600, 1e9};
    long to[4] = {0};
    double at[4] = {0};
    int n = 0;
    for (int k = 1; k <= 30 && n < 4; k++) {
        double t = 60.0 * k;
        struct aadecide_event ev = aadecide_point(&d, t, load_point(&l, &d, t, 60));
        if (ev.kind == AADECIDE_OUT) at[n] = ev.at, to[n++] = ev.to;
    }
    CHECK_INT(n, 2);
    CHECK_NEAR(at[0], 780);
    CHECK_INT(to[0], 3);
    CHECK_NEAR(at[1], 780 + 300);
    CHECK_INT(to[1], 4);
}

/* High resolution (the concurrency metrics): 10-second periods, so 3 datapoints
 * are 30 s. DisableScaleIn keeps the instances. */
static void test_high_resolution_and_disable_scale_in(void) {
    struct aadecide_conf c;
    aadecide_defaults(&c, true);
    CHECK(c.period_s == 10);
    c.target = 4; /* concurrent requests a model */
    c.min = 1;
    c.max = 8;
    c.disable_in = true;
    struct aadecide d;
    aadecide_init(&d, &c, 2, 0);
    struct aadecide_event ev = {0};
    for (int k = 1; k <= 3; k++) ev = aadecide_point(&d, 10.0 * k, 10);
    CHECK_INT(ev.kind, AADECIDE_OUT);
    CHECK_NEAR(ev.at, 30);
    CHECK_INT(ev.to, 5); /* ceil(2 x 10 / 4) */
    for (int k = 4; k <= 200; k++) CHECK_INT(aadecide_point(&d, 10.0 * k, 0.5).kind, AADECIDE_NONE);
    CHECK_INT(aadecide_desired(&d), 5);
}

/* A core at 0 with 4 instances, min 1 and max 10, the defaults else. */
static void four(struct aadecide *d) {
    struct aadecide_conf c;
    aadecide_defaults(&c, false);
    c.min = 1;
    c.max = 10;
    aadecide_init(d, &c, 4, 0);
}

/* Step scaling's decisions, a row each: from 4 instances (min 1, max 10), the
 * breach picks a step and its adjustment the new desired count. */
static void test_step_policy_rows(void) {
    static const struct {
        enum aadecide_adjust type;
        struct aadecide_step step[2];
        size_t n;
        long min_magnitude;
        double breach;
        long to; /* 4: no decision */
    } rows[] = {
        {AADECIDE_CHANGE, {{0, 10, 1}, {10, NAN, 3}}, 2, 0, 5, 5},
        {AADECIDE_CHANGE, {{0, 10, 1}, {10, NAN, 3}}, 2, 0, 10, 7}, /* lower bound inclusive */
        {AADECIDE_CHANGE, {{NAN, 0, -1}}, 1, 0, -2, 3},
        {AADECIDE_CHANGE, {{-10, 0, -1}, {NAN, -10, -2}}, 2, 0, -10, 2}, /* below: upper incl. */
        {AADECIDE_CHANGE, {{0, 5, 1}}, 1, 0, 7, 4},                      /* no step holds it */
        {AADECIDE_PERCENT, {{0, NAN, 10}}, 1, 0, 1, 5},                  /* 0.4: at least 1 */
        {AADECIDE_PERCENT, {{0, NAN, 60}}, 1, 0, 1, 6},                  /* 2.4: 2 */
        {AADECIDE_PERCENT, {{0, NAN, 10}}, 1, 2, 1, 6},   /* MinAdjustmentMagnitude */
        {AADECIDE_PERCENT, {{NAN, 0, -30}}, 1, 0, -1, 3}, /* -1.2: -1 */
        {AADECIDE_EXACT, {{0, NAN, 8}}, 1, 0, 1, 8},
        {AADECIDE_EXACT, {{0, NAN, 20}}, 1, 0, 1, 10}, /* within max */
        {AADECIDE_EXACT, {{NAN, 0, 0}}, 1, 0, -1, 1},  /* within min */
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        struct aadecide d;
        four(&d);
        struct aadecide_steps p = {rows[i].type,
                                   {rows[i].step[0], rows[i].step[1]},
                                   rows[i].n,
                                   rows[i].min_magnitude,
                                   300};
        struct aadecide_event ev = aadecide_step(&d, &p, 60, rows[i].breach);
        long to = ev.kind == AADECIDE_NONE ? 4 : ev.to;
        if (to != rows[i].to) {
            fprintf(stderr, "%s:%d: row %zu: to %ld, want %ld\n", __FILE__, __LINE__, i, to,
                    rows[i].to);
            check_failed++;
        }
        CHECK(ev.kind == (rows[i].to > 4   ? AADECIDE_OUT
                          : rows[i].to < 4 ? AADECIDE_IN
                                           : AADECIDE_NONE));
    }
}

/* Within a scale-out's Cooldown a further scale-out counts from the capacity
 * before it, and a scale-in waits the Cooldown out. */
static void test_step_cooldown(void) {
    struct aadecide d;
    four(&d);
    struct aadecide_steps two = {AADECIDE_CHANGE, {{0, NAN, 2}}, 1, 0, 300};
    struct aadecide_steps three = {AADECIDE_CHANGE, {{0, NAN, 3}}, 1, 0, 300};
    struct aadecide_steps in = {AADECIDE_CHANGE, {{NAN, 0, -1}}, 1, 0, 300};
    struct aadecide_event ev = aadecide_step(&d, &two, 0, 1);
    CHECK(ev.kind == AADECIDE_OUT && ev.from == 4 && ev.to == 6);
    CHECK_INT(aadecide_step(&d, &two, 100, 1).kind, AADECIDE_NONE); /* 4 + 2: there already */
    ev = aadecide_step(&d, &three, 200, 1);
    CHECK(ev.kind == AADECIDE_OUT && ev.from == 6 && ev.to == 7);   /* 4 + 3 */
    CHECK_INT(aadecide_step(&d, &in, 400, -1).kind, AADECIDE_NONE); /* cooling down */
    ev = aadecide_step(&d, &in, 500, -1);
    CHECK(ev.kind == AADECIDE_IN && ev.from == 7 && ev.to == 6);
}

int main(void) {
    test_step_policy_rows();
    test_step_cooldown();
    test_step_scale_out_then_in();
    test_cooldown_shorter_than_provisioning_scales_out_twice();
    test_high_resolution_and_disable_scale_in();
    return check_exit();
}
