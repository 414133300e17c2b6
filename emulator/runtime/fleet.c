#include "fleet.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "splitmix.h"

static struct fleet_endpoint *fleet_named(const struct fleet *f, const char *name) {
    return fleet_find(f, name, strlen(name));
}

struct fleet_endpoint *fleet_find(const struct fleet *f, const char *name, size_t n) {
    for (size_t i = 0; i < f->n_eps; i++)
        if (strlen(f->eps[i].name) == n && memcmp(f->eps[i].name, name, n) == 0) return &f->eps[i];
    return NULL;
}

/* The endpoint called name, added when new. */
static struct fleet_endpoint *fleet_endpoint(struct fleet *f, const char *name) {
    struct fleet_endpoint *ep = fleet_named(f, name);
    if (ep) return ep;
    struct fleet_endpoint *eps = realloc(f->eps, (f->n_eps + 1) * sizeof *eps);
    if (!eps) return NULL;
    f->eps = eps;
    ep = memset(&eps[f->n_eps++], 0, sizeof *ep);
    snprintf(ep->name, sizeof ep->name, "%s", name);
    return ep;
}

int fleet_add(struct fleet *f, const struct fleet_spec *e, const struct model_library *lib,
              struct buf *err) {
    struct fleet_endpoint *ep = fleet_endpoint(f, e->name);
    if (!ep) return buf_fail(err, FLEET_ERR_NOMEM, "out of memory");
    if (fleet_pick(ep, e->variant, strlen(e->variant), NULL))
        return buf_fail(err, FLEET_ERR_INVALID, "--endpoint %s/%s is given twice", e->name,
                        e->variant);
    struct fleet_variant *vs = realloc(ep->variants, (ep->n_variants + 1) * sizeof *vs);
    if (!vs) return buf_fail(err, FLEET_ERR_NOMEM, "out of memory");
    ep->variants = vs;
    ep->lib = lib;
    struct fleet_variant *var = memset(&vs[ep->n_variants], 0, sizeof *var);
    snprintf(var->name, sizeof var->name, "%s", e->variant);
    var->instances = var->slots = 1;
    int rc = model_find(lib, e->profile, &var->profile);
    if (rc == MODEL_ERR_NOMEM) return buf_fail(err, FLEET_ERR_NOMEM, "out of memory");
    if (rc)
        return buf_fail(err, FLEET_ERR_INVALID, "--endpoint %s/%s=%s: unknown profile '%s' (%s%s)",
                        e->name, e->variant, e->profile, e->profile, model_builtin_names(),
                        lib && lib->n ? " or one of --profile-file" : "");
    ep->n_variants++;
    return FLEET_OK;
}

/* Whether --set's target names variant var of ep. */
static bool fleet_targets(const char *target, const struct fleet_endpoint *ep,
                          const struct fleet_variant *var) {
    char full[140];
    snprintf(full, sizeof full, "%s/%s", ep->name, var->name);
    return strcmp(target, "*") == 0 || strcmp(target, ep->name) == 0 || strcmp(target, full) == 0;
}

/* --set's keys that are the variant's, not its profile's: 1 when set applied,
 * 0 when it is not one of them, or FLEET_ERR_INVALID with err. */
static int fleet_set_own(struct fleet_variant *var, const struct fleet_setting *set,
                         struct buf *err) {
    if (strcmp(set->key, "routing") == 0) {
        if (strcmp(set->value, "RANDOM") == 0)
            var->routing = FLEET_ROUTE_RANDOM;
        else if (strcmp(set->value, "LEAST_OUTSTANDING_REQUESTS") == 0)
            var->routing = FLEET_ROUTE_LEAST_BUSY;
        else
            return buf_fail(err, FLEET_ERR_INVALID,
                            "--set %s.routing: '%.64s' is not RANDOM or LEAST_OUTSTANDING_REQUESTS",
                            set->target, set->value);
        return 1;
    }
    if (strcmp(set->key, "instances") != 0) return 0;
    char *end = NULL;
    long n = strtol(set->value, &end, 10);
    if (!*set->value || *end || n < 1 || n > FLEET_INSTANCES_MAX)
        return buf_fail(err, FLEET_ERR_INVALID,
                        "--set %s.instances: '%.64s' is not a whole number from 1 to %d",
                        set->target, set->value, FLEET_INSTANCES_MAX);
    var->instances = (unsigned)n;
    return 1;
}

