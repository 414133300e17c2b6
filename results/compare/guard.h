/* guard: whether two sides were measured alike, so that their ratios mean
 * something.
 *
 * Refused (one line naming both files) unless allow_mixed: files measured by
 * different clients (the "tool" field without its version: wrk-sagemaker,
 * or compare.py via aws CLI), at different time scales, or with different
 * scenario settings (decode lengths, prompt, temperature, ignore_eos; a
 * level's tokens per request; the concurrency levels; the quiz's max_tokens;
 * an open-loop run's arrivals, rates, duration, burstiness, seed, maximum
 * concurrency and tokens per request).
 * The same holds among the files pooled on one side. One side streamed
 * (sm-stream) and the other not (wrk) is such a difference, said louder: TTFT
 * and ITL exist only for streamed replies. With allow_mixed each
 * difference is a warning instead. Always refused: a level measured in batches
 * on one side and steady on the other, and different quizzes (name, sha256,
 * questions, or no question in common). */
#ifndef SM_GUARD_H
#define SM_GUARD_H

#include <stdbool.h>

#include "buf.h"
#include "side.h"
#include "warnings.h"

enum guard_err { GUARD_OK = 0, GUARD_ERR_MIXED = -3 };

/* Returns 0, or GUARD_ERR_MIXED with one line in err; differences allowed go to w. */
__attribute__((warn_unused_result)) int guard_check(const struct side *b, const struct side *c,
                                                    bool allow_mixed, struct warnings *w,
                                                    struct buf *err);
/* The client of a tool string: without a last word that starts with a digit
 * ("wrk-sagemaker 0.1.0" -> "wrk-sagemaker"), into out. */
void guard_client(const char *tool, char *out, size_t cap);

#endif
