/* suite_manifest: DIR/manifest.json, the record of a run: its options (a
 * resume reads them again), what ran it and where its requests went (a resume
 * must match them), every session (invocation), and every step with its
 * command, output, files, times, exit status and state. Rewritten atomically
 * after every change, each time with its seal (suite_seal) beside it, in
 * DIR/manifest.json.seal. */
#ifndef SM_SUITE_MANIFEST_H
#define SM_SUITE_MANIFEST_H

#include <cjson/cJSON.h>

#include "suite_plan.h"
#include "suite_seal.h"

#define SUITE_MANIFEST_MAX ((size_t)16 << 20) /* the largest manifest read */

enum suite_manifest_error {
    SUITE_MANIFEST_OK = 0,
    SUITE_MANIFEST_ERR_FORMAT = -1,   /* not a manifest, or not one this sm-suite reads */
    SUITE_MANIFEST_ERR_SEAL = -2,     /* changed since sm-suite wrote it, or not sealed */
    SUITE_MANIFEST_ERR_MISMATCH = -3, /* the run used other code or another target */
    SUITE_MANIFEST_ERR_IO = -4,
    SUITE_MANIFEST_ERR_NOMEM = -5,
};

struct suite_manifest {
    cJSON *root;
    char *path;              /* DIR/manifest.json */
    char *seal_path;         /* DIR/manifest.json.seal */
    struct suite_seal *seal; /* borrowed; NULL: written without a seal */
    struct buf text;         /* the bytes read by suite_manifest_load, until verified */
    cJSON *session;          /* this invocation's entry of "sessions" */
};

/* What ran the run and where its requests went: what a resume must match.
 * Strings are borrowed. */
struct suite_manifest_target {
    const char *wrk;          /* the wrk program, its full path */
    const char *scenario_dir; /* the scenarios' folder, resolved */
    const char *url, *region;
    const char *endpoint[2], *variant[2], *label[2]; /* baseline, candidate; variant NULL: none */
    const char *component[2];                        /* the inference component, NULL: none */
};

/* What a session writes at its start. */
struct suite_manifest_run {
    const struct suite_opts *o;
    const struct suite_plan *p;
    const struct suite_manifest_target *target;
    const struct suite_argv *invocation; /* this command line */
    const char *now;                     /* ISO 8601 */
};

/* Starts an empty manifest (for suite_manifest_free). */
void suite_manifest_init(struct suite_manifest *m);
/* Reads DIR/manifest.json into m (bounded, then kept for suite_manifest_verify).
 * Returns 0, or SUITE_MANIFEST_ERR_FORMAT or _IO with "PATH: why" in err. */
__attribute__((warn_unused_result)) int suite_manifest_load(struct suite_manifest *m,
                                                            const char *dir, struct buf *err);
/* Checks the bytes suite_manifest_load read against their seal under seal's
 * key; later saves are sealed with it (borrowed: it must outlive m). Returns 0,
 * or SUITE_MANIFEST_ERR_SEAL with a message in err. */
__attribute__((warn_unused_result)) int
suite_manifest_verify(struct suite_manifest *m, struct suite_seal *seal, struct buf *err);
/* Appends the options saved in a loaded manifest to out. Returns 0, or
 * SUITE_MANIFEST_ERR_FORMAT or _NOMEM with a message in err. */
__attribute__((warn_unused_result)) int
suite_manifest_options(const struct suite_manifest *m, struct suite_argv *out, struct buf *err);
/* What a loaded manifest says the run used (NULL for what it does not say). */
void suite_manifest_target(const struct suite_manifest *m, struct suite_manifest_target *t);
/* Compares now with what the manifest says the run used. Returns 0, or
 * SUITE_MANIFEST_ERR_MISMATCH with "the run used --url A, this command B" (the
 * first difference) in err. */
__attribute__((warn_unused_result)) int
suite_manifest_check_target(const struct suite_manifest *m, const struct suite_manifest_target *now,
                            struct buf *err);

/* Starts the manifest of the run in dir for r's plan: a loaded one keeps its
 * sessions and the entries of the steps still in the plan. seal (or NULL)
 * seals every save. Returns 0 or SUITE_MANIFEST_ERR_NOMEM. Free with
 * suite_manifest_free. */
__attribute__((warn_unused_result)) int suite_manifest_begin(struct suite_manifest *m,
                                                             const char *dir,
                                                             struct suite_seal *seal,
                                                             const struct suite_manifest_run *r);
/* Frees the manifest. */
void suite_manifest_free(struct suite_manifest *m);

/* The entry of step i of the plan. */
cJSON *suite_manifest_step(const struct suite_manifest *m, size_t i);
/* The step's output file, relative to the run directory ("output/01-decode.txt"). */
const char *suite_manifest_output(const struct suite_manifest *m, size_t i);

/* Marks step i of plan p started now, with its command and command line.
 * Returns 0 or SUITE_MANIFEST_ERR_NOMEM. */
__attribute__((warn_unused_result)) int suite_manifest_step_start(struct suite_manifest *m,
                                                                  const struct suite_plan *p,
                                                                  size_t i, const char *line,
                                                                  const char *now);
/* Marks step i ended: state (done, partial, failed, interrupted), wrk's exit
 * status (-1: none), and a reason (or NULL). Returns 0 or SUITE_MANIFEST_ERR_NOMEM. */
__attribute__((warn_unused_result)) int suite_manifest_step_end(struct suite_manifest *m, size_t i,
                                                                const char *state, int exit_status,
                                                                const char *reason,
                                                                const char *now);
/* Records the verdict of capacity-search probe step i: "probe": {"rate": rate,
 * "held": held}. Returns 0 or SUITE_MANIFEST_ERR_NOMEM. */
__attribute__((warn_unused_result)) int suite_manifest_step_probe(struct suite_manifest *m,
                                                                  size_t i, double rate, bool held);
/* Records that step i's earlier, unfinished files were moved to dir (relative).
 * Returns 0 or SUITE_MANIFEST_ERR_NOMEM. */
__attribute__((warn_unused_result)) int suite_manifest_step_moved(struct suite_manifest *m,
                                                                  size_t i, const char *dir);
/* Records the comparison: sm-compare's commands and exit status. Returns 0 or
 * SUITE_MANIFEST_ERR_NOMEM. */
__attribute__((warn_unused_result)) int suite_manifest_reports(struct suite_manifest *m,
                                                               const struct suite_plan *p,
                                                               const struct suite_plan_tools *t,
                                                               int exit_status);
/* Ends this session with its outcome (done, failed, interrupted). Returns 0 or
 * SUITE_MANIFEST_ERR_NOMEM. */
__attribute__((warn_unused_result)) int suite_manifest_end(struct suite_manifest *m,
                                                           const char *outcome, const char *now);
/* Writes the seal, then the manifest (each atomically). Returns 0, or
 * SUITE_MANIFEST_ERR_IO or _NOMEM with a message in err. */
__attribute__((warn_unused_result)) int suite_manifest_save(const struct suite_manifest *m,
                                                            struct buf *err);

#endif
