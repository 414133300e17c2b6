/* fleet: the endpoints sm-emulator serves and their production variants, each
 * with its profile, continuous batch, faults, counts and container log; built
 * from the command line (--endpoint, --set, --log-file), and written into
 * GET /emulator/stats. Holds no libevent state but a variant's step timer,
 * which its runner (rtcall.c) owns. */
#ifndef EMU_FLEET_H
#define EMU_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "batch.h"
#include "buf.h"
#include "fault.h"
#include "gate.h"
#include "model.h"
#include "sess.h"
#include "tally.h"
#include "vlog.h"

struct event; /* libevent's */
struct fleet_endpoint;

/* A variant to serve, as --endpoint NAME[/VARIANT]=PROFILE names it. */
struct fleet_spec {
    char name[64];
    char variant[64]; /* "AllTraffic" unless given */
    const char *profile;
};

/* One parameter to change, as --set TARGET.KEY=VALUE says. */
struct fleet_setting {
    char target[130]; /* "NAME", "NAME/VARIANT" or "*" */
    const char *key;
    const char *value;
};

/* How a variant's instances share its requests (its RoutingConfig). */
enum fleet_routing {
    FLEET_ROUTE_RANDOM,     /* RANDOM, SageMaker's default: one drawn at random */
    FLEET_ROUTE_LEAST_BUSY, /* LEAST_OUTSTANDING_REQUESTS: the fewest in flight */
};

#define FLEET_INSTANCES_MAX 64 /* instances of one variant */

/* Where an instance is in its life. A variant starts with its instances
 * serving and the rest of its FLEET_INSTANCES_MAX entries spare; scaling
 * (scaler.h) launches spare or released ones and drains serving ones. */
enum fleet_state {
    FLEET_SERVING = 0, /* takes new calls */
    FLEET_LAUNCHING,   /* decided, serves from serving_at; takes no call */
    FLEET_DRAINING,    /* scaled in: finishes its calls, takes no new one */
    FLEET_RELEASED,    /* made once, gone now: no call, not billed */
    FLEET_SPARE,       /* never made: only its name and instance are set */
};

/* One instance of a production variant: a container and its GPU. A variant is
 * FLEET_INSTANCES_MAX consecutive entries of its endpoint's variants, one name,
 * instance 0 to FLEET_INSTANCES_MAX-1, each made one with its own batch,
 * timers, sessions and counts; only the serving ones are routed to. Its
 * entries stay where they are while it serves (calls point at them). */
struct fleet_variant {
    char name[64];
    unsigned instance;  /* 0 .. FLEET_INSTANCES_MAX - 1 */
    unsigned instances; /* instance 0's: the instances serving (at first --set
                           NAME.instances, a config's InitialInstanceCount) */
    unsigned slots;     /* instance 0's: its entries (1 until fleet_seed made them) */
    enum fleet_state state;
    double serving_at;          /* FLEET_LAUNCHING: the model time it serves from */
    uint64_t seed;              /* FLEET_SPARE: the seed it is made with */
    double instance_s;          /* instance 0's: instance-seconds of the variant billed ... */
    double billed_at;           /* ... up to this model time */
    unsigned long changes;      /* instance 0's: instances launched, served, drained, released */
    enum fleet_routing routing; /* --set NAME.routing */
    struct fleet_endpoint *ep;  /* set by fleet_seed */
    struct model_profile profile;
    struct batch batch;
    struct fault_state faults;
    uint64_t rng; /* overhead jitter and reply ids */
    struct tally counts;
    struct vlog log;
    unsigned long logged_prompt, logged_gen; /* batch counters at the last metrics line */
    struct sess sessions;                    /* the container's stateful sessions */
    struct event *step_ev;                   /* ends the planned decode step: the runner's */
    void *runner;                            /* what runs the variant's timers (rtcall) */
    struct fleet_variant *host; /* a component's copy: its variant's instance 0; else NULL */
};

#define FLEET_COPIES_MAX 64 /* copies of one inference component that serve */

