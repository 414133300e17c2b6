/* scaling_svg: the Scaling panel of the SVG chart (out_svg.h): for each side's
 * first ramp input (scaling.h), three strips over the schedule's seconds: the
 * schedule's rate, the instances serving (sm-timeline's samples) and the p90
 * TTFT of each window's successful requests (scaling's windows). */
#ifndef SM_SCALING_SVG_H
#define SM_SCALING_SVG_H

#include "buf.h"
#include "cmp.h"

/* The panel's height in pixels (0 without a ramp). */
double scaling_svg_height(const struct cmp *m);
/* Draws the panel from y down into b. Returns BUF_OK or a buf error. */
__attribute__((warn_unused_result)) int scaling_svg_draw(struct buf *b, const struct cmp *m,
                                                         double y);

#endif
