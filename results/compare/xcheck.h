/* xcheck: the client's generation throughput against the server's own.
 *
 * For each sweep level of a side whose container log (srvlog.h) covers it:
 * the log lines whose whole interval lies inside the level's window (first
 * request start to last reply, on the wall clock) give the server's average
 * generation throughput; the side's successful replies, their tokens spread
 * over each reply's generation (its wall time less the per-call cost), give
 * the client's over the same intervals. Where the log's times are coarse
 * (vLLM's own stamps are whole seconds) or the clocks may differ
 * (XCHECK_CLOCK_S), the client's figure is a range over where the intervals
 * may lie; a server figure more than XCHECK_TOLERANCE outside that range is a
 * difference (a wrong time scale, token counts, or a client too slow to keep
 * the server busy). */
#ifndef SM_XCHECK_H
#define SM_XCHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "side.h"

#define XCHECK_TOLERANCE 0.05
#define XCHECK_CLOCK_S   0.05 /* the client's and the server's clocks may differ by this */

enum xcheck_err { XCHECK_OK = 0, XCHECK_ERR_NOMEM = -1 };

struct xcheck_row {
    const struct side *side;
    const struct src *src; /* the sweep file */
    int c;
    bool ok;                             /* compared */
    char why[200];                       /* else why not */
    double client, client_lo, client_hi; /* tokens per second, real units */
    double server;
    double seconds; /* real seconds compared */
    size_t lines;   /* log lines compared */
    bool differs;   /* server outside [client_lo, client_hi] by more than XCHECK_TOLERANCE */
};

struct xcheck {
    struct xcheck_row *rows;
    size_t n;
};

/* Adds a row per sweep level of s when its inputs hold throughput lines.
 * Returns 0, or XCHECK_ERR_NOMEM with err. */
__attribute__((warn_unused_result)) int xcheck_side(struct xcheck *x, const struct side *s,
                                                    struct buf *err);
void xcheck_free(struct xcheck *x);

#endif
