/* cphost: hosts the endpoints the control plane creates. When an endpoint of
 * the runtime region becomes InService (or finishes an update) it gets a
 * SageMaker Runtime of its own: a struct invoke over a one-endpoint fleet whose
 * variants run the profiles their SM_VLLM_MODEL maps to (cpconf), with the
 * emulator's keys, settings and --set options ('*' or its name), started with
 * rtcall_start, which writes each container's vLLM start-up log (--log-file,
 * when its pattern has {endpoint}). The HTTP layer reaches it through
 * cphost_find. An endpoint that stops serving (deleted, or replaced by an
 * update) is retired: freed once no call of it is in flight.
 *
 * It also runs the control plane's clock: one timer armed for cplane_next,
 * model seconds being monotonic seconds times --time-scale. */
#ifndef EMU_CPHOST_H
#define EMU_CPHOST_H

#include <stdbool.h>
#include <stddef.h>

#include "cplane.h"
#include "fleet.h"
#include "rtcall.h"
#include "options.h"

struct event_base; /* libevent's */
struct event;

/* One hosted endpoint. */
struct cphost_ep {
    char name[CPREQ_NAME_MAX];
    struct fleet fleet;
    struct invoke inv; /* serves fleet; its own keys (copies) */
    bool retired;      /* no longer found; freed once nothing is in flight */
    struct cphost_ep *next;
};

struct cphost {
    struct event_base *base;         /* not owned */
    const struct invoke *main;       /* the runtime: keys, send, settings (borrowed) */
    const struct options *opts;      /* --set, --log-file, --seed (borrowed) */
    const struct model_library *lib; /* --profile-file's profiles (borrowed) */
    struct cplane *cp;               /* borrowed */
    const char *region;              /* the runtime region: only its endpoints are hosted */
    struct event *timer;
    struct cphost_ep *eps;
    struct buf err; /* the last hosting failure, for the log */
};

enum cphost_error { CPHOST_OK = 0, CPHOST_ERR_NOMEM = -1 };

/* Starts an empty host (its timer on base). Returns 0 or CPHOST_ERR_NOMEM. */
__attribute__((warn_unused_result)) int cphost_init(struct cphost *h, struct event_base *base,
                                                    const struct invoke *main,
                                                    const struct options *opts,
                                                    const struct model_library *lib,
                                                    struct cplane *cp, const char *region);
/* Frees every hosted endpoint (their calls must have been aborted) and the timer. */
void cphost_free(struct cphost *h);

/* A fleet_more for the stats: appends every hosted endpoint that serves
 * (ctx: the struct cphost), as fleet_json_members. Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int cphost_stats_more(void *ctx, struct buf *out, double now,
                                                          bool *first);

/* The control plane's clock now. */
struct cplane_now cphost_now(const struct cphost *h);

/* The event function of the control plane (ud: the host). */
void cphost_event(void *ud, enum cplane_event_kind kind, const struct cpres_endpoint *ep);

/* Arms the timer for the control plane's next transition, and frees retired
 * endpoints with nothing in flight. Call after every control-plane call. */
void cphost_arm(struct cphost *h);

/* The runtime of the hosted endpoint name[0..n), or NULL. */
struct invoke *cphost_find(struct cphost *h, const char *name, size_t n);

#endif
