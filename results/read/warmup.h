/* warmup: the warm-up requests of a run (a scenario's --warmup N), recorded
 * with phase "warmup" (common/rfield.h, RFIELD_PHASE_WARMUP). They warm the
 * endpoint, its connections and caches up and are left out of every figure;
 * the comparison counts them and says so. */
#ifndef SM_WARMUP_H
#define SM_WARMUP_H

#include <stdbool.h>
#include <stddef.h>

#include "rfile.h"

/* Whether r, a record of rf, is a warm-up request. */
bool warmup_is(const struct rfile *rf, const struct rfile_rec *r);
/* How many of rf's records are warm-up requests. */
size_t warmup_count(const struct rfile *rf);

#endif
