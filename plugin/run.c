#include "run.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "plan.h"
#include "progress.h"
#include "refuse.h"
#include "rfmt.h"

#define RUN_WAIT_SLICE_NS (RUN_STOP_CHECK_MS * 1000000L)

static struct {
    pthread_mutex_t lock;
    struct plan *shared_plan; /* run_share_plan's, or NULL */
    pthread_cond_t round_changed;
    bool begun;
    struct timespec origin; /* CLOCK_MONOTONIC */
    long long cap_us;
    struct rounds *rounds;
    struct rec_recorder *rec;
    int refuse_after;
    struct creds_cache *creds;
    struct sigv4_signer *signer;
    struct run_host host;
    struct progress progress;
    unsigned long generation; /* rounds started and stops, for run_wait */
    bool done;                /* the schedule is over */
    bool stopping;            /* run_abort was called */
    bool ended;               /* host.end was called */
    char reason[600];
    long long start_tol_us;  /* the start barrier's tolerance */
    bool released;           /* the first round has started */
    long long released_us;   /* when (run_now_us) */
    long long first_send_us; /* the earliest send recorded; -1: none */
    struct watch watch;      /* how the client fared, round by round */
} run = {.lock = PTHREAD_MUTEX_INITIALIZER};

static _Atomic long long run_skew;
static _Atomic bool run_plain;                     /* run_plain_usage */
static _Atomic long long run_start = RUN_NO_START; /* the start barrier's time */

static long long run_mono_us(const struct timespec *t) {
    return (long long)t->tv_sec * 1000000 + t->tv_nsec / 1000;
}

long long run_us_at(const struct timespec *mono) {
    return run_mono_us(mono) - run_mono_us(&run.origin);
}

long long run_now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return run_us_at(&t);
}

long long run_wall_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return run_mono_us(&t);
}

time_t run_signing_time(void) {
    return time(NULL) + (time_t)atomic_load(&run_skew);
}

void run_set_skew(long long offset) {
    atomic_store(&run_skew, offset);
}

bool run_plain_usage(void) {
    return atomic_load(&run_plain);
}

void run_set_plain_usage(void) {
    atomic_store(&run_plain, true);
}

void run_set_start(long long start_wall_us) {
    pthread_mutex_lock(&run.lock);
    clock_gettime(CLOCK_MONOTONIC, &run.origin);
    long long start_us = start_wall_us - run_wall_us();
    if (run.rounds) rounds_set_start(run.rounds, start_us);
    atomic_store(&run_start, start_us);
    pthread_mutex_unlock(&run.lock);
}

long long run_start_us(void) {
    return atomic_load(&run_start);
}

bool run_start_late(long long *late_us) {
    pthread_mutex_lock(&run.lock);
    long long start = atomic_load(&run_start);
    bool known = start != RUN_NO_START && run.released;
    if (known) *late_us = (run.first_send_us >= 0 ? run.first_send_us : run.released_us) - start;
    pthread_mutex_unlock(&run.lock);
    return known;
}

static bool run_interrupted(void) {
    return run.host.interrupted && run.host.interrupted(run.host.ud);
}

/* Tells the host to end the client, once; called without the lock. */
static void run_end_client(void) {
    pthread_mutex_lock(&run.lock);
    bool first = !run.ended;
    run.ended = true;
    struct run_host host = run.host;
    pthread_mutex_unlock(&run.lock);
    if (first && host.end) host.end(host.ud);
}

/* A round started or the run stops: waiting threads go on. With the lock held. */
static void run_changed(void) {
    run.generation++;
    pthread_cond_broadcast(&run.round_changed);
    if (run.host.wake) run.host.wake(run.host.ud);
}

