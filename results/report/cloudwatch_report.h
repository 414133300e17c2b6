/* cloudwatch_report: the CloudWatch cross-check (cloudwatch_check.h) in every output: two
 * tables of the report (requests; latency and utilization), the JSON array
 * "cloudwatch", and the warnings its differences earn. */
#ifndef SM_CLOUDWATCH_REPORT_H
#define SM_CLOUDWATCH_REPORT_H

#include <cjson/cJSON.h>

#include "cmp.h"
#include "page.h"
#include "warnings.h"

/* Adds the section to r (nothing when no side has CloudWatch metrics).
 * Returns 0, or -1 out of memory. */
__attribute__((warn_unused_result)) int cloudwatch_report_build(struct page *r,
                                                                const struct cmp *m);
/* The rows as a JSON array (owned by the caller), or NULL out of memory. */
cJSON *cloudwatch_report_json(const struct cmp *m);
/* One warning per difference: requests lost or invented, replies not seen. */
void cloudwatch_report_notes(const struct cmp *m, struct warnings *w);

#endif
