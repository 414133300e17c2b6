#include "wrkhost.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

#define WRKHOST_CHAIN_POLL_NS 1000000L /* how often the watcher looks for wrk's handler */

static struct {
    pthread_mutex_t lock;
    bool chained;      /* wrkhost_on_sigint sits in front of wrk's handler */
    pthread_t watcher; /* chains the handler as soon as wrk installs its own */
    bool watching;
} wrkhost = {.lock = PTHREAD_MUTEX_INITIALIZER};

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

/* A thread may be inside a request for seconds when wrk installs its handler:
 * this one chains ours within a millisecond, so that a Ctrl-C right at the start
 * still counts as the user's. */
static void *wrkhost_watch(void *unused) {
    const struct timespec poll = {0, WRKHOST_CHAIN_POLL_NS};
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&wrkhost.lock);
        bool over = !wrkhost.watching || wrkhost_chain();
        pthread_mutex_unlock(&wrkhost.lock);
        if (over) return NULL;
        nanosleep(&poll, NULL);
    }
}

int wrkhost_start(void) {
    pthread_mutex_lock(&wrkhost.lock);
    wrkhost.chained = false;
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
    pthread_mutex_unlock(&wrkhost.lock);
    if (was) pthread_join(wrkhost.watcher, NULL);
}

/* The watcher runs this library's code: it stops before the library is unloaded
 * (a Lua state closed without the run's end, e.g. plain LuaJIT at exit). */
__attribute__((destructor)) static void wrkhost_unload(void) {
    wrkhost_stop();
}

/* Sends the SIGINT that ends the run once wrk's handler is chained (it may take
 * a moment after the threads start). */
static void wrkhost_end(void *unused) {
    const struct timespec ms = {0, 1000000L};
    (void)unused;
    pthread_mutex_lock(&wrkhost.lock);
    for (int i = 0; i < 10000 && !wrkhost_chain(); i++) {
        pthread_mutex_unlock(&wrkhost.lock);
        nanosleep(&ms, NULL);
        pthread_mutex_lock(&wrkhost.lock);
    }
    pthread_mutex_unlock(&wrkhost.lock);
    wrkhost_sigint_ours = 1;
    syscall(SYS_tgkill, (long)getpid(), (long)getpid(), SIGINT);
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
