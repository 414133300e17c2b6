/* openloop_svg: the open-loop panel of the SVG chart (out_svg.h): each side's
 * latency against its achieved rate (successful requests per second), one
 * point per asked rate (labelled with it), for the first SLO's metric and
 * percentile (else end-to-end latency at p90), with the SLO's bound dashed. */
#ifndef SM_OPENLOOP_SVG_H
#define SM_OPENLOOP_SVG_H

#include "buf.h"
#include "cmp.h"

/* The panel's height in pixels (0 without an open-loop run). */
double openloop_svg_height(const struct cmp *m);
/* Draws the panel from y down into b. Returns BUF_OK or a buf error. */
__attribute__((warn_unused_result)) int openloop_svg_draw(struct buf *b, const struct cmp *m,
                                                          double y);

#endif
