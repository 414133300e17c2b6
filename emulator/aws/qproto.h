/* qproto: what the emulator's AWS query-protocol services share (STS in stssrv.h,
 * IAM in iamsrv.h): a parameter of the form body (application/x-www-form-urlencoded,
 * percent-decoded), XML text elements (escaped as cwquery_text does), and the
 * error document the query protocol answers:
 *   <ErrorResponse xmlns="NS"><Error><Type>Sender</Type><Code/><Message/></Error>
 *   <RequestId/></ErrorResponse>
 * and the request id of a reply's ResponseMetadata (a UUID from a seed). Pure. */
#ifndef EMU_QPROTO_H
#define EMU_QPROTO_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "cplane.h"

#define QPROTO_ID_LEN 40

/* The value of parameter name in the form body[0..len), decoded, into out (emptied
 * first; bounded by out's cap). Returns 1 when found, 0 when absent, or BUF_ERR_*
 * (out of memory, or longer than out's cap). */
__attribute__((warn_unused_result)) int qproto_param(const char *body, size_t len, const char *name,
                                                     struct buf *out);

/* Appends <tag>text</tag>, text escaped for XML. Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int qproto_elem(struct buf *b, const char *tag,
                                                    const char *text);

/* A request id (UUID form) from seed. */
void qproto_request_id(uint64_t seed, char out[QPROTO_ID_LEN]);

/* Starts the reply r to Action op of a service of one operation, want (its API
 * version, namespace ns): r emptied, status 200, id (the RequestId) from seed.
 * Returns 0 when op is want; otherwise r is the service's InvalidAction and the
 * return is 1, or CPLANE_ERR_NOMEM. */
__attribute__((warn_unused_result)) int qproto_start(struct cplane_reply *r, const char *op,
                                                     const char *want, const char *version,
                                                     const char *ns, uint64_t seed,
                                                     char id[QPROTO_ID_LEN]);

/* Makes r the error document of namespace ns: status, code (static storage: also
 * r->type), message, request id. Returns 0 or CPLANE_ERR_NOMEM. */
__attribute__((warn_unused_result)) int qproto_error(struct cplane_reply *r, int status,
                                                     const char *ns, const char *code,
                                                     const char *msg, const char *id);

#endif