/* One inference component's copies on a variant (issue 33): each copy is a
 * container of its own, made as a launched instance is (a copy of its
 * variant's profile, with a batch, sessions, faults and counts of its own)
 * but not one of the variant's instances. FLEET_COPIES_MAX entries, copy k
 * at entries[k]; entries[0] keeps the copies serving (instances) and the
 * variant's routing. fleet_copies_set follows the control plane's count;
 * fleet_copies_pick routes a call among them. */
struct fleet_copies {
    char name[64];                 /* the component's */
    struct fleet_variant *host;    /* its variant's instance 0 */
    struct fleet_variant *entries; /* FLEET_COPIES_MAX, allocated once (calls point at them) */
};

/* A profile key --set on a variant, kept to be set on its components' copies
 * that run a profile of their own. */
struct fleet_override {
    char variant[64];
    char *key, *value; /* owned */
};

struct fleet_endpoint {
    char name[64];
    struct fleet_variant *variants;
    size_t n_variants;
    struct tally counts;
    struct fleet_copies *copies; /* its inference components' copies, made when first set */
    size_t n_copies;
    const struct model_library *lib;  /* fleet_add's (borrowed): the copies' profiles */
    struct fleet_override *overrides; /* its variants' profile keys --set, in order */
    size_t n_overrides;
};

struct fleet {
    struct fleet_endpoint *eps;
    size_t n_eps;
};

enum fleet_error {
    FLEET_OK = 0,
    FLEET_ERR_NOMEM = -1,
    FLEET_ERR_INVALID = -2, /* an option names a profile, variant or key that does not fit */
    FLEET_ERR_IO = -3,      /* a container log cannot be opened */
};

/* Adds variant e, its profile from lib (may be NULL) or the built-ins, and its
 * endpoint if new. Returns 0 or FLEET_ERR_* with one line in err. */
__attribute__((warn_unused_result)) int fleet_add(struct fleet *f, const struct fleet_spec *e,
                                                  const struct model_library *lib, struct buf *err);

/* Applies one --set to every variant it names: a profile key (model_set), or
 * "instances" (1 to FLEET_INSTANCES_MAX) or "routing" (RANDOM or
 * LEAST_OUTSTANDING_REQUESTS), which are the variant's. Returns 0 or FLEET_ERR_* with err. */
__attribute__((warn_unused_result)) int fleet_set(struct fleet *f, const struct fleet_setting *set,
                                                  struct buf *err);

/* Makes each variant's instances (copies of its instance 0; instance k's
 * seed differs), seeds each one (from seed and NAME/VARIANT, unless its
 * profile has a seed) and links it to its endpoint. Call once no variant is
 * added nor set any more. Returns 0 or FLEET_ERR_NOMEM. */
__attribute__((warn_unused_result)) int fleet_seed(struct fleet *f, uint64_t seed);

/* Opens one container log per variant at pattern, {endpoint} and {variant}
 * replaced; subsecond: lines carry CloudWatch timestamps (vlog.h). Returns 0
 * or FLEET_ERR_* with err. */
__attribute__((warn_unused_result)) int fleet_open_logs(struct fleet *f, const char *pattern,
                                                        bool subsecond, struct buf *err);

/* The endpoint called name[0..n), or NULL. */
struct fleet_endpoint *fleet_find(const struct fleet *f, const char *name, size_t n);

/* The variant of ep called want[0..want_len), or NULL; with want NULL, one drawn
 * by the variants' weights from *rng. Of a variant's instances, the one its
 * routing picks: RANDOM draws one from *rng, LEAST_OUTSTANDING_REQUESTS takes
 * the fewest in flight (of those, a random one); without rng, instance 0. */
struct fleet_variant *fleet_pick(struct fleet_endpoint *ep, const char *want, size_t want_len,
                                 uint64_t *rng);

