/* out_text: the report as aligned plain text (sm-compare's default output).
 * Every cell and paragraph goes through esc_text: no control character or
 * ill-formed UTF-8 from a file reaches the terminal. */
#ifndef SM_OUT_TEXT_H
#define SM_OUT_TEXT_H

#include "buf.h"
#include "page.h"

/* Appends the report to out; returns BUF_OK or a buf error. */
__attribute__((warn_unused_result)) int out_text_render(const struct page *r, struct buf *out);
/* The display width of s (UTF-8 code points). */
size_t out_text_width(const char *s);

#endif
