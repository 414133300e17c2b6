/* quiz_family_report: the quiz's paired analysis by family (quiz_family.h) in a report (a table
 * and what it means) and in sm-compare's JSON. */
#ifndef SM_QUIZ_FAMILY_REPORT_H
#define SM_QUIZ_FAMILY_REPORT_H

#include <cjson/cJSON.h>

#include "quiz_family.h"
#include "page.h"

/* Adds the analysis to r when f has one. Returns 0, or -1 out of memory. */
__attribute__((warn_unused_result)) int quiz_family_report_report(struct page *r,
                                                                  const struct quiz_family *f,
                                                                  const char *bname,
                                                                  const char *cname);

/* The analysis as JSON (null when f has none); NULL out of memory. */
cJSON *quiz_family_report_json(const struct quiz_family *f);

#endif
