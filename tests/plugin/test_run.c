/* The state wrk's threads share: barriers between batches, the SIGINT that ends
 * a finished run (also one over before wrk's handler is in place or before its main
 * thread sleeps), and how a run that did not finish says why: Ctrl-C, wrk's -d, an
 * endpoint refusing. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../check.h"
#include "run.h"
#include "wrkhost.h"

#define THREADS 4
#define BATCHES 3

static volatile sig_atomic_t wrk_stop; /* what wrk's own handler sets */
static void wrk_handler(int sig) {
    (void)sig;
    wrk_stop = 1;
}

static void install_wrk_handler(void) {
    struct sigaction sa = {.sa_handler = wrk_handler};
    sigfillset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
}

/* What wrk's main thread does once its threads run: sleeps out the -d (here 30 s)
 * unless a SIGINT wakes it. The run's end must wake it, even when the run ended
 * before the main thread went to sleep. */
static void wrk_main_sleeps(void) {
    CHECK(sleep(30) > 0);
    CHECK(wrk_stop);
}

static char dir[] = "/tmp/test_run_XXXXXX";
static long long starts[BATCHES][THREADS], ends[BATCHES][THREADS];
static int release_fd[2];      /* a thread "on the wire" waits for a byte here */
static int wire_fd[2];         /* and says it is on the wire with a byte here */
static atomic_int later_items; /* run_stuck's items past its first batch */
static bool meet_in_batches;   /* test_batches' workers wait for their whole batch */
static pthread_mutex_t meet_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t meet_cond = PTHREAD_COND_INITIALIZER;
static int met[BATCHES];

static struct rec_record rec_for(int t, bool ok) {
    return (struct rec_record){.thread = t,
                               .endpoint = "ep",
                               .phase = "test",
                               .max_tokens = 1,
                               .prompt_tokens = -1,
                               .completion_tokens = -1,
                               .ok = ok,
                               .status = ok ? 200 : 403,
                               .error_code = ok ? NULL : "InvalidSignatureException",
                               .error_message = ok ? NULL : "The request signature ...",
                               .correct = -1};
}

/* Begins a run with the given host (wrkhost_host() unless a test wraps it). */
static void begin_hosted(const struct rounds_round *r, size_t n, long long cap_us, int refuse_after,
                         struct run_host host) {
    struct run_config c = {.scenario = "test",
                           .n_threads = THREADS,
                           .cap_us = cap_us,
                           .rounds = r,
                           .n_rounds = n,
                           .refuse_after = refuse_after,
                           .host = host};
    struct buf err;
    size_t index;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(run_begin(&c, &err), RUN_OK);
    CHECK_INT(wrkhost_start(), 0);
    cJSON *header = cJSON_CreateObject();
    char path[128];
    static int n_files;
    snprintf(path, sizeof path, "%s/r%d.json", dir, n_files++);
    CHECK_INT(run_add_file(path, NULL, header, false, &index, &err), RUN_OK);
    cJSON_Delete(header);
    buf_free(&err);
}

static void begin(const struct rounds_round *r, size_t n, long long cap_us, int refuse_after) {
    begin_hosted(r, n, cap_us, refuse_after, wrkhost_host());
}

/* The next item for thread t, waiting at barriers as wrk's threads do. */
static bool next_item(int t, size_t *round, long *index) {
    for (;;) {
        unsigned long gen = run_generation();
        long long due;
        int rc = run_next(t, round, index, &due);
        if (rc != RUN_WAIT) return rc == RUN_ITEM;
        run_wait(gen);
    }
}

/* Holds a thread that has its item of batch b until every thread of the batch has
 * one: a run that kept a thread waiting for another's request to end would never
 * meet. The minute's limit only turns that hang into a failure. */
