/* suite_probe: what a capacity search (suite_search.h) needs around one
 * probe: the sm-compare command that judges a probe's result file (its
 * --slo and --max-error-rate, the file as both sides, JSON on standard
 * output), the verdict read from that JSON (open_loop.sides.baseline.rates[]:
 * the entry of the probe's rate, its slos.held), and the rate a result file
 * was asked for (settings.rates, one rate). The SLO logic stays in sm-compare
 * (results/figures/slo.c); this runs it and reads its answer (all pure but the run). */
#ifndef SM_SUITE_PROBE_H
#define SM_SUITE_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "suite_opts.h"

#define SUITE_PROBE_JSON_MAX ((size_t)16 << 20) /* sm-compare's JSON read at most */

enum suite_probe_error {
    SUITE_PROBE_OK = 0,
    SUITE_PROBE_ERR_FORMAT = -1, /* no verdict for the rate, or not one rate */
    SUITE_PROBE_ERR_NOMEM = -2,
    SUITE_PROBE_ERR_RUN = -3, /* sm-compare could not run, or failed */
};

/* Appends to out the command that judges the probe's result file: compare is
 * sm-compare. Returns 0 or SUITE_PROBE_ERR_NOMEM. */
__attribute__((warn_unused_result)) int suite_probe_command(const struct suite_opts *o,
                                                            const char *compare, const char *file,
                                                            struct suite_argv *out);
/* Reads whether the SLOs held at rate from sm-compare's JSON report. Returns 0,
 * or SUITE_PROBE_ERR_FORMAT with one line in err. */
__attribute__((warn_unused_result)) int
suite_probe_verdict(const char *json, size_t len, double rate, bool *held, struct buf *err);
/* Runs the command of suite_probe_command (argv) and reads its verdict at
 * rate. Returns 0, or SUITE_PROBE_ERR_RUN or SUITE_PROBE_ERR_FORMAT with one
 * line in err (sm-compare's own messages when it failed). */
__attribute__((warn_unused_result)) int suite_probe_run(char *const argv[], double rate, bool *held,
                                                        struct buf *err);
/* The one rate a result file's text asks for (settings.rates). Returns 0, or
 * SUITE_PROBE_ERR_FORMAT with one line in err. */
__attribute__((warn_unused_result)) int suite_probe_rate(const char *json, size_t len, double *rate,
                                                         struct buf *err);
/* Whether two rates are the same probe's (equal to 1e-9, relative). */
bool suite_probe_same_rate(double a, double b);

#endif