/* The process's CPU time so far (user + system), seconds. */
static double run_cpu_s(void) {
    struct rusage u;
    if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/* now_us for the client's own tally (watch.h), with the CPU and the host's ticks. */
static struct watch_mark run_mark(long long now_us) {
    struct watch_mark m = {.now_us = now_us, .cpu_s = run_cpu_s()};
    (void)hostcpu_read(NULL, &m.host); /* not known: the round's steal is null */
    return m;
}

static int run_setup(const struct run_config *c, struct buf *err) {
    struct creds_options o = {.profile = c->profile};
    struct creds probe = {0};
    int rc = rounds_new(c->n_threads, c->rounds, c->n_rounds, &run.rounds);
    if (rc) return rc == ROUNDS_ERR_NOMEM ? RUN_ERR_NOMEM : RUN_ERR_INPUT;
    struct watch_client wc = c->watch;
    if (wc.cpus <= 0) wc.cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (wc.threads <= 0) wc.threads = c->n_threads;
    if (watch_init(&run.watch, c->n_rounds, &wc)) return RUN_ERR_NOMEM;
    if (rounds_set_shard(run.rounds, c->shard_index, c->shard_count))
        return buf_fail(err, RUN_ERR_INPUT,
                        "shard %ld of %ld has no sender: the run has %d (sender t belongs to "
                        "shard t mod %ld); give at least %ld",
                        c->shard_index, c->shard_count, c->n_threads, c->shard_count,
                        c->shard_count);
    if (rec_new(&run.rec) || !(run.signer = sigv4_signer_new()) ||
        !(run.creds = creds_cache_new(&o)))
        return RUN_ERR_NOMEM;
    if (creds_cache_get(run.creds, time(NULL), &probe, err) != CREDS_OK) return RUN_ERR_CREDS;
    creds_clear(&probe);
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) || pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) ||
        pthread_cond_init(&run.round_changed, &attr))
        return RUN_ERR_NOMEM;
    pthread_condattr_destroy(&attr);
    return RUN_OK;
}

int run_begin(const struct run_config *c, struct buf *err) {
    pthread_mutex_lock(&run.lock);
    if (run.begun) {
        pthread_mutex_unlock(&run.lock);
        return RUN_ERR_STATE;
    }
    int rc = run_setup(c, err);
    if (rc == RUN_OK) {
        clock_gettime(CLOCK_MONOTONIC, &run.origin);
        run.cap_us = c->cap_us;
        run.refuse_after = c->refuse_after;
        run.host = c->host;
        run.start_tol_us = (long long)(c->start_tolerance_s * 1e6);
        run.released = false;
        run.first_send_us = -1;
        atomic_store(&run_start, RUN_NO_START);
        progress_init(&run.progress, c->scenario, c->progress_s);
        run.begun = true;
    }
    pthread_mutex_unlock(&run.lock);
    if (rc) run_free();
    return rc;
}

int run_add_file(const char *result_path, const char *root, const cJSON *head, bool force,
                 size_t *index, struct buf *err) {
    struct buf journal;
    buf_init(&journal, BUF_NO_CAP);
    if (rec_journal_path(result_path, &journal)) return RUN_ERR_NOMEM;
    pthread_mutex_lock(&run.lock);
    int rc = !run.begun ? RUN_ERR_STATE
             : rec_add_file(run.rec, result_path, buf_str(&journal), root, head, force, index, err)
                 ? RUN_ERR_IO
                 : RUN_OK;
    pthread_mutex_unlock(&run.lock);
    buf_free(&journal);
    return rc;
}

/* The progress line at now; with the lock held. */
static void run_progress(long long now, bool last) {
    long sent = 0, failed = 0;
    for (size_t i = 0; i < rec_n_files(run.rec); i++) {
        sent += rec_counts(run.rec, i)->sent;
        failed += rec_counts(run.rec, i)->failed;
    }
    progress_show(&run.progress, now, last, sent, failed, rounds_total(run.rounds));
}

static void run_stop(const char *reason);

/* The first round started at now (the lock held): a start later than the
 * tolerance stops the run before anything is sent. */
static void run_release(long long now) {
    long long start = atomic_load(&run_start);
    run.released = true;
    run.released_us = start != RUN_NO_START && now < start ? start : now;
    if (start == RUN_NO_START || now - start <= run.start_tol_us) return;
    char reason[200];
    snprintf(reason, sizeof reason,
             RUN_LATE_REASON ": the first round started %.3f s after --start-at (tolerance %.3f s)",
             (double)(now - start) / 1e6, (double)run.start_tol_us / 1e6);
    run_stop(reason);
}

bool run_is_sender(int t) {
    pthread_mutex_lock(&run.lock);
    bool yes = !run.rounds || rounds_is_sender(run.rounds, t);
    pthread_mutex_unlock(&run.lock);
    return yes;
}

