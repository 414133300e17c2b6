/* The schedule: which thread gets which item, and when rounds start. */
#include <stdlib.h>

#include "../check.h"
#include "rounds.h"

/* One step of a script: thread t asks at time now; want is the status and,
 * for an item, its round and index (and its due time, when due is not 0). */
struct step {
    int t;
    long long now;
    int want;
    size_t round;
    long index;
    long long due;
};

static void run_script(const char *name, int threads, const struct rounds_round *r, size_t n,
                       const struct step *steps, size_t n_steps) {
    struct rounds *s;
    CHECK_INT(rounds_new(threads, r, n, &s), 0);
    for (size_t i = 0; i < n_steps; i++) {
        size_t round = 99;
        long index = 99;
        long long due = -1;
        int rc = rounds_next(s, steps[i].t, steps[i].now, &round, &index, &due);
        long long want_due = steps[i].due ? steps[i].due : -1;
        if (rc != steps[i].want ||
            (rc == ROUNDS_ITEM &&
             (round != steps[i].round || index != steps[i].index || due != want_due))) {
            fprintf(stderr, "%s: step %zu: got %d (%zu, %ld)\n", name, i, rc, round, index);
            check_failed++;
        }
    }
    rounds_free(s);
}

static void test_queue(void) {
    /* Nothing starts before both threads are up; then the queue drains in order. */
    const struct rounds_round r[] = {{3, -1, 0, NULL}};
    const struct step steps[] = {
        {0, 0, ROUNDS_WAIT, 0, 0, 0}, {0, 1, ROUNDS_WAIT, 0, 0, 0}, {1, 2, ROUNDS_ITEM, 0, 0, 0},
        {0, 3, ROUNDS_ITEM, 0, 1, 0}, {0, 4, ROUNDS_ITEM, 0, 2, 0}, {0, 5, ROUNDS_WAIT, 0, 0, 0},
        {1, 6, ROUNDS_DONE, 0, 0, 0}, {0, 7, ROUNDS_DONE, 0, 0, 0},
    };
    run_script("queue", 2, r, 1, steps, sizeof steps / sizeof steps[0]);
}

static void test_batches(void) {
    /* One item per thread per batch; a fast thread waits for the slow one. */
    const struct rounds_round r[] = {{2, 1, 0, NULL}, {2, 1, 0, NULL}};
    const struct step steps[] = {
        {0, 0, ROUNDS_WAIT, 0, 0, 0},  {1, 0, ROUNDS_ITEM, 0, 0, 0},  {0, 0, ROUNDS_ITEM, 0, 1, 0},
        {0, 5, ROUNDS_WAIT, 0, 0, 0},  {0, 6, ROUNDS_WAIT, 0, 0, 0},  {1, 9, ROUNDS_ITEM, 1, 0, 0},
        {0, 9, ROUNDS_ITEM, 1, 1, 0},  {1, 12, ROUNDS_WAIT, 0, 0, 0}, {0, 13, ROUNDS_DONE, 0, 0, 0},
        {1, 14, ROUNDS_DONE, 0, 0, 0},
    };
    run_script("batches", 2, r, 2, steps, sizeof steps / sizeof steps[0]);
}

static void test_steady(void) {
    /* Items until the round is 100 us old; the next round starts when both are back. */
    const struct rounds_round r[] = {{-1, -1, 100, NULL}, {1, -1, 0, NULL}};
    const struct step steps[] = {
        {0, 0, ROUNDS_WAIT, 0, 0, 0},   {1, 10, ROUNDS_ITEM, 0, 0, 0},
        {0, 10, ROUNDS_ITEM, 0, 1, 0},  {0, 50, ROUNDS_ITEM, 0, 2, 0},
        {1, 109, ROUNDS_ITEM, 0, 3, 0}, {0, 110, ROUNDS_WAIT, 0, 0, 0},
        {1, 300, ROUNDS_ITEM, 1, 0, 0}, {0, 301, ROUNDS_WAIT, 0, 0, 0},
        {1, 302, ROUNDS_DONE, 0, 0, 0},
    };
    run_script("steady", 2, r, 2, steps, sizeof steps / sizeof steps[0]);
}

