/* clockoff: this host's clock against a server's, from the Date headers of the
 * server's replies, which say the server's time in whole seconds (RFC 7231).
 *
 * A reply that left at local wall time t0, came back at t1 and says second S
 * was stamped at some local time in [t0, t1] when the server's clock read
 * [S, S + 1 s), so the offset (server minus local) lies in [S - t1, S + 1 s - t0].
 * Each reply narrows the intersection; replies that straddle one of the
 * server's second ticks narrow it to about their spacing and round trip. The
 * plan (clockoff_next) sends one probe every CLOCKOFF_SCAN_US until a tick is
 * seen, then probes spread across where the next tick must fall, finer each
 * second, so that a few seconds of probes give the offset to about a round
 * trip (AIPerf's clock-offset records; NTP's bounds without its filtering).
 * A server whose clock reads a few milliseconds behind (Linux's time() reads
 * a coarse clock) can make two bounds cross; by up to CLOCKOFF_SLACK_US they
 * are kept as the interval between them, by more the replies disagree.
 *
 * Pure C: the caller passes every time in (wall-clock microseconds). */
#ifndef SM_CLOCKOFF_H
#define SM_CLOCKOFF_H

#include <stdbool.h>

#define CLOCKOFF_SCAN_US   50000 /* the first probes' spacing, until a tick is seen */
#define CLOCKOFF_SPREAD    8     /* probes spread across the window of the next tick */
#define CLOCKOFF_MIN_STEP  500   /* microseconds between two planned probes at least */
#define CLOCKOFF_SECOND_US 1000000
#define CLOCKOFF_SLACK_US                                                                          \
    10000 /* bounds that cross by less: a server's coarse clock (time()                            \
             may lag a tick of the kernel), kept as the uncertainty */

struct clockoff {
    long long lo_us, hi_us; /* the offset lies in [lo_us, hi_us] (when n > 0) */
    long long rtt_us;       /* the shortest round trip seen */
    long n;                 /* replies added */
    bool inconsistent;      /* replies disagreed by more than the slack: the clock jumped */
};

void clockoff_init(struct clockoff *c);

/* Adds a reply sent at t0_us, received at t1_us (local wall clock, t0 <= t1)
 * whose Date header says server_s (Unix seconds). */
void clockoff_add(struct clockoff *c, long long t0_us, long long t1_us, long long server_s);

/* The offset (server minus local, the middle of the bounds) and its
 * uncertainty (half their width); false when nothing was added or the replies
 * disagree. */
bool clockoff_get(const struct clockoff *c, long long *offset_us, long long *uncertainty_us);

/* When (local wall clock) the next probe should leave, at now_us or later. */
long long clockoff_next(const struct clockoff *c, long long now_us);

#endif
