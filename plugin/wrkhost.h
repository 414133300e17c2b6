/* wrkhost: the run's host when the client is wrk (run.h). wrk has no way for a
 * script to end a run: the run ends by sending SIGINT to wrk's main thread,
 * which stops wrk at once and runs done(). A handler chained in front of wrk's
 * own SIGINT handler tells a user's Ctrl-C from that signal (a run stopped by
 * neither ended at wrk's -d). wrk installs its handler only after it has
 * started its threads, so a watcher thread chains ours as soon as it is there.
 * wrk sleeps out its -d after installing its handler, and a signal that comes
 * before that sleep is lost: the watcher sends it only while the main thread
 * sleeps (/proc/self/task/PID/syscall). */
#ifndef SM_WRKHOST_H
#define SM_WRKHOST_H

#include "run.h"

/* The host to begin a run with; wrkhost_start must follow run_begin. */
struct run_host wrkhost_host(void);

/* Starts the watcher that chains the SIGINT handler and ends wrk when the run
 * ends. Returns 0 or -1. */
int wrkhost_start(void);
/* Stops the watcher (before run_end); safe when it does not run. */
void wrkhost_stop(void);

/* Waits as long as wrk takes to see that the run is ending (it looks every
 * RUN_STOP_CHECK_MS): for a thread with nothing left to send. */
void wrkhost_idle(void);

#endif