/* One look at the schedule for thread t, with the lock held. */
static int run_step(int t, size_t *round, long *index, long long *due) {
    if (!run.begun || run.stopping || run_interrupted()) return RUN_STOP;
    if (!rounds_is_sender(run.rounds, t)) return RUN_NONE;
    long long now = run_now_us();
    if (run.cap_us > 0 && now >= run.cap_us) return RUN_STOP;
    unsigned long gen = rounds_generation(run.rounds);
    int rc = rounds_next(run.rounds, t, now, round, index, due);
    if (rounds_generation(run.rounds) != gen) run_changed();
    if (!run.released && rounds_generation(run.rounds) > 0) run_release(now);
    if (run.stopping) return RUN_STOP;
    switch (rc) {
    case ROUNDS_ITEM:
        if (*round != run.watch.cur) {
            struct watch_mark m = run_mark(now);
            watch_item(&run.watch, *round, &m);
        }
        return RUN_ITEM;
    case ROUNDS_WAIT:
        return RUN_WAIT;
    case ROUNDS_DONE:
        run.done = true;
        run_progress(now, true);
        return RUN_DONE;
    default:
        return RUN_STOP;
    }
}

int run_next(int t, size_t *round, long *index, long long *due_us) {
    pthread_mutex_lock(&run.lock);
    int rc = run_step(t, round, index, due_us);
    pthread_mutex_unlock(&run.lock);
    if (rc == RUN_DONE) run_end_client();
    return rc;
}

unsigned long run_generation(void) {
    pthread_mutex_lock(&run.lock);
    unsigned long gen = run.generation;
    pthread_mutex_unlock(&run.lock);
    return gen;
}

void run_wait(unsigned long gen) {
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += RUN_WAIT_SLICE_NS;
    if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
    pthread_mutex_lock(&run.lock);
    if (run.begun && run.generation == gen)
        pthread_cond_timedwait(&run.round_changed, &run.lock, &until);
    pthread_mutex_unlock(&run.lock);
}

bool run_wait_until(long long due_us) {
    pthread_mutex_lock(&run.lock);
    long long now;
    while (!run.stopping && !run_interrupted() && (now = run_now_us()) < due_us) {
        long long left_us =
            due_us - now < RUN_STOP_CHECK_MS * 1000LL ? due_us - now : RUN_STOP_CHECK_MS * 1000LL;
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += (long)(left_us * 1000);
        while (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&run.round_changed, &run.lock, &until);
    }
    bool going = !run.stopping && !run_interrupted();
    pthread_mutex_unlock(&run.lock);
    return going;
}

/* Stops the run with reason unless it stops already; with the lock held. */
static void run_stop(const char *reason) {
    if (run.stopping) return;
    run.stopping = true;
    run_progress(run_now_us(), true);
    snprintf(run.reason, sizeof run.reason, "%s", reason);
    run_changed();
}

int run_record(size_t file, const struct rec_record *rec, bool retried, struct buf *err) {
    char reason[sizeof run.reason];
    pthread_mutex_lock(&run.lock);
    int rc = !run.begun ? RUN_ERR_STATE : rec_write(run.rec, file, rec, err) ? RUN_ERR_IO : RUN_OK;
    bool stop = rc == RUN_OK && !rec->ok && !retried && !run.stopping &&
                refuse_check(rec_counts(run.rec, file), run.refuse_after, rec->endpoint, reason,
                             sizeof reason);
    if (stop) run_stop(reason);
    if (rc == RUN_OK && (run.first_send_us < 0 || rec->t_start_us < run.first_send_us))
        run.first_send_us = rec->t_start_us;
    if (rc == RUN_OK) run_progress(rec->t_end_us, false);
    if (rc == RUN_OK) watch_record(&run.watch, file, rec->batch);
    pthread_mutex_unlock(&run.lock);
    if (stop) run_end_client();
    return rc;
}

void run_watch_stall(long long us) {
    if (us <= RFMT_STALL_US) return;
    pthread_mutex_lock(&run.lock);
    watch_stall(&run.watch, us);
    pthread_mutex_unlock(&run.lock);
}

void run_watch_reads(long reads, long chunks, long burst_chunks) {
    if (!reads) return;
    pthread_mutex_lock(&run.lock);
    watch_reads(&run.watch, reads, chunks, burst_chunks);
    pthread_mutex_unlock(&run.lock);
}

/* Gives every file its client_rounds; with the lock held. */
static int run_watch_files(void) {
    for (size_t i = 0; i < rec_n_files(run.rec); i++) {
        cJSON *a = watch_json(&run.watch, i);
        int rc = a ? rec_set_more(run.rec, i, RFMT_CLIENT_ROUNDS, a) : REC_ERR_NOMEM;
        cJSON_Delete(a);
        if (rc) return rc;
    }
    return REC_OK;
}

