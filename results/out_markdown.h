/* out_markdown: the report as GitHub-flavoured markdown (tables with pipes). */
#ifndef SM_OUT_MARKDOWN_H
#define SM_OUT_MARKDOWN_H

#include "buf.h"
#include "report.h"

/* Appends the report to out; returns BUF_OK or a buf error. */
__attribute__((warn_unused_result)) int out_markdown(const struct report *r, struct buf *out);

#endif
