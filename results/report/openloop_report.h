/* openloop_report: the open-loop part of the text and Markdown report (openloop_cmp.h): the
 * settings and SLOs, the latency-throughput curve of each side (a load table
 * and a latency table, one row per side and rate) and the capacity at the
 * SLOs with its ratio. */
#ifndef SM_OPENLOOP_REPORT_H
#define SM_OPENLOOP_REPORT_H

#include <stddef.h>

#include "buf.h"
#include "cmp.h"
#include "page.h"

/* Adds the blocks of m->open to r (nothing without an open-loop run). Returns
 * 0, or -1 out of memory. */
__attribute__((warn_unused_result)) int openloop_report_build(struct page *r, const struct cmp *m);

/* "", ">=", ">", "<=" or "<". */
const char *openloop_report_rel_text(enum openloop_cmp_rel rel);
/* The SLOs as a phrase appended to out: "p90 TTFT <= 1 s and at most 1% failed".
 * Returns 0, or a negative enum buf_error. */
__attribute__((warn_unused_result)) int openloop_report_slo_phrase(const struct openloop_cmp *o,
                                                                   struct buf *out);
/* A rate's verdict: "held", or "failed: p90 TTFT 1.52 s > 1 s, ...". */
void openloop_report_verdict_cell(const struct openloop_cmp *o, const struct openloop_cmp_point *p,
                                  char *out, size_t cap);
/* A capacity (or its ratio) as text: "6.3", ">= 8", "< 1". */
void openloop_report_bound_text(enum openloop_cmp_rel rel, double v, int decimals, char *out,
                                size_t cap);
/* The verdict's sentence on capacity appended to out (nothing without SLOs).
 * Returns 0, or a negative enum buf_error. */
__attribute__((warn_unused_result)) int openloop_report_verdict(const struct cmp *m,
                                                                struct buf *out);

#endif
