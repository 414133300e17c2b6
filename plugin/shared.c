#include "shared.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Threads waiting at a barrier are woken by a broadcast when a round starts or the
 * run stops; they also look this often for a Ctrl-C (a signal handler cannot
 * broadcast), as often as wrk looks at its own stop flag. Shorter slices cost a
 * thousand threads waiting on one core more than they save. */
#define SHARED_WAIT_SLICE_NS   (SHARED_WRK_STOP_CHECK_MS * 1000000L)
#define SHARED_TTY_PROGRESS_US 250000
#define SHARED_CHAIN_POLL_NS   1000000L /* how often the watcher looks for wrk's handler */

static struct {
    pthread_mutex_t lock;
    pthread_cond_t round_changed;
    bool begun;
    struct timespec origin; /* CLOCK_MONOTONIC */
    long long cap_us;
    struct rounds *rounds;
    struct recorder *rec;
    int refuse_after;
    struct creds_cache *creds;
    struct sigv4_signer *signer;
    bool done;      /* the schedule is over */
    bool stopping;  /* shared_abort was called */
    bool signalled; /* the SIGINT that ends the run was sent */
    char reason[600];
    char scenario[64];
    double progress_s;
    bool tty;
    long long progress_at_us; /* when the last progress line was printed */
    bool progress_shown;
    bool progress_closed; /* the last progress line is out */
    bool chained;         /* shared_on_sigint sits in front of wrk's handler */
    pthread_t watcher;    /* chains the handler as soon as wrk installs its own */
    bool watching;
} shared = {.lock = PTHREAD_MUTEX_INITIALIZER};

static _Atomic long long shared_skew;
static volatile sig_atomic_t shared_sigint_ours, shared_sigint_user;
static volatile sig_atomic_t shared_line_open; /* a terminal progress line awaits its newline */
static void (*shared_wrk_handler)(int);

static void shared_on_sigint(int sig) {
    if (!shared_sigint_ours) shared_sigint_user = 1;
    if (shared_line_open && write(STDERR_FILENO, "\n", 1) == 1) shared_line_open = 0;
    shared_wrk_handler(sig);
}

/* Puts shared_on_sigint in front of wrk's SIGINT handler once wrk has installed
 * it (wrk ignores SIGINT until its threads run). Called with the lock held. */
static bool shared_chain_sigint(void) {
    struct sigaction cur, mine;
    if (shared.chained) return true;
    if (sigaction(SIGINT, NULL, &cur) != 0 || (cur.sa_flags & SA_SIGINFO) ||
        cur.sa_handler == SIG_IGN || cur.sa_handler == SIG_DFL)
        return false;
    if (cur.sa_handler == shared_on_sigint) return shared.chained = true; /* an earlier run's */
    shared_wrk_handler = cur.sa_handler;
    mine = cur;
    mine.sa_handler = shared_on_sigint;
    if (sigaction(SIGINT, &mine, NULL) != 0) return false;
    shared.chained = true;
    return true;
}

/* wrk installs its SIGINT handler only after it has started its threads, and a
 * thread may then be inside a request for seconds: this thread chains ours within
 * a millisecond, so that a Ctrl-C right at the start still counts as the user's. */
static void *shared_watch_sigint(void *unused) {
    const struct timespec poll = {0, SHARED_CHAIN_POLL_NS};
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&shared.lock);
        bool over = !shared.watching || shared_chain_sigint();
        pthread_mutex_unlock(&shared.lock);
        if (over) return NULL;
        nanosleep(&poll, NULL);
    }
}

/* Stops the watcher, if it runs. Called without the lock. */
static void shared_stop_watching(void) {
    pthread_mutex_lock(&shared.lock);
    bool was = shared.watching;
    shared.watching = false;
    pthread_mutex_unlock(&shared.lock);
    if (was) pthread_join(shared.watcher, NULL);
}

/* The watcher runs this library's code: it stops before the library is unloaded
 * (a Lua state closed without shared_free, e.g. plain LuaJIT at exit). */
__attribute__((destructor)) static void shared_unload(void) {
    shared_stop_watching();
}