/* Keeps set, a profile key set on variant of ep, for its components' copies. */
static int fleet_override(struct fleet_endpoint *ep, const char *variant,
                          const struct fleet_setting *set) {
    struct fleet_override *o = realloc(ep->overrides, (ep->n_overrides + 1) * sizeof *o);
    if (!o) return FLEET_ERR_NOMEM;
    ep->overrides = o;
    o = &o[ep->n_overrides];
    snprintf(o->variant, sizeof o->variant, "%s", variant);
    o->key = strdup(set->key);
    o->value = strdup(set->value);
    if (!o->key || !o->value) {
        free(o->key);
        free(o->value);
        return FLEET_ERR_NOMEM;
    }
    ep->n_overrides++;
    return FLEET_OK;
}

int fleet_set(struct fleet *f, const struct fleet_setting *set, struct buf *err) {
    size_t hits = 0;
    for (size_t e = 0; e < f->n_eps; e++) {
        for (size_t v = 0; v < f->eps[e].n_variants; v++) {
            struct fleet_variant *var = &f->eps[e].variants[v];
            if (!fleet_targets(set->target, &f->eps[e], var)) continue;
            hits++;
            int vrc = fleet_set_own(var, set, err);
            if (vrc < 0) return vrc;
            if (vrc > 0) continue;
            struct buf why;
            buf_init(&why, 512);
            int rc = model_set(&var->profile, set->key, set->value, &why);
            if (rc)
                rc = buf_fail(err, rc == MODEL_ERR_NOMEM ? FLEET_ERR_NOMEM : FLEET_ERR_INVALID,
                              "--set %s.%s: %s", set->target, set->key, buf_str(&why));
            buf_free(&why);
            if (!rc && fleet_override(&f->eps[e], var->name, set))
                rc = buf_fail(err, FLEET_ERR_NOMEM, "out of memory");
            if (rc) return rc;
        }
    }
    if (hits) return FLEET_OK;
    return buf_fail(err, FLEET_ERR_INVALID, "--set %s.%s: no endpoint or variant '%s'", set->target,
                    set->key, set->target);
}

/* Inserts the entries 1 .. FLEET_INSTANCES_MAX-1 of ep's variant at i (its
 * instance 0): copies of it up to its instances, spare past them. */
static int fleet_expand(struct fleet_endpoint *ep, size_t i) {
    unsigned n = ep->variants[i].instances, all = FLEET_INSTANCES_MAX;
    struct fleet_variant *vs = realloc(ep->variants, (ep->n_variants + all - 1) * sizeof *vs);
    if (!vs) return FLEET_ERR_NOMEM;
    ep->variants = vs;
    memmove(&vs[i + all], &vs[i + 1], (ep->n_variants - i - 1) * sizeof *vs);
    ep->n_variants += all - 1;
    vs[i].slots = all;
    int rc = FLEET_OK;
    for (unsigned k = 1; k < all; k++) {
        struct fleet_variant *copy = memset(&vs[i + k], 0, sizeof *copy);
        snprintf(copy->name, sizeof copy->name, "%s", vs[i].name);
        copy->instance = k;
        copy->routing = vs[i].routing;
        copy->state = FLEET_SPARE;
        if (k < n && !rc && model_copy(&copy->profile, &vs[i].profile) == 0)
            copy->state = FLEET_SERVING;
        else if (k < n)
            rc = FLEET_ERR_NOMEM;
    }
    if (rc) vs[i].instances = 1; /* its copies made are freed with it */
    return rc;
}

/* Starts v's batch, faults and random state from its seed and profile. */
static void fleet_start(struct fleet_variant *v) {
    batch_init(&v->batch, &v->profile, v->seed ^ 0x5c4ed);
    v->faults.rng = v->seed ^ 0xfa017;
    v->faults.stream_rng = v->seed ^ 0x5f4ea3;
    v->faults.late_rng = v->seed ^ 0x1a7e;
    v->rng = v->seed ^ 0x1d5;
}

