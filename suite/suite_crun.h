/* suite_crun: sm-suite --candidates FILE: a run over N candidates (suite_cand.h).
 *
 * The candidates are measured two at a time, each pair by one ordinary sm-suite
 * run (this program again, as a child) in OUT/pair-K/, so each pair is today's A/B
 * with its manifest, seal, lock and resume; an odd last candidate is paired with
 * itself under LABEL.aa (an A/A run, which also says how well it repeats). OUT/LABEL
 * is a link to the candidate's folder in its pair's run. At the end OUT/candidates.json
 * (docs/result-format.md) and a table: capacity at the SLO with its bracket, cost per
 * million tokens at that capacity, quiz score, and the cheapest.
 *
 * Resumable: the same command again goes on with each pair's run (--resume of
 * OUT/pair-K when its manifest is there). A deploy spec is deployed before its
 * pair and deleted after it (suite_cdrun.h: the quotas and the plan first, the
 * manifest OUT/deployments.json); an inference component is read (suite_cand) but
 * refused before anything runs. */
#ifndef SM_SUITE_CRUN_H
#define SM_SUITE_CRUN_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "suite_argv.h"
#include "suite_cand.h"

enum suite_crun_error {
    SUITE_CRUN_OK = 0,
    SUITE_CRUN_ERR_USAGE = -1, /* bad usage or a candidate this version cannot run */
    SUITE_CRUN_ERR_NOMEM = -2,
};

/* The pairs of n candidates: (0,1), (2,3), ... and (n-1, n-1) when n is odd. */
size_t suite_crun_npairs(size_t n);

/* True when argv (without argv[0]) asks for a candidates run (--candidates). */
bool suite_crun_asked(char *const *argv, size_t n);
/* True when argv asks for the help or the version (sm-suite's own answer then). */
bool suite_crun_asked_help(char *const *argv, size_t n);

/* The child sm-suite command of pair k into out (emptied first): self, then
 * --out DIR/pair-K (--resume DIR/pair-K when resume), the pair's sides, then rest
 * (the options given for every pair). Pure. Returns 0, SUITE_CRUN_ERR_USAGE with
 * one line in err (a candidate this version cannot run, or an option of rest that
 * the candidates file gives instead), or SUITE_CRUN_ERR_NOMEM. */
__attribute__((warn_unused_result)) int
suite_crun_pair_argv(const struct suite_cand_list *l, size_t k, const char *self, const char *dir,
                     bool resume, char *const *rest, size_t nrest, struct suite_argv *out,
                     struct buf *err);

/* Reads a candidate's figures from its pair's report.json (sm-compare's) for side
 * 0 (baseline) or 1 (candidate): capacity, bracket, tokens per request, quiz;
 * NAN and 0 where the report has none. Pure. Returns 0, or SUITE_CRUN_ERR_USAGE
 * when text is not a report. */
__attribute__((warn_unused_result)) int suite_crun_figures(const char *text, size_t len, int side,
                                                           struct suite_cand_figures *f);

/* The whole run (see above); argv is sm-suite's, find_endpoint finds sm-endpoint
 * (suite_tools_find_endpoint) for the deploy specs. Returns the exit status: 0 every
 * pair complete and summarised, 1 a pair failed (the others still run), 2 bad
 * usage or input, 130 stopped. */
int suite_crun_main(int argc, char **argv, char *(*find_endpoint)(void));

#endif
