/* suite_cdrun: the deploy specs' endpoints during sm-suite --candidates, by running
 * sm-endpoint (as suite_deploy does for --deploy): the quotas asked first and the
 * plan told (suite_cdep.h), the confirmation (--yes, or asked on a terminal), each
 * wave's deploys tagged with the run's id, the waits, and each pair's deletes
 * after it (sm-endpoint delete --run ID: only what this run created). The
 * manifest OUT/deployments.json names an endpoint before its deploy starts. */
#ifndef SM_SUITE_CDRUN_H
#define SM_SUITE_CDRUN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "suite_argv.h"
#include "suite_cand.h"
#include "suite_cdep.h"

enum suite_cdrun_error {
    SUITE_CDRUN_OK = 0,
    SUITE_CDRUN_ERR_USAGE = -1,   /* bad usage, a quota too small, no confirmation: exit 2 */
    SUITE_CDRUN_ERR_FAILED = -2,  /* an sm-endpoint command failed */
    SUITE_CDRUN_ERR_STOPPED = -3, /* Ctrl-C or SIGTERM */
    SUITE_CDRUN_ERR_NOMEM = -4,
};

struct suite_cdrun {
    struct suite_cand_list *l; /* its deploy specs get their endpoint names */
    const char *out;
    char *(*find_endpoint)(void); /* sm-endpoint's path (to free), or NULL */
    char *program;                /* sm-endpoint */
    const char *region, *endpoint_url, *time_scale, *role;
    bool plain_http, yes, dry;
    size_t ndeploy; /* deploy specs in l */
    struct suite_cdep_manifest m;
    char path[PATH_MAX]; /* OUT/deployments.json */
    int wave[SUITE_CAND_MAX];
    int nwaves;
};

/* Takes --role and --yes out of rest (the pairs' words) and reads --region,
 * --endpoint-url, --allow-plain-http, --time-scale and --dry-run there. Returns 0,
 * SUITE_CDRUN_ERR_USAGE (a value missing) or _NOMEM, with one line in err. */
__attribute__((warn_unused_result)) int suite_cdrun_args(struct suite_cdrun *d,
                                                         struct suite_argv *rest, struct buf *err);

/* First, before the pairs' commands are checked: the run id (the manifest's, else a
 * new one) and each deploy spec's endpoint name into l. Nothing to do without
 * deploy specs. Returns 0 or a SUITE_CDRUN_ERR_* with one line in err. */
__attribute__((warn_unused_result)) int suite_cdrun_name(struct suite_cdrun *d, struct buf *err);

/* Then, before anything is created: the quotas, the plan (printed), the
 * confirmation. Returns 0 or a SUITE_CDRUN_ERR_* with one line in err. */
__attribute__((warn_unused_result)) int suite_cdrun_plan(struct suite_cdrun *d, struct buf *err);

/* Deploys wave w's endpoints that are not there (named in the manifest first), then
 * waits for each. On a failure deletes what the wave deployed. */
__attribute__((warn_unused_result)) int suite_cdrun_up(struct suite_cdrun *d, int w,
                                                       struct buf *err);

/* Deletes pair k's endpoints (shielded from a stop) and records it; complete: the
 * pair is done. Returns 0, or 1 when a delete failed (it says why on stderr). */
int suite_cdrun_down(struct suite_cdrun *d, size_t k, bool complete);

/* On a stop: the endpoints left for the next run, and how to delete them. */
void suite_cdrun_left(const struct suite_cdrun *d);

void suite_cdrun_free(struct suite_cdrun *d);

#endif