static bool meet(size_t b) {
    struct timespec limit;
    clock_gettime(CLOCK_REALTIME, &limit);
    limit.tv_sec += 60;
    int rc = 0;
    pthread_mutex_lock(&meet_lock);
    met[b]++;
    pthread_cond_broadcast(&meet_cond);
    while (met[b] < THREADS && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&meet_cond, &meet_lock, &limit);
    bool all = met[b] == THREADS;
    pthread_mutex_unlock(&meet_lock);
    return all;
}

/* A wrk thread: takes items until the run is done or stops. Odd arguments are
 * threads whose every request fails as a bad signature does; even ones succeed,
 * a request taking about (t + 1) ms, so the last thread of a batch is the slow one. */
static void *worker(void *arg) {
    int t = *(const int *)arg / 2;
    bool fails = *(const int *)arg % 2;
    size_t round;
    long index;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    while (next_item(t, &round, &index)) {
        if (meet_in_batches) CHECK(meet(round));
        starts[round][t] = run_now_us();
        struct timespec busy = {0, fails ? 0 : (t + 1) * 1000000L};
        nanosleep(&busy, NULL); /* the request's duration, not a synchronisation */
        ends[round][t] = run_now_us();
        struct rec_record rec = rec_for(t, !fails);
        CHECK_INT(run_record(0, &rec, false, &err), RUN_OK);
    }
    buf_free(&err);
    return NULL;
}

/* The argument of a thread: a pointer to n, which it reads. */
static void *thread_arg(int n) {
    static int args[2 * THREADS];
    args[n] = n;
    return &args[n];
}

static void start_workers(pthread_t *th, bool fail) {
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, thread_arg(2 * t + fail));
}

static void test_batches(void) {
    struct rounds_round r[BATCHES];
    for (int b = 0; b < BATCHES; b++) r[b] = (struct rounds_round){THREADS, 1, 0, NULL};
    wrk_stop = 0;
    install_wrk_handler();
    begin(r, BATCHES, 0, 3);
    pthread_t th[THREADS];
    meet_in_batches = true;
    start_workers(th, false);
    wrk_main_sleeps(); /* the finished run sent SIGINT to the main thread */
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    meet_in_batches = false;
    for (int b = 1; b < BATCHES; b++) /* a batch begins once the one before has ended */
        for (int t = 0; t < THREADS; t++)
            for (int u = 0; u < THREADS; u++) CHECK(starts[b][t] >= ends[b - 1][u]);
    struct run_outcome out;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    wrkhost_stop();
    CHECK_INT(run_end(&out, &err), RUN_OK);
    CHECK(!out.partial);
    CHECK_STR(out.reason, "");
    CHECK_INT(run_counts(0)->ok, BATCHES * THREADS);
    run_free();
    buf_free(&err);
}

/* Ends the run, which must be partial for want_reason. */
static void end_partial(const char *want_reason) {
    struct run_outcome out;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    wrkhost_stop();
    CHECK_INT(run_end(&out, &err), RUN_OK);
    CHECK(out.partial);
    CHECK_STR(out.reason, want_reason);
    run_free();
    buf_free(&err);
}

/* Thread 0 is on the wire until release_fd says; the others wait at the barrier. */
static void *stuck_worker(void *arg) {
    int t = *(const int *)arg;
    size_t round;
    long index;
    char byte;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    while (next_item(t, &round, &index)) {
        if (round > 0) atomic_fetch_add(&later_items, 1);
        if (t == 0 && (write(wire_fd[1], "w", 1) != 1 || read(release_fd[0], &byte, 1) != 1)) break;
        struct rec_record rec = rec_for(t, true);
        CHECK_INT(run_record(0, &rec, false, &err), RUN_OK);
    }
    buf_free(&err);
    return NULL;
}

/* Waits for the plugin's watcher to chain its handler in front of wrk's: a Ctrl-C
 * before that reaches wrk's alone. The minute's limit only turns a hang into a failure. */
static void wait_chained(void) {
    struct sigaction cur;
    time_t give_up = time(NULL) + 60;
    do {
        sched_yield();
        sigaction(SIGINT, NULL, &cur);
    } while (cur.sa_handler == wrk_handler && time(NULL) < give_up);
    CHECK(cur.sa_handler != wrk_handler);
}

