/* epreq: the JSON bodies of the calls sm-endpoint makes (SageMaker's control
 * plane, CloudWatch Logs, the vLLM container's chat body), and the aws CLI
 * commands that do the same deployment by hand (get_deployment_config). Built
 * with cJSON from values the caller checked (names, UTF-8 text). Pure: each
 * function empties out and writes one JSON text (or the commands) into it,
 * returning 0, EPREQ_ERR_INPUT (err says what) or EPREQ_ERR_NOMEM. */
#ifndef SM_EPREQ_H
#define SM_EPREQ_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

#define EPREQ_MAX_TYPES 5
#define EPREQ_MAX_ENV   32

enum epreq_error { EPREQ_OK = 0, EPREQ_ERR_INPUT = -1, EPREQ_ERR_NOMEM = -2 };

/* What a deployment is: the seed's three calls. */
struct epreq_deploy {
    const char *name;               /* the endpoint */
    const char *model_name;         /* NULL: name */
    const char *config_name;        /* NULL: name */
    const char *model_id;           /* SM_VLLM_MODEL: the checkpoint */
    const char *image;              /* the container image URI */
    const char *role;               /* the execution role ARN */
    const char *env[EPREQ_MAX_ENV]; /* more environment variables, "KEY=VALUE" */
    size_t n_env;
    const char *variant;                /* NULL: AllTraffic */
    const char *types[EPREQ_MAX_TYPES]; /* one: InstanceType; more, or pools: InstancePools */
    size_t n_types;
    bool pools;               /* InstancePools even for one type */
    long count;               /* InitialInstanceCount; 0: 1 */
    long provision_timeout_s; /* VariantInstanceProvisionTimeoutInSeconds; 0: none */
    long max_model_len;       /* SM_VLLM_MAX_MODEL_LEN; 0: 8192 */
};

/* CreateModel: the image with SM_VLLM_MODEL, SM_VLLM_SERVED_MODEL_NAME (both the
 * model id), SM_VLLM_MAX_MODEL_LEN and the extra variables (which may replace them). */
__attribute__((warn_unused_result)) int epreq_create_model(const struct epreq_deploy *d,
                                                           struct buf *out, struct buf *err);
/* CreateEndpointConfig: one production variant, with the seed's 1800 s for the
 * model download and the container's start-up. */
__attribute__((warn_unused_result)) int epreq_create_config(const struct epreq_deploy *d,
                                                            struct buf *out, struct buf *err);
/* CreateEndpoint and UpdateEndpoint: {"EndpointName", "EndpointConfigName"}. */
__attribute__((warn_unused_result)) int epreq_endpoint(const char *name, const char *config,
                                                       struct buf *out);
/* {"KEY": value}: DescribeEndpoint, DeleteModel, ... */
__attribute__((warn_unused_result)) int epreq_named(const char *key, const char *value,
                                                    struct buf *out);
/* ListEndpoints (name_contains may be NULL). */
__attribute__((warn_unused_result)) int epreq_list(const char *name_contains, struct buf *out);
/* FilterLogEvents on the endpoint's log group from start_ms, limit events a page. */
__attribute__((warn_unused_result)) int epreq_logs(const char *endpoint, long long start_ms,
                                                   int limit, struct buf *out);
/* A CreateModel like the DescribeModel reply describe[0..len) (its image,
 * environment and role) but named name and serving model_id. */
__attribute__((warn_unused_result)) int epreq_model_like(const char *describe, size_t len,
                                                         const char *name, const char *model_id,
                                                         struct buf *out, struct buf *err);
/* The container's chat body: one user message (after system, when given). */
__attribute__((warn_unused_result)) int epreq_chat(const char *prompt, const char *system,
                                                   long max_tokens, double temperature,
                                                   struct buf *out);
/* The aws CLI commands of the deployment in region (shell, one command a line). */
__attribute__((warn_unused_result)) int
epreq_aws_cli(const struct epreq_deploy *d, const char *region, struct buf *out, struct buf *err);

#endif
