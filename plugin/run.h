/* run: the one piece of state every client thread shares, behind one lock: the
 * schedule (rounds.h), the recorder (record.h), the credential cache, the
 * signer's key cache, the clock origin, the clock-skew offset, the progress
 * line and how the run ends. A process runs one run at a time: wrk loads the
 * module once per process and runs luaopen once per lua_State (its main state
 * first), so this is static state, set up once by run_begin and torn down by
 * run_free.
 *
 * The client that hosts the run (wrk, or the streaming engine) says how a run
 * is ended and how the user interrupts it (struct run_host). When the schedule
 * is done or the run must stop early, run calls host->end once, from the
 * thread that found out. */
#ifndef SM_RUN_H
#define SM_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "creds.h"
#include "record.h"
#include "rounds.h"
#include "sigv4.h"
#include "watch.h"

/* How often a waiting thread looks for an interruption (a signal handler cannot
 * wake it): as often as wrk 4.1.0 looks at its own stop flag (RECORD_INTERVAL_MS). */
#define RUN_STOP_CHECK_MS 100

enum run_error {
    RUN_OK = 0,
    RUN_ERR_NOMEM = -1,
    RUN_ERR_STATE = -2, /* begun twice, or used before run_begin */
    RUN_ERR_INPUT = -3,
    RUN_ERR_CREDS = -4, /* no credentials; err says why */
    RUN_ERR_IO = -5,
};

/* The client that hosts the run. Every function may be NULL. */
struct run_host {
    void (*end)(void *ud);         /* end the client: its work is over (once, any thread) */
    void (*wake)(void *ud);        /* a round started or the run is stopping */
    bool (*interrupted)(void *ud); /* the user asked the client to stop (Ctrl-C) */
    void *ud;
};

struct run_config {
    const char *scenario; /* for the progress line */
    int n_threads;        /* the client's threads (wrk's -t; the engine's connections) */
    long long cap_us;     /* the client's time cap (wrk's -d): no item is handed out after it */
    const struct rounds_round *rounds;
    size_t n_rounds;
    int refuse_after;    /* an endpoint whose first this many requests all fail stops the run */
    double progress_s;   /* seconds between progress lines when stderr is not a terminal; 0: none */
    const char *profile; /* AWS profile, or NULL */
    struct run_host host;
    long shard_index, shard_count; /* this process's shard of the run (rounds.h); count <= 1: all */
    double start_tolerance_s;      /* with a start time: a later first round stops the run */
    struct watch_client watch;     /* the client, for client_rounds (cpus 0: the host's) */
};

enum run_next {
    RUN_ITEM = 0, /* *round and *index are set */
    RUN_WAIT = 1, /* nothing for this thread until the round changes (run_wait) */
    RUN_DONE = 2, /* the run's work is done */
    RUN_STOP = 3, /* the run is ending early (Ctrl-C, the cap, an endpoint refusing) */
    RUN_NONE = 4, /* the sender is another shard's: nothing is ever handed to it */
};

#define RUN_LATE_REASON "late start" /* how a run stopped for starting too late begins */

/* How a run ended. */
struct run_outcome {
    bool partial;
    char reason[600]; /* "" when complete */
};

/* Sets up the run: schedule, recorder, credentials (found once now:
 * RUN_ERR_CREDS with err when there are none) and the clock origin.
 * RUN_ERR_INPUT with err when the shard has no sender. */
__attribute__((warn_unused_result)) int run_begin(const struct run_config *c, struct buf *err);

/* Adds a result file with its head (rfmt.h; copied) and its journal beside it;
 * *index numbers it for run_record. Either that exists already is an error
 * unless force (record.h: rec_add_file). */
__attribute__((warn_unused_result)) int run_add_file(const char *result_path, const char *root,
                                                     const cJSON *head, bool force, size_t *index,
                                                     struct buf *err);