static void run_stuck(long long cap_us, bool user_interrupts, const char *want_reason) {
    const struct rounds_round r[] = {{THREADS, 1, 0, NULL}, {THREADS, 1, 0, NULL}};
    wrk_stop = 0;
    install_wrk_handler();
    begin(r, 2, cap_us, 3);
    CHECK_INT(pipe(release_fd), 0);
    CHECK_INT(pipe(wire_fd), 0);
    pthread_t th[THREADS];
    char byte;
    for (int t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, stuck_worker, thread_arg(t));
    CHECK(read(wire_fd[0], &byte, 1) == 1);
    if (user_interrupts) { /* once the other threads have sent theirs and wait */
        while (run_counts(0)->sent < THREADS - 1) sched_yield();
        wait_chained();
        kill(getpid(), SIGINT);
        CHECK(wrk_stop); /* wrk's handler still runs */
    }
    for (int t = 1; t < THREADS; t++) pthread_join(th[t], NULL); /* they stop waiting */
    CHECK(write(release_fd[1], "x", 1) == 1);
    pthread_join(th[0], NULL);
    close(release_fd[0]);
    close(release_fd[1]);
    close(wire_fd[0]);
    close(wire_fd[1]);
    CHECK_INT(later_items, 0); /* the first batch, nothing more */
    if (user_interrupts) CHECK_INT(run_counts(0)->sent, THREADS);
    end_partial(want_reason);
}

static void test_refusal(void) {
    const struct rounds_round r[] = {{1000, -1, 0, NULL}};
    wrk_stop = 0;
    install_wrk_handler();
    begin(r, 1, 0, 3);
    pthread_t th[THREADS];
    start_workers(th, true);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    CHECK(!wrk_stop);  /* a signal now would be lost: the main thread is not asleep yet */
    wrk_main_sleeps(); /* the run refused before wrk's main thread slept */
    CHECK(run_counts(0)->sent < 1000); /* stopped early */
    struct run_outcome out;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    wrkhost_stop();
    CHECK_INT(run_end(&out, &err), RUN_OK);
    CHECK(out.partial);
    CHECK_STR(out.reason, "refused: ep failed its first 3 requests: 403 "
                          "InvalidSignatureException: The request signature ... \xe2\x80\x94 "
                          "check the region and credentials");
    run_free();
    buf_free(&err);
}

static sem_t run_over;

/* wrkhost's end, said first: the run is over. */
static void end_seen(void *ud) {
    sem_post(&run_over);
    wrkhost_host().end(ud);
}

/* A run that is over before wrk installs its SIGINT handler still ends it. */
static void test_early_finish(void) {
    const struct rounds_round r[] = {{1, -1, 0, NULL}};
    wrk_stop = 0;
    signal(SIGINT, SIG_IGN);
    sem_init(&run_over, 0, 0);
    struct run_host host = wrkhost_host();
    host.end = end_seen;
    begin_hosted(r, 1, 0, 3, host);
    pthread_t th[THREADS];
    start_workers(th, false);
    sem_wait(&run_over); /* the run is over and wrk has no handler yet */
    install_wrk_handler();
    wrk_main_sleeps();
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    struct run_outcome out;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    wrkhost_stop();
    CHECK_INT(run_end(&out, &err), RUN_OK);
    CHECK(!out.partial);
    run_free();
    buf_free(&err);
}

static void test_no_credentials(void) {
    const struct rounds_round r[] = {{1, -1, 0, NULL}};
    struct run_config c = {.scenario = "t", .n_threads = 1, .rounds = r, .n_rounds = 1};
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    unsetenv("AWS_ACCESS_KEY_ID");
    CHECK_INT(run_begin(&c, &err), RUN_ERR_CREDS);
    CHECK(strstr(buf_str(&err), "environment") != NULL);
    size_t index;
    cJSON *header = cJSON_CreateObject();
    CHECK_INT(run_add_file("/nonexistent/x.json", NULL, header, false, &index, &err),
              RUN_ERR_STATE); /* nothing has begun */
    cJSON_Delete(header);
    buf_free(&err);
}

