/* suite_manifest: DIR/manifest.json, the record of a run: its options (a
 * resume parses them again), every session (invocation), and every step with
 * its command, output, files, times, exit status and state. Rewritten
 * atomically after every change. */
#ifndef SM_SUITE_MANIFEST_H
#define SM_SUITE_MANIFEST_H

#include <cjson/cJSON.h>

#include "suite_plan.h"

struct suite_manifest {
    cJSON *root;
    char *path;     /* DIR/manifest.json */
    cJSON *session; /* this invocation's entry of "sessions" */
};

/* The options saved in DIR/manifest.json, appended to out. Returns 0, or -1
 * with a one-line message in err. */
SUITE_WUR int suite_manifest_options(const char *dir, struct suite_argv *out, char *err,
                                     size_t errlen);

/* Starts the manifest of the run in dir for plan p; an existing manifest keeps
 * its sessions and the entries of the steps still in the plan. invocation is
 * this command line; now the time (ISO 8601). Returns 0 or -1 (out of memory,
 * or the old manifest is unreadable). Free with suite_manifest_free. */
SUITE_WUR int suite_manifest_begin(struct suite_manifest *m, const char *dir,
                                   const struct suite_opts *o, const struct suite_plan *p,
                                   const struct suite_argv *invocation, const char *now);
/* Frees the manifest. */
void suite_manifest_free(struct suite_manifest *m);

/* The entry of step i of the plan. */
cJSON *suite_manifest_step(const struct suite_manifest *m, size_t i);
/* The step's output file, relative to the run directory ("output/01-decode.txt"). */
const char *suite_manifest_output(const struct suite_manifest *m, size_t i);

/* Marks step i of plan p started now, with its command and command line.
 * Returns 0 or -1. */
SUITE_WUR int suite_manifest_step_start(struct suite_manifest *m, const struct suite_plan *p,
                                        size_t i, const char *line, const char *now);
/* Marks step i ended: state (done, partial, failed, interrupted), wrk's exit
 * status (-1: none), and a reason (or NULL). Returns 0 or -1. */
SUITE_WUR int suite_manifest_step_end(struct suite_manifest *m, size_t i, const char *state,
                                      int exit_status, const char *reason, const char *now);
/* Records that step i's earlier, unfinished files were moved to dir (relative). */
SUITE_WUR int suite_manifest_step_moved(struct suite_manifest *m, size_t i, const char *dir);
/* Records the comparison: sm-compare's commands and exit status. */
SUITE_WUR int suite_manifest_reports(struct suite_manifest *m, const struct suite_plan *p,
                                     const struct suite_tools *t, int exit_status);
/* Ends this session with its outcome (done, failed, interrupted). */
SUITE_WUR int suite_manifest_end(struct suite_manifest *m, const char *outcome, const char *now);
/* Writes the manifest (atomically). Returns 0 or -1 (errno). */
SUITE_WUR int suite_manifest_save(const struct suite_manifest *m);

#endif
