/* out_json: the comparison as JSON. It keeps the keys of the reference's
 * combine output (a, b, columns, rows with [baseline, candidate, ratio],
 * identical_answers, disagreements, quality_by_kind) and adds the intervals,
 * decode details, latencies, costs, requests, runs, McNemar's test, warnings
 * and the verdict. */
#ifndef SM_OUT_JSON_H
#define SM_OUT_JSON_H

#include "buf.h"
#include "cmp.h"
#include "diag.h"

/* Appends the document to out; returns BUF_OK or a buf error. */
__attribute__((warn_unused_result)) int out_json(const struct cmp *m, const struct diag *d,
                                                 struct buf *out);

#endif
