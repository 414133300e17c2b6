/* out_csv: the comparison as one CSV table (RFC 4180 quoting), a row per
 * measurement: measurement, baseline, candidate, ratio, the three intervals,
 * each side's requests (ok, sent), the totals of counts (questions answered),
 * and a note (why a value or an interval is missing). Then the identical
 * answers, McNemar's counts and p, and one row per disagreement. The warnings
 * come first, as comment lines ("# warning: ..."). Every field from a file is
 * escaped (esc_csv). */
#ifndef SM_OUT_CSV_H
#define SM_OUT_CSV_H

#include "buf.h"
#include "cmp.h"
#include "warnings.h"

/* Appends the table to out; returns BUF_OK or a buf error. */
__attribute__((warn_unused_result)) int out_csv_render(const struct cmp *m,
                                                       const struct warnings *w, struct buf *out);

/* Appends one CSV line of n cells (NULL: empty), each escaped (esc_csv), ended
 * by CRLF; returns BUF_OK or a buf error. */
__attribute__((warn_unused_result)) int out_csv_cells(struct buf *b, const char *const *cells,
                                                      size_t n);

#endif