int fleet_seed(struct fleet *f, uint64_t seed) {
    for (size_t e = 0; e < f->n_eps; e++)
        for (size_t v = 0; v < f->eps[e].n_variants; v++) {
            struct fleet_variant *var = &f->eps[e].variants[v];
            if (var->instance == 0 &&
                (v + 1 == f->eps[e].n_variants || var[1].instance == 0)) /* not made yet */
                if (fleet_expand(&f->eps[e], v)) return FLEET_ERR_NOMEM;
        }
    for (size_t e = 0; e < f->n_eps; e++) {
        for (size_t v = 0; v < f->eps[e].n_variants; v++) {
            struct fleet_variant *var = &f->eps[e].variants[v];
            char full[140];
            snprintf(full, sizeof full, "%s/%s", f->eps[e].name, var->name);
            uint64_t base = var->profile.seed ? var->profile.seed : seed ^ splitmix_hash(full);
            if (var->instance)
                base = splitmix_hash(full) ^ (base + (uint64_t)0x9e37u * var->instance);
            var->ep = &f->eps[e];
            var->seed = base;
            if (var->state == FLEET_SPARE) continue; /* made when launched */
            fleet_start(var);
        }
    }
    return FLEET_OK;
}

/* Replaces {endpoint} and {variant} in pattern ({variant} of instance k > 0:
 * VARIANT-k+1, a file per container). */
static int fleet_log_path(const char *pattern, const char *ep, const struct fleet_variant *v,
                          struct buf *out) {
    char var[80];
    if (v->instance)
        snprintf(var, sizeof var, "%s-%u", v->name, v->instance + 1);
    else
        snprintf(var, sizeof var, "%s", v->name);
    int rc = 0;
    for (const char *p = pattern; !rc && *p; p++) {
        if (strncmp(p, "{endpoint}", 10) == 0) {
            rc = buf_adds(out, ep);
            p += 9;
        } else if (strncmp(p, "{variant}", 9) == 0) {
            rc = buf_adds(out, var);
            p += 8;
        } else {
            rc = buf_addc(out, *p);
        }
    }
    return rc;
}

/* Refuses a pattern that would give two containers one file. */
static int fleet_log_pattern(const struct fleet *f, const char *pattern, struct buf *err) {
    size_t total = 0;
    for (size_t e = 0; e < f->n_eps; e++)
        for (size_t v = 0; v < f->eps[e].n_variants; v++)
            total += f->eps[e].variants[v].state != FLEET_SPARE;
    bool by_endpoint = strstr(pattern, "{endpoint}"), by_variant = strstr(pattern, "{variant}");
    if (total > 1 && !by_variant && !(by_endpoint && f->n_eps == total))
        return buf_fail(err, FLEET_ERR_INVALID,
                        "--log-file %s: %zu containers would share one file; put {endpoint} "
                        "(and {variant}) in the path",
                        pattern, total);
    return FLEET_OK;
}

int fleet_open_logs(struct fleet *f, const char *pattern, bool subsecond, struct buf *err) {
    int rc = fleet_log_pattern(f, pattern, err);
    for (size_t e = 0; !rc && e < f->n_eps; e++) {
        for (size_t v = 0; !rc && v < f->eps[e].n_variants; v++) {
            if (f->eps[e].variants[v].state == FLEET_SPARE) continue;
            struct buf path;
            buf_init(&path, 4096);
            if (fleet_log_path(pattern, f->eps[e].name, &f->eps[e].variants[v], &path))
                rc = buf_fail(err, FLEET_ERR_INVALID, "--log-file %s: the path is too long",
                              pattern);
            else if (vlog_open(&f->eps[e].variants[v].log, buf_str(&path), subsecond,
                               f->eps[e].variants[v].name, err))
                rc = FLEET_ERR_IO;
            buf_free(&path);
        }
    }
    return rc;
}

/* One of the n serving entries of vs[0..all) by routing from *rng (n > 1: one
 * draw), or NULL when none serves. */
static struct fleet_variant *fleet_route_among(struct fleet_variant *vs, unsigned all, unsigned n,
                                               enum fleet_routing routing, uint64_t *rng) {
    unsigned long least = ULONG_MAX;
    unsigned pick = 0;
    bool random = routing == FLEET_ROUTE_RANDOM;
    if (random && n > 1) {
        pick = (unsigned)(splitmix_unit(rng) * n) % n;
    } else if (!random) {
        unsigned ties = 0;
        for (unsigned k = 0; k < all; k++) {
            if (vs[k].state != FLEET_SERVING) continue;
            if (vs[k].counts.in_flight < least) {
                least = vs[k].counts.in_flight;
                ties = 0;
            }
            if (vs[k].counts.in_flight == least) ties++;
        }
        if (n > 1 && ties) pick = (unsigned)(splitmix_unit(rng) * ties) % ties;
    }
    for (unsigned k = 0; k < all; k++)
        if (vs[k].state == FLEET_SERVING && (random || vs[k].counts.in_flight == least) &&
            pick-- == 0)
            return &vs[k];
    return NULL;
}

