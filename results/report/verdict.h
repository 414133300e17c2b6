/* verdict: the comparison in a few sentences: the decode ratio and its
 * interval, the range of the load ratios, the weights, the quiz (scores of the
 * questions answered, identical answers, McNemar), and the failure rate of a
 * side above VERDICT_FAILURES. */
#ifndef SM_VERDICT_H
#define SM_VERDICT_H

#include <stddef.h>

#include "buf.h"
#include "cmp.h"

#define VERDICT_FAILURES 0.01 /* a side's failed share of requests the verdict names */

/* Writes m's verdict into out (emptied first; it grows as the verdict needs).
 * Returns 0, or a negative enum buf_error (out of memory). */
__attribute__((warn_unused_result)) int verdict_build(const struct cmp *m, struct buf *out);

#endif
