#include "scaler.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "mclock.h"
#include "rtcall.h"

static void scaler_timer_cb(evutil_socket_t fd, short what, void *arg) {
    (void)fd;
    (void)what;
    scaler_tick(arg);
}

int scaler_init(struct scaler *s, struct event_base *base, const struct scaler_conf *c) {
    memset(s, 0, sizeof *s);
    s->base = base;
    s->c = *c;
    s->runs = calloc(AASCALE_MAX_TARGETS, sizeof *s->runs);
    s->timer = evtimer_new(base, scaler_timer_cb, s);
    return s->runs && s->timer ? SCALER_OK : SCALER_ERR_NOMEM;
}

void scaler_free(struct scaler *s) {
    if (s->timer) event_free(s->timer);
    s->timer = NULL;
    free(s->runs);
    s->runs = NULL;
    s->n_runs = 0;
}

/* The variant's instance 0 that endpoint/NAME/variant/VARIANT names, or NULL. */
static struct fleet_variant *scaler_variant(struct scaler *s, const char *resource,
                                            struct fleet_endpoint **ep) {
    char name[128];
    const char *p = resource + 9, *slash = strchr(p, '/');
    if (strncmp(resource, "endpoint/", 9) != 0 || !slash || (size_t)(slash - p) >= sizeof name ||
        strncmp(slash, "/variant/", 9) != 0)
        return NULL;
    snprintf(name, sizeof name, "%.*s", (int)(slash - p), p);
    *ep = s->c.find(s->c.find_ud, name);
    const char *var = slash + 9;
    return *ep ? fleet_pick(*ep, var, strlen(var), NULL) : NULL;
}

/* The target tracking policy of target t on a predefined metric, or NULL. */
static const struct aascale_policy *scaler_policy(const struct scaler *s,
                                                  const struct aascale_target *t) {
    for (size_t i = 0; i < s->c.aa->n_policies; i++) {
        const struct aascale_policy *p = &s->c.aa->policies[i];
        if (p->kind == AASCALE_TRACKING && strcmp(p->region, t->region) == 0 &&
            strcmp(p->resource, t->resource) == 0 && strstr(p->config, "\"PredefinedMetricType\""))
            return p;
    }
    return NULL;
}

/* The bounds of target t for instance 0 head into c: its capacities within
 * the fleet's, the instances' provisioning and load. */
static void scaler_bounds(const struct scaler *s, const struct aascale_target *t,
                          const struct fleet_variant *head, struct aadecide_conf *c) {
    c->provision_s = s->c.provision_s;
    c->load_s = head->profile.load_s;
    c->drain_s = 0;                /* released once its calls ended (fleet_advance) */
    long most = (long)head->slots; /* FLEET_INSTANCES_MAX */
    c->min = t->min < 1 ? 1 : t->min > most ? most : t->min;
    c->max = t->max < c->min ? c->min : t->max > most ? most : t->max;
    if (t->out_suspended) c->max = c->min > (long)head->instances ? c->min : (long)head->instances;
}

/* The decisions' configuration policy p (on target t) gives. */
static bool scaler_policy_conf(const struct aascale_target *t, const struct aascale_policy *p,
                               struct aadecide_conf *c, bool *high_res) {
    cJSON *j = cJSON_Parse(p->config);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "TargetValue");
    const cJSON *pre = cJSON_GetObjectItemCaseSensitive(j, "PredefinedMetricSpecification");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(pre, "PredefinedMetricType");
    if (!cJSON_IsNumber(v) || !cJSON_IsString(type)) {
        cJSON_Delete(j);
        return false;
    }
    *high_res = strstr(type->valuestring, "ConcurrentRequests") != NULL;
    aadecide_defaults(c, *high_res);
    c->target = v->valuedouble;
    const cJSON *out = cJSON_GetObjectItemCaseSensitive(j, "ScaleOutCooldown"),
                *in = cJSON_GetObjectItemCaseSensitive(j, "ScaleInCooldown"),
                *off = cJSON_GetObjectItemCaseSensitive(j, "DisableScaleIn");
    if (cJSON_IsNumber(out) && out->valuedouble >= 0) c->out_cooldown_s = out->valuedouble;
    if (cJSON_IsNumber(in) && in->valuedouble >= 0) c->in_cooldown_s = in->valuedouble;
    c->disable_in = cJSON_IsTrue(off) || t->in_suspended;
    cJSON_Delete(j);
    return true;
}

