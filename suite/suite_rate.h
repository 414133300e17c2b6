/* suite_rate: a side's decode rate from its decode result file, measured as
 * the reference method measures it (rate = (L2 - L1) / (median wall L2 -
 * median wall L1) over the longest and shortest lengths asked, the fixed cost
 * of a call what the shortest reply's wall leaves), and what it says about a
 * later step: the model seconds a reply of its asked length would take, which
 * SageMaker cuts at 60 (424 ModelError). Walls are the records' real times;
 * the file's time_scale turns them into model seconds. */
#ifndef SM_SUITE_RATE_H
#define SM_SUITE_RATE_H

#include <stddef.h>

#include "buf.h"

#define SUITE_RATE_LIMIT_S 60.0 /* SageMaker's limit on a container's reply */

enum suite_rate_error {
    SUITE_RATE_OK = 0,
    SUITE_RATE_ERR_FORMAT = -1, /* not a result file with successful decode records */
    SUITE_RATE_ERR_IO = -2,
};

struct suite_rate {
    double rate;       /* tokens per model second */
    double fixed;      /* model seconds of a call besides its tokens */
    double time_scale; /* of the file */
};

/* Reads a decode result file's text. Returns 0, or SUITE_RATE_ERR_FORMAT with
 * one line in err. Pure. */
__attribute__((warn_unused_result)) int suite_rate_parse(const char *json, size_t len,
                                                         struct suite_rate *out, struct buf *err);
/* The same from the file at path. */
__attribute__((warn_unused_result)) int suite_rate_read(const char *path, struct suite_rate *out,
                                                        struct buf *err);

/* Model seconds a reply of tokens takes at r. */
double suite_rate_seconds(const struct suite_rate *r, long tokens);
/* The most tokens a reply may ask for to take at most limit model seconds (0 when none fits). */
long suite_rate_fits(const struct suite_rate *r, double limit);

#endif
