/* sidetally: a side's prefix-cache hits and tokens per chunk (rtally.h) over
 * all of its measurements: the decode run, every concurrency level and every
 * open-loop rate, each successful record counted once. */
#ifndef SM_SIDETALLY_H
#define SM_SIDETALLY_H

#include "rtally.h"
#include "side.h"

/* The tally of s's successful records. */
struct rtally sidetally_of(const struct side *s);

#endif