/* The decisions' configuration of policy p on target t for instance 0 head. */
static bool scaler_conf(const struct scaler *s, const struct aascale_target *t,
                        const struct aascale_policy *p, const struct fleet_variant *head,
                        struct aadecide_conf *c, bool *high_res) {
    if (!scaler_policy_conf(t, p, c, high_res)) return false;
    scaler_bounds(s, t, head, c);
    return true;
}

/* A step scaling policy of target t, or NULL. */
static const struct aascale_policy *scaler_stepped(const struct scaler *s,
                                                   const struct aascale_target *t) {
    for (size_t i = 0; i < s->c.aa->n_policies; i++) {
        const struct aascale_policy *p = &s->c.aa->policies[i];
        if (p->kind == AASCALE_STEP && strcmp(p->region, t->region) == 0 &&
            strcmp(p->resource, t->resource) == 0)
            return p;
    }
    return NULL;
}

/* Policy p's StepScalingPolicyConfiguration (aascale checked it) into steps. */
static void scaler_steps(const struct aascale_policy *p, struct aadecide_steps *steps) {
    cJSON *j = cJSON_Parse(p->config), *st;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(j, "AdjustmentType"),
                *cool = cJSON_GetObjectItemCaseSensitive(j, "Cooldown"),
                *least = cJSON_GetObjectItemCaseSensitive(j, "MinAdjustmentMagnitude");
    memset(steps, 0, sizeof *steps);
    steps->type = !cJSON_IsString(type)                                       ? AADECIDE_CHANGE
                  : strcmp(type->valuestring, "ExactCapacity") == 0           ? AADECIDE_EXACT
                  : strcmp(type->valuestring, "PercentChangeInCapacity") == 0 ? AADECIDE_PERCENT
                                                                              : AADECIDE_CHANGE;
    steps->cooldown_s = cJSON_IsNumber(cool) && cool->valuedouble >= 0 ? cool->valuedouble : 300;
    steps->min_magnitude = cJSON_IsNumber(least) ? (long)least->valuedouble : 0;
    cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(j, "StepAdjustments")) {
        const cJSON *lo = cJSON_GetObjectItemCaseSensitive(st, "MetricIntervalLowerBound"),
                    *hi = cJSON_GetObjectItemCaseSensitive(st, "MetricIntervalUpperBound"),
                    *adj = cJSON_GetObjectItemCaseSensitive(st, "ScalingAdjustment");
        if (steps->n == AADECIDE_STEPS_MAX || !cJSON_IsNumber(adj)) continue;
        steps->step[steps->n++] =
            (struct aadecide_step){cJSON_IsNumber(lo) ? lo->valuedouble : NAN,
                                   cJSON_IsNumber(hi) ? hi->valuedouble : NAN, adj->valuedouble};
    }
    cJSON_Delete(j);
}

/* The requests the variant at head received, all its instances (or an
 * inference component's copies at their entry 0, all its copies). */
static unsigned long scaler_calls(const struct fleet_variant *head, unsigned long *in_flight) {
    unsigned long n = 0;
    *in_flight = 0;
    for (unsigned k = 0; k < head->slots; k++)
        if (head[k].state != FLEET_SPARE) {
            n += head[k].counts.requests;
            *in_flight += head[k].counts.in_flight;
        }
    return n;
}

/* Run r's datapoint at a period's end from the requests counted so far
 * (calls) and those in flight now, over serving (instances or copies): the
 * calls in flight per serving one for the high-resolution concurrency
 * metrics, else the calls received since the last datapoint per serving one.
 * Counts calls for the next. */