/* Sends the SIGINT that ends the run, once, when wrk is ready for it. */
static void shared_signal_main(void) {
    const struct timespec ms = {0, 1000000L};
    pthread_mutex_lock(&shared.lock);
    bool send = !shared.signalled;
    shared.signalled = true;
    for (int i = 0; send && i < 10000 && !shared_chain_sigint(); i++) {
        pthread_mutex_unlock(&shared.lock);
        nanosleep(&ms, NULL);
        pthread_mutex_lock(&shared.lock);
    }
    pthread_mutex_unlock(&shared.lock);
    if (!send) return;
    shared_sigint_ours = 1;
    syscall(SYS_tgkill, (long)getpid(), (long)getpid(), SIGINT);
}

static long long shared_mono_us(const struct timespec *t) {
    return (long long)t->tv_sec * 1000000 + t->tv_nsec / 1000;
}

long long shared_now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return shared_mono_us(&t) - shared_mono_us(&shared.origin);
}

long long shared_wall_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return shared_mono_us(&t);
}

time_t shared_signing_time(void) {
    return time(NULL) + (time_t)atomic_load(&shared_skew);
}

void shared_set_skew(long long offset) {
    atomic_store(&shared_skew, offset);
}

static int shared_setup(const struct shared_config *c, struct buf *err) {
    struct creds_options o = {.profile = c->profile};
    struct creds probe = {0};
    int rc = rounds_new(c->n_threads, c->rounds, c->n_rounds, &shared.rounds);
    if (rc) return rc == ROUNDS_ERR_NOMEM ? SHARED_ERR_NOMEM : SHARED_ERR_INPUT;
    if (rec_new(&shared.rec) || !(shared.signer = sigv4_signer_new()) ||
        !(shared.creds = creds_cache_new(&o)))
        return SHARED_ERR_NOMEM;
    if (creds_cache_get(shared.creds, time(NULL), &probe, err) != CREDS_OK) return SHARED_ERR_CREDS;
    creds_clear(&probe);
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) || pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) ||
        pthread_cond_init(&shared.round_changed, &attr))
        return SHARED_ERR_NOMEM;
    pthread_condattr_destroy(&attr);
    return SHARED_OK;
}

int shared_begin(const struct shared_config *c, struct buf *err) {
    pthread_mutex_lock(&shared.lock);
    if (shared.begun) {
        pthread_mutex_unlock(&shared.lock);
        return SHARED_ERR_STATE;
    }
    int rc = shared_setup(c, err);
    if (rc == SHARED_OK) {
        clock_gettime(CLOCK_MONOTONIC, &shared.origin);
        shared.cap_us = c->cap_us;
        shared.refuse_after = c->refuse_after;
        shared.progress_s = c->progress_s;
        shared.tty = isatty(STDERR_FILENO);
        snprintf(shared.scenario, sizeof shared.scenario, "%s", c->scenario);
        shared.begun = true;
        shared.watching = pthread_create(&shared.watcher, NULL, shared_watch_sigint, NULL) == 0;
    }
    pthread_mutex_unlock(&shared.lock);
    if (rc) shared_free();
    return rc;
}

int shared_add_file(const char *result_path, const char *journal_path, const cJSON *header,
                    size_t *index, struct buf *err) {
    pthread_mutex_lock(&shared.lock);
    int rc = !shared.begun ? SHARED_ERR_STATE
             : rec_add_file(shared.rec, result_path, journal_path, header, index, err)
                 ? SHARED_ERR_IO
                 : SHARED_OK;
    pthread_mutex_unlock(&shared.lock);
    return rc;
}

/* The progress line: on a terminal, redrawn at most every SHARED_TTY_PROGRESS_US;
 * elsewhere a line every progress_s. last: the final one, ended with a newline,
 * before wrk prints its summary. Called with the lock held. */
