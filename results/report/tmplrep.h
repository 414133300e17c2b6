/* tmplrep: the chat template's overhead each input measured with --tokenizer
 * (the result file's template_overhead, common/rfmt.h: RFMT_TEMPLATE), as a
 * block of the text and Markdown report: per input, the overhead in tokens,
 * the reply it came from and how many replies differed from it. */
#ifndef SM_TMPLREP_H
#define SM_TMPLREP_H

#include "cmp.h"
#include "page.h"

/* Adds the block to r (nothing when no input has a template_overhead). Returns
 * 0, or -1 out of memory. */
__attribute__((warn_unused_result)) int tmplrep_build(struct page *r, const struct cmp *m);

#endif