static double scaler_value(struct scaler_run *r, unsigned long calls, unsigned long in_flight,
                           long serving) {
    double per = serving ? (double)serving : 1;
    double value = r->high_res ? (double)in_flight / per : (double)(calls - r->calls) / per;
    r->calls = calls;
    return value;
}

/* Ends activity id (if still kept) as Successful at wall time end. */
static void scaler_end(struct aascale *aa, const char *id, double end) {
    for (size_t i = 0; aa->activities && i < aa->n_activities; i++)
        if (strcmp(aa->activities[i].id, id) == 0) {
            aa->activities[i].end = end;
            aa->activities[i].status = "Successful";
        }
}

/* Records decision ev of run r on target t as an activity in progress. */
static void scaler_record(struct scaler *s, struct scaler_run *r, const struct aascale_target *t,
                          const struct aadecide_event *ev, double start, const char *alarm,
                          const char *policy) {
    char description[96], cause[1024];
    snprintf(description, sizeof description, "Setting desired %s count to %ld.",
             t->dim == AASCALE_COMPONENT ? "copy" : "instance", ev->to);
    snprintf(cause, sizeof cause, "monitor alarm %s in state ALARM triggered policy %s", alarm,
             policy);
    struct aascale_activity *a = aascale_activity(s->c.aa, t, start, description, cause);
    if (!a || r->n_open == SCALER_OPEN_MAX) return;
    snprintf(r->open[r->n_open].id, sizeof r->open[r->n_open].id, "%s", a->id);
    r->open[r->n_open].kind = ev->kind;
    r->open[r->n_open++].serving_at = ev->serving_at;
}

/* Carries out decision ev on the variant at head. */
static void scaler_apply(struct fleet_variant *head, const struct aadecide_event *ev, double now) {
    if (ev->kind == AADECIDE_IN) {
        (void)fleet_drain(head, (unsigned)(ev->from - ev->to), now);
        (void)fleet_advance(head, now); /* those with no call go at once */
        return;
    }
    struct fleet_variant *made[FLEET_INSTANCES_MAX];
    int n = fleet_launch(head, (unsigned)(ev->to - ev->from), now, ev->serving_at, made);
    for (int i = 0; i < n; i++)
        if (!made[i]->step_ev && rtcall_instance(head->runner, made[i]))
            fprintf(stderr, "sm-emulator: cannot start a launched instance of %s: out of memory\n",
                    head->name);
}

/* Runs what is due for run r at model time now (wall: the wall clock now);
 * returns the model time of its next due moment. */
static double scaler_run(struct scaler *s, struct scaler_run *r, const struct aascale_target *t,
                         struct fleet_endpoint *ep, struct fleet_variant *head, double now,
                         double wall) {
    (void)fleet_advance(head, now);
    while (r->next_point <= now) {
        unsigned long in_flight, calls = scaler_calls(head, &in_flight);
        double value = scaler_value(r, calls, in_flight, (long)fleet_census(head).serving);
        struct aadecide_event ev = aadecide_point(&r->d, r->next_point, value);
        if (ev.kind != AADECIDE_NONE) {
            scaler_apply(head, &ev, now);
            scaler_record(s, r, t, &ev, wall - (now - ev.at) / s->c.time_scale,
                          ev.kind == AADECIDE_OUT ? r->alarm_high : r->alarm_low, r->policy);
        }
        r->next_point += r->d.c.period_s;
    }
    struct fleet_census c = fleet_census(head);
    size_t kept = 0;
    for (size_t i = 0; i < r->n_open; i++) {
        bool done =
            r->open[i].kind == AADECIDE_OUT ? r->open[i].serving_at <= now : c.draining == 0;
        double at = r->open[i].kind == AADECIDE_OUT ? r->open[i].serving_at : now;
        if (done)
            scaler_end(s->c.aa, r->open[i].id, wall - (now - at) / s->c.time_scale);
        else
            r->open[kept++] = r->open[i];
    }
    r->n_open = kept;
    if (c.serving != r->told.serving || c.launching != r->told.launching) {
        r->told = c;
        cplane_scaled(s->c.cp, s->c.region, ep->name, head->name, (long)c.serving,
                      (long)c.serving + (long)c.launching, wall);
    }
    double due = r->next_point;
    for (unsigned k = 0; k < head->slots; k++)
        if (head[k].state == FLEET_LAUNCHING && head[k].serving_at < due) due = head[k].serving_at;
    return due;
}

