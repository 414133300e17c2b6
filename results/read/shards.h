/* shards: the result files of one sharded run (--shard K/N: N client processes
 * that each ran a stripe of one schedule) read as that one run, never as
 * repeats (docs/compare.md, Shards).
 *
 * While a side's inputs are read, every file whose head has a shard of a count
 * above 1 is held back (shards_hold); then the held files are grouped by run
 * id, label and scenario (shards_flush). A group is refused, with one line
 * naming the files, when a shard is missing or there twice, when the files
 * disagree on the shard count or the settings hash (rfmt.h), or when a shard
 * did not run (it started later than its --start-at allowed); files of one
 * label and scenario with different run ids are two runs. A complete group
 * becomes one rfile (shards_merge): every shard's records pooled, their times
 * moved onto one clock (each shard's run clock is tied to the wall clock by
 * its records' wall_start_us; the earliest shard's clock is the one kept), so
 * that a sweep's batch is the union of the shards' batches and a percentile
 * is taken over every shard's samples, and the counts are the sums. Its
 * struct shards_info says, per shard, when it started after --start-at, its
 * requests, achieved rate and tokens per second, and its measured clock
 * offset; for the run, the window all shards were sending (the latest first
 * send to the earliest last end) and the throughput over it (the tokens of
 * the successful requests that ended in it, over its length). Shards whose
 * clock offsets differ by more than SHARDS_CLOCK_WARN_US, or whose starts
 * lie further apart, get a warning. */
#ifndef SM_SHARDS_H
#define SM_SHARDS_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "rfile.h"
#include "warnings.h"

#define SHARDS_CLOCK_WARN_US 10000 /* shards' clock offsets further apart: a warning */
#define SHARDS_SKEW_WARN_US  10000 /* shards' first sends further apart: a warning */

enum shards_err { SHARDS_OK = 0, SHARDS_ERR_NOMEM = -1, SHARDS_ERR_INPUT = -3 };

/* One shard of a merged run. Times in real seconds (time_scale applied), but
 * for its start after --start-at and the run's skew, which are the clocks'. */
struct shards_shard {
    long index;
    char *path;     /* owned */
    double late_s;  /* its first send after --start-at; NAN without start_at or records */
    long sent, ok;  /* its requests */
    double first_s; /* its first send and last end on the merged clock */
    double last_s;
    double rate;         /* requests per second over its own span; NAN when none */
    double tokens_per_s; /* completion tokens of its successful requests over its span */
    bool clock;          /* its clock offset was measured */
    double offset_ms, uncertainty_ms;
};

struct shards_info {
    char *run_id, *label, *scenario; /* owned */
    char *start_at;                  /* owned, or NULL */
    long count;
    struct shards_shard *shards; /* count of them, by index */
    double skew_s;               /* the latest first send minus the earliest */
    double window_s;             /* the common window; NAN when the shards never overlapped */
    double window_tokens_per_s;  /* tokens of successful requests ending in it, per second */
    long window_requests;        /* those requests */
};

/* The files held back until a side's inputs are all read. */
struct shards_pending {
    struct rfile **files; /* owned */
    size_t n, cap;
};

/* Whether rf's head names a shard of a run of more than one. */
bool shards_is_shard(const struct rfile *rf);

/* Holds rf (taken, also on error). Returns 0 or SHARDS_ERR_NOMEM. */
__attribute__((warn_unused_result)) int shards_hold(struct shards_pending *p, struct rfile *rf,
                                                    struct buf *err);

/* Receives one merged run: takes merged and info (also on error). Returns 0 or
 * a negative code with err set. */
typedef int shards_add_fn(void *ud, struct rfile *merged, struct shards_info *info);

/* Groups and merges every held file, in the order their first file was held,
 * and hands each run to add; empties p. Returns 0, or a negative code (ours or
 * add's) with one line in err; warnings go to w. */
__attribute__((warn_unused_result)) int shards_flush(struct shards_pending *p, shards_add_fn *add,
                                                     void *ud, struct warnings *w, struct buf *err);
void shards_pending_free(struct shards_pending *p);

/* Merges the n files of one run (any order; they stay the caller's). Returns 0
 * with *out and *info (the caller frees them: rfile_free, shards_info_free), or
 * SHARDS_ERR_INPUT with one line in err, or SHARDS_ERR_NOMEM. */
__attribute__((warn_unused_result)) int shards_merge(struct rfile *const *files, size_t n,
                                                     struct rfile **out, struct shards_info **info,
                                                     struct warnings *w, struct buf *err);
void shards_info_free(struct shards_info *info);

/* Whether rf is a merged run, and then its common window on its clock
 * (microseconds as measured): a steady sweep's throughput counts the
 * successful requests that ended in it, over its length (native.h). */
bool shards_common_window(const struct rfile *rf, int64_t *from_us, int64_t *to_us);

#endif
