/* shared: the one piece of state every wrk thread's lua_State shares, behind one
 * lock: the schedule (rounds.h), the recorder (record.h), the credential cache,
 * the signer's key cache, the clock origin, the clock-skew offset and how the
 * run ends. wrk loads the module once per process and runs luaopen once per
 * lua_State (its main state first, on the main OS thread), so this is static
 * state, set up once by shared_begin in the main state and torn down by
 * shared_end in done().
 *
 * Ending: the thread that finds the schedule done (or a run that must stop
 * early) sends SIGINT to wrk's main thread, which stops wrk at once and runs
 * done(). A handler chained in front of wrk's own SIGINT handler tells a user's
 * Ctrl-C from that signal; a run stopped by neither ended at wrk's -d. */
#ifndef SM_SHARED_H
#define SM_SHARED_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "creds.h"
#include "record.h"
#include "rounds.h"
#include "sigv4.h"

#define SHARED_WRK_STOP_CHECK_MS 100 /* wrk 4.1.0's RECORD_INTERVAL_MS */

enum shared_error {
    SHARED_OK = 0,
    SHARED_ERR_NOMEM = -1,
    SHARED_ERR_STATE = -2, /* begun twice, or used before shared_begin */
    SHARED_ERR_INPUT = -3,
    SHARED_ERR_CREDS = -4, /* no credentials; err says why */
    SHARED_ERR_IO = -5,
};

struct shared_config {
    const char *scenario; /* for the progress line */
    int n_threads;        /* wrk's -t */
    long long cap_us;     /* wrk's -d: no item is handed out after it */
    const struct rounds_round *rounds;
    size_t n_rounds;
    int refuse_after;    /* an endpoint whose first this many requests all fail stops the run */
    double progress_s;   /* seconds between progress lines when stderr is not a terminal; 0: none */
    const char *profile; /* AWS profile, or NULL */
};

enum shared_next {
    SHARED_ITEM = 0, /* *round and *index are set */
    SHARED_WAIT = 1, /* inside shared_next: nothing for this thread until the round changes */
    SHARED_DONE = 2, /* the run's work is done */
    SHARED_STOP = 3, /* the run is ending early (Ctrl-C, -d, an endpoint refusing) */
};

/* How a run ended, for done(). */
struct shared_outcome {
    bool partial;
    char reason[600]; /* "" when complete */
};

/* Sets up the run from the main state: schedule, recorder, credentials (found
 * once now: SHARED_ERR_CREDS with err when there are none) and the clock origin. */
__attribute__((warn_unused_result)) int shared_begin(const struct shared_config *c,
                                                     struct buf *err);

/* Adds a result file (record.h); *index numbers it for shared_record. */
__attribute__((warn_unused_result)) int shared_add_file(const char *result_path,
                                                        const char *journal_path,
                                                        const cJSON *header, size_t *index,
                                                        struct buf *err);

/* Microseconds on the monotonic clock since the run's origin, and the wall clock. */
long long shared_now_us(void);
long long shared_wall_us(void);
/* The wall clock corrected by the skew offset, for signing. */
time_t shared_signing_time(void);
/* Sets the offset (seconds, server minus local) signing adds to the clock. */
void shared_set_skew(long long offset);

/* The next item for thread t; waits at a round's barrier (without ever holding
 * up wrk's shutdown) and returns SHARED_ITEM, SHARED_DONE or SHARED_STOP. */
int shared_next(int t, size_t *round, long *index);

/* Records one completed request in file. A failure that will be retried (retried:
 * true) never counts towards stopping the run for an endpoint refusing everything. */
__attribute__((warn_unused_result)) int shared_record(size_t file, const struct rec_record *rec,
                                                      bool retried, struct buf *err);
/* Waits as long as wrk takes to see that the run is ending (it looks every
 * SHARED_WRK_STOP_CHECK_MS): for a thread with nothing left to send. */
void shared_idle(void);

/* Stops the run early with reason (one line); the first reason wins. */
void shared_abort(const char *reason);

/* A copy of the current credentials (creds.h), for signing at now. */
__attribute__((warn_unused_result)) int shared_creds(time_t now, struct creds *out,
                                                     struct buf *err);
/* The signer every thread shares (thread-safe). */
struct sigv4_signer *shared_signer(void);

/* The counts of file so far (record.h; owned by the run), or NULL. */
const struct rec_counts *shared_counts(size_t file);
size_t shared_n_files(void);

/* In done(): says how the run ended and writes every result file. */
__attribute__((warn_unused_result)) int shared_end(struct shared_outcome *out, struct buf *err);
/* Frees the run (after shared_end); shared_begin may start another. */
void shared_free(void);

#endif
