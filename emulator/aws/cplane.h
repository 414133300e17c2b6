/* cplane: the SageMaker control plane sm-emulator serves (README, "Control
 * plane"): models, endpoint configs and endpoints per region, and the state
 * machine of an endpoint over an injected clock.
 *
 * CreateEndpoint starts each production variant on its first instance pool
 * (InstanceType is a pool of one). A pool with free capacity (cpconf) places
 * the variant: InService create_s later. A pool without it gives
 * InsufficientInstanceCapacity capacity_wait_s later and the next pool is
 * tried; with none left, or past VariantInstanceProvisionTimeoutInSeconds, the
 * endpoint is Failed ("Unable to provision requested ML compute capacity due to
 * InsufficientInstanceCapacity error."). A model whose SM_VLLM_MODEL no profile
 * serves fails its health check once placed. CreateEndpoint and UpdateEndpoint
 * are refused with ResourceLimitExceeded when a type the variant may use lacks
 * quota: a variant being placed holds its instances against the quota of every
 * type of its pools, a placed one against its type's. UpdateEndpoint keeps
 * serving the old config until the new one is InService (or, when it fails,
 * stays InService with its FailureReason). DeleteEndpoint: Deleting for
 * delete_s, then gone; refused while Creating or Updating, as SageMaker does.
 * Inference components (cpic): CreateInferenceComponent places copies of a
 * model on a variant of an InService endpoint when they fit its instances,
 * InService the model's load time (its profile's load_s) later.
 * Each resource keeps its tags (cptag): the Tags of its Create call, AddTags,
 * ListTags and DeleteTags on the ARN its Create returned; they go with it.
 *
 * Pure: no I/O and no clock of its own. Every call takes the model time (state
 * transitions, scaled by --time-scale by the caller) and the wall time (the
 * timestamps of replies). What the caller must host changes through the event
 * function: SERVE when an endpoint of a region becomes InService or finishes
 * an update (its live deployment is what to serve), STOP when it stops. */
#ifndef EMU_CPLANE_H
#define EMU_CPLANE_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "cpconf.h"
#include "cpic.h"
#include "cpreq.h"
#include "cpres.h"
#include "cptag.h"

enum cplane_event_kind { CPLANE_SERVE, CPLANE_STOP };
typedef void cplane_event_fn(void *ud, enum cplane_event_kind kind,
                             const struct cpres_endpoint *ep);

struct cplane_now {
    double model; /* seconds on the model clock */
    double wall;  /* Unix seconds */
};

struct cplane {
    const struct cpconf *conf; /* borrowed */
    char account[32];
    struct cpres_model *models[CPRES_MAX_EACH];
    size_t n_models;
    struct cpres_config *configs[CPRES_MAX_EACH];
    size_t n_configs;
    struct cpres_endpoint *eps[CPRES_MAX_EACH];
    size_t n_eps;
    struct cpic ic;            /* the inference components (cpic.h) */
    cplane_event_fn *on_event; /* may be NULL */
    void *ud;
};

/* A reply to a control-plane call: 200 with a JSON body, or an error (status,
 * type, and the body {"__type":TYPE,"message":...}). */
struct cplane_reply {
    int status;
    const char *type; /* error code, NULL on success (static storage) */
    struct buf body;
};

enum cplane_error { CPLANE_OK = 0, CPLANE_ERR_NOMEM = -1 };

/* Starts an empty control plane over conf (borrowed; must outlive cp). */
void cplane_init(struct cplane *cp, const struct cpconf *conf, const char *account,
                 cplane_event_fn *on_event, void *ud);
/* Frees every model, config and endpoint. */
void cplane_free(struct cplane *cp);

/* A variant of a command-line endpoint. */
struct cplane_static_variant {
    const char *name;
    const char *model_id; /* its profile's model id */
    const char *profile;
    double weight;
    long count;          /* instances (0 taken as 1) */
    const char *routing; /* RoutingConfig.RoutingStrategy, NULL or "": not given */
};

/* Registers an endpoint the emulator serves from its command line as
 * InService in region, with a model and a config of its own name (instance
 * type ml.g6.xlarge, image from the runtime's facts): DescribeEndpoint and
 * ListEndpoints show it; it cannot be deleted or updated. Returns 0 or
 * CPLANE_ERR_NOMEM. */
__attribute__((warn_unused_result)) int cplane_add_static(struct cplane *cp, const char *region,
                                                          const char *name,
                                                          const struct cplane_static_variant *v,
                                                          size_t n, struct cplane_now now);

/* Answers SageMaker.<op> with request body[0..len) for region at now into r
 * (r->body emptied first; init it with buf_init). Returns 0, or
 * CPLANE_ERR_NOMEM (r then holds a 500). */
__attribute__((warn_unused_result)) int cplane_call(struct cplane *cp, const char *op,
                                                    const char *body, size_t len,
                                                    const char *region, struct cplane_now now,
                                                    struct cplane_reply *r);

/* Runs every transition due at or before now (in time order), calling the
 * event function for each endpoint to serve or stop. */
void cplane_advance(struct cplane *cp, struct cplane_now now);

/* The model time of the next transition, or a negative value when none is pending. */
double cplane_next(const struct cplane *cp);

/* Instances of type that count against its quota in region (see above). */
long cplane_usage(const struct cplane *cp, const char *region, const char *type);

/* The endpoint name of region, or NULL. */
const struct cpres_endpoint *cplane_endpoint(const struct cplane *cp, const char *region,
                                             const char *name);

/* The instances of variant of endpoint name of region as scaling left them
 * (Application Auto Scaling, scaler.h): DescribeEndpoint's CurrentInstanceCount
 * current and DesiredInstanceCount desired, and EndpointStatus Updating while
 * an InService endpoint's desired exceeds its current (wall: the time of the
 * change, LastModifiedTime). Nothing when there is no such variant. */
void cplane_scaled(struct cplane *cp, const char *region, const char *name, const char *variant,
                   long current, long desired, double wall);

/* Writes the error body {"__type":type,"message":msg} into r with status. Returns 0 or BUF_ERR_*.
 */
__attribute__((warn_unused_result)) int cplane_error(struct cplane_reply *r, int status,
                                                     const char *type, const char *msg);

/* The same with a formatted message; returns 0 or CPLANE_ERR_NOMEM. */
__attribute__((format(printf, 4, 5), warn_unused_result)) int
cplane_fail(struct cplane_reply *r, int status, const char *type, const char *fmt, ...);

#endif
