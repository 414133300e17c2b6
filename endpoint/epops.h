/* epops: the endpoint lifecycle of the seed system, over the signed AWS JSON
 * client (aws/awsj.h): deploy (CreateModel with SM_VLLM_MODEL, one production
 * variant on an instance type or a list of instance pools, CreateEndpoint, the
 * wait with a progress line and the cost so far, the next region on a want of
 * capacity or quota), swap (a config of another SM_VLLM_MODEL and
 * UpdateEndpoint, or a second endpoint like the first), and delete (the
 * endpoint, its configs and models; SageMaker refuses while it is Creating or
 * Updating, so a delete may wait for that to end). The read-only operations
 * are in epinfo.h. sm-endpoint is its command line, sm-mcp its MCP tools.
 *
 * Ownership (epown.h): every resource a deploy or a swap creates is tagged
 * with the tool and the context's run id; a deploy never touches a name that
 * exists; a delete acts only on what the run (or, asked, the tool) created
 * and no other endpoint uses, and decides that before it deletes anything.
 *
 * Every operation writes a text for people and a JSON object for programs into
 * a struct epops_out, and returns 0 or an enum epops_error with one line in err
 * ("sagemaker CreateEndpoint: ResourceLimitExceeded: ... (HTTP 400)"). It
 * reports while it runs and waits through the caller's hooks, so a terminal
 * and an MCP session each show progress and stop it their own way. */
#ifndef SM_EPOPS_H
#define SM_EPOPS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "awsj.h"
#include "buf.h"
#include "creds.h"
#include "epfacts.h"
#include "epreq.h"

#define EPOPS_MAX_REGIONS 8

enum epops_error {
    EPOPS_OK = 0,
    EPOPS_ERR_INPUT = -1,       /* bad input: the caller's to fix (exit 2) */
    EPOPS_ERR_AWS = -2,         /* an AWS call failed (exit 1) */
    EPOPS_ERR_NOT_FOUND = -3,   /* no such endpoint (or log group) */
    EPOPS_ERR_FAILED = -4,      /* the endpoint failed, or answered wrong */
    EPOPS_ERR_TIMEOUT = -5,     /* not InService in time */
    EPOPS_ERR_STOPPED = -6,     /* the caller's stop hook said so */
    EPOPS_ERR_IN_PROGRESS = -7, /* Creating or Updating: SageMaker refuses the change */
    EPOPS_ERR_NOMEM = -8,
    EPOPS_ERR_REFUSED = -9, /* a delete refused: not this run's (or tool's), or in use */
    EPOPS_ERR_EXISTS = -10, /* a deploy's name is taken: nothing was created or touched */
};

/* How an operation reports and waits. Every hook may be NULL. */
struct epops_hooks {
    /* One progress line; fraction in [0, 1], or < 0 when unknown. */
    void (*progress)(void *ud, const char *line, double fraction);
    bool (*stopped)(void *ud);               /* the user asked to stop */
    void (*sleep)(void *ud, double seconds); /* between polls; may return early */
    double (*mono)(void *ud);                /* monotonic seconds (default: the clock) */
    double (*wall)(void *ud);                /* Unix seconds (default: the clock) */
    void *ud;
};

struct epops_config {
    const char *region;       /* the default region (required) */
    const char *endpoint_url; /* NULL: AWS; else every call goes there (sm-emulator) */
    const char *profile;      /* NULL: AWS_PROFILE, else default */
    const char *facts_path;   /* NULL: the installed tools/endpoint-facts.json */
    double time_scale;        /* sm-emulator's --time-scale: times are reported emulated; 0: 1 */
    double poll_s;            /* real seconds between polls; 0: 15 / time_scale, at least 0.05 */
    struct epops_hooks hooks;
    const char *run;       /* the run id tagged on what it creates and that a delete may act on;
                              NULL: a new one (epops_run) */
    bool allow_plain_http; /* --allow-plain-http: an http:// endpoint_url whose host is not
                              loopback is fine (else epops_new refuses it, plainhttp.h) */
};

struct epops;

/* The result of an operation. */
struct epops_out {
    struct buf text; /* lines for people */
    cJSON *json;     /* an object for programs (owned), or NULL */
};

void epops_out_init(struct epops_out *o);
void epops_out_free(struct epops_out *o);

/* Makes the context (credentials are looked up at the first call). Returns 0,
 * or EPOPS_ERR_INPUT (a bad region or run id) / _NOMEM with one line in err. */
__attribute__((warn_unused_result)) int epops_new(const struct epops_config *cfg,
                                                  struct epops **out, struct buf *err);
void epops_free(struct epops *o);
/* The context's run id (given, or made from the clock and a nonce). */
const char *epops_run(const struct epops *o);

/* What a deployment takes. */
struct epops_deploy_req {
    const char *name;     /* the endpoint, its model and its config */
    const char *model_id; /* SM_VLLM_MODEL */
    const char *image;    /* NULL: the facts' vLLM image of the region */
    const char *role;     /* the execution role ARN (required) */
    const char *env[EPREQ_MAX_ENV];
    size_t n_env;
    const char *types[EPREQ_MAX_TYPES]; /* in priority order; none: the facts' first L4 type */
    size_t n_types;
    bool pools;                             /* InstancePools even for one type */
    long provision_timeout_s;               /* VariantInstanceProvisionTimeoutInSeconds, 0: none */
    long count;                             /* instances, 0: 1 */
    long max_model_len;                     /* 0: 8192 */
    const char *regions[EPOPS_MAX_REGIONS]; /* tried in order; none: the default region */
    size_t n_regions;
    bool wait;             /* wait for InService (else return once Creating) */
    double wait_timeout_s; /* emulated seconds; 0: 2700 */
    double price;          /* USD per hour; 0: the facts' price of the type and region */
};