static void shared_progress(long long now, bool last) {
    long long every = shared.tty ? SHARED_TTY_PROGRESS_US : (long long)(shared.progress_s * 1e6);
    if (shared.progress_closed) return;
    if (!last && (every <= 0 || now - shared.progress_at_us < every)) return;
    if (last && !shared.progress_shown) return;
    long sent = 0, failed = 0, total = rounds_total(shared.rounds);
    for (size_t i = 0; i < rec_n_files(shared.rec); i++) {
        sent += rec_counts(shared.rec, i)->sent;
        failed += rec_counts(shared.rec, i)->failed;
    }
    char of[32] = "";
    if (total >= 0) snprintf(of, sizeof of, "/%ld", total);
    fprintf(stderr, "%s%s: %ld%s done, %ld failed, %.1f s%s", shared.tty ? "\r" : "",
            shared.scenario, sent, of, failed, now / 1e6,
            !shared.tty ? "\n"
            : last      ? "\033[K\n"
                        : "\033[K");
    shared.progress_at_us = now;
    shared.progress_shown = true;
    shared.progress_closed = last;
    shared_line_open = shared.tty && !last;
}

/* One look at the schedule for thread t, with the lock held. */
static int shared_step(int t, size_t *round, long *index) {
    shared_chain_sigint();
    if (!shared.begun || shared.stopping || shared_sigint_user) return SHARED_STOP;
    long long now = shared_now_us();
    if (shared.cap_us > 0 && now >= shared.cap_us) return SHARED_STOP;
    unsigned long gen = rounds_generation(shared.rounds);
    int rc = rounds_next(shared.rounds, t, now, round, index);
    if (rounds_generation(shared.rounds) != gen) pthread_cond_broadcast(&shared.round_changed);
    switch (rc) {
    case ROUNDS_ITEM:
        return SHARED_ITEM;
    case ROUNDS_WAIT:
        return SHARED_WAIT;
    case ROUNDS_DONE:
        shared.done = true;
        shared_progress(now, true);
        return SHARED_DONE;
    default:
        return SHARED_STOP;
    }
}

int shared_next(int t, size_t *round, long *index) {
    pthread_mutex_lock(&shared.lock);
    int rc;
    while ((rc = shared_step(t, round, index)) == SHARED_WAIT) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += SHARED_WAIT_SLICE_NS;
        if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&shared.round_changed, &shared.lock, &until);
    }
    pthread_mutex_unlock(&shared.lock);
    if (rc == SHARED_DONE) shared_signal_main();
    return rc;
}

/* What to check when an endpoint fails everything, by error code. */
static const char *shared_hint(const char *code) {
    static const struct {
        const char *code, *hint;
    } hints[] = {
        {"InvalidSignatureException", "check the region and credentials"},
        {"UnrecognizedClientException", "check the region and credentials"},
        {"IncompleteSignatureException", "check the region and credentials"},
        {"MissingAuthenticationTokenException", "check the region and credentials"},
        {"ExpiredTokenException", "check the region and credentials"},
        {"AccessDeniedException", "check the credentials' permissions (sagemaker:InvokeEndpoint)"},
        {"ValidationError", "check the endpoint name, variant and region"},
        {"ModelError", "see the container's log"},
        {"socket", "check the URL and that the server is up"},
    };
    for (size_t i = 0; code && i < sizeof hints / sizeof hints[0]; i++)
        if (strcmp(code, hints[i].code) == 0) return hints[i].hint;
    return NULL;
}

static void shared_stop(const char *reason) {
    if (shared.stopping) return;
    shared.stopping = true;
    shared_progress(shared_now_us(), true);
    snprintf(shared.reason, sizeof shared.reason, "%s", reason);
    pthread_cond_broadcast(&shared.round_changed);
}

/* Stops the run when file's endpoint failed all of its first refuse_after requests. */
static bool shared_check_refusal(size_t file, const char *endpoint) {
    const struct rec_counts *c = rec_counts(shared.rec, file);
    if (shared.refuse_after <= 0 || c->ok || c->failed < shared.refuse_after || shared.stopping)
        return false;
    const char *hint = shared_hint(c->n_errors ? c->errors[0].code : NULL);
    char reason[sizeof shared.reason];
    snprintf(reason, sizeof reason, "refused: %s failed its first %ld requests: %s%s%s", endpoint,
             c->failed, c->first_error ? c->first_error : "", hint ? " \xe2\x80\x94 " : "",
             hint ? hint : "");
    shared_stop(reason);
    return true;
}

