/* epinfo: the read-only operations of the endpoint lifecycle (epops.h has the
 * context and the changes): an endpoint's status with its config's instance
 * types, model and cost so far; the endpoints of regions; the container's log
 * (CloudWatch Logs FilterLogEvents on /aws/sagemaker/Endpoints/NAME); one
 * InvokeEndpoint that checks the reply's shape and a known answer (verify) or
 * asks a prompt of the caller's (query); the "TYPE for endpoint usage" quotas
 * with what the endpoints of the region use; the vLLM image of a region; and
 * the deployment's requests and aws CLI commands without sending anything.
 * Each writes a text and a JSON object into out, and returns as epops does. */
#ifndef SM_EPINFO_H
#define SM_EPINFO_H

#include <stdbool.h>
#include <stddef.h>

#include "epops.h"

/* The question verify asks, and the answer it wants. */
#define EPINFO_VERIFY_PROMPT "What is 54 * 28? Reply with the number only."
#define EPINFO_VERIFY_ANSWER "1512"

__attribute__((warn_unused_result)) int epinfo_status(struct epops *o, const char *region,
                                                      const char *name, double price,
                                                      struct epops_out *out, struct buf *err);

__attribute__((warn_unused_result)) int epinfo_list(struct epops *o, const char *const *regions,
                                                    size_t n_regions, const char *name_contains,
                                                    struct epops_out *out, struct buf *err);

/* The last limit (1 to 10000) log lines of the past since_s (emulated) seconds. */
__attribute__((warn_unused_result)) int epinfo_logs(struct epops *o, const char *region,
                                                    const char *name, double since_s, long limit,
                                                    struct epops_out *out, struct buf *err);

__attribute__((warn_unused_result)) int epinfo_verify(struct epops *o, const char *region,
                                                      const char *name, const char *variant,
                                                      struct epops_out *out, struct buf *err);

struct epinfo_query {
    const char *prompt;
    const char *system; /* or NULL */
    long max_tokens;    /* 0: 512 */
    double temperature;
    const char *variant; /* or NULL */
};

__attribute__((warn_unused_result)) int epinfo_query(struct epops *o, const char *region,
                                                     const char *name, const struct epinfo_query *q,
                                                     struct epops_out *out, struct buf *err);

/* The quotas of types (none: the facts' L4 types) in regions (none: the default). */
__attribute__((warn_unused_result)) int epinfo_quotas(struct epops *o, const char *const *regions,
                                                      size_t n_regions, const char *const *types,
                                                      size_t n_types, struct epops_out *out,
                                                      struct buf *err);

__attribute__((warn_unused_result)) int epinfo_images(struct epops *o, const char *region,
                                                      struct epops_out *out, struct buf *err);

/* The deployment of r in its first region: the three request bodies and the
 * aws CLI commands (r->role may be a placeholder). */
__attribute__((warn_unused_result)) int epinfo_config(struct epops *o,
                                                      const struct epops_deploy_req *r,
                                                      struct epops_out *out, struct buf *err);

#endif
