/* prose: the comparison's sentences that are neither the verdict (verdict.h)
 * nor a warning (notes.h), written from the model's numbers (cmp.h) for every
 * output format alike: the time-scale note and McNemar's test in words. Each
 * appends to a growable buffer, so no length cuts a sentence short. */
#ifndef SM_PROSE_H
#define SM_PROSE_H

#include "buf.h"
#include "cmp.h"

/* "Times and rates are in real units: both sides ran 10 times faster than real
 * time (...)." appended to out; nothing when both sides ran in real time.
 * Returns 0, or a negative enum buf_error. */
__attribute__((warn_unused_result)) int prose_scale(const struct cmp *m, struct buf *out);
/* McNemar's test of the quiz in words, and what the quiz can show (or why
 * there is no test), appended to out; nothing without a quiz on both sides.
 * Returns 0, or a negative enum buf_error. */
__attribute__((warn_unused_result)) int prose_mcnemar(const struct cmp *m, struct buf *out);

#endif
