/* cpdesc: the JSON of the control plane's replies (DescribeModel,
 * DescribeEndpointConfig, DescribeEndpoint, ListEndpoints) from the resources
 * it keeps (cpres.h); account is their ARNs' account. Everything goes through common/jsonw.h, so a
 * reply is valid UTF-8 JSON whatever a client stored. Timestamps are Unix
 * seconds (JSON numbers), as AWS JSON 1.1 writes them. Each function appends
 * to out and returns 0 or BUF_ERR_*. */
#ifndef EMU_CPDESC_H
#define EMU_CPDESC_H

#include "buf.h"
#include "cpres.h"
#include "cpreq.h"

__attribute__((warn_unused_result)) int cpdesc_model(struct buf *out, const char *account,
                                                     const struct cpres_model *m);
__attribute__((warn_unused_result)) int cpdesc_config(struct buf *out, const char *account,
                                                      const struct cpres_config *c);
__attribute__((warn_unused_result)) int cpdesc_endpoint(struct buf *out, const char *account,
                                                        const struct cpres_endpoint *ep);
/* ListEndpoints' EndpointSummary. */
__attribute__((warn_unused_result)) int cpdesc_summary(struct buf *out, const char *account,
                                                       const struct cpres_endpoint *ep);

/* ListEndpoints' members: "Endpoints" (the region's endpoints of eps that l selects, in its
 * order, its page) and "NextToken" when more follow. */
__attribute__((warn_unused_result)) int cpdesc_list(struct buf *out, const char *account,
                                                    struct cpres_endpoint *const *eps, size_t n_eps,
                                                    const char *region, const struct cpreq_list *l);

/* What a listing sorts a resource by (SortBy Name, Status or CreationTime). */
struct cpdesc_key {
    const char *name, *status;
    double created;
};

/* Whether a comes before b in the order l asks for (SortBy, SortOrder; ties by name). */
bool cpdesc_before(const struct cpdesc_key *a, const struct cpdesc_key *b,
                   const struct cpreq_list *l);

/* Whether hay holds needle, case ignored (ListEndpoints' NameContains). */
bool cpdesc_contains(const char *hay, const char *needle);

#endif
