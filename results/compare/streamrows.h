/* streamrows: the streaming part of a comparison.
 *
 * For every measurement that either side streamed (decode, each sweep level),
 * rows of group CMP_STREAM named METRIC_MEASUREMENT_pQ_seconds
 * (ttft_c4_p50_seconds, itl_decode_p99_seconds): TTFT, ITL and TPOT (and, for
 * a sweep level, end-to-end latency) at p50, p90 and p99 of each side
 * (stream.h), the ratio candidate / baseline, the requests (and ITL's tokens)
 * behind each value, and 95% intervals. A side that did not stream has no TTFT,
 * ITL or TPOT (a whole reply shows no token's arrival); its end-to-end latency
 * is compared, and m->stream_mixed says so. Sides that never streamed get no
 * rows.
 *
 * The check: at concurrency 1 one token follows another every decode step, so
 * 1 / median ITL should be the decode rate that length differencing measures
 * (decode_tokens_per_second); a difference above STREAMROWS_ITL_TOLERANCE is a
 * warning with both figures and their samples (notes.h writes it). */
#ifndef SM_STREAMROWS_H
#define SM_STREAMROWS_H

#include "cmp.h"

#define STREAMROWS_ITL_TOLERANCE 0.02

/* Adds m's streaming rows and sets m->stream_mixed. Returns 0, or -1 out of memory. */
__attribute__((warn_unused_result)) int streamrows_add(struct cmp *m);
/* The sweep level of s at concurrency c, or NULL. */
const struct side_level *streamrows_level(const struct side *s, int c);

#endif
