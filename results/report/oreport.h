/* oreport: the open-loop part of the text and Markdown report (ocmp.h): the
 * settings and SLOs, the latency-throughput curve of each side (a load table
 * and a latency table, one row per side and rate) and the capacity at the
 * SLOs with its ratio. */
#ifndef SM_OREPORT_H
#define SM_OREPORT_H

#include "cmp.h"
#include "report.h"

/* Adds the blocks of m->open to r (nothing without an open-loop run). Returns
 * 0, or -1 out of memory. */
__attribute__((warn_unused_result)) int oreport_build(struct report *r, const struct cmp *m);

#endif
