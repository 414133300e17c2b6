#include "cphost.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "admit.h"
#include "mclock.h"
#include "splitmix.h"

struct cplane_now cphost_now(const struct cphost *h) {
    double real = mclock_real();
    return (struct cplane_now){real * h->main->time_scale, mclock_wall(real)};
}

static void cphost_timer_cb(evutil_socket_t fd, short what, void *arg) {
    struct cphost *h = arg;
    (void)fd;
    (void)what;
    cplane_advance(h->cp, cphost_now(h));
    cphost_arm(h);
}

int cphost_init(struct cphost *h, struct event_base *base, const struct invoke *main,
                const struct options *opts, const struct model_library *lib, struct cplane *cp,
                const char *region) {
    memset(h, 0, sizeof *h);
    h->base = base;
    h->main = main;
    h->opts = opts;
    h->lib = lib;
    h->cp = cp;
    h->region = region;
    buf_init(&h->err, 4096);
    h->timer = evtimer_new(base, cphost_timer_cb, h);
    return h->timer ? CPHOST_OK : CPHOST_ERR_NOMEM;
}

static void cphost_ep_free(struct cphost_ep *e) {
    rtcall_stop(&e->inv);
    fleet_free(&e->fleet);
    auth_free(&e->inv.auth);
    reqlog_close(&e->inv.reqlog);
    free(e);
}

void cphost_free(struct cphost *h) {
    for (struct cphost_ep *e = h->eps, *next; e; e = next) {
        next = e->next;
        cphost_ep_free(e);
    }
    h->eps = NULL;
    if (h->timer) event_free(h->timer);
    h->timer = NULL;
    buf_free(&h->err);
}

struct invoke *cphost_find(struct cphost *h, const char *name, size_t n) {
    for (struct cphost_ep *e = h->eps; e; e = e->next)
        if (!e->retired && strlen(e->name) == n && memcmp(e->name, name, n) == 0) return &e->inv;
    return NULL;
}

int cphost_stats_more(void *ctx, struct buf *out, double now, bool *first) {
    struct cphost *h = ctx;
    int rc = 0;
    for (struct cphost_ep *e = h->eps; !rc && e; e = e->next) {
        if (e->retired) continue;
        if (e->inv.ics) /* the components' copies as the control plane counts them now */
            admit_copies(&e->fleet, e->inv.ics, e->inv.ic_region ? e->inv.ic_region : h->region);
        rc = fleet_json_members(out, &e->fleet, now, first);
    }
    return rc;
}

/* Retires the hosted endpoint called name, if any. */
static void cphost_retire(struct cphost *h, const char *name) {
    for (struct cphost_ep *e = h->eps; e; e = e->next)
        if (!e->retired && strcmp(e->name, name) == 0) e->retired = true;
}

/* Frees the retired endpoints with no call in flight. */
static void cphost_sweep(struct cphost *h) {
    for (struct cphost_ep **p = &h->eps; *p;) {
        struct cphost_ep *e = *p;
        if (e->retired && e->inv.totals.in_flight == 0) {
            *p = e->next;
            cphost_ep_free(e);
        } else {
            p = &e->next;
        }
    }
}

/* Whether --set's target names variant var of endpoint ep. */
static bool cphost_targets(const char *target, const char *ep, const char *var) {
    char full[140];
    snprintf(full, sizeof full, "%s/%s", ep, var);
    return strcmp(target, "*") == 0 || strcmp(target, ep) == 0 || strcmp(target, full) == 0;
}

