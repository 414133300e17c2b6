/* cpres: the resources of the emulator's control plane as it keeps them: a
 * model, an endpoint config, and an endpoint with its deployments and where
 * each production variant is placed; their states' names and their ARNs.
 * cplane.h runs their state machine, cpdesc.h writes them as SageMaker
 * describes them. Pure. */
#ifndef EMU_CPRES_H
#define EMU_CPRES_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "cpconf.h"
#include "cpreq.h"
#include "cptag.h"

#define CPRES_MAX_EACH 256 /* models, configs and endpoints, each, across regions */

enum cpres_state {
    CPRES_CREATING,
    CPRES_UPDATING,
    CPRES_IN_SERVICE,
    CPRES_DELETING,
    CPRES_FAILED,
};

struct cpres_model {
    char name[CPREQ_NAME_MAX];
    char region[CPCONF_REGION_MAX];
    char image[256];
    char *role;                    /* malloc'ed */
    char **env_keys, **env_values; /* malloc'ed, n_env each */
    size_t n_env;
    double created;         /* wall clock */
    struct cptag_list tags; /* CreateModel's Tags, then AddTags / DeleteTags */
};

struct cpres_config {
    struct cpreq_config spec; /* the request's (strings copied: names only) */
    char region[CPCONF_REGION_MAX];
    double created;
    struct cptag_list tags;
};

/* One production variant of a deployment: where it is in its placement. */
enum cpres_place { CPRES_TRYING, CPRES_PLACED, CPRES_READY, CPRES_LOST };

struct cpres_placement {
    enum cpres_place st;
    size_t pool;                     /* the pool tried or placed on */
    double at;                       /* model time of its next change */
    char model_id[CPCONF_MODEL_MAX]; /* SM_VLLM_MODEL of the model placed ("" when none) */
    char image[256];
    char profile[64]; /* the profile serving model_id (cpconf), "" when none does */
    char reason[256]; /* CPRES_LOST: why */
};

struct cpres_deploy {
    struct cpreq_config cfg; /* the config as it was when the deployment began */
    struct cpres_placement p[CPREQ_MAX_VARIANTS];
    double started; /* model time */
    double started_wall;
    long current[CPREQ_MAX_VARIANTS], desired[CPREQ_MAX_VARIANTS]; /* scaled counts; 0: count */
};

struct cpres_endpoint {
    char name[CPREQ_NAME_MAX];
    char region[CPCONF_REGION_MAX];
    enum cpres_state state;
    struct cpres_deploy live; /* Creating: being placed; then what serves */
    struct cpres_deploy next; /* Updating: the new config being placed */
    char failure[1024];       /* FailureReason, "" when none */
    double created, modified; /* wall clock */
    double gone_at;           /* Deleting: model time it disappears */
    bool is_static;           /* from the command line (--endpoint): never deleted */
    bool scaling;             /* InService, instances launching: described as Updating */
    struct cptag_list tags;
};

/* "Creating", "InService", ... */
const char *cpres_state_name(enum cpres_state s);

/* arn:aws:sagemaker:REGION:ACCOUNT:KIND/name (the name lower-cased, as
 * SageMaker writes it); KIND is model, endpoint-config or endpoint. Returns 0
 * or BUF_ERR_*. */
__attribute__((warn_unused_result)) int cpres_arn(struct buf *out, const char *account,
                                                  const char *region, const char *kind,
                                                  const char *name);

/* The same as a JSON string. */
__attribute__((warn_unused_result)) int cpres_arn_json(struct buf *out, const char *account,
                                                       const char *region, const char *kind,
                                                       const char *name);

#endif
