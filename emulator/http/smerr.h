/* smerr: SageMaker Runtime's own replies: error bodies, the ModelError that
 * wraps a container's failure, and HTTP reason phrases; and the one-line form
 * of the emulator's own start-up errors. */
#ifndef EMU_SMERR_H
#define EMU_SMERR_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/* The x-amzn-ErrorType suffix after the error code. */
#define SMERR_TYPE_SUFFIX ":http://internal.amazon.com/coral/com.amazon.coral.service/"

/* The timeout text SageMaker puts in a ModelError after the 60-second limit. */
#define SMERR_TIMEOUT_MESSAGE                                                                      \
    "Your invocation timed out while waiting for a response from container primary. Review the "   \
    "latency metrics for each container in Amazon CloudWatch, resolve the issue, and try again."

/* Appends {"message":MESSAGE} (message NULL: null). Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int smerr_message(struct buf *out, const char *message);

/* Appends the ModelError body for a container that answered orig_status with
 * orig (orig_status 0: no answer in time). Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int smerr_model(struct buf *out, const char *region,
                                                    const char *account, const char *endpoint,
                                                    int orig_status, const char *orig,
                                                    size_t orig_len);

/* Appends the OpenAI error envelope the OpenAI-compatible route answers with,
 * {"error":{"message":M,"type":T,"param":null,"code":C}}: T is
 * "invalid_request_error" below status 500, else "server_error"; C is code,
 * else sm_type in snake case without "Exception" ("ValidationError" ->
 * "validation_error"), else null. Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int smerr_openai(struct buf *out, int status,
                                                     const char *sm_type, const char *code,
                                                     const char *message);

/* The OpenAI route's ModelError (424, code "model_error"), its message the one
 * smerr_model writes. Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int smerr_openai_model(struct buf *out, const char *region,
                                                           const char *account,
                                                           const char *endpoint, int orig_status,
                                                           const char *orig, size_t orig_len);

/* Why readall_path() failed with rd: too_large past the buffer's cap, the
 * errno's text, or out of memory. */
const char *smerr_read_why(int rd, const char *too_large);

/* The reason phrase of an HTTP status ("Failed Dependency"). */
const char *smerr_reason(int status);

#endif
