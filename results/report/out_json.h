/* out_json: the comparison as JSON. It keeps the keys of the reference's
 * combine output (a, b, columns, rows with [baseline, candidate, ratio],
 * identical_answers, disagreements, quality_by_kind) and adds each figure's
 * requests, the intervals with their methods, decode details, latencies,
 * costs, the quiz's answered counts, requests, runs, McNemar's test, the
 * server-log cross-check, warnings and the verdict. Numbers keep full
 * precision; strings from files are made valid UTF-8. */
#ifndef SM_OUT_JSON_H
#define SM_OUT_JSON_H

#include <cjson/cJSON.h>

#include "buf.h"
#include "cmp.h"
#include "warnings.h"

/* Appends the document to out; returns BUF_OK or a buf error. */
__attribute__((warn_unused_result)) int out_json_render(const struct cmp *m,
                                                        const struct warnings *w, struct buf *out);

/* A string from a file as a JSON string (ill-formed UTF-8 becomes U+FFFD), null
 * for NULL; NULL out of memory. */
cJSON *out_json_str(const char *s);

#endif
