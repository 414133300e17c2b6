/* out_svg: a chart of the main measurements, readable without the table: per
 * measurement one bar per side (scaled to the larger of the two, with the
 * 95% interval as a whisker where there is one), the values, and the ratio
 * candidate / baseline; when a side streamed, a panel of time to first token
 * and one of inter-token latency: per measurement (decode, each concurrency
 * level) each side's p50 with its interval and ticks at p90 and p99, on one
 * scale per panel; with an open-loop run, its latency against achieved rate
 * (openloop_svg.h). Hand-written SVG 1.1, no scripts, no external files;
 * every text escaped for XML (esc_xml). */
#ifndef SM_OUT_SVG_H
#define SM_OUT_SVG_H

#include "buf.h"
#include "cmp.h"

/* Appends the SVG document to out; returns BUF_OK or a buf error. */
__attribute__((warn_unused_result)) int out_svg_render(const struct cmp *m, struct buf *out);

#endif
