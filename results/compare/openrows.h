/* openrows: the open-loop part of a comparison (openloop_cmp.h) as rows of m (group
 * CMP_OPEN), for CSV: per asked rate each side's arrivals, completions, tokens
 * and goodput per second, the SLO attainment, failed and late shares, the
 * latency figures at p50, p90 and p99 and whether the SLOs held; then the
 * capacity, in requests and tokens per second and (with a price) its cost. A
 * bounded capacity says so in the row's note. */
#ifndef SM_OPENROWS_H
#define SM_OPENROWS_H

#include "cmp.h"

/* Adds m->open's rows to m (m->open built). Returns 0, or -1 out of memory. */
__attribute__((warn_unused_result)) int openrows_add(struct cmp *m);

#endif
