/* cpreq: reads the bodies of SageMaker's control-plane requests (CreateModel,
 * CreateEndpointConfig, ...) and checks them as the service does, with its
 * wording: a member of the wrong JSON type is a SerializationException, a
 * missing or malformed one a ValidationException such as
 *   1 validation error detected: Value 'a_b' at 'endpointName' failed to
 *   satisfy constraint: Member must satisfy regular expression pattern:
 *   ^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}
 * (the first error only). Limits from the service model (botocore's
 * sagemaker/2017-07-24, 2026): 63-byte names, 255-byte images, 100
 * environment variables of 1024 bytes, 1 to 10 production variants, 1 to 5
 * instance pools with priorities 1 to 5, a provisioning timeout of 300 to
 * 3600 s. Pure: the strings a result holds point into the cJSON tree read. */
#ifndef EMU_CPREQ_H
#define EMU_CPREQ_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "buf.h"

#define CPREQ_NAME_MAX     64 /* bytes of a resource name, with the NUL */
#define CPREQ_MAX_ENV      100
#define CPREQ_MAX_VARIANTS 10
#define CPREQ_MAX_POOLS    5
#define CPREQ_TYPE_MAX     48

enum cpreq_error {
    CPREQ_OK = 0,
    CPREQ_ERR_VALIDATION = -1,    /* ValidationException: err holds the message */
    CPREQ_ERR_SERIALIZATION = -2, /* SerializationException: a member of the wrong type */
};

struct cpreq_env {
    const char *key, *value;
};

struct cpreq_model {
    char name[CPREQ_NAME_MAX];
    const char *image;
    const char *role;
    struct cpreq_env env[CPREQ_MAX_ENV];
    size_t n_env;
};

struct cpreq_pool {
    char type[CPREQ_TYPE_MAX];
    int priority;               /* 1 (tried first) to 5 */
    char model[CPREQ_NAME_MAX]; /* ModelNameOverride, or "" */
};

struct cpreq_variant {
    char name[CPREQ_NAME_MAX];
    char model[CPREQ_NAME_MAX];
    long count;                               /* InitialInstanceCount (default 1) */
    double weight;                            /* InitialVariantWeight (default 1) */
    bool pools_given;                         /* InstancePools, not InstanceType */
    struct cpreq_pool pools[CPREQ_MAX_POOLS]; /* by priority; InstanceType is one pool */
    size_t n_pools;
    long provision_timeout_s; /* VariantInstanceProvisionTimeoutInSeconds; 0: none */
    char routing[32];         /* RoutingConfig.RoutingStrategy; "": not given (RANDOM) */
};

struct cpreq_config {
    char name[CPREQ_NAME_MAX];
    struct cpreq_variant v[CPREQ_MAX_VARIANTS];
    size_t n_v;
};

/* ListEndpoints' filters and page. */
struct cpreq_list {
    const char *name_contains; /* NULL: any */
    const char *status;        /* StatusEquals, NULL: any */
    bool by_name, by_status;   /* SortBy Name / Status (else CreationTime) */
    bool ascending;            /* SortOrder (default Descending) */
    long max_results;          /* 1 to 100, default 10 */
    long start;                /* from NextToken; 0 for the first page */
};

/* Each reads req (a JSON object) into out; returns 0 or a CPREQ_ERR_* with
 * the service's message in err. */
__attribute__((warn_unused_result)) int cpreq_model(const cJSON *req, struct cpreq_model *out,
                                                    struct buf *err);
__attribute__((warn_unused_result)) int cpreq_config(const cJSON *req, struct cpreq_config *out,
                                                     struct buf *err);
__attribute__((warn_unused_result)) int cpreq_list(const cJSON *req, struct cpreq_list *out,
                                                   struct buf *err);

/* A required name member (EndpointName, ModelName, ...) of req into out;
 * field is its name in messages ("endpointName"). */
__attribute__((warn_unused_result)) int cpreq_name(const cJSON *req, const char *member,
                                                   const char *field, char out[CPREQ_NAME_MAX],
                                                   struct buf *err);

/* The model id a model serves: its SM_VLLM_MODEL, or NULL. */
const char *cpreq_env_get(const struct cpreq_env *env, size_t n, const char *key);

/* "1 validation error detected: Value 'V' at 'FIELD' failed to satisfy
 * constraint: WHY" into err (V quoted up to 200 bytes; V NULL: "Value null ...
 * Member must not be null"). Returns CPREQ_ERR_VALIDATION. */
int cpreq_invalid(struct buf *err, const char *field, const char *value, const char *why);

/* Whether s is a valid status of ListEndpoints' StatusEquals. */
bool cpreq_status_ok(const char *s);

#endif
