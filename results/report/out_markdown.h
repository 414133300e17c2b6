/* out_markdown: the report as GitHub-flavoured Markdown (tables with pipes).
 * Every cell and paragraph goes through esc_markdown: text from a file can
 * neither inject markup nor break a table. */
#ifndef SM_OUT_MARKDOWN_H
#define SM_OUT_MARKDOWN_H

#include "buf.h"
#include "page.h"

/* Appends the report to out; returns BUF_OK or a buf error. */
__attribute__((warn_unused_result)) int out_markdown_render(const struct page *r, struct buf *out);

#endif