int run_set_template(size_t file, const cJSON *v, struct buf *err) {
    if (!cJSON_IsObject(v)) return buf_fail(err, RUN_ERR_INPUT, RFMT_TEMPLATE " must be an object");
    pthread_mutex_lock(&run.lock);
    int rc = !run.rec                                        ? RUN_ERR_STATE
             : file >= rec_n_files(run.rec)                  ? RUN_ERR_INPUT
             : rec_set_more(run.rec, file, RFMT_TEMPLATE, v) ? RUN_ERR_NOMEM
                                                             : RUN_OK;
    pthread_mutex_unlock(&run.lock);
    if (rc == RUN_ERR_INPUT) return buf_fail(err, rc, "no result file %zu", file + 1);
    if (rc == RUN_ERR_STATE) return buf_fail(err, rc, "the run has not begun");
    return rc;
}

void run_abort(const char *reason) {
    pthread_mutex_lock(&run.lock);
    run_stop(reason);
    pthread_mutex_unlock(&run.lock);
    run_end_client();
}

int run_creds(time_t now, struct creds *out, struct buf *err) {
    if (!run.creds) return RUN_ERR_STATE;
    return creds_cache_get(run.creds, now, out, err) ? RUN_ERR_CREDS : RUN_OK;
}

struct sigv4_signer *run_signer(void) {
    return run.signer;
}

const struct rec_counts *run_counts(size_t file) {
    pthread_mutex_lock(&run.lock);
    const struct rec_counts *c = run.rec ? rec_counts(run.rec, file) : NULL;
    pthread_mutex_unlock(&run.lock);
    return c;
}

size_t run_n_files(void) {
    pthread_mutex_lock(&run.lock);
    size_t n = run.rec ? rec_n_files(run.rec) : 0;
    pthread_mutex_unlock(&run.lock);
    return n;
}

static void run_outcome(struct run_outcome *out) {
    out->partial = !run.done;
    if (run.done)
        out->reason[0] = '\0';
    else if (run.stopping)
        snprintf(out->reason, sizeof out->reason, "%s", run.reason);
    else if (run_interrupted() || run.cap_us <= 0 || run_now_us() < run.cap_us)
        snprintf(out->reason, sizeof out->reason, "interrupted"); /* a client stops early only so */
    else
        snprintf(out->reason, sizeof out->reason, "duration cap");
}

int run_end(struct run_outcome *out, struct buf *err) {
    pthread_mutex_lock(&run.lock);
    int rc = RUN_ERR_STATE;
    if (run.begun) {
        char ended[32];
        run_outcome(out);
        run_progress(run_now_us(), true);
        rec_iso8601(run_wall_us(), ended);
        long long start = atomic_load(&run_start);
        cJSON *more = start != RUN_NO_START ? cJSON_CreateObject() : NULL;
        if (more && run.released)
            cJSON_AddNumberToObject(
                more, RFMT_START_LATE_US,
                (double)((run.first_send_us >= 0 ? run.first_send_us : run.released_us) - start));
        else if (more)
            cJSON_AddNullToObject(more, RFMT_START_LATE_US);
        struct watch_mark m = run_mark(run_now_us());
        watch_end(&run.watch, &m);
        rc =
            run_watch_files() ? RUN_ERR_NOMEM
            : rec_finish(run.rec, ended, out->partial, out->partial ? out->reason : NULL, more, err)
                ? RUN_ERR_IO
                : RUN_OK;
        cJSON_Delete(more);
    }
    pthread_mutex_unlock(&run.lock);
    return rc;
}

void run_share_plan(struct plan *p) {
    pthread_mutex_lock(&run.lock);
    plan_free(run.shared_plan);
    run.shared_plan = p;
    pthread_mutex_unlock(&run.lock);
}

const struct plan *run_shared_plan(void) {
    pthread_mutex_lock(&run.lock);
    const struct plan *p = run.shared_plan;
    pthread_mutex_unlock(&run.lock);
    return p;
}

void run_free(void) {
    pthread_mutex_lock(&run.lock);
    plan_free(run.shared_plan);
    run.shared_plan = NULL;
    if (run.begun) pthread_cond_destroy(&run.round_changed);
    rounds_free(run.rounds);
    rec_free(run.rec);
    watch_free(&run.watch);
    creds_cache_free(run.creds);
    sigv4_signer_free(run.signer);
    run.rounds = NULL;
    run.rec = NULL;
    run.creds = NULL;
    run.signer = NULL;
    run.host = (struct run_host){0};
    run.begun = run.done = run.stopping = run.ended = false;
    atomic_store(&run_start, RUN_NO_START);
    pthread_mutex_unlock(&run.lock);
}
