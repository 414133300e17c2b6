/* comparison: the whole comparison of two sides (cmp.h), the top of the model:
 * the reference table's rows (cmp_start), the streaming rows (streamrows.h), the
 * open-loop part and its rows (openloop_cmp.h, openrows.h), the quiz compared
 * (quiz_cmp.h), the server-log and CloudWatch cross-checks (xcheck.h, cloudwatch_check.h)
 * and the client-limited marks. Numbers only: what the reader should know of
 * them is notes.h's to say, and the verdict verdict.h's. */
#ifndef SM_COMPARISON_H
#define SM_COMPARISON_H

#include "buf.h"
#include "cmp.h"

/* Compares b and c into m (both must outlive m; so must o->slo). Returns 0,
 * or CMP_ERR_NOMEM or CMP_ERR_INPUT (SLOs that do not apply) with err. The
 * caller frees m with cmp_free. */
__attribute__((warn_unused_result)) int comparison_build(struct cmp *m, const struct side *b,
                                                         const struct side *c,
                                                         const struct cmp_opts *o, struct buf *err);

#endif
