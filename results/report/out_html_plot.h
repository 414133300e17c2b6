/* out_html_plot: the HTML report's own charts (out_html.h), each an SVG document
 * with a <title> and a data-tip (the hover text) on every point, its text escaped
 * for XML (esc_xml):
 *
 * - the latency-throughput curve: per side, p90 end-to-end latency against
 *   tokens per second, one point per sweep level (cN, solid line) and one per
 *   open-loop rate (dashed, squares; latency from the intended start);
 * - the per-request scatter: per side, each request's end-to-end latency against
 *   its start (seconds since the side's first request, as measured), failed
 *   requests hollow; at most max points a side, sampled evenly (every k-th request
 *   in file order), and the legend says how many of how many.
 *
 * A chart without data writes nothing (out stays empty). */
#ifndef SM_OUT_HTML_PLOT_H
#define SM_OUT_HTML_PLOT_H

#include <stddef.h>

#include "buf.h"
#include "cmp.h"

#define OUT_HTML_PLOT_POINTS 2000 /* the scatter's points per side, at most */

/* The latency-throughput curve of both sides into out: BUF_OK or a buf error. */
__attribute__((warn_unused_result)) int out_html_plot_curve(const struct cmp *m, struct buf *out);
/* The per-request scatter of both sides, at most max (>= 1) points a side. */
__attribute__((warn_unused_result)) int out_html_plot_scatter(const struct cmp *m, size_t max,
                                                              struct buf *out);

#endif
