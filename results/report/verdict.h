/* verdict: the comparison in a few sentences: the decode ratio and its
 * interval, the range of the load ratios, the weights, the quiz (scores of the
 * questions answered, identical answers, McNemar), and the failure rate of a
 * side above VERDICT_FAILURES. */
#ifndef SM_VERDICT_H
#define SM_VERDICT_H

#include <stddef.h>

#include "cmp.h"

#define VERDICT_FAILURES 0.01 /* a side's failed share of requests the verdict names */

/* Writes m's verdict into out (cap bytes, NUL-terminated). */
void verdict_build(const struct cmp *m, char *out, size_t cap);

#endif
