/* cpic: SageMaker's inference components as the emulator's control plane
 * keeps them (README, "Inference components"): CreateInferenceComponent,
 * DescribeInferenceComponent, UpdateInferenceComponent (and
 * UpdateInferenceComponentRuntimeConfig), DeleteInferenceComponent and
 * ListInferenceComponents, in the shapes of botocore's sagemaker 2017-07-24
 * model, over an injected clock.
 *
 * A component is a model placed on a production variant of an endpoint, in
 * copies, each copy needing ComputeResourceRequirements on one instance.
 * Creating: its copies serve the model's load time later (InService). An
 * update of the copy count adds copies the load time later (Updating
 * meanwhile) or removes them at once; 0 copies is allowed (scale to zero).
 * DeleteInferenceComponent: Deleting for delete_s, then gone.
 *
 * The fit rule (cpic_fit): a copy takes its accelerator devices, CPU cores
 * and memory (MinMemoryRequiredInMb) on one instance; the variant's copies,
 * of all its components, fit when each component's copies are at most the
 * instances times the copies one instance holds, and by each resource the
 * sum over components of copies x need is at most the instances' total.
 *
 * Pure: no I/O and no clock. cplane.c looks up the endpoint, its variant and
 * the model, and calls these with what it found. */
#ifndef EMU_CPIC_H
#define EMU_CPIC_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "cpconf.h"
#include "cpreq.h"
#include "cptag.h"

#define CPIC_MAX 256 /* components, across regions */

/* What InvokeEndpoint answers (400 ValidationError) for a component with no
 * copy serving: scaled to zero, or its first copies still loading. */
#define CPIC_NO_CAPACITY                                                                           \
    "Inference Component has no capacity to process this request. ApplicationAutoScaling may be "  \
    "in-progress (if configured) or try to increase the capacity by invoking "                     \
    "UpdateInferenceComponentRuntimeConfig API."

enum cpic_state {
    CPIC_CREATING,
    CPIC_UPDATING,
    CPIC_IN_SERVICE,
    CPIC_DELETING,
    CPIC_FAILED,
};

enum cpic_error {
    CPIC_OK = 0,
    CPIC_ERR_VALIDATION = -1,    /* ValidationException, message in err */
    CPIC_ERR_SERIALIZATION = -2, /* SerializationException */
    CPIC_ERR_LIMIT = -3,         /* ResourceLimitExceeded */
    CPIC_ERR_NOMEM = -4,
};

/* What one copy needs (ComputeResourceRequirements). */
struct cpic_need {
    double accelerators; /* NumberOfAcceleratorDevicesRequired; 0: not given */
    double cpus;         /* NumberOfCpuCoresRequired; 0: not given */
    long min_mem_mb;     /* MinMemoryRequiredInMb (required) */
    long max_mem_mb;     /* MaxMemoryRequiredInMb; 0: not given */
};

/* One inference component. */
struct cpic_comp {
    char name[CPREQ_NAME_MAX];
    char region[CPCONF_REGION_MAX];
    char endpoint[CPREQ_NAME_MAX];
    char variant[CPREQ_NAME_MAX];
    char model[CPREQ_NAME_MAX];
    char instance_type[CPREQ_TYPE_MAX]; /* of its variant, for PlacementStatus */
    char profile[64]; /* what its copies run (cpic_create's); "": its variant's profile */
    struct cpic_need need;
    long desired, current; /* copies: asked for, and serving */
    enum cpic_state state;
    double ready_at;           /* Creating / Updating: model time the new copies serve */
    double gone_at;            /* Deleting: model time it disappears */
    double load_s;             /* model seconds a new copy takes to load */
    double created, modified;  /* wall clock */
    unsigned long no_capacity; /* invocations refused while it had no copy */
    unsigned long invocations; /* invocations routed to its copies */
    struct cptag_list tags;
};

struct cpic {
    struct cpic_comp *c[CPIC_MAX];
    size_t n;
};

/* What a CreateInferenceComponent asks, read by cpic_read_create. */
struct cpic_create {
    char name[CPREQ_NAME_MAX];
    char endpoint[CPREQ_NAME_MAX];
    char variant[CPREQ_NAME_MAX]; /* "" when not given */
    char model[CPREQ_NAME_MAX];
    struct cpic_need need;
    long copies;
    char profile[64]; /* the profile its model's SM_VLLM_MODEL maps to; "": none (the caller's) */
};