/* Whether the core d, advanced to now, counts the instances of head serving and launching. */
static bool scaler_agree(const struct aadecide *d, const struct fleet_variant *head, double now) {
    struct aadecide at = *d;
    aadecide_advance(&at, now);
    struct fleet_census c = fleet_census(head);
    return at.serving == (long)c.serving && at.launching == (long)c.launching;
}

/* Starts the core d at now on the instances of head: those serving, and those
 * launching as batches by the time they serve (the earliest first). */
static void scaler_start(struct aadecide *d, const struct aadecide_conf *c,
                         const struct fleet_variant *head, double now) {
    aadecide_init(d, c, (long)fleet_census(head).serving, now);
    double after = -INFINITY;
    for (;;) {
        double next = INFINITY;
        long n = 0;
        for (unsigned k = 0; k < head->slots; k++)
            if (head[k].state == FLEET_LAUNCHING && head[k].serving_at > after) {
                if (head[k].serving_at < next) n = 0, next = head[k].serving_at;
                n += head[k].serving_at == next;
            }
        if (isinf(next) || d->n_batches == AADECIDE_BATCHES) break;
        d->batch[d->n_batches].n = n;
        d->batch[d->n_batches++].ready_at = next;
        d->launching += n;
        after = next;
    }
}

/* The run of resource, marked seen: the one kept, or a new one (NULL: no room). */
static struct scaler_run *scaler_find(struct scaler *s, const char *resource) {
    struct scaler_run *r = NULL;
    for (size_t i = 0; !r && i < s->n_runs; i++)
        if (strcmp(s->runs[i].resource, resource) == 0) r = &s->runs[i];
    if (!r && s->n_runs < AASCALE_MAX_TARGETS) {
        r = memset(&s->runs[s->n_runs++], 0, sizeof *r);
        snprintf(r->resource, sizeof r->resource, "%s", resource);
    }
    if (r) r->seen = true;
    return r;
}

/* The decisions' bounds of component comp's copies on target t into c: no
 * provisioning (copies start on the variant's instances), the model's load,
 * the target's min (0 allowed) and max. */
static void scaler_copy_bounds(const struct aascale_target *t, const struct cpic_comp *comp,
                               struct aadecide_conf *c) {
    c->provision_s = 0;
    c->load_s = comp->load_s;
    c->drain_s = 0;
    c->min = t->min;
    c->max = t->max < c->min ? c->min : t->max;
}

/* The run of component target t on comp's copies with decisions c (policy:
 * the target tracking policy's name, "" for step policies only; high_res: on
 * the concurrency metric): the one kept, or started anew at now when the
 * copies changed since (an update). NULL: no room. */
static struct scaler_run *scaler_copy_run(struct scaler *s, const struct aascale_target *t,
                                          const struct cpic_comp *comp, const char *policy,
                                          bool high_res, const struct aadecide_conf *c,
                                          double now) {
    struct scaler_run *r = scaler_find(s, t->resource);
    if (!r) return NULL;
    /* new (next_point 0: never started), another policy or metric, or the copies changed */
    if (r->next_point == 0 || r->ep || strcmp(r->policy, policy) != 0 || r->high_res != high_res ||
        r->d.serving != comp->current || r->d.serving + r->d.launching != comp->desired) {
        aadecide_init(&r->d, c, comp->current, now);
        r->next_point = *policy ? now + c->period_s : INFINITY;
        r->calls = comp->invocations;
        r->n_open = 0;
        r->high_res = high_res;
        snprintf(r->policy, sizeof r->policy, "%s", policy);
    }
    r->ep = NULL;
    r->d.c = *c;
    return r;
}

