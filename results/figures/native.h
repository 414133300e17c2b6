/* native: turns a wrk-sagemaker result file or journal into a struct src.
 *
 * Checks the format version and the type and range of every field it uses
 * (field.h), applies the file's time_scale (times become real seconds), and
 * groups the records of the decode, sweep, quiz and rate scenarios into the
 * parts of src.h (a rate run's through openloop.h). Failed records are counted, never dropped; a
 * sweep batch with a failed request is left out of the throughput (it did not run N requests at
 * once). */
#ifndef SM_NATIVE_H
#define SM_NATIVE_H

#include <stdbool.h>

#include "buf.h"
#include "rfile.h"
#include "slo.h"
#include "src.h"
#include "warnings.h"

enum native_err { NATIVE_OK = 0, NATIVE_ERR_NOMEM = -1, NATIVE_ERR_INPUT = -3 };

/* True when the head says format "wrk-sagemaker-result". */
bool native_is_result(const struct rfile *rf);
/* Fills *out from rf (which stays the caller's; the caller frees *out with
 * src_free, also after an error). slo (may be NULL) decides which requests of
 * an open-loop run were good (openloop.h). Returns 0, or a negative enum
 * native_err with one line naming the file in err; warnings go to w. */
__attribute__((warn_unused_result)) int native_src(const struct rfile *rf,
                                                   const struct slo_set *slo, struct src *out,
                                                   struct warnings *w, struct buf *err);

#endif