/* One of the serving instances from vs (instance 0) by routing (see fleet.h). */
static struct fleet_variant *fleet_route(struct fleet_variant *vs, uint64_t *rng) {
    if (vs->instances <= 1 || !rng) return vs;
    struct fleet_variant *v = fleet_route_among(vs, vs->slots, vs->instances, vs->routing, rng);
    return v ? v : vs;
}

/* A copy's state as the stats name it. */
static const char *fleet_state_name(enum fleet_state s) {
    return s == FLEET_SERVING ? "serving" : s == FLEET_DRAINING ? "draining" : "released";
}

struct fleet_census fleet_census(const struct fleet_variant *head) {
    struct fleet_census c = {0, 0, 0};
    for (unsigned k = 0; k < head->slots; k++) {
        c.serving += head[k].state == FLEET_SERVING;
        c.launching += head[k].state == FLEET_LAUNCHING;
        c.draining += head[k].state == FLEET_DRAINING;
    }
    return c;
}

void fleet_start_billing(struct fleet *f, double now) {
    for (size_t e = 0; e < f->n_eps; e++)
        for (size_t v = 0; v < f->eps[e].n_variants; v++) f->eps[e].variants[v].billed_at = now;
}

/* Bills head's variant from its billed_at to t with the instances billed now. */
static void fleet_bill(struct fleet_variant *head, double t) {
    if (t <= head->billed_at) return;
    struct fleet_census c = fleet_census(head);
    head->instance_s += (double)(c.serving + c.draining) * (t - head->billed_at);
    head->billed_at = t;
}

unsigned fleet_advance(struct fleet_variant *head, double now) {
    unsigned served = 0;
    for (;;) { /* the launches due, in time order */
        struct fleet_variant *next = NULL;
        for (unsigned k = 0; k < head->slots; k++)
            if (head[k].state == FLEET_LAUNCHING && head[k].serving_at <= now &&
                (!next || head[k].serving_at < next->serving_at))
                next = &head[k];
        if (!next) break;
        fleet_bill(head, next->serving_at);
        next->state = FLEET_SERVING;
        head->instances++;
        head->changes++;
        served++;
    }
    fleet_bill(head, now);
    for (unsigned k = 0; k < head->slots; k++)
        if (head[k].state == FLEET_DRAINING && head[k].counts.in_flight == 0) {
            head[k].state = FLEET_RELEASED;
            sess_free(&head[k].sessions); /* gone with its container */
            head->changes++;
        }
    return served;
}

/* Makes the spare entry v a copy of instance 0 (head), seeded as fleet_seed would have. */
static int fleet_make(struct fleet_variant *head, struct fleet_variant *v) {
    if (model_copy(&v->profile, &head->profile)) return FLEET_ERR_NOMEM;
    v->ep = head->ep;
    fleet_start(v);
    return FLEET_OK;
}

int fleet_launch(struct fleet_variant *head, unsigned n, double now, double serving_at,
                 struct fleet_variant **made) {
    unsigned got = 0;
    fleet_bill(head, now);
    for (unsigned pass = 0; pass < 2; pass++) /* released ones first, then spares */
        for (unsigned k = 1; got < n && k < head->slots; k++) {
            struct fleet_variant *v = &head[k];
            if (v->state != (pass ? FLEET_SPARE : FLEET_RELEASED)) continue;
            if (pass && fleet_make(head, v)) return FLEET_ERR_NOMEM;
            v->state = FLEET_LAUNCHING;
            v->serving_at = serving_at;
            head->changes++;
            made[got++] = v;
        }
    return (int)got;
}