/* Settles run r of comp at model time now (wall: the wall clock now): copies
 * loaded serve, activities whose copies serve end, DescribeInferenceComponent's
 * counts follow. Returns the model time of its next due moment. */
static double scaler_copy_settle(struct scaler *s, struct scaler_run *r, struct cpic_comp *comp,
                                 double now, double wall) {
    aadecide_advance(&r->d, now);
    size_t kept = 0;
    for (size_t i = 0; i < r->n_open; i++) {
        double end = r->open[i].kind == AADECIDE_OUT ? r->open[i].serving_at : now;
        if (end <= now)
            scaler_end(s->c.aa, r->open[i].id, wall - (now - end) / s->c.time_scale);
        else
            r->open[kept++] = r->open[i];
    }
    r->n_open = kept;
    cpic_scaled(comp, r->d.serving, r->d.serving + r->d.launching, wall);
    double due = r->next_point;
    for (size_t i = 0; i < r->d.n_batches; i++)
        if (r->d.batch[i].ready_at < due) due = r->d.batch[i].ready_at;
    return due;
}

/* The component target t names when it can be scaled now (InService or
 * Updating, no update's copies loading: *due then says when), or NULL. */
static struct cpic_comp *scaler_component(struct scaler *s, const struct aascale_target *t,
                                          double now, double wall, double *due) {
    cplane_advance(s->c.cp, (struct cplane_now){now, wall}); /* loads that ended */
    struct cpic_comp *comp = cpic_find(&s->c.cp->ic, t->region, t->resource + 20);
    *due = INFINITY;
    if (!comp || (comp->state != CPIC_IN_SERVICE && comp->state != CPIC_UPDATING)) return NULL;
    if (comp->ready_at >= 0) { /* an update's copies first */
        *due = comp->ready_at;
        return NULL;
    }
    return comp;
}

/* The calls in flight now on comp's copies (those serving and draining), as
 * the fleet serving its endpoint counts them: 0 before any call made them. */
static unsigned long scaler_copies_in_flight(struct scaler *s, const struct cpic_comp *comp) {
    struct fleet_endpoint *ep = s->c.find(s->c.find_ud, comp->endpoint);
    struct fleet_variant *head = ep ? fleet_copies_head(ep, comp->variant, comp->name) : NULL;
    unsigned long in_flight = 0;
    if (head) (void)scaler_calls(head, &in_flight);
    return in_flight;
}

/* A copy-count target (inference-component/NAME): the decisions run on the
 * component's copies, which serve load_s after a scale-out and go at once on
 * a scale-in; the datapoint is InvocationsPerCopy (the calls it was routed in
 * the period / its copies serving) or, for the high-resolution
 * ConcurrentRequestsPerCopy, its calls in flight at the period's end / its
 * copies serving, as a variant's (scaler_value). Returns the model time of
 * the next due moment (INFINITY: none). */
static double scaler_copies(struct scaler *s, const struct aascale_target *t,
                            const struct aascale_policy *p, double now, double wall) {
    struct aadecide_conf c;
    bool high_res;
    double due;
    struct cpic_comp *comp = scaler_component(s, t, now, wall, &due);
    if (!comp) return due;
    if (!scaler_policy_conf(t, p, &c, &high_res)) return INFINITY;
    scaler_copy_bounds(t, comp, &c);
    struct scaler_run *r = scaler_copy_run(s, t, comp, p->name, high_res, &c, now);
    if (!r) return INFINITY;
    snprintf(r->alarm_high, sizeof r->alarm_high, "%s", p->alarm_high);
    snprintf(r->alarm_low, sizeof r->alarm_low, "%s", p->alarm_low);
    while (r->next_point <= now) {
        aadecide_advance(&r->d, r->next_point);
        unsigned long in_flight = high_res ? scaler_copies_in_flight(s, comp) : 0;
        double value = scaler_value(r, comp->invocations, in_flight, r->d.serving);
        struct aadecide_event ev = aadecide_point(&r->d, r->next_point, value);
        if (ev.kind != AADECIDE_NONE)
            scaler_record(s, r, t, &ev, wall - (now - ev.at) / s->c.time_scale,
                          ev.kind == AADECIDE_OUT ? r->alarm_high : r->alarm_low, r->policy);
        r->next_point += r->d.c.period_s;
    }
    return scaler_copy_settle(s, r, comp, now, wall);
}

