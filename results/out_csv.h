/* out_csv: the comparison as one CSV table (RFC 4180 quoting), a row per
 * measurement: measurement, baseline, candidate, ratio, the three intervals,
 * the totals of counts, and a note (why a value is missing). Then the
 * identical answers, McNemar's counts and p, and one row per disagreement. */
#ifndef SM_OUT_CSV_H
#define SM_OUT_CSV_H

#include "buf.h"
#include "cmp.h"

/* Appends the table to out; returns BUF_OK or a buf error. */
__attribute__((warn_unused_result)) int out_csv(const struct cmp *m, struct buf *out);

#endif
