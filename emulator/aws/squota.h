/* squota: Service Quotas (ServiceQuotasV20190624.ListServiceQuotas and
 * GetServiceQuota) for service code sagemaker, from the control plane's quotas
 * (cpconf) per region: one quota "TYPE for endpoint usage" per instance type
 * the emulator knows (a built-in list of GPU and common types, and every type
 * a --quota or --capacity rule names). Quota codes are the emulator's own
 * ("L-" and 8 hex digits of the name's hash), stable from run to run. Errors
 * as the service writes them: {"__type":..., "Message":...}. Pure. */
#ifndef EMU_SQUOTA_H
#define EMU_SQUOTA_H

#include <stddef.h>

#include "cplane.h"

/* The quota code of "TYPE for endpoint usage" into out (12 bytes at least). */
void squota_code(const char *type, char out[12]);

/* Answers ServiceQuotasV20190624.<op> with body[0..len) for region into r
 * (the reply struct of cplane). Returns 0 or CPLANE_ERR_NOMEM. */
__attribute__((warn_unused_result)) int squota_call(const struct cplane *cp, const char *op,
                                                    const char *body, size_t len,
                                                    const char *region, struct cplane_reply *r);

#endif
