/* suite_cdep: the deploy specs of sm-suite --candidates (suite_cand.h): their
 * endpoints' names, the plan the instance quotas allow, and the run's manifest
 * of what it deployed (OUT/deployments.json, docs/result-format.md).
 *
 * Every deploy spec becomes an endpoint named after the candidate and the run
 * (suite_cdep_name), tagged with the run's id by sm-endpoint deploy --run. The
 * plan puts the pairs in waves: a wave is as many pairs as the free "TYPE for
 * endpoint usage" quotas hold at once; its endpoints are deployed together, its
 * pairs measured one after another (one client host), each pair's endpoints
 * deleted after it (sm-endpoint delete --run: only what this run created). A
 * pair that does not fit even alone is refused before anything is created.
 *
 * The manifest is written before each deploy starts (so whatever exists was
 * named there first) and after each delete; the same command again reads it,
 * keeps the run id and deploys only what is missing. */
#ifndef SM_SUITE_CDEP_H
#define SM_SUITE_CDEP_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "suite_cand.h"

#define SUITE_CDEP_RUN_MAX  64 /* a run id and its NUL */
#define SUITE_CDEP_TYPE_MAX SUITE_CAND_MAX

enum suite_cdep_error {
    SUITE_CDEP_OK = 0,
    SUITE_CDEP_ERR_REFUSED = -1, /* a pair does not fit its quota, or a bad manifest */
    SUITE_CDEP_ERR_NOMEM = -2,
};

/* The endpoint name of candidate i in run: "cI-HASH-LABEL" (HASH: 8 hex digits of the
 * run id), at most 63 bytes, a valid SageMaker endpoint name. */
void suite_cdep_name(const char *run, size_t i, const char *label, char out[64]);

/* One instance type's quota in the region. */
struct suite_cdep_quota {
    char type[48];
    double quota; /* the "TYPE for endpoint usage" value; < 0: none in the region */
    long in_use;  /* instances the region's endpoints hold now */
    long ours;    /* of those, held by this run's endpoints (a resumed run) */
};

/* Reads sm-endpoint quotas --json's output into q (the types asked), *n of them.
 * Returns 0, or SUITE_CDEP_ERR_REFUSED with one line in err. */
__attribute__((warn_unused_result)) int suite_cdep_quotas_read(const char *json, size_t len,
                                                               struct suite_cdep_quota *q,
                                                               size_t max, size_t *n,
                                                               struct buf *err);

/* The plan: wave[k] for pair k (0, 1, ...; -1: done already, per done[k]), the
 * number of waves in *nwaves. region names the quota in messages. Returns 0, or
 * SUITE_CDEP_ERR_REFUSED with one line in err naming the candidates, the type
 * and the quota when a pair does not fit alone. Pure. */
__attribute__((warn_unused_result)) int suite_cdep_plan(const struct suite_cand_list *l,
                                                        const struct suite_cdep_quota *q, size_t nq,
                                                        const bool *done, const char *region,
                                                        int *wave, int *nwaves, struct buf *err);

/* The run's manifest: its id, each deploy spec's endpoint and whether this run
 * deleted it, the pairs complete. */
struct suite_cdep_manifest {
    char run[SUITE_CDEP_RUN_MAX];
    bool named[SUITE_CAND_MAX];   /* candidate i's deploy was started (its endpoint named) */
    bool deleted[SUITE_CAND_MAX]; /* and this run deleted it since */
    bool done[SUITE_CAND_MAX];    /* pair k complete */
};

/* Appends the manifest of l as JSON to out. Returns 0 or SUITE_CDEP_ERR_NOMEM. */
__attribute__((warn_unused_result)) int
suite_cdep_manifest_json(const struct suite_cand_list *l, const struct suite_cdep_manifest *m,
                         struct buf *out);

/* Reads a manifest written for l (the same labels in the same order). Returns 0, or
 * SUITE_CDEP_ERR_REFUSED with one line in err (name names the file). */
__attribute__((warn_unused_result)) int suite_cdep_manifest_read(const char *text, size_t len,
                                                                 const char *name,
                                                                 const struct suite_cand_list *l,
                                                                 struct suite_cdep_manifest *m,
                                                                 struct buf *err);

#endif
