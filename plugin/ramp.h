/* ramp: a load whose rate changes over the run, read from the user's text:
 *
 *   steps         "10@60,40@120"   10 requests per second for 60 s, then 40 for 120 s
 *   linear ramps  "10..40@120"     from 10 to 40 per second, linearly, over 120 s
 *   (mixed:       "5@30,5..50@300,50@600")
 *   a day's curve a CSV file of `seconds,rate` points (a header line and lines
 *                 starting with # are skipped): the rate goes linearly from
 *                 each point to the next, the schedule starts at the first
 *                 point and ends at the last
 *
 * into the pieces of an arrivals ramp (arrivals.h), which draws the schedule.
 * Input is the user's: every error is one line naming the piece or the line. */
#ifndef SM_RAMP_H
#define SM_RAMP_H

#include <stddef.h>

#include "arrivals.h"
#include "buf.h"

#define RAMP_MAX_BYTES (64L << 20) /* a curve file */

enum ramp_error {
    RAMP_OK = 0,
    RAMP_ERR_NOMEM = -1,
    RAMP_ERR_INPUT = -2, /* err says what and where */
};

/* The pieces of a ramp's text (above): *out (malloc'ed) holds *n pieces. */
__attribute__((warn_unused_result)) int ramp_parse(const char *text, struct arrivals_seg **out,
                                                   size_t *n, struct buf *err);

/* The pieces of a curve file's bytes (len of them; name says where in errors). */
__attribute__((warn_unused_result)) int ramp_parse_csv(const char *name, const char *text,
                                                       size_t len, struct arrivals_seg **out,
                                                       size_t *n, struct buf *err);

/* ramp_parse_csv of the regular file at path. */
__attribute__((warn_unused_result)) int ramp_load(const char *path, struct arrivals_seg **out,
                                                  size_t *n, struct buf *err);

#endif
