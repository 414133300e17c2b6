/* cwreport: the CloudWatch cross-check (cwcheck.h) in every output: two
 * tables of the report (requests; latency and utilization), the JSON array
 * "cloudwatch", and the warnings its differences earn. */
#ifndef SM_CWREPORT_H
#define SM_CWREPORT_H

#include <cjson/cJSON.h>

#include "cmp.h"
#include "page.h"
#include "warnings.h"

/* Adds the section to r (nothing when no side has CloudWatch metrics).
 * Returns 0, or -1 out of memory. */
__attribute__((warn_unused_result)) int cwreport_build(struct page *r, const struct cmp *m);
/* The rows as a JSON array (owned by the caller), or NULL out of memory. */
cJSON *cwreport_json(const struct cmp *m);
/* One warning per difference: requests lost or invented, replies not seen. */
void cwreport_notes(const struct cmp *m, struct warnings *w);

#endif