int shared_record(size_t file, const struct rec_record *rec, bool retried, struct buf *err) {
    pthread_mutex_lock(&shared.lock);
    int rc = !shared.begun                           ? SHARED_ERR_STATE
             : rec_write(shared.rec, file, rec, err) ? SHARED_ERR_IO
                                                     : SHARED_OK;
    bool stop =
        rc == SHARED_OK && !rec->ok && !retried && shared_check_refusal(file, rec->endpoint);
    if (rc == SHARED_OK) shared_progress(rec->t_end_us, false);
    pthread_mutex_unlock(&shared.lock);
    if (stop) shared_signal_main();
    return rc;
}

void shared_idle(void) {
    const struct timespec wait = {0, (SHARED_WRK_STOP_CHECK_MS + 10) * 1000000L};
    nanosleep(&wait, NULL);
}

void shared_abort(const char *reason) {
    pthread_mutex_lock(&shared.lock);
    bool first = !shared.stopping;
    shared_stop(reason);
    pthread_mutex_unlock(&shared.lock);
    if (first) shared_signal_main();
}

int shared_creds(time_t now, struct creds *out, struct buf *err) {
    if (!shared.creds) return SHARED_ERR_STATE;
    return creds_cache_get(shared.creds, now, out, err) ? SHARED_ERR_CREDS : SHARED_OK;
}

struct sigv4_signer *shared_signer(void) {
    return shared.signer;
}

const struct rec_counts *shared_counts(size_t file) {
    pthread_mutex_lock(&shared.lock);
    const struct rec_counts *c = shared.rec ? rec_counts(shared.rec, file) : NULL;
    pthread_mutex_unlock(&shared.lock);
    return c;
}

size_t shared_n_files(void) {
    pthread_mutex_lock(&shared.lock);
    size_t n = shared.rec ? rec_n_files(shared.rec) : 0;
    pthread_mutex_unlock(&shared.lock);
    return n;
}

static void shared_outcome(struct shared_outcome *out) {
    out->partial = !shared.done;
    if (shared.done)
        out->reason[0] = '\0';
    else if (shared.stopping)
        snprintf(out->reason, sizeof out->reason, "%s", shared.reason);
    else if (shared_sigint_user || shared.cap_us <= 0 || shared_now_us() < shared.cap_us)
        snprintf(out->reason, sizeof out->reason, "interrupted"); /* wrk stops early only so */
    else
        snprintf(out->reason, sizeof out->reason, "duration cap");
}

int shared_end(struct shared_outcome *out, struct buf *err) {
    shared_stop_watching();
    pthread_mutex_lock(&shared.lock);
    int rc = SHARED_ERR_STATE;
    if (shared.begun) {
        char ended[32];
        shared_outcome(out);
        shared_progress(shared_now_us(), true);
        rec_iso8601(shared_wall_us(), ended);
        rc = rec_finish(shared.rec, ended, out->partial, out->partial ? out->reason : NULL, err)
                 ? SHARED_ERR_IO
                 : SHARED_OK;
    }
    pthread_mutex_unlock(&shared.lock);
    return rc;
}

void shared_free(void) {
    shared_stop_watching();
    pthread_mutex_lock(&shared.lock);
    if (shared.begun) pthread_cond_destroy(&shared.round_changed);
    rounds_free(shared.rounds);
    rec_free(shared.rec);
    creds_cache_free(shared.creds);
    sigv4_signer_free(shared.signer);
    shared.rounds = NULL;
    shared.rec = NULL;
    shared.creds = NULL;
    shared.signer = NULL;
    shared.begun = shared.done = shared.stopping = shared.signalled = shared.chained = false;
    shared.progress_shown = shared.progress_closed = false;
    shared.progress_at_us = 0;
    shared_sigint_ours = shared_sigint_user = 0;
    pthread_mutex_unlock(&shared.lock);
}
