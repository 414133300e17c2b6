/* rounds: who sends what, and when, across wrk's threads (one connection each).
 *
 * A run is a list of rounds, each a number of items handed out to whichever
 * thread asks next. A thread that finds nothing more for it in the current
 * round arrives at the round's barrier; when every thread has arrived, the next
 * round starts for all of them at once. A start barrier comes before the first
 * round, so no thread sends before all of them are up.
 *   queue (decode, quiz):  items = N
 *   batch (sweep):         items = threads, per_thread = 1
 *   steady (sweep):        items = -1, duration_us = D
 *   open loop:             items = N, at_us = the N intended starts (arrivals.h)
 *
 * An open-loop round hands its items out in order, each with the time it is
 * meant to start: the thread that takes one waits until then, so a request
 * starts late only when no thread was free at its time (the lateness the
 * records show). Its clock starts ROUNDS_OPEN_LEAD_US after the barrier lets
 * the senders go, so that every one of them has taken its first item and waits
 * for its time when the first is due (64 wrk threads woken on a busy 2-core
 * host took milliseconds: the round's first arrivals were late).
 *
 * A run split over shards (client processes that each build the whole
 * schedule) keeps a stripe of it: sender t belongs to shard t mod N, and item
 * i of every bounded round to shard i mod N (rounds_set_shard). A shard's
 * barriers wait for its own senders only; the schedule hands out the items'
 * own indices, so an open-loop item keeps its time. A start time
 * (rounds_set_start) holds the first round back: it starts then, however
 * early its senders are up, and its open-loop times count from then.
 *
 * Pure C with the clock injected; not thread-safe (the caller holds a lock). */
#ifndef SM_ROUNDS_H
#define SM_ROUNDS_H

#include <stdbool.h>
#include <stddef.h>

/* An open-loop round's clock starts this long after its barrier opens. */
#define ROUNDS_OPEN_LEAD_US 50000

struct rounds_round {
    long items;             /* items in the round; -1: unbounded (duration_us must be set) */
    long per_thread;        /* most items one thread takes in the round; -1: no limit */
    long long duration_us;  /* > 0: nothing is handed out once the round is this old */
    const long long *at_us; /* open loop: each item's start, us after the round's (copied) */
};

enum rounds_status {
    ROUNDS_ITEM = 0, /* an item: *round_out and *index_out are set */
    ROUNDS_WAIT = 1, /* the thread waits at the barrier until rounds_generation changes */
    ROUNDS_DONE = 2, /* every round is over */
    ROUNDS_NONE = 3, /* the sender is another shard's: nothing is ever handed to it */
    ROUNDS_ERR_NOMEM = -1,
    ROUNDS_ERR_INPUT = -2, /* a round with neither items nor a duration, or no threads */
};

struct rounds;

/* A schedule for n_threads over a copy of rounds; NULL in *out on error. */
__attribute__((warn_unused_result)) int rounds_new(int n_threads, const struct rounds_round *rounds,
                                                   size_t n_rounds, struct rounds **out);
void rounds_free(struct rounds *s);

/* Keeps shard index of count's stripe (count <= 1: the whole run); before
 * the first rounds_next. Returns 0, or ROUNDS_ERR_INPUT when index is not
 * below count or the shard has none of the senders (count > threads). */
__attribute__((warn_unused_result)) int rounds_set_shard(struct rounds *s, long index, long count);
/* The first round starts at start_us, not before (its senders wait at the
 * start barrier); before the first rounds_next that could start it. */
void rounds_set_start(struct rounds *s, long long start_us);
/* Whether t is one of this shard's senders; whether item i of a bounded round is its. */
bool rounds_is_sender(const struct rounds *s, int t);
bool rounds_keeps(const struct rounds *s, long i);

/* Thread t (0-based) asks at now_us for its next item. An item's round is
 * 0-based in the caller's list, its index 0-based within the round; *due_out
 * is when an open-loop round's item is meant to start, -1 for another's. */
__attribute__((warn_unused_result)) int rounds_next(struct rounds *s, int t, long long now_us,
                                                    size_t *round_out, long *index_out,
                                                    long long *due_out);

/* Changes each time a round starts. */
unsigned long rounds_generation(const struct rounds *s);
/* The items of the whole run (this shard's), or -1 when a round is bounded only by time. */
long rounds_total(const struct rounds *s);

#endif
