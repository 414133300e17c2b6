/* cpconf: the settings of the emulator's control plane (README, "Control
 * plane"): the regions it serves, how long an endpoint takes to come up and to
 * fail for want of capacity, the instances free per region and type, the
 * endpoint-usage quotas, and which profile serves which SM_VLLM_MODEL. Read
 * from the profile file's "control_plane" and "models" members, then from the
 * command line (--control-region, --capacity, --quota, --create-time,
 * --capacity-wait, --delete-time, --model), a later setting winning. Pure: no
 * I/O but the file reading of cpconf_load. Times are model seconds. */
#ifndef EMU_CPCONF_H
#define EMU_CPCONF_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "buf.h"

#define CPCONF_MAX_REGIONS 8
#define CPCONF_REGION_MAX  32 /* bytes of a region name, with the NUL */
#define CPCONF_TYPE_MAX    48 /* bytes of an instance type, with the NUL */
#define CPCONF_MAX_RULES   64
#define CPCONF_MAX_MODELS  32
#define CPCONF_MODEL_MAX   256 /* bytes of a model id, with the NUL */
#define CPCONF_UNLIMITED   (-1L)

/* One --capacity or --quota: region and type may be "*" (any). */
struct cpconf_rule {
    char region[CPCONF_REGION_MAX];
    char type[CPCONF_TYPE_MAX];
    long value;
};

struct cpconf_model {
    char model_id[CPCONF_MODEL_MAX]; /* SM_VLLM_MODEL */
    char profile[64];                /* a profile of model.h (built in or --profile-file) */
};

struct cpconf {
    char regions[CPCONF_MAX_REGIONS][CPCONF_REGION_MAX]; /* [0]: --region, whose endpoints
                                                            serve InvokeEndpoint */
    size_t n_regions;
    double create_s;        /* Creating (or Updating) to InService once placed */
    double capacity_wait_s; /* a placement without capacity fails after this */
    double delete_s;        /* Deleting to gone */
    long default_quota;     /* instances per type and region when no rule says */
    struct cpconf_rule capacity[CPCONF_MAX_RULES]; /* later rules win */
    size_t n_capacity;
    struct cpconf_rule quota[CPCONF_MAX_RULES];
    size_t n_quota;
    struct cpconf_model models[CPCONF_MAX_MODELS]; /* later entries win */
    size_t n_models;
};

enum cpconf_error {
    CPCONF_OK = 0,
    CPCONF_ERR_INVALID = -1, /* a bad option, value or file member */
    CPCONF_ERR_IO = -2,      /* the profile file cannot be read */
};

/* The defaults for the runtime region (the emulator's --region): served alone;
 * create 594 s (the seed's 9.9 minutes), capacity wait 1800 s (its 30
 * minutes), delete 10 s, quota 2, capacity unlimited, and the two models of the
 * article mapped to bf16-l4 and qat-l4. */
void cpconf_init(struct cpconf *c, const char *region);

/* Applies one command-line option (flag with its dashes, e.g. "--capacity").
 * Returns 0, or CPCONF_ERR_INVALID with one line in err naming the flag. */
__attribute__((warn_unused_result)) int cpconf_option(struct cpconf *c, const char *flag,
                                                      const char *value, struct buf *err);

/* Applies the "control_plane" and "models" members of a parsed profile file
 * (other members are ignored; both are optional). path names it in messages.
 * Returns 0 or CPCONF_ERR_INVALID with one line in err. */
__attribute__((warn_unused_result)) int cpconf_apply_json(struct cpconf *c, const cJSON *root,
                                                          const char *path, struct buf *err);

/* Reads the profile file at path (at most 1 MiB) and applies it. Returns 0,
 * CPCONF_ERR_IO or CPCONF_ERR_INVALID with one line in err. */
__attribute__((warn_unused_result)) int cpconf_load(struct cpconf *c, const char *path,
                                                    struct buf *err);

/* Whether region is one of the served regions. */
bool cpconf_serves(const struct cpconf *c, const char *region, size_t len);

/* Instances of type free in region (CPCONF_UNLIMITED when no rule limits them). */
long cpconf_capacity(const struct cpconf *c, const char *region, const char *type);
/* The "TYPE for endpoint usage" quota of region. */
long cpconf_quota(const struct cpconf *c, const char *region, const char *type);
/* The profile that serves model_id, or NULL when none does. */
const char *cpconf_profile(const struct cpconf *c, const char *model_id);

/* Whether s is an instance type as SageMaker writes them: "ml." then
 * lower-case letters, digits and dots, at most 47 bytes. */
bool cpconf_type_ok(const char *s);

#endif