/* Microseconds on the monotonic clock since the run's origin, and the wall clock. */
long long run_now_us(void);
/* run_now_us at the CLOCK_MONOTONIC reading mono (one read of the clock for two uses). */
long long run_us_at(const struct timespec *mono);
long long run_wall_us(void);
/* The wall clock corrected by the skew offset, for signing. */
time_t run_signing_time(void);
/* Sets the offset (seconds, server minus local) signing adds to the clock. */
void run_set_skew(long long offset);
/* Whether a container refused stream_options.continuous_usage_stats (a 400 naming
 * it): from then on every request of the run goes without it, and ITL is per chunk. */
bool run_plain_usage(void);
void run_set_plain_usage(void);

#define RUN_NO_START (-9223372036854775807LL - 1) /* run_start_us without a start time */

/* The start barrier at start_wall_us (the wall clock): the run's clock
 * restarts now (run_now_us reads 0), and the first round starts at the start
 * time on it, not before; a first round that starts more than the tolerance
 * later stops the run ("late start: ..."). Before any sender asks for an item. */
void run_set_start(long long start_wall_us);
/* The start time on run_now_us's clock, or RUN_NO_START. */
long long run_start_us(void);
/* How late the run started after its start time: its first request's send
 * (else the first round's start) minus the start time, in microseconds.
 * False when there is no start time or the first round has not started. */
bool run_start_late(long long *late_us);

/* Whether thread t sends for this process (a shard's stripe, rounds.h): true
 * for every thread of an unsharded run, and before the run has a schedule. */
bool run_is_sender(int t);

/* The next item for thread t, without waiting; *due_us is when it is meant to
 * start on run_now_us's clock in an open-loop round (rounds.h), else -1. */
int run_next(int t, size_t *round, long *index, long long *due_us);
/* Waits until run_now_us() reaches due_us; false when the run stops first. */
bool run_wait_until(long long due_us);
/* Changes each time a round starts or the run stops. */
unsigned long run_generation(void);
/* Waits until run_generation is no longer gen, or RUN_STOP_CHECK_MS passed. */
void run_wait(unsigned long gen);

/* Records one completed request in file. A failure that will be retried (retried:
 * true) never counts towards stopping the run for an endpoint refusing everything. */
__attribute__((warn_unused_result)) int run_record(size_t file, const struct rec_record *rec,
                                                   bool retried, struct buf *err);

/* The client's own work held its loop for us microseconds (watch.h: a stall
 * when above RFMT_STALL_US); counted in the current round. */
void run_watch_stall(long long us);
/* Reads of a reply's content, counted in the current round (watch_reads). */
void run_watch_reads(long reads, long chunks, long burst_chunks);

struct plan;
/* Takes p (plan.h, made shared) as the plan every sender of the process uses
 * (freed by run_free); after run_begin, before any sender asks for it. */
void run_share_plan(struct plan *p);
/* The shared plan, or NULL when each sender makes its own. */
const struct plan *run_shared_plan(void);

/* Gives result file its template_overhead (rfmt.h: RFMT_TEMPLATE, an object;
 * copied), written at the end. RUN_ERR_INPUT with err when v is no object or
 * file is not one of the run's. */
__attribute__((warn_unused_result)) int run_set_template(size_t file, const cJSON *v,
                                                         struct buf *err);

/* Stops the run early with reason (one line); the first reason wins. */
void run_abort(const char *reason);

/* A copy of the current credentials (creds.h), for signing at now. */
__attribute__((warn_unused_result)) int run_creds(time_t now, struct creds *out, struct buf *err);
/* The signer every thread shares (thread-safe). */
struct sigv4_signer *run_signer(void);

/* The counts of file so far (record.h; owned by the run), or NULL. */
const struct rec_counts *run_counts(size_t file);
size_t run_n_files(void);

/* At the end: says how the run ended and writes every result file. */
__attribute__((warn_unused_result)) int run_end(struct run_outcome *out, struct buf *err);
/* Frees the run (after run_end); run_begin may start another. */
void run_free(void);

#endif
