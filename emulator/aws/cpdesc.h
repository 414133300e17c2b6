/* cpdesc: the JSON of the control plane's replies (DescribeModel,
 * DescribeEndpointConfig, DescribeEndpoint, ListEndpoints) and its
 * ARNs, from cplane's state. Everything goes through common/jsonw.h, so a
 * reply is valid UTF-8 JSON whatever a client stored. Timestamps are Unix
 * seconds (JSON numbers), as AWS JSON 1.1 writes them. Each function appends
 * to out and returns 0 or BUF_ERR_*. */
#ifndef EMU_CPDESC_H
#define EMU_CPDESC_H

#include "buf.h"
#include "cplane.h"
#include "cpreq.h"

/* arn:aws:sagemaker:REGION:ACCOUNT:KIND/name (the name lower-cased, as
 * SageMaker writes it); KIND is model, endpoint-config or endpoint. */
__attribute__((warn_unused_result)) int cpdesc_arn(struct buf *out, const struct cplane *cp,
                                                   const char *region, const char *kind,
                                                   const char *name);

/* The same as a JSON string. */
__attribute__((warn_unused_result)) int cpdesc_arn_json(struct buf *out, const struct cplane *cp,
                                                        const char *region, const char *kind,
                                                        const char *name);

__attribute__((warn_unused_result)) int cpdesc_model(struct buf *out, const struct cplane *cp,
                                                     const struct cplane_model *m);
__attribute__((warn_unused_result)) int cpdesc_config(struct buf *out, const struct cplane *cp,
                                                      const struct cplane_config *c);
__attribute__((warn_unused_result)) int cpdesc_endpoint(struct buf *out, const struct cplane *cp,
                                                        const struct cplane_endpoint *ep);
/* ListEndpoints' EndpointSummary. */
__attribute__((warn_unused_result)) int cpdesc_summary(struct buf *out, const struct cplane *cp,
                                                       const struct cplane_endpoint *ep);

/* ListEndpoints' members: "Endpoints" (the region's endpoints l selects, in its
 * order, its page) and "NextToken" when more follow. */
__attribute__((warn_unused_result)) int cpdesc_list(struct buf *out, const struct cplane *cp,
                                                    const char *region, const struct cpreq_list *l);

#endif
