/* nway_report: the words of sm-compare --candidates (nway.h): the page of the
 * candidates' table, the ratios to the baseline, the Pareto front and the
 * recommendation (text and Markdown through out_text and out_markdown), and the
 * sentence of the recommendation that every format shares. */
#ifndef SM_NWAY_REPORT_H
#define SM_NWAY_REPORT_H

#include "buf.h"
#include "nway.h"
#include "page.h"
#include "warnings.h"

/* "qat-l4 is cheapest at p90 TTFT <= 1 s: 0.42 USD per million tokens [0.39,
 * 0.46]; bf16-l4 is within that range", or why there is no recommendation. */
__attribute__((warn_unused_result)) int nway_report_reason(const struct nway *w, struct buf *out);

/* A value as the table shows it: "n/a" when not finite. */
void nway_report_num(double x, char *out, size_t cap);

/* Builds the page into r (freed by page_free, also after an error). Returns 0 or
 * -1 out of memory. */
__attribute__((warn_unused_result)) int
nway_report_build(const struct nway *w, const struct warnings *warn, struct page *r);

#endif
