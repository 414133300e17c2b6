#include "wrkhost.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

#define WRKHOST_POLL_NS     1000000L  /* how often the watcher first looks */
#define WRKHOST_POLL_MAX_NS 64000000L /* and at most, once the look is long */

static struct {
    pthread_mutex_t lock;
    pthread_cond_t changed; /* ending or watching changed */
    bool chained;           /* wrkhost_on_sigint sits in front of wrk's handler */
    bool ending;            /* the run asked wrk to stop */
    pthread_t watcher;      /* chains the handler and sends the SIGINT that stops wrk */
    bool watching;
} wrkhost = {.lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER};

static volatile sig_atomic_t wrkhost_sigint_ours, wrkhost_sigint_user;
static void (*wrkhost_wrk_handler)(int);

static void wrkhost_on_sigint(int sig) {
    if (!wrkhost_sigint_ours) wrkhost_sigint_user = 1;
    progress_break_line();
    wrkhost_wrk_handler(sig);
}

/* Puts wrkhost_on_sigint in front of wrk's SIGINT handler once wrk has installed
 * it (wrk ignores SIGINT until its threads run). Called with the lock held. */
static bool wrkhost_chain(void) {
    struct sigaction cur, mine;
    if (wrkhost.chained) return true;
    if (sigaction(SIGINT, NULL, &cur) != 0 || (cur.sa_flags & SA_SIGINFO) ||
        cur.sa_handler == SIG_IGN || cur.sa_handler == SIG_DFL)
        return false;
    if (cur.sa_handler == wrkhost_on_sigint) return wrkhost.chained = true; /* an earlier run's */
    wrkhost_wrk_handler = cur.sa_handler;
    mine = cur;
    mine.sa_handler = wrkhost_on_sigint;
    if (sigaction(SIGINT, &mine, NULL) != 0) return false;
    wrkhost.chained = true;
    return true;
}

/* Whether wrk's main thread sleeps out its -d (1), does something else (0), or
 * cannot be seen (-1). wrk sets its stop flag on SIGINT and then sleeps: a signal
 * that came between its handler and its sleep would leave it sleeping the whole -d. */
static int wrkhost_main_asleep(void) {
    char path[64], text[32], *end;
    snprintf(path, sizeof path, "/proc/self/task/%ld/syscall", (long)getpid());
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    bool got = fgets(text, sizeof text, f) != NULL;
    fclose(f);
    long nr = got ? strtol(text, &end, 10) : 0;
    if (!got || end == text) return 0; /* "running" when on a CPU */
    return nr == SYS_clock_nanosleep || nr == SYS_restart_syscall
#ifdef SYS_nanosleep
           || nr == SYS_nanosleep
#endif
        ;
}

/* Sends the SIGINT that stops wrk, when its main thread sleeps; returns whether
 * it is sent. With the lock held. */
static bool wrkhost_send(void) {
    int asleep = wrkhost_main_asleep();
    if (!wrkhost.chained || asleep == 0) return false;
    wrkhost_sigint_ours = 1;
    syscall(SYS_tgkill, (long)getpid(), (long)getpid(), SIGINT);
    return true;
}

/* Chains the handler as soon as wrk installs its own (a Ctrl-C right at the start
 * still counts as the user's), then waits for the run's end and stops wrk. */
static void *wrkhost_watch(void *unused) {
    long poll_ns = WRKHOST_POLL_NS;
    (void)unused;
    pthread_mutex_lock(&wrkhost.lock);
    while (wrkhost.watching) {
        bool chained = wrkhost_chain();
        if (wrkhost.ending && wrkhost_send()) break;
        if (chained && !wrkhost.ending) {
            pthread_cond_wait(&wrkhost.changed, &wrkhost.lock);
            continue;
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += poll_ns;
        if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&wrkhost.changed, &wrkhost.lock, &until);
        if (wrkhost.ending && poll_ns < WRKHOST_POLL_MAX_NS)
            poll_ns *= 2; /* wrk is slow to sleep */
    }
    pthread_mutex_unlock(&wrkhost.lock);
    return NULL;
}

int wrkhost_start(void) {
    pthread_mutex_lock(&wrkhost.lock);
    wrkhost.chained = wrkhost.ending = false;
    wrkhost_sigint_ours = wrkhost_sigint_user = 0;
    wrkhost.watching = pthread_create(&wrkhost.watcher, NULL, wrkhost_watch, NULL) == 0;
    int rc = wrkhost.watching ? 0 : -1;
    pthread_mutex_unlock(&wrkhost.lock);
    return rc;
}

void wrkhost_stop(void) {
    pthread_mutex_lock(&wrkhost.lock);
    bool was = wrkhost.watching;
    wrkhost.watching = false;
    pthread_cond_broadcast(&wrkhost.changed);
    pthread_mutex_unlock(&wrkhost.lock);
    if (was) pthread_join(wrkhost.watcher, NULL);
}

/* The watcher runs this library's code: it stops before the library is unloaded
 * (a Lua state closed without the run's end, e.g. plain LuaJIT at exit). */
__attribute__((destructor)) static void wrkhost_unload(void) {
    wrkhost_stop();
}

static void wrkhost_end(void *unused) {
    (void)unused;
    pthread_mutex_lock(&wrkhost.lock);
    wrkhost.ending = true;
    pthread_cond_broadcast(&wrkhost.changed);
    pthread_mutex_unlock(&wrkhost.lock);
}

static bool wrkhost_interrupted(void *unused) {
    (void)unused;
    return wrkhost_sigint_user != 0;
}

struct run_host wrkhost_host(void) {
    return (struct run_host){.end = wrkhost_end, .interrupted = wrkhost_interrupted};
}

void wrkhost_idle(void) {
    const struct timespec wait = {0, (RUN_STOP_CHECK_MS + 10) * 1000000L};
    nanosleep(&wait, NULL);
}
