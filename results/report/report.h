/* report: the comparison laid out as a page (page.h: title, headings, tables,
 * paragraphs, list items), which the text and Markdown writers render (each
 * escapes what it prints for its format, esc.h).
 *
 * The order is the reference's: the main table, then the intervals, decode
 * details, latency, cost, requests, agreement of runs, quiz and disagreements,
 * the server-log cross-check, container facts, warnings and the verdict. */
#ifndef SM_REPORT_H
#define SM_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "cmp.h"
#include "page.h"
#include "warnings.h"

enum report_err { REPORT_OK = 0, REPORT_ERR_NOMEM = -1 };

/* Lays out m and the warnings w. Returns 0, or REPORT_ERR_NOMEM (out is then
 * empty). The caller frees out with page_free. */
__attribute__((warn_unused_result)) int report_build(const struct cmp *m, const struct warnings *w,
                                                     struct page *out);

#endif
