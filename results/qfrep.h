/* qfrep: the quiz's paired analysis by family (qfam.h) in a report (a table
 * and what it means) and in sm-compare's JSON. */
#ifndef SM_QFREP_H
#define SM_QFREP_H

#include <cjson/cJSON.h>

#include "qfam.h"
#include "report.h"

/* Adds the analysis to r when f has one. Returns 0, or -1 out of memory. */
__attribute__((warn_unused_result)) int qfrep_report(struct report *r, const struct qfam *f,
                                                     const char *bname, const char *cname);

/* The analysis as JSON (null when f has none); NULL out of memory. */
cJSON *qfrep_json(const struct qfam *f);

#endif