/* Sets the copies serving of component name on variant (of ep) to serving
 * (at most FLEET_COPIES_MAX), as the control plane counts them: new copies
 * serve at once (the control plane counted them once loaded), released ones
 * first; the highest-numbered serving ones drain (no new call, their calls
 * finish); draining ones with no call in flight are released, their sessions
 * gone with them. A new copy runs profile (ep's library or a built-in, with
 * the variant's --set profile keys on top) when given and known, else a copy
 * of its variant's profile. Returns 0, FLEET_ERR_INVALID (ep has no such
 * variant) or FLEET_ERR_NOMEM. */
__attribute__((warn_unused_result)) int fleet_copies_set(struct fleet_endpoint *ep,
                                                         const char *variant, const char *name,
                                                         const char *profile, long serving);

/* A copy of component name on variant (of ep) to serve a call: the one
 * holding session sid[0..sid_len) (sid may be NULL), serving or draining; else
 * one serving by its variant's routing (RANDOM, or LEAST_OUTSTANDING_REQUESTS:
 * the fewest in flight, of those a random one) from *rng. NULL when none serves. */
struct fleet_variant *fleet_copies_pick(struct fleet_endpoint *ep, const char *variant,
                                        const char *name, const char *sid, size_t sid_len,
                                        uint64_t *rng);

/* The copies of component name on variant (of ep): their entry 0, which
 * keeps the copies' entries (slots) as instance 0 keeps a variant's; NULL when
 * none was made (no call came while it had copies). */
struct fleet_variant *fleet_copies_head(struct fleet_endpoint *ep, const char *variant,
                                        const char *name);

/* The number of instance 0's variant entries in each state. */
struct fleet_census {
    unsigned serving, launching, draining;
};
struct fleet_census fleet_census(const struct fleet_variant *head);

/* Starts the instance-seconds of every variant at model time now. */
void fleet_start_billing(struct fleet *f, double now);

/* Bills head's variant up to now and moves it there: launching instances due
 * serve (billed from their serving_at), draining ones with no call in flight
 * are released, their sessions gone with them (a call naming one is answered
 * as an unknown session is). Returns the number of instances that started
 * serving. */
unsigned fleet_advance(struct fleet_variant *head, double now);

/* Makes up to n released or spare entries of head's variant launching at now,
 * serving from serving_at; made[] receives them (the caller starts their
 * timers). Returns how many, or FLEET_ERR_NOMEM. */
__attribute__((warn_unused_result)) int fleet_launch(struct fleet_variant *head, unsigned n,
                                                     double now, double serving_at,
                                                     struct fleet_variant **made);

/* Drains up to n serving instances of head's variant at now (the highest
 * first; instance 0 keeps serving). Returns how many. */
unsigned fleet_drain(struct fleet_variant *head, unsigned n, double now);

/* Writes each variant's metrics line (vlog_metrics) for the interval_s model
 * seconds since the last one, at now (wall clock). */
void fleet_log_metrics(struct fleet *f, double now, double interval_s);

/* Endpoints the stats list beyond a fleet's (the control plane's hosted ones):
 * fn appends each as fleet_json_members does, at model time now. */
struct fleet_more {
    int (*fn)(void *ctx, struct buf *out, double now, bool *first);
    void *ctx;
};

/* Appends the whole GET /emulator/stats document: the totals, the endpoints
 * (f's and more's, when not NULL, at model time now), and the HTTP layer's counts
 * when gate is not NULL. Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int fleet_stats_json(struct buf *out, const struct fleet *f,
                                                         const struct fleet_more *more,
                                                         const struct tally *totals,
                                                         const struct gate *gate, double time_scale,
                                                         double now);

/* Appends f's endpoints as members of a JSON object ("NAME":{...}), a comma
 * before each but when *first (then cleared). Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int fleet_json_members(struct buf *out, const struct fleet *f,
                                                           double now, bool *first);

/* Appends the stats document's "endpoints" object; each variant's "scaling"
 * says its instances serving, launching and draining and its instance-seconds
 * billed up to model time now. Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int fleet_json(struct buf *out, const struct fleet *f,
                                                   double now);

/* Frees every endpoint and variant (profiles, closing the logs); f is empty after. */
void fleet_free(struct fleet *f);

#endif
