/* suite_run: runs a planned suite in its run directory: moves unfinished
 * steps aside, skips complete ones, runs each wrk command with progress and
 * its output saved, keeps the manifest, sums up the errors, and runs
 * sm-compare; on a failure or Ctrl-C says how to resume or compare. */
#ifndef SM_SUITE_RUN_H
#define SM_SUITE_RUN_H

#include "suite_manifest.h"
#include "suite_plan.h"

/* What the run needs besides the plan (all borrowed). */
struct suite_run_job {
    const struct suite_opts *o;
    const struct suite_plan_tools *t;
    struct suite_plan *p; /* a capacity search's probes get their rates as it goes */
    const struct suite_manifest_target *target; /* what runs the steps and where they send */
    struct suite_manifest *m;         /* a resume's manifest, loaded and verified; else empty */
    struct suite_seal *seal;          /* seals the manifest; NULL: not sealed */
    const char *dir;                  /* the run directory (locked by the caller) */
    const char *self;                 /* how sm-suite was invoked (argv[0]), for the hints */
    const struct suite_argv *command; /* this command line, for the manifest */
};

/* Whether every result file of step i exists and is complete; *present: how
 * many exist; reason (when not NULL): a partial file's reason, or why a file is
 * not a result file. */
bool suite_run_step_complete(const struct suite_plan *p, size_t i, int *present,
                             struct buf *reason);

/* Runs the suite. Returns the exit status: 0 every step complete and compared,
 * 1 a step failed or is partial, or sm-compare failed, 2 a scenario refused
 * its options, 130 stopped by a signal. */
int suite_run(const struct suite_run_job *job);

#endif
