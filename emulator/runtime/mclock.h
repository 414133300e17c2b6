/* mclock: the emulator's clocks and its early timers. The timing model runs
 * on model seconds, the monotonic clock times the time scale; the request log
 * writes the wall clock (reqlog_now), a model time as a monotonic interval from
 * a wall-clock reading. A timer fires MCLOCK_WAKE_LEAD before it is due, and its
 * callback spins out the rest through the loop (mclock_due): a machine that wakes
 * an idle process late (virtual CPUs take a few hundred microseconds) does not
 * delay replies, and requests that come meanwhile are read, not kept waiting. */
#ifndef EMU_MCLOCK_H
#define EMU_MCLOCK_H

#include <stdbool.h>

struct event; /* libevent's */

#define MCLOCK_WAKE_LEAD 0.0003 /* real seconds */

/* The monotonic clock, in real seconds. */
double mclock_real(void);

/* The wall-clock time (seconds since the epoch) of the monotonic reading real:
 * the wall clock at the first call plus the monotonic time since. One mapping for
 * the process, so that the wall times it states for model times (scaling
 * activities, the control plane's) are apart by exactly their model interval,
 * even when the host steps or slews its wall clock meanwhile. */
double mclock_wall(double real);

/* Arms the timer ev for due_real (monotonic seconds) less MCLOCK_WAKE_LEAD. */
void mclock_arm(struct event *ev, double due_real);

/* Whether due_real has come. If not, the timer ev, whose callback asks, fires
 * again on the loop's next turn, after the events ready by then. */
bool mclock_due(struct event *ev, double due_real);

/* Fires the timer ev again on the loop's next turn, after the events ready by then.
 * Returns false when it cannot wait (the caller goes on now). */
bool mclock_later(struct event *ev);

#endif