static void test_open_loop(void) {
    /* Items go out in order at once, each due at the round's start plus its time,
     * the round's clock starting ROUNDS_OPEN_LEAD_US after its barrier opened (at
     * 10, when the second thread came): every sender has its item before the
     * first is due. The round after starts when both threads are back. */
    const long long at[] = {0, 40, 40, 500}, t0 = 10 + ROUNDS_OPEN_LEAD_US;
    const struct rounds_round r[] = {{4, -1, 0, at}, {1, -1, 0, NULL}};
    const struct step steps[] = {
        {0, 0, ROUNDS_WAIT, 0, 0, 0},
        {1, 10, ROUNDS_ITEM, 0, 0, t0},
        {0, 11, ROUNDS_ITEM, 0, 1, t0 + 40},
        {1, 12, ROUNDS_ITEM, 0, 2, t0 + 40},
        {1, t0 + 600, ROUNDS_ITEM, 0, 3, t0 + 500},
        {0, t0 + 601, ROUNDS_WAIT, 0, 0, 0},
        {1, t0 + 700, ROUNDS_ITEM, 1, 0, 0},
        {0, t0 + 701, ROUNDS_WAIT, 0, 0, 0},
        {1, t0 + 702, ROUNDS_DONE, 0, 0, 0},
    };
    run_script("open loop", 2, r, 2, steps, sizeof steps / sizeof steps[0]);
    const struct rounds_round unbounded[] = {{-1, -1, 100, at}};
    struct rounds *s;
    CHECK_INT(rounds_new(2, unbounded, 1, &s), ROUNDS_ERR_INPUT);
}

static void test_counts_and_errors(void) {
    struct rounds *s;
    const struct rounds_round bounded[] = {{3, -1, 0, NULL}, {2, 1, 0, NULL}};
    const struct rounds_round timed[] = {{3, -1, 0, NULL}, {-1, -1, 50, NULL}};
    const struct rounds_round bad[] = {{-1, -1, 0, NULL}};
    CHECK_INT(rounds_new(2, bounded, 2, &s), 0);
    CHECK_INT(rounds_total(s), 5);
    size_t round;
    long index;
    long long due;
    CHECK_INT(rounds_next(s, 2, 0, &round, &index, &due), ROUNDS_ERR_INPUT);
    CHECK_INT(rounds_next(s, 0, 0, &round, &index, &due), ROUNDS_WAIT);
    unsigned long gen = rounds_generation(s);
    CHECK_INT(rounds_next(s, 1, 0, &round, &index, &due), ROUNDS_ITEM);
    CHECK(rounds_generation(s) != gen);
    rounds_free(s);
    CHECK_INT(rounds_new(2, timed, 2, &s), 0);
    CHECK_INT(rounds_total(s), -1);
    rounds_free(s);
    CHECK_INT(rounds_new(2, bad, 1, &s), ROUNDS_ERR_INPUT);
    CHECK(s == NULL);
    CHECK_INT(rounds_new(0, bounded, 1, &s), ROUNDS_ERR_INPUT);
}

/* Drains shard k of count over rounds r for threads senders: every item it
 * hands out, as round * 1000 + index, into got (in order); returns how many. */
static size_t drain_shard(int threads, const struct rounds_round *r, size_t n, long k, long count,
                          long *got, size_t cap) {
    struct rounds *s;
    size_t m = 0;
    CHECK_INT(rounds_new(threads, r, n, &s), 0);
    CHECK_INT(rounds_set_shard(s, k, count), 0);
    for (int idle = 0, step = 0; idle < threads && step < 100000; step++) {
        int t = step % threads;
        size_t round;
        long index;
        long long due;
        int rc = rounds_next(s, t, step, &round, &index, &due);
        if (rc == ROUNDS_ITEM && m < cap) got[m++] = (long)round * 1000 + index;
        CHECK(rc != ROUNDS_NONE || !rounds_is_sender(s, t));
        CHECK(rc == ROUNDS_NONE || rounds_is_sender(s, t));
        idle = rc == ROUNDS_DONE || rc == ROUNDS_NONE ? idle + 1 : 0;
    }
    rounds_free(s);
    return m;
}

static void test_shards_union(void) {
    /* A queue of 7, batches of the 6 senders, an open-loop round of 5: over 3
     * shards every item is handed out exactly once, each by its own shard
     * (i mod 3), and a batch's items go one to each of the shard's senders. */
    const long long at[] = {0, 10, 20, 30, 40};
    const struct rounds_round r[] = {
        {7, -1, 0, NULL}, {6, 1, 0, NULL}, {6, 1, 0, NULL}, {5, -1, 0, at}};
    int seen[4][7] = {{0}};
    const size_t want[] = {3 + 4 + 2, 2 + 4 + 2, 2 + 4 + 1}; /* queue, batches, open loop */
    for (long k = 0; k < 3; k++) {
        long got[64];
        size_t m = drain_shard(6, r, 4, k, 3, got, 64);
        CHECK_INT(m, want[k]);
        for (size_t i = 0; i < m; i++) {
            long round = got[i] / 1000, index = got[i] % 1000;
            CHECK_INT(index % 3, k);
            seen[round][index]++;
        }
    }
    const long items[] = {7, 6, 6, 5};
    for (int round = 0; round < 4; round++)
        for (long i = 0; i < items[round]; i++) CHECK_INT(seen[round][i], 1);
    /* The whole run (one shard) hands out the same items. */
    long whole[64];
    CHECK_INT(drain_shard(6, r, 4, 0, 1, whole, 64), 24);
}

