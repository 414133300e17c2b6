/* suite_deploy: the endpoints' life around a run, by running sm-endpoint as
 * sm-suite runs wrk (sm-suite links only common/): --deploy creates both
 * endpoints (both CreateEndpoint calls first, then both waits), tagged with the
 * run's id (sm-endpoint --run), --delete-after deletes what that run created
 * (sm-endpoint delete --run: nothing another run or someone else made, and
 * nothing when a deploy failed, as on a name that exists) however the run
 * ends (a failure, Ctrl-C or SIGTERM:
 * the deletes run shielded from the stop, and wait out Creating, which
 * SageMaker does not interrupt), and before a run against a real control
 * plane (no --url, or --endpoint-url) each endpoint is checked to be InService
 * with the variants the run targets (sm-endpoint status --json), and each
 * inference component a side targets to be InService on its endpoint
 * (DescribeInferenceComponent, through aws/awsj.h). */
#ifndef SM_SUITE_DEPLOY_H
#define SM_SUITE_DEPLOY_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "suite_argv.h"
#include "suite_opts.h"

enum suite_deploy_error {
    SUITE_DEPLOY_OK = 0,
    SUITE_DEPLOY_ERR_FAILED = -1,    /* an sm-endpoint command failed: err says which */
    SUITE_DEPLOY_ERR_STOPPED = -2,   /* Ctrl-C or SIGTERM */
    SUITE_DEPLOY_ERR_NOT_READY = -3, /* an endpoint is not InService, or lacks a variant */
    SUITE_DEPLOY_ERR_NOMEM = -4,
};

/* The sm-endpoint command of verb ("deploy", "wait", "delete", "status") for
 * side k (0 baseline, 1 candidate) into out (emptied first); deploy and delete
 * take run (the run id; NULL: none). Pure. Returns 0 or SUITE_DEPLOY_ERR_NOMEM. */
__attribute__((warn_unused_result)) int suite_deploy_command(const struct suite_opts *o,
                                                             const char *program, const char *verb,
                                                             int k, const char *run,
                                                             struct suite_argv *out);

/* Reads DescribeInferenceComponent's reply for component: 0 when it is
 * InService on endpoint, else SUITE_DEPLOY_ERR_NOT_READY with one line in why
 * naming the component and its state. Pure. */
__attribute__((warn_unused_result)) int suite_deploy_judge_component(const char *json, size_t len,
                                                                     const char *endpoint,
                                                                     const char *component,
                                                                     struct buf *why);

/* Checks side k's inference component (o->side[k].component, of endpoint
 * o->side[k].name) with DescribeInferenceComponent in o->region (at
 * o->endpoint_url, else AWS): 0 when it is InService there, else
 * SUITE_DEPLOY_ERR_NOT_READY with one line in err naming it (not there, on
 * another endpoint, or in another state), or _NOMEM; a call that fails
 * otherwise (no permission, no network) is a warning on stderr and 0, as for
 * the endpoints. */
__attribute__((warn_unused_result)) int suite_deploy_check_component(const struct suite_opts *o,
                                                                     int k, struct buf *err);

/* Reads sm-endpoint status --json's output for endpoint: 0 when it is
 * InService and has variant (NULL: any), else SUITE_DEPLOY_ERR_NOT_READY with
 * one line in why. Pure. */
__attribute__((warn_unused_result)) int suite_deploy_judge(const char *json, size_t len,
                                                           const char *endpoint,
                                                           const char *variant, struct buf *why);

/* What an sm-endpoint command run by suite_deploy_exec said. */
struct suite_deploy_run {
    struct buf out;  /* its standard output (the caller inits it with its cap) */
    char last[1024]; /* its last line on standard error */
    bool echo;       /* shows its standard output too (set by suite_deploy_exec) */
};

/* Runs cmd (printed first unless quiet; its standard error always shown, its
 * standard output too unless quiet) into r; shielded: a stop is not passed on.
 * *status its exit status. Returns 0, or SUITE_DEPLOY_ERR_FAILED (it could not be
 * started) with one line in err. */
__attribute__((warn_unused_result)) int suite_deploy_exec(const struct suite_argv *cmd,
                                                          bool shielded, bool quiet,
                                                          struct suite_deploy_run *r, int *status,
                                                          struct buf *err);

/* The endpoints a run deployed. */
struct suite_deploy {
    const struct suite_opts *o;
    const char *program; /* sm-endpoint */
    bool made[2];        /* its deploy of side k started and did not fail: delete it after */
    char run[64];        /* the run id its deploys tag and its deletes act on ("": made by up) */
};

/* Deploys both sides' endpoints and waits for them. Returns 0 or a
 * SUITE_DEPLOY_ERR_* with one line in err. */
__attribute__((warn_unused_result)) int suite_deploy_up(struct suite_deploy *d, struct buf *err);

/* Deletes what suite_deploy_up made, shielded from a stop. Returns 0, or 1
 * when a delete failed (each says why on stderr). */
int suite_deploy_down(struct suite_deploy *d);

/* The check before a run (see above): returns 0 (also when it could not ask:
 * it then warns), or SUITE_DEPLOY_ERR_NOT_READY / _STOPPED with one line in err. */
__attribute__((warn_unused_result)) int suite_deploy_check(const struct suite_opts *o,
                                                           const char *program, struct buf *err);

#endif
