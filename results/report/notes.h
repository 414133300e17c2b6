/* notes: the warnings a comparison raises about its own figures.
 *
 * - each measurement whose requests failed: the failure rate, the errors, and
 *   what the figure uses instead (the successful replies; the batches without
 *   a failure; the questions answered);
 * - each figure whose samples are too few for an interval, and how many it
 *   takes;
 * - time-scaled runs, and how far their times may be off (interval.h's bias
 *   bound) on each kind of figure;
 * - compare.py files, which get no intervals;
 * - a server log whose generation throughput differs from the client's
 *   (xcheck.h);
 * - and first, in this order: a c1 measurement whose 1 / median ITL differs
 *   from the decode rate by more than STREAMROWS_ITL_TOLERANCE (streamrows.h), and each
 *   open-loop side's late sends, percentiles resting on few requests, and SLOs
 *   that held again above a failed rate (openloop_cmp.h). */
#ifndef SM_NOTES_H
#define SM_NOTES_H

#include <stdbool.h>

#include "cmp.h"
#include "warnings.h"

/* Adds m's notes to w. */
void notes_add(const struct cmp *m, struct warnings *w);
/* The ITL check of side s (its display name): whether it warned. */
bool notes_itl_check(const struct side *s, const char *name, struct warnings *w);
/* The failed share of a side's requests over every measurement, 0 to 1 (0
 * when none were sent); *failed and *sent the counts. */
double notes_failure_rate(const struct side *s, long *failed, long *sent);

#endif