static void test_shard_barrier_and_errors(void) {
    /* Shard 1 of 2 over 4 senders: senders 1 and 3; its batch barrier waits for
     * those two only, the others get nothing, ever. */
    const struct rounds_round r[] = {{4, 1, 0, NULL}, {4, 1, 0, NULL}};
    const struct step steps[] = {
        {0, 0, ROUNDS_NONE, 0, 0, 0}, {1, 0, ROUNDS_WAIT, 0, 0, 0}, {3, 1, ROUNDS_ITEM, 0, 1, 0},
        {1, 1, ROUNDS_ITEM, 0, 3, 0}, {3, 2, ROUNDS_WAIT, 0, 0, 0}, {2, 3, ROUNDS_NONE, 0, 0, 0},
        {1, 4, ROUNDS_ITEM, 1, 1, 0}, {3, 5, ROUNDS_ITEM, 1, 3, 0}, {1, 6, ROUNDS_WAIT, 0, 0, 0},
        {3, 7, ROUNDS_DONE, 0, 0, 0}, {1, 8, ROUNDS_DONE, 0, 0, 0},
    };
    struct rounds *s;
    CHECK_INT(rounds_new(4, r, 2, &s), 0);
    CHECK_INT(rounds_set_shard(s, 1, 2), 0);
    CHECK_INT(rounds_total(s), 4);
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        size_t round = 99;
        long index = 99;
        long long due;
        int rc = rounds_next(s, steps[i].t, steps[i].now, &round, &index, &due);
        CHECK_INT(rc, steps[i].want);
        if (rc == ROUNDS_ITEM) {
            CHECK_INT(round, steps[i].round);
            CHECK_INT(index, steps[i].index);
        }
    }
    rounds_free(s);
    /* A shard count above the senders leaves a shard with none: refused. */
    CHECK_INT(rounds_new(2, r, 2, &s), 0);
    CHECK_INT(rounds_set_shard(s, 2, 3), ROUNDS_ERR_INPUT);
    CHECK_INT(rounds_set_shard(s, 3, 3), ROUNDS_ERR_INPUT);
    CHECK_INT(rounds_set_shard(s, 1, 2), 0);
    rounds_free(s);
}

static void test_start_time(void) {
    /* With a start time the first round starts then, though every sender is up
     * before: an open-loop item is due at the start plus its time, a batch's
     * items are handed out at once (the dispatcher waits for the start). */
    const long long at[] = {0, 40};
    const struct rounds_round r[] = {{2, -1, 0, at}, {2, 1, 0, NULL}};
    struct rounds *s;
    size_t round;
    long index;
    long long due;
    CHECK_INT(rounds_new(2, r, 2, &s), 0);
    rounds_set_start(s, 1000);
    CHECK_INT(rounds_next(s, 0, 10, &round, &index, &due), ROUNDS_WAIT);
    CHECK_INT(rounds_next(s, 1, 20, &round, &index, &due), ROUNDS_ITEM);
    CHECK_INT(due, 1000);
    CHECK_INT(rounds_next(s, 0, 21, &round, &index, &due), ROUNDS_ITEM);
    CHECK_INT(due, 1040);
    rounds_free(s);
    /* A start already past changes nothing: the round starts when all are up
     * (its clock ROUNDS_OPEN_LEAD_US later, as without a start time). */
    CHECK_INT(rounds_new(2, r, 2, &s), 0);
    rounds_set_start(s, 5);
    CHECK_INT(rounds_next(s, 0, 10, &round, &index, &due), ROUNDS_WAIT);
    CHECK_INT(rounds_next(s, 1, 20, &round, &index, &due), ROUNDS_ITEM);
    CHECK_INT(due, 20 + ROUNDS_OPEN_LEAD_US);
    rounds_free(s);
}

int main(void) {
    test_shards_union();
    test_shard_barrier_and_errors();
    test_start_time();
    test_queue();
    test_batches();
    test_steady();
    test_open_loop();
    test_counts_and_errors();
    return check_exit();
}
