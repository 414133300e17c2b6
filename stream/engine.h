/* engine: the streaming engine's threads. Each OS thread drives its share of
 * the run's senders (slots) with libcurl's multi interface on a libevent loop
 * (curl_multi_socket_action, one multi handle per 64 slots): one thread,
 * thousands of concurrent streams, each on its own keep-alive connection; with
 * busy_poll the loop never sleeps. A slot asks its dispatcher for the
 * next entry without blocking; a slot that must wait for a round's barrier is
 * woken when the round starts (the run's host's wake). The main thread waits
 * for the workers on a loop of its own that also watches Ctrl-C (SIGINT,
 * SIGTERM) and the -d cap: either ends the run, dropping what is in flight
 * (as wrk does). */
#ifndef SM_ENGINE_H
#define SM_ENGINE_H

#include <stddef.h>

#include "buf.h"
#include "lua_sagemaker.h"
#include "run.h"
#include "slot.h"

enum engine_error {
    ENGINE_OK = 0,
    ENGINE_ERR_NOMEM = -1,
    ENGINE_ERR_START = -2, /* err says what could not be set up */
};

struct engine_config {
    struct slot_config slot;
    size_t n_slots;        /* senders in all: -c */
    long long duration_us; /* -d: the run is cut then */
    bool busy_poll;        /* the threads poll their sockets without sleeping */
};

/* How the open loop's sends kept their times: a send is late when it left (libcurl
 * was about to write it) more than 1 ms after its intended start. */
struct engine_sends {
    size_t sends;       /* requests with an intended start (open-loop arrivals) that ended */
    size_t late;        /* of which left late */
    size_t late_handed; /* of those, handed to libcurl more than 1 ms late: the thread got to
                           it late (it woke late, was busy, or the run fell behind) */
    size_t deferred;    /* left on a later turn of the loop than the one that handed them */
};

/* What the engine's threads spent on the run. */
struct engine_stats {
    struct slot_cost cost; /* all slots' */
    double cpu_s;          /* the engine threads' CPU (user + system) */
    double wall_s;         /* from the threads' start to the last one's end */
    size_t threads;
    struct engine_sends sends;
};

/* The run's host (run.h) for the engine: pass it to the module (lsm_client)
 * before any script runs. */
struct run_host engine_host(void);

/* Runs the senders: n_threads OS threads, thread i driving its share of the
 * slots with the plan and check of hooks[i]. Returns when the run is over,
 * with what it cost in stats. */
__attribute__((warn_unused_result)) int engine_run(const struct engine_config *cfg,
                                                   struct lsm_hooks *const *hooks, size_t n_threads,
                                                   struct engine_stats *stats, struct buf *err);

#endif