/* A copy-count target with step policies only: kept on its copies between
 * the alarms that run them (scaler_step), no datapoints of its own. Returns
 * the model time of the next due moment (a scale-out's copies serving). */
static double scaler_copies_stepped(struct scaler *s, const struct aascale_target *t, double now,
                                    double wall) {
    struct aadecide_conf c;
    double due;
    struct cpic_comp *comp = scaler_component(s, t, now, wall, &due);
    if (!comp) return due;
    aadecide_defaults(&c, false);
    scaler_copy_bounds(t, comp, &c);
    c.disable_in = t->in_suspended;
    struct scaler_run *r = scaler_copy_run(s, t, comp, "", false, &c, now);
    return r ? scaler_copy_settle(s, r, comp, now, wall) : INFINITY;
}

/* The run kept for resource, or NULL. */
static struct scaler_run *scaler_kept(struct scaler *s, const char *resource) {
    for (size_t i = 0; i < s->n_runs; i++)
        if (strcmp(s->runs[i].resource, resource) == 0) return &s->runs[i];
    return NULL;
}

/* Step policy p's decision on run r at the alarm's breach, now (*now the
 * model time, *wall the wall clock). */
static struct aadecide_event scaler_step_decide(const struct scaler *s,
                                                const struct aascale_policy *p,
                                                struct scaler_run *r, double breach, double *now,
                                                double *wall) {
    double real = mclock_real();
    *wall = mclock_wall(real);
    *now = real * s->c.time_scale;
    struct aadecide_steps steps;
    scaler_steps(p, &steps);
    return aadecide_step(&r->d, &steps, *now, breach);
}

/* Step scaling of a copy-count target: policy p's decision on run r of
 * target t at the alarm's breach sets the component's desired copies (new
 * ones serve the model's load time later). */
static int scaler_step_copies(struct scaler *s, const struct aascale_policy *p,
                              const struct aascale_target *t, const char *alarm, double breach) {
    struct scaler_run *r = scaler_kept(s, t->resource);
    struct cpic_comp *comp = cpic_find(&s->c.cp->ic, t->region, t->resource + 20);
    if (!r || !comp) return SCALER_ERR_NOTFOUND;
    double now, wall;
    struct aadecide_event ev = scaler_step_decide(s, p, r, breach, &now, &wall);
    if (ev.kind != AADECIDE_NONE) {
        scaler_record(s, r, t, &ev, wall, alarm, p->name);
        (void)scaler_copy_settle(s, r, comp, now, wall); /* the desired copies, told */
    }
    scaler_tick(s); /* the timer for the new copies */
    return SCALER_OK;
}