unsigned fleet_drain(struct fleet_variant *head, unsigned n, double now) {
    unsigned got = 0;
    fleet_bill(head, now);
    for (unsigned k = head->slots; got < n && k-- > 1;)
        if (head[k].state == FLEET_SERVING) {
            head[k].state = FLEET_DRAINING;
            head->instances--;
            head->changes++;
            got++;
        }
    return got;
}

/* --- an inference component's copies --- */

/* The copies of component name on variant of ep, or NULL; made (all spare)
 * when make and new, NULL then when ep has no such variant or out of memory. */
static struct fleet_copies *fleet_copies_of(struct fleet_endpoint *ep, const char *variant,
                                            const char *name, bool make) {
    for (size_t i = 0; i < ep->n_copies; i++)
        if (strcmp(ep->copies[i].name, name) == 0 && strcmp(ep->copies[i].host->name, variant) == 0)
            return &ep->copies[i];
    struct fleet_variant *host = make ? fleet_pick(ep, variant, strlen(variant), NULL) : NULL;
    if (!host) return NULL;
    struct fleet_copies *cs = realloc(ep->copies, (ep->n_copies + 1) * sizeof *cs);
    if (!cs) return NULL;
    ep->copies = cs;
    struct fleet_variant *entries = calloc(FLEET_COPIES_MAX, sizeof *entries);
    if (!entries) return NULL;
    struct fleet_copies *c = &cs[ep->n_copies++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->host = host;
    c->entries = entries;
    char full[200];
    snprintf(full, sizeof full, "%s/%s/%s", ep->name, variant, name);
    for (unsigned k = 0; k < FLEET_COPIES_MAX; k++) {
        struct fleet_variant *v = &entries[k];
        snprintf(v->name, sizeof v->name, "%s", host->name);
        v->instance = k;
        v->state = FLEET_SPARE;
        v->seed = splitmix_hash(full) ^ (host->seed + (uint64_t)0x9e37u * (k + 1));
        v->ep = ep;
        v->host = host;
        v->runner = host->runner;
    }
    entries[0].slots = FLEET_COPIES_MAX;
    entries[0].routing = host->routing;
    return c;
}

/* The profile a new copy on host runs: profile (ep's library or a built-in)
 * with host's --set profile keys on top, when given, known and not host's;
 * else a copy of host's. Returns 0 or FLEET_ERR_NOMEM. */
static int fleet_copy_profile(const struct fleet_endpoint *ep, const struct fleet_variant *host,
                              const char *profile, struct model_profile *p) {
    int rc = MODEL_ERR_UNKNOWN;
    if (profile && *profile && strcmp(profile, host->profile.name) != 0)
        rc = model_find(ep->lib, profile, p);
    if (rc == MODEL_ERR_NOMEM) return FLEET_ERR_NOMEM;
    if (rc) return model_copy(p, &host->profile) ? FLEET_ERR_NOMEM : FLEET_OK;
    for (size_t i = 0; i < ep->n_overrides; i++) {
        const struct fleet_override *o = &ep->overrides[i];
        if (strcmp(o->variant, host->name) != 0) continue;
        struct buf why;
        buf_init(&why, 512);
        rc = model_set(p, o->key, o->value, &why); /* it held on the variant's profile */
        buf_free(&why);
        if (rc == MODEL_ERR_NOMEM) {
            model_free(p);
            return FLEET_ERR_NOMEM;
        }
    }
    return FLEET_OK;
}

/* Makes the spare copy v a container of its variant (host) running profile,
 * seeded as fleet_make seeds an instance. */
static int fleet_copy_make(const struct fleet_endpoint *ep, struct fleet_variant *host,
                           struct fleet_variant *v, const char *profile) {
    if (fleet_copy_profile(ep, host, profile, &v->profile)) return FLEET_ERR_NOMEM;
    fleet_start(v);
    return FLEET_OK;
}

int fleet_copies_set(struct fleet_endpoint *ep, const char *variant, const char *name,
                     const char *profile, long serving) {
    struct fleet_copies *c = fleet_copies_of(ep, variant, name, serving > 0);
    if (!c) return serving > 0 ? FLEET_ERR_INVALID : FLEET_OK;
    struct fleet_variant *head = c->entries;
    unsigned want = serving <= 0                 ? 0
                    : serving > FLEET_COPIES_MAX ? FLEET_COPIES_MAX
                                                 : (unsigned)serving;
    for (unsigned pass = 0; pass < 2; pass++) /* released ones first, then spares */
        for (unsigned k = 0; head->instances < want && k < FLEET_COPIES_MAX; k++) {
            struct fleet_variant *v = &head[k];
            if (v->state != (pass ? FLEET_SPARE : FLEET_RELEASED)) continue;
            if (pass && fleet_copy_make(ep, c->host, v, profile)) return FLEET_ERR_NOMEM;
            v->state = FLEET_SERVING;
            head->instances++;
            head->changes++;
        }
    for (unsigned k = FLEET_COPIES_MAX; head->instances > want && k-- > 0;)
        if (head[k].state == FLEET_SERVING) {
            head[k].state = FLEET_DRAINING;
            head->instances--;
            head->changes++;
        }
    for (unsigned k = 0; k < FLEET_COPIES_MAX; k++)
        if (head[k].state == FLEET_DRAINING && head[k].counts.in_flight == 0) {
            head[k].state = FLEET_RELEASED;
            sess_free(&head[k].sessions); /* gone with its container */
            head->changes++;
        }
    return FLEET_OK;
}

struct fleet_variant *fleet_copies_head(struct fleet_endpoint *ep, const char *variant,
                                        const char *name) {
    struct fleet_copies *c = fleet_copies_of(ep, variant, name, false);
    return c ? c->entries : NULL;
}

struct fleet_variant *fleet_copies_pick(struct fleet_endpoint *ep, const char *variant,
                                        const char *name, const char *sid, size_t sid_len,
                                        uint64_t *rng) {
    struct fleet_copies *c = fleet_copies_of(ep, variant, name, false);
    if (!c) return NULL;
    struct fleet_variant *head = c->entries;
    for (unsigned k = 0; sid && k < FLEET_COPIES_MAX; k++)
        if ((head[k].state == FLEET_SERVING || head[k].state == FLEET_DRAINING) &&
            sess_holds(&head[k].sessions, sid, sid_len))
            return &head[k];
    return fleet_route_among(head, FLEET_COPIES_MAX, head->instances, head->routing, rng);
}

struct fleet_variant *fleet_pick(struct fleet_endpoint *ep, const char *want, size_t want_len,
                                 uint64_t *rng) {
    if (want || !rng) {
        for (size_t i = 0; want && i < ep->n_variants; i++)
            if (strlen(ep->variants[i].name) == want_len &&
                memcmp(ep->variants[i].name, want, want_len) == 0)
                return fleet_route(&ep->variants[i], rng);
        return NULL;
    }
    double total = 0;
    size_t last = 0;
    for (size_t i = 0; i < ep->n_variants; i++)
        if (ep->variants[i].instance == 0) {
            total += ep->variants[i].profile.weight;
            last = i;
        }
    double pick = splitmix_unit(rng) * total;
    for (size_t i = 0; i < last; i++) {
        if (ep->variants[i].instance) continue;
        pick -= ep->variants[i].profile.weight;
        if (pick < 0) return fleet_route(&ep->variants[i], rng);
    }
    return fleet_route(&ep->variants[last], rng);
}

/* The metrics line of one variant's container log. */
static void fleet_log_variant(struct fleet_variant *var, double now, double interval_s) {
    struct batch *b = &var->batch;
    double kv = 0;
    for (struct batch_seq *q = b->running.head; q; q = q->next)
        kv += (double)(q->prompt_tokens + q->produced);
    if (var->profile.kv_cache_tokens) kv /= (double)var->profile.kv_cache_tokens;
    const struct pcache_counts *pc = &b->cache.n;
    double hit = pc->prompt_tokens ? (double)pc->cached_tokens / (double)pc->prompt_tokens : 0;
    vlog_metrics(&var->log, now, interval_s, b->prompt_tokens - var->logged_prompt,
                 b->generated_tokens - var->logged_gen, b->running.n, b->waiting.n, kv, hit);
    vlog_spec(&var->log, now, interval_s, &b->spec);
    var->logged_prompt = b->prompt_tokens;
    var->logged_gen = b->generated_tokens;
}

void fleet_log_metrics(struct fleet *f, double now, double interval_s) {
    for (size_t e = 0; e < f->n_eps; e++)
        for (size_t i = 0; i < f->eps[e].n_variants; i++)
            if (f->eps[e].variants[i].state != FLEET_SPARE &&
                f->eps[e].variants[i].state != FLEET_RELEASED)
                fleet_log_variant(&f->eps[e].variants[i], now, interval_s);
}

/* ,"components":{"NAME":{...}} of the components with copies on var (instance
 * 0), when any: each one's profile, routing, its copies serving and draining,
 * and each copy made's counts, its batch's sequences running and waiting, and
 * its state, in order. Returns 0 or BUF_ERR_*. */
static int fleet_copies_json(struct buf *out, const struct fleet_variant *var) {
    int rc = 0;
    bool first = true;
    for (size_t i = 0; !rc && var->ep && i < var->ep->n_copies; i++) { /* ep: once seeded */
        const struct fleet_copies *c = &var->ep->copies[i];
        if (c->host != var) continue;
        const struct fleet_variant *head = c->entries;
        struct fleet_census n = fleet_census(head);
        rc = buf_adds(out, first ? ",\"components\":{" : ",");
        first = false;
        if (!rc) rc = jsonw_cstr(out, c->name);
        if (!rc) rc = buf_addf(out, ":{\"profile\":");
        if (!rc)
            rc = jsonw_cstr(out, head->state == FLEET_SPARE ? c->host->profile.name
                                                            : head->profile.name);
        if (!rc)
            rc = buf_addf(out, ",\"routing\":\"%s\",\"serving\":%u,\"draining\":%u,\"copies\":[",
                          head->routing == FLEET_ROUTE_RANDOM ? "RANDOM"
                                                              : "LEAST_OUTSTANDING_REQUESTS",
                          n.serving, n.draining);
        unsigned made = 0;
        for (unsigned k = 0; k < FLEET_COPIES_MAX; k++)
            if (head[k].state != FLEET_SPARE) made = k + 1;
        for (unsigned k = 0; !rc && k < made; k++) {
            rc = buf_adds(out, k ? "," : "");
            if (!rc) rc = tally_json_open(out, &head[k].counts, false);
            if (!rc)
                rc = buf_addf(out, ",\"running\":%zu,\"waiting\":%zu,\"state\":\"%s\"}",
                              head[k].batch.running.n, head[k].batch.waiting.n,
                              fleet_state_name(head[k].state));
        }
        if (!rc) rc = buf_adds(out, "]}");
    }
    return rc || first ? rc : buf_addc(out, '}');
}

/* One variant's member: "NAME":{counts...,"profile":"..."}, its counts the
 * sum of the instances made at var, each one's in "instances" when more than
 * one, and "scaling" (fleet_json) at model time now. */
static int fleet_variant_json(struct buf *out, const struct fleet_variant *var, bool first,
                              double now) {
    unsigned made = 1;
    struct tally sum = var->counts;
    for (unsigned k = 1; k < var->slots; k++)
        if (var[k].state != FLEET_SPARE) {
            tally_add(&sum, &var[k].counts);
            made = k + 1;
        }
    struct fleet_census c = fleet_census(var);
    double billed = var->instance_s;
    if (now > var->billed_at) billed += (double)(c.serving + c.draining) * (now - var->billed_at);
    int rc = buf_adds(out, first ? "" : ",");
    if (!rc) rc = jsonw_cstr(out, var->name);
    if (!rc) rc = buf_addc(out, ':');
    if (!rc) rc = tally_json_open(out, &sum, true);
    if (!rc) rc = buf_adds(out, ",\"profile\":");
    if (!rc) rc = jsonw_cstr(out, var->profile.name);
    if (!rc) rc = buf_adds(out, ",\"prefix_cache\":");
    if (!rc) rc = pcache_json(out, &var->batch.cache);
    if (!rc) rc = buf_adds(out, ",\"sessions\":");
    if (!rc) rc = sess_json(out, &var->sessions);
    if (!rc)
        rc = buf_addf(out,
                      ",\"scaling\":{\"serving\":%u,\"launching\":%u,\"draining\":%u,"
                      "\"changes\":%lu,\"instance_seconds\":%.6f,\"model_time\":%.6f}",
                      c.serving, c.launching, c.draining, var->changes, billed, now);
    if (!rc && made > 1) {
        rc = buf_addf(out, ",\"routing\":\"%s\",\"instances\":[",
                      var->routing == FLEET_ROUTE_RANDOM ? "RANDOM" : "LEAST_OUTSTANDING_REQUESTS");
        for (unsigned k = 0; !rc && k < made; k++) {
            rc = buf_adds(out, k ? "," : "");
            if (!rc) rc = tally_json_open(out, &var[k].counts, false);
            if (!rc) rc = buf_addc(out, '}');
        }
        if (!rc) rc = buf_addc(out, ']');
    }
    if (!rc) rc = fleet_copies_json(out, var);
    return rc ? rc : buf_addc(out, '}');
}

int fleet_json_members(struct buf *out, const struct fleet *f, double now, bool *first) {
    int rc = 0;
    for (size_t e = 0; !rc && e < f->n_eps; e++) {
        const struct fleet_endpoint *ep = &f->eps[e];
        rc = buf_adds(out, *first ? "" : ",");
        *first = false;
        if (!rc) rc = jsonw_cstr(out, ep->name);
        if (!rc) rc = buf_addc(out, ':');
        if (!rc) rc = tally_json_open(out, &ep->counts, true);
        if (!rc) rc = buf_adds(out, ",\"variants\":{");
        for (size_t v = 0; !rc && v < ep->n_variants; v++)
            if (ep->variants[v].instance == 0)
                rc = fleet_variant_json(out, &ep->variants[v], v == 0, now);
        if (!rc) rc = buf_adds(out, "}}");
    }
    return rc;
}

int fleet_json(struct buf *out, const struct fleet *f, double now) {
    bool first = true;
    int rc = buf_addc(out, '{');
    if (!rc) rc = fleet_json_members(out, f, now, &first);
    return rc ? rc : buf_addc(out, '}');
}

/* Frees the copies of every component of ep, and its overrides. */
static void fleet_copies_free(struct fleet_endpoint *ep) {
    for (size_t i = 0; i < ep->n_copies; i++) {
        for (unsigned k = 0; k < FLEET_COPIES_MAX; k++) {
            struct fleet_variant *v = &ep->copies[i].entries[k];
            if (v->state == FLEET_SPARE) continue;
            model_free(&v->profile);
            batch_free(&v->batch);
            sess_free(&v->sessions);
        }
        free(ep->copies[i].entries);
    }
    free(ep->copies);
    ep->copies = NULL;
    ep->n_copies = 0;
    for (size_t i = 0; i < ep->n_overrides; i++) {
        free(ep->overrides[i].key);
        free(ep->overrides[i].value);
    }
    free(ep->overrides);
    ep->overrides = NULL;
    ep->n_overrides = 0;
}

void fleet_free(struct fleet *f) {
    for (size_t e = 0; e < f->n_eps; e++) {
        fleet_copies_free(&f->eps[e]);
        for (size_t v = 0; v < f->eps[e].n_variants; v++) {
            if (f->eps[e].variants[v].state == FLEET_SPARE) continue;
            model_free(&f->eps[e].variants[v].profile);
            vlog_close(&f->eps[e].variants[v].log);
            batch_free(&f->eps[e].variants[v].batch);
            sess_free(&f->eps[e].variants[v].sessions);
        }
        free(f->eps[e].variants);
    }
    free(f->eps);
    f->eps = NULL;
    f->n_eps = 0;
}

int fleet_stats_json(struct buf *out, const struct fleet *f, const struct fleet_more *more,
                     const struct tally *totals, const struct gate *gate, double time_scale,
                     double now) {
    static const struct gate_counts none;
    const struct gate_counts *n = gate ? &gate->n : &none;
    int rc = buf_addf(out,
                      "{\"emulator\":\"sm-emulator " SM_VERSION "\",\"time_scale\":%.17g,"
                      "\"connections\":%lu,\"bad_requests\":%lu,\"totals\":",
                      time_scale, n->accepted, n->bad_requests);
    if (!rc) rc = tally_json_open(out, totals, false);
    if (!rc) rc = buf_adds(out, "},\"endpoints\":{");
    bool first = true;
    if (!rc) rc = fleet_json_members(out, f, now, &first);
    if (!rc && more && more->fn) rc = more->fn(more->ctx, out, now, &first);
    if (!rc) rc = buf_addc(out, '}');
    if (!rc && gate) rc = buf_addc(out, ',');
    if (!rc && gate) rc = gate_json(out, gate);
    return rc ? rc : buf_addc(out, '}');
}