__attribute__((warn_unused_result)) int epops_deploy(struct epops *o,
                                                     const struct epops_deploy_req *r,
                                                     struct epops_out *out, struct buf *err);

/* Waits until name in region is InService (with config, when not NULL, live),
 * Failed, or timeout_s (emulated; 0: 2700) has passed since the wait began. The
 * progress lines and the result tell the time since the endpoint's creation
 * (since the wait began for an update, config not NULL). */
__attribute__((warn_unused_result)) int epops_wait(struct epops *o, const char *region,
                                                   const char *name, const char *config,
                                                   double timeout_s, double price,
                                                   struct epops_out *out, struct buf *err);

/* The seed's one-variable swap: another SM_VLLM_MODEL for endpoint name. */
struct epops_swap_req {
    const char *name;
    const char *model_id;
    const char *as; /* a second endpoint like name (the interleaved A/B); NULL: UpdateEndpoint */
    const char *region; /* NULL: the default */
    bool wait;
    double wait_timeout_s;
    double price;
};

__attribute__((warn_unused_result)) int epops_swap(struct epops *o, const struct epops_swap_req *r,
                                                   struct epops_out *out, struct buf *err);

/* Deletes endpoint name, its config(s) and model(s) (those named like it and
 * those its config names); what is not there is skipped. While it is Creating
 * or Updating: EPOPS_ERR_IN_PROGRESS, unless wait (it then waits for that to
 * end, and at the end until the endpoint is gone: its name is free again). The
 * text and the JSON say what it cost since its creation.
 *
 * Before it deletes anything it checks each of them: its tags must say the
 * context's run created it (any_run: any run of the tool), and no other
 * endpoint may use a config or a model. Else EPOPS_ERR_REFUSED, nothing
 * deleted, one line a refusal ("refusing to delete endpoint config 'x':
 * endpoint 'y' uses it"): the first in err, the others through the progress
 * hook. */
__attribute__((warn_unused_result)) int epops_delete(struct epops *o, const char *region,
                                                     const char *name, bool wait, double price,
                                                     bool any_run, struct epops_out *out,
                                                     struct buf *err);

/* ---- for epinfo and the programs ---- */

/* The requests' view of deployment r: its strings borrowed, its types as
 * given, no image yet. */
void epops_deploy_of(const struct epops_deploy_req *r, struct epreq_deploy *d);
/* The client of region (made at the first use). */
__attribute__((warn_unused_result)) int epops_client(struct epops *o, const char *region,
                                                     struct awsj_client **c, struct buf *err);
/* The facts (loaded at the first use). */
__attribute__((warn_unused_result)) int epops_facts(struct epops *o, const struct epfacts **f,
                                                    struct buf *err);
/* The credential cache the clients share. */
struct creds_cache *epops_cache(struct epops *o);
const struct epops_config *epops_config(const struct epops *o);
double epops_wall(struct epops *o);
/* A progress line through the hook (printf-style). */
__attribute__((format(printf, 2, 3))) void epops_say(struct epops *o, const char *fmt, ...);
struct epdesc_endpoint;
/* A SageMaker call: 0, or NOT_FOUND ("Could not find"), IN_PROGRESS ("Cannot
 * update in-progress"), or another epops_error, with awsj's line in err. */
__attribute__((warn_unused_result)) int epops_sm(struct epops *o, struct awsj_client *c,
                                                 const char *op, const char *req, struct buf *reply,
                                                 struct buf *err);
/* epops_sm with the request {key: value}. */
__attribute__((warn_unused_result)) int epops_get(struct epops *o, struct awsj_client *c,
                                                  const char *op, const char *key,
                                                  const char *value, struct buf *reply,
                                                  struct buf *err);
/* DescribeEndpoint of name, read. */
__attribute__((warn_unused_result)) int epops_describe(struct epops *o, struct awsj_client *c,
                                                       const char *name, struct epdesc_endpoint *d,
                                                       struct buf *err);
/* Whether endpoint name exists and wrk-sagemaker (any run) created it: 0 with
 * *mine, or why not in why ("it has no tag ..."); EPOPS_ERR_NOT_FOUND; or
 * another error (err). */
__attribute__((warn_unused_result)) int epops_endpoint_owned(struct epops *o, struct awsj_client *c,
                                                             const char *name, bool *mine,
                                                             struct buf *why, struct buf *err);
struct epdesc_config;
/* DescribeEndpointConfig of name, read (a reply not read: EPOPS_ERR_AWS with
 * epdesc's line). */
__attribute__((warn_unused_result)) int
epops_describe_config(struct epops *o, struct awsj_client *c, const char *name,
                      struct epdesc_config *cfg, struct buf *err);
/* An AWS call's failure as an epops_error. */
int epops_aws_error(struct epops *o, struct awsj_client *c, int rc);
/* The hourly price: given, else the facts' for type in region, else 0; *source says which. */
double epops_price(struct epops *o, double given, const char *type, const char *region,
                   const char **source);

#endif