void scaler_tick(struct scaler *s) {
    double real = mclock_real(), wall = mclock_wall(real);
    double now = real * s->c.time_scale, due = INFINITY;
    for (size_t i = 0; i < s->n_runs; i++) s->runs[i].seen = false;
    for (size_t i = 0; i < s->c.aa->n_targets; i++) {
        const struct aascale_target *t = &s->c.aa->targets[i];
        if (strcmp(t->region, s->c.region) != 0) continue;
        const struct aascale_policy *p = scaler_policy(s, t);
        if (t->dim == AASCALE_COMPONENT) {
            double next = p                      ? scaler_copies(s, t, p, now, wall)
                          : scaler_stepped(s, t) ? scaler_copies_stepped(s, t, now, wall)
                                                 : INFINITY;
            if (next < due) due = next;
            continue;
        }
        bool stepped = !p && scaler_stepped(s, t); /* its alarms run it (scaler_step) */
        struct fleet_endpoint *ep = NULL;
        struct fleet_variant *head = p || stepped ? scaler_variant(s, t->resource, &ep) : NULL;
        struct aadecide_conf c;
        bool high_res = false;
        if (!head) continue;
        if (stepped) {
            aadecide_defaults(&c, false);
            scaler_bounds(s, t, head, &c);
            c.disable_in = t->in_suspended;
        } else if (!scaler_conf(s, t, p, head, &c, &high_res)) {
            continue;
        }
        const char *tracking = p ? p->name : "";
        struct scaler_run *r = scaler_find(s, t->resource);
        if (!r) continue;
        (void)fleet_advance(head, now);
        if (r->ep != ep || strcmp(r->policy, tracking) != 0 || r->high_res != high_res ||
            !scaler_agree(&r->d, head, now)) {
            unsigned long in_flight;
            scaler_start(&r->d, &c, head, now);
            r->ep = ep;
            r->high_res = high_res;
            r->next_point = p ? now + c.period_s : INFINITY;
            r->calls = scaler_calls(head, &in_flight);
            r->n_open = 0;
            r->told = fleet_census(head);
            snprintf(r->policy, sizeof r->policy, "%s", tracking);
        }
        r->d.c = c; /* the policy and the target as they are now */
        snprintf(r->alarm_high, sizeof r->alarm_high, "%s", p ? p->alarm_high : "");
        snprintf(r->alarm_low, sizeof r->alarm_low, "%s", p ? p->alarm_low : "");
        double next = scaler_run(s, r, t, ep, head, now, wall);
        if (next < due) due = next;
    }
    size_t kept = 0; /* targets gone or without a policy: their instances stay as they are */
    for (size_t i = 0; i < s->n_runs; i++)
        if (s->runs[i].seen) s->runs[kept++] = s->runs[i];
    s->n_runs = kept;
    if (isinf(due)) {
        evtimer_del(s->timer);
        return;
    }
    double delay = (due - now) / s->c.time_scale;
    if (delay < 0) delay = 0;
    struct timeval tv = {(time_t)delay, (suseconds_t)((delay - (double)(time_t)delay) * 1e6)};
    evtimer_add(s->timer, &tv);
}

int scaler_step(struct scaler *s, const char *policy_arn, const char *alarm, double breach) {
    const struct aascale_policy *p = NULL;
    for (size_t i = 0; !p && i < s->c.aa->n_policies; i++)
        if (s->c.aa->policies[i].kind == AASCALE_STEP &&
            strcmp(s->c.aa->policies[i].region, s->c.region) == 0 &&
            strcmp(s->c.aa->policies[i].arn, policy_arn) == 0)
            p = &s->c.aa->policies[i];
    if (!p) return SCALER_ERR_NOTFOUND;
    scaler_tick(s); /* the target's run, started on its instances as they are */
    const struct aascale_target *t = aascale_target(s->c.aa, s->c.region, p->resource);
    if (t && t->dim == AASCALE_COMPONENT) return scaler_step_copies(s, p, t, alarm, breach);
    struct fleet_endpoint *ep = NULL;
    struct fleet_variant *head = t ? scaler_variant(s, t->resource, &ep) : NULL;
    struct scaler_run *r = head ? scaler_kept(s, t->resource) : NULL;
    if (!r) return SCALER_ERR_NOTFOUND;
    double now, wall;
    struct aadecide_event ev = scaler_step_decide(s, p, r, breach, &now, &wall);
    if (ev.kind != AADECIDE_NONE) {
        scaler_apply(head, &ev, now);
        scaler_record(s, r, t, &ev, wall, alarm, p->name);
    }
    scaler_tick(s); /* DescribeEndpoint's counts, the timer for the launches */
    return SCALER_OK;
}