/* The variants of the deployment in e's fleet, with their weights and the --set options. */
static int cphost_fleet(struct cphost *h, struct cphost_ep *e, const struct cpres_deploy *d) {
    for (size_t i = 0; i < d->cfg.n_v; i++) {
        struct fleet_spec oe = {"", "", d->p[i].profile};
        snprintf(oe.name, sizeof oe.name, "%s", e->name);
        snprintf(oe.variant, sizeof oe.variant, "%s", d->cfg.v[i].name);
        char weight[32];
        snprintf(weight, sizeof weight, "%.17g", d->cfg.v[i].weight);
        struct fleet_setting w = {"", "weight", weight};
        snprintf(w.target, sizeof w.target, "%s/%s", e->name, d->cfg.v[i].name);
        char count[32];
        snprintf(count, sizeof count, "%ld", d->cfg.v[i].count);
        struct fleet_setting n = w, r = w;
        n.key = "instances";
        n.value = count;
        r.key = "routing";
        r.value = d->cfg.v[i].routing[0] ? d->cfg.v[i].routing : "RANDOM";
        if (fleet_add(&e->fleet, &oe, h->lib, &h->err) || fleet_set(&e->fleet, &w, &h->err) ||
            fleet_set(&e->fleet, &n, &h->err) || fleet_set(&e->fleet, &r, &h->err))
            return -1;
        for (size_t k = 0; k < h->opts->n_sets; k++)
            if (cphost_targets(h->opts->sets[k].target, e->name, d->cfg.v[i].name)) {
                struct fleet_setting s = h->opts->sets[k];
                snprintf(s.target, sizeof s.target, "%s/%s", e->name, d->cfg.v[i].name);
                if (fleet_set(&e->fleet, &s, &h->err)) return -1;
            }
    }
    if (fleet_seed(&e->fleet, h->opts->seed)) return -1;
    const char *log = h->opts->log_file;
    return log && strstr(log, "{endpoint}")
               ? fleet_open_logs(&e->fleet, log, h->opts->log_subsecond, &h->err)
               : 0;
}

/* The runtime of e: the main runtime's settings and a copy of its keys. */
static int cphost_invoke(struct cphost *h, struct cphost_ep *e) {
    const struct invoke *m = h->main;
    struct invoke *inv = &e->inv;
    inv->base = h->base;
    inv->fleet = &e->fleet;
    inv->send = m->send;
    inv->full = m->full;
    snprintf(inv->region, sizeof inv->region, "%s", m->region);
    snprintf(inv->account, sizeof inv->account, "%s", m->account);
    inv->time_scale = m->time_scale;
    inv->max_duration = m->max_duration;
    inv->log_interval = m->log_interval;
    inv->cwlogs = m->cwlogs;
    inv->cwmetrics = m->cwmetrics;
    inv->ics = m->ics;
    inv->ic_region = m->ic_region;
    inv->rng = h->opts->seed ^ splitmix_hash(e->name);
    if (auth_init(&inv->auth, m->auth.region)) return -1;
    for (size_t i = 0; i < m->auth.n_keys; i++) {
        const struct auth_key *k = &m->auth.keys[i];
        if (auth_add_key(&inv->auth, k->access_key_id, k->secret_access_key, k->session_token,
                         k->expiration))
            return -1;
    }
    return rtcall_start(inv) ? -1 : 0;
}

/* Starts serving ep's live deployment (replacing what served it). */
static void cphost_serve(struct cphost *h, const struct cpres_endpoint *ep) {
    struct cphost_ep *e = calloc(1, sizeof *e);
    cphost_retire(h, ep->name);
    buf_reset(&h->err);
    if (e) snprintf(e->name, sizeof e->name, "%s", ep->name);
    if (!e || cphost_fleet(h, e, &ep->live) || cphost_invoke(h, e)) {
        fprintf(stderr, "sm-emulator: cannot serve endpoint %s: %s\n", ep->name,
                h->err.len ? buf_str(&h->err) : "out of memory");
        if (e) cphost_ep_free(e);
        return;
    }
    e->next = h->eps;
    h->eps = e;
}

void cphost_event(void *ud, enum cplane_event_kind kind, const struct cpres_endpoint *ep) {
    struct cphost *h = ud;
    if (strcmp(ep->region, h->region) != 0 || ep->is_static) return;
    if (kind == CPLANE_SERVE)
        cphost_serve(h, ep);
    else
        cphost_retire(h, ep->name);
}

void cphost_arm(struct cphost *h) {
    cphost_sweep(h);
    double next = cplane_next(h->cp);
    if (next < 0) {
        evtimer_del(h->timer);
        return;
    }
    double delay = (next - cphost_now(h).model) / h->main->time_scale;
    if (delay < 0) delay = 0;
    struct timeval tv = {(time_t)delay, (suseconds_t)((delay - (double)(time_t)delay) * 1e6)};
    evtimer_add(h->timer, &tv);
}