/* What an update asks: the copy count, or none (-1) when it changes only
 * the specification (taken as it was: the emulator keeps its model). */
struct cpic_update {
    char name[CPREQ_NAME_MAX];
    long copies;
};

void cpic_init(struct cpic *ic);
void cpic_free(struct cpic *ic);

/* Reads a CreateInferenceComponent body. Returns 0 or CPIC_ERR_* with the
 * service's message in err. */
__attribute__((warn_unused_result)) int cpic_read_create(const cJSON *req, struct cpic_create *out,
                                                         struct buf *err);

/* Reads an UpdateInferenceComponent body (runtime: the RuntimeConfig
 * member's name is DesiredRuntimeConfig, as UpdateInferenceComponentRuntimeConfig
 * has it, and required). Returns 0 or CPIC_ERR_* with err. */
__attribute__((warn_unused_result)) int cpic_read_update(const cJSON *req, bool runtime,
                                                         struct cpic_update *out, struct buf *err);

/* The component name of region, or NULL. */
struct cpic_comp *cpic_find(const struct cpic *ic, const char *region, const char *name);

/* The copies of need one instance of type holds (the rule above), or -1 when
 * the emulator does not know the type's accelerators and memory. */
long cpic_fit(const char *type, const struct cpic_need *need);

/* Whether copies of need (added to those of the other components on the same
 * variant of endpoint of region, skip excluded) fit instances of type; when
 * not, why in err (CPIC_ERR_VALIDATION naming the component and the
 * variant). */
__attribute__((warn_unused_result)) int
cpic_fits(const struct cpic *ic, const char *region, const char *endpoint, const char *variant,
          const char *type, long instances, const char *name, const struct cpic_need *need,
          long copies, const struct cpic_comp *skip, struct buf *err);

/* Adds a component (Creating; tags moved from *tags). Returns 0, or
 * CPIC_ERR_LIMIT (err), or CPIC_ERR_NOMEM. */
__attribute__((warn_unused_result)) int cpic_add(struct cpic *ic, const struct cpic_create *c,
                                                 const char *region, const char *type,
                                                 double load_s, double now_model, double now_wall,
                                                 struct cptag_list *tags, struct buf *err);

/* Sets a component's copy count: more copies serve load_s later (Updating),
 * fewer at once. */
void cpic_set_copies(struct cpic_comp *c, long copies, double now_model, double now_wall);

/* The copies scaling (Application Auto Scaling) left a component with:
 * current serving, desired asked for (Updating while more are asked). */
void cpic_scaled(struct cpic_comp *c, long current, long desired, double now_wall);

/* Deletes a component: Deleting, gone delete_s later. */
void cpic_delete(struct cpic_comp *c, double now_model, double delete_s, double now_wall);

/* Runs every change due at or before now_model. */
void cpic_advance(struct cpic *ic, double now_model, double now_wall);

/* The model time of the next change, or a negative value when none is pending. */
double cpic_next(const struct cpic *ic);

/* "Creating", "InService", ... */
const char *cpic_state_name(enum cpic_state s);

/* DescribeInferenceComponent's members (no braces). Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int cpic_describe(struct buf *out, const char *account,
                                                      const struct cpic_comp *c);

/* ListInferenceComponents' members for region (no braces): NameContains,
 * StatusEquals, EndpointNameEquals, VariantNameEquals, SortBy, SortOrder,
 * MaxResults and NextToken as the API has them. Returns 0, CPIC_ERR_VALIDATION
 * or CPIC_ERR_SERIALIZATION with err, or CPIC_ERR_NOMEM. */
__attribute__((warn_unused_result)) int cpic_list(struct buf *out, const char *account,
                                                  const struct cpic *ic, const char *region,
                                                  const cJSON *req, struct buf *err);

/* /emulator/stats' "inference_components" member for region: each one's
 * endpoint, variant, status, copies serving and asked for, and its
 * NoCapacityInvocationFailures. Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int cpic_stats_json(struct buf *out, const struct cpic *ic,
                                                        const char *region);

#endif