/* wrk puts its handler in place only after its threads started: a Ctrl-C that
 * comes then, while no thread looks at the schedule, is still the user's. */
static void test_ctrl_c_right_after_wrk_handler(void) {
    const struct rounds_round r[] = {{THREADS, 1, 0, NULL}};
    struct sigaction ignore = {.sa_handler = SIG_IGN};
    wrk_stop = 0;
    sigaction(SIGINT, &ignore, NULL);
    begin(r, 1, 60000000, 3);
    install_wrk_handler();
    wait_chained();
    kill(getpid(), SIGINT);
    CHECK(wrk_stop);
    end_partial("interrupted");
}

/* A run wrk ended before its -d cap, with no signal the plugin saw, was interrupted. */
static void test_early_end_is_not_the_cap(void) {
    const struct rounds_round r[] = {{THREADS, 1, 0, NULL}};
    install_wrk_handler();
    begin(r, 1, 60000000, 3);
    end_partial("interrupted");
}

/* A shard whose first round would start past its start time by more than the
 * tolerance stops before it sends (a "late start"), and says how late; one
 * whose senders are all up in time starts at the start time, not before, and
 * another shard's sender is never handed anything. */
static void test_start_barrier(void) {
    const struct rounds_round r[] = {{2L * THREADS, 1, 0, NULL}};
    struct run_config c = {.scenario = "test",
                           .n_threads = THREADS,
                           .rounds = r,
                           .n_rounds = 1,
                           .refuse_after = 3,
                           .start_tolerance_s = 0.5,
                           .shard_index = 1,
                           .shard_count = 2};
    struct buf err;
    size_t round;
    long index;
    long long due, late;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(run_begin(&c, &err), RUN_OK);
    run_set_start(run_wall_us() - 2000000); /* 2 s ago */
    CHECK_INT(run_next(0, &round, &index, &due), RUN_NONE);
    CHECK_INT(run_next(1, &round, &index, &due), RUN_WAIT);
    CHECK_INT(run_next(3, &round, &index, &due), RUN_STOP); /* the barrier: released late */
    CHECK(run_start_late(&late) && late >= 2000000);
    struct run_outcome out;
    CHECK_INT(run_end(&out, &err), RUN_OK);
    CHECK(out.partial && strncmp(out.reason, "late start: the first round started 2.0", 39) == 0 &&
          strstr(out.reason, "s after --start-at (tolerance 0.500 s)"));
    run_free();
    CHECK_INT(run_begin(&c, &err), RUN_OK);
    run_set_start(run_wall_us() + 60000000); /* in a minute */
    CHECK_INT(run_next(1, &round, &index, &due), RUN_WAIT);
    CHECK_INT(run_next(3, &round, &index, &due), RUN_ITEM);
    CHECK(run_start_us() > run_now_us() && due == -1 && index == 1);
    CHECK(!run_start_late(&late) || late <= 0); /* released before its time */
    run_free();
    CHECK_INT(run_start_us(), RUN_NO_START);
    buf_free(&err);
}

int main(void) {
    if (!mkdtemp(dir)) return 1;
    setenv("AWS_ACCESS_KEY_ID", "AKIDTEST", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "secret", 1);
    setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
    setenv("AWS_CONFIG_FILE", "/nonexistent", 1);
    setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent", 1);
    test_batches();
    run_stuck(0, true, "interrupted");
    run_stuck(100000, false, "duration cap");
    test_refusal();
    test_early_finish();
    test_ctrl_c_right_after_wrk_handler();
    test_early_end_is_not_the_cap();
    test_start_barrier();
    test_no_credentials();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? check_exit() : 1;
}
