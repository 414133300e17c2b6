/* scaling_report: the Scaling section of the report (docs/compare.md,
 * Scaling): for each side's ramp input (scaling.h), one row per load change of
 * its schedule: the instances, the time to the scale-out decision and to new
 * capacity serving, the requests of the transition and of the steady state
 * with their SLO attainment and goodput, the failed and refused requests, and
 * the instance-hours. */
#ifndef SM_SCALING_REPORT_H
#define SM_SCALING_REPORT_H

#include <cjson/cJSON.h>

#include "cmp.h"
#include "page.h"

/* Adds the section to r when an input holds a ramp. Returns 0, or -1 out of memory. */
__attribute__((warn_unused_result)) int scaling_report_build(struct page *r, const struct cmp *m);

/* The "scaling" object of the JSON report (docs/compare.md, Scaling): per side
 * ("baseline", "candidate") a list of its ramp inputs, each with its totals and
 * its steps; NULL when no input holds a ramp (or out of memory). The caller owns it. */
cJSON *scaling_report_json(const struct cmp *m);

#endif
