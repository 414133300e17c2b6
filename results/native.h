/* native: turns a wrk-sagemaker result file or journal into a struct src.
 *
 * Checks the format version, applies the file's time_scale (times become real
 * seconds), and groups the records of the decode, sweep and quiz scenarios
 * into the parts of src.h. Failed records are counted, never dropped. */
#ifndef SM_NATIVE_H
#define SM_NATIVE_H

#include <stdbool.h>

#include "diag.h"
#include "rfile.h"
#include "src.h"

#define NATIVE_FORMAT  "wrk-sagemaker-result"
#define NATIVE_VERSION 1

/* True when the head says format "wrk-sagemaker-result". */
bool native_is_result(const struct rfile *rf);
/* Fills *out from rf (which stays the caller's); bad input goes to d. */
__attribute__((warn_unused_result)) int native_src(const struct rfile *rf, struct src *out,
                                                   struct diag *d);

#endif
