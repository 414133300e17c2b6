#include "aadecide.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void aadecide_defaults(struct aadecide_conf *c, bool high_res) {
    memset(c, 0, sizeof *c);
    c->period_s = high_res ? 10 : 60;
    c->out_points = 3;
    c->in_points = 15;
    c->in_ratio = 0.9;
    c->out_cooldown_s = 300;
    c->in_cooldown_s = 300;
    c->min = 1;
    c->max = 1;
}

void aadecide_init(struct aadecide *d, const struct aadecide_conf *c, long instances, double now) {
    memset(d, 0, sizeof *d);
    d->c = *c;
    d->now = now;
    d->serving = instances;
    d->last_out = d->last_scale = -INFINITY;
}

long aadecide_desired(const struct aadecide *d) {
    return d->serving + d->launching;
}

/* Accrues instance-seconds from d->now to t with the instances billed now. */
static void aadecide_bill(struct aadecide *d, double t) {
    if (t > d->now) d->instance_s += (double)(d->serving + d->draining) * (t - d->now);
    if (t > d->now) d->now = t;
}

void aadecide_advance(struct aadecide *d, double now) {
    for (;;) { /* the changes due before now, in time order */
        double next = now;
        if (d->n_batches && d->batch[0].ready_at < next) next = d->batch[0].ready_at;
        if (d->draining && d->drained_at < next) next = d->drained_at;
        aadecide_bill(d, next);
        while (d->n_batches && d->batch[0].ready_at <= next) { /* in launch order */
            d->serving += d->batch[0].n;
            d->launching -= d->batch[0].n;
            memmove(d->batch, d->batch + 1, --d->n_batches * sizeof *d->batch);
        }
        if (d->draining && d->drained_at <= next) d->draining = 0;
        if (next >= now) break;
    }
}

/* Whether the last n datapoints are all above (or all below) threshold. */
static bool aadecide_alarm(const struct aadecide *d, int n, double threshold, bool above) {
    if (n <= 0 || (size_t)n > d->n_points) return false;
    for (size_t i = d->n_points - (size_t)n; i < d->n_points; i++)
        if (above ? !(d->points[i] > threshold) : !(d->points[i] < threshold)) return false;
    return true;
}

static long aadecide_bound(const struct aadecide *d, long n) {
    return n < d->c.min ? d->c.min : n > d->c.max ? d->c.max : n;
}

/* Launches want - have instances at t. */
static struct aadecide_event aadecide_out(struct aadecide *d, double t, long have, long want) {
    struct aadecide_event ev = {AADECIDE_OUT, t, t + d->c.provision_s + d->c.load_s, have, want};
    d->launching += want - have;
    d->batch[d->n_batches].n = want - have;
    d->batch[d->n_batches++].ready_at = ev.serving_at;
    d->out_base = have;
    d->last_out = d->last_scale = t;
    return ev;
}

/* Drains have - want instances at t. */
static struct aadecide_event aadecide_in(struct aadecide *d, double t, long have, long want) {
    struct aadecide_event ev = {AADECIDE_IN, t, t, have, want};
    d->serving -= have - want;
    d->draining += have - want;
    d->drained_at = t + d->c.drain_s;
    d->last_scale = t;
    return ev;
}

/* The adjustment of p's step that breach falls in; false when none holds it. */
static bool aadecide_pick_step(const struct aadecide_steps *p, double breach, double *adj) {
    for (size_t i = 0; i < p->n; i++) {
        double lo = p->step[i].lower, hi = p->step[i].upper;
        bool in = breach >= 0 ? (isnan(lo) || breach >= lo) && (isnan(hi) || breach < hi)
                              : (isnan(lo) || breach > lo) && (isnan(hi) || breach <= hi);
        if (in) {
            *adj = p->step[i].adjustment;
            return true;
        }
    }
    return false;
}

/* The desired count p's adjustment adj makes of base. */
static long aadecide_adjusted(const struct aadecide_steps *p, long base, double adj) {
    if (p->type == AADECIDE_EXACT) return (long)adj;
    if (p->type == AADECIDE_CHANGE) return base + (long)adj;
    double delta = (double)base * adj / 100;
    long n = (long)delta;                             /* towards zero ... */
    if (n == 0 && delta != 0) n = delta > 0 ? 1 : -1; /* ... but at least 1 */
    if (p->min_magnitude > 0 && labs(n) < p->min_magnitude && n != 0)
        n = n > 0 ? p->min_magnitude : -p->min_magnitude;
    return base + n;
}

struct aadecide_event aadecide_step(struct aadecide *d, const struct aadecide_steps *p, double t,
                                    double breach) {
    struct aadecide_event none = {AADECIDE_NONE, t, 0, 0, 0};
    double adj;
    aadecide_advance(d, t);
    if (!aadecide_pick_step(p, breach, &adj)) return none;
    long have = aadecide_desired(d);
    bool cooling = t - d->last_out < p->cooldown_s;
    long want = aadecide_bound(d, aadecide_adjusted(p, cooling ? d->out_base : have, adj));
    if (want > have && d->n_batches < AADECIDE_BATCHES) {
        long base = d->out_base;
        struct aadecide_event ev = aadecide_out(d, t, have, want);
        if (cooling) d->out_base = base; /* the cooldown's start counts on */
        return ev;
    }
    if (want < have && !d->c.disable_in && d->launching == 0 && t - d->last_scale >= p->cooldown_s)
        return aadecide_in(d, t, have, want);
    return none;
}

struct aadecide_event aadecide_point(struct aadecide *d, double t, double value) {
    struct aadecide_event ev = {AADECIDE_NONE, t, 0, 0, 0};
    aadecide_advance(d, t);
    if (d->n_points == AADECIDE_POINTS_MAX) {
        memmove(d->points, d->points + 1, (AADECIDE_POINTS_MAX - 1) * sizeof *d->points);
        d->n_points--;
    }
    d->points[d->n_points++] = value;
    long have = aadecide_desired(d);
    long want = aadecide_bound(d, (long)ceil((double)have * value / d->c.target - 1e-9));
    if (aadecide_alarm(d, d->c.out_points, d->c.target, true) && want > have &&
        t - d->last_out >= d->c.out_cooldown_s && d->n_batches < AADECIDE_BATCHES) {
        ev = aadecide_out(d, t, have, want);
    } else if (!d->c.disable_in &&
               aadecide_alarm(d, d->c.in_points, d->c.in_ratio * d->c.target, false) &&
               want < have && d->launching == 0 && t - d->last_scale >= d->c.in_cooldown_s) {
        ev = aadecide_in(d, t, have, want);
    }
    return ev;
}
