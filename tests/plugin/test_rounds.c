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
    /* Items go out in order at once, each due at the round's start plus its time;
     * the round after starts when both threads are back. */
    const long long at[] = {0, 40, 40, 500};
    const struct rounds_round r[] = {{4, -1, 0, at}, {1, -1, 0, NULL}};
    const struct step steps[] = {
        {0, 0, ROUNDS_WAIT, 0, 0, 0},     {1, 10, ROUNDS_ITEM, 0, 0, 10},
        {0, 11, ROUNDS_ITEM, 0, 1, 50},   {1, 12, ROUNDS_ITEM, 0, 2, 50},
        {1, 600, ROUNDS_ITEM, 0, 3, 510}, {0, 601, ROUNDS_WAIT, 0, 0, 0},
        {1, 700, ROUNDS_ITEM, 1, 0, 0},   {0, 701, ROUNDS_WAIT, 0, 0, 0},
        {1, 702, ROUNDS_DONE, 0, 0, 0},
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

int main(void) {
    test_queue();
    test_batches();
    test_steady();
    test_open_loop();
    test_counts_and_errors();
    return check_exit();
}
