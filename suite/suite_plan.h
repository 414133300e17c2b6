/* suite_plan: the steps of a suite and the exact commands each runs (pure: no
 * I/O). One wrk run per scenario and concurrency level (with --stream, decode
 * and sweep run with sm-stream: -t1 and the level's -c); with --order aba the
 * same steps again for the baseline alone; then sm-compare three times (the
 * text table with the chart, Markdown, JSON). */
#ifndef SM_SUITE_PLAN_H
#define SM_SUITE_PLAN_H

#include "suite_opts.h"

/* A plan fails only when out of memory. */
enum suite_plan_error {
    SUITE_PLAN_OK = 0,
    SUITE_PLAN_ERR_NOMEM = -1,
};

/* Where the programs are (see sm-suite --help). */
struct suite_plan_tools {
    const char *wrk;          /* the wrk to run */
    const char *compare;      /* sm-compare */
    const char *scenario_dir; /* the folder of decode.lua, sweep.lua, quiz.lua */
    const char *plugin_dir;   /* SM_PLUGIN_PATH when sm-suite sets it for wrk, else NULL */
    const char *stream;       /* sm-stream (--stream), or NULL */
};

struct suite_plan_step {
    char id[32];       /* "decode", "sweep-c4", "rerun-quiz": names the result files */
    char title[64];    /* "sweep c4", "decode, baseline again" */
    unsigned scenario; /* SUITE_OPTS_* */
    int nsides;        /* 2, or 1 for one side alone (the A-B-A pass, a search's probe) */
    int side;          /* the first side measured: 0, or 1 for a candidate's probe */
    int probe;         /* a capacity search's probe (1, 2, ...) of side; 0: not a probe */
    size_t rate_word;  /* a probe: the index in cmd of its --rates value */
    int level;         /* wrk's -t and -c */
    double weight;     /* a closed-loop step's expected work in tokens (0: timed), for
                          the time estimate */
    double sched_s;    /* a timed step's (open loop, steady sweep): the seconds its
                          schedule lasts, real time; 0: closed loop */
    struct suite_argv cmd;
};

enum { SUITE_PLAN_CMP_TEXT, SUITE_PLAN_CMP_MARKDOWN, SUITE_PLAN_CMP_JSON, SUITE_PLAN_NCMP };

/* The copy of a side's container log in its folder, where sm-compare finds it. */
#define SUITE_PLAN_FACTS_FILE "container.log"

/* The report files sm-compare writes into the run directory, and the chart. */
extern const char *const suite_plan_report_files[SUITE_PLAN_NCMP + 1];

struct suite_plan {
    char *url;
    char *side_dir[2]; /* OUT/LABEL of the baseline and the candidate */
    struct suite_plan_step *steps;
    size_t n;
    struct suite_argv compare[SUITE_PLAN_NCMP];
};

/* Builds the plan of o into p (free with suite_plan_free, also after a
 * failure); questions is the quiz's number of questions. All paths start with
 * out. Returns 0 or SUITE_PLAN_ERR_NOMEM. */
__attribute__((warn_unused_result)) int suite_plan_build(const struct suite_opts *o,
                                                         const struct suite_plan_tools *t,
                                                         int questions, const char *out,
                                                         struct suite_plan *p);
/* Frees the plan. */
void suite_plan_free(struct suite_plan *p);

/* The path of a step's result file for side k (0 baseline, 1 candidate; one
 * the step measures); the caller frees it. NULL when out of memory. */
char *suite_plan_result(const struct suite_plan *p, const struct suite_plan_step *s, int k);

/* Whether step s measures side k (0 baseline, 1 candidate). */
bool suite_plan_measures(const struct suite_plan_step *s, int k);

/* A probe's rate as its command writes it ("RATE" for one not chosen yet). */
void suite_plan_rate_text(double rate, char *out, size_t cap);
/* Sets the rate of probe step s (its --rates value). Returns 0 or SUITE_PLAN_ERR_NOMEM. */
__attribute__((warn_unused_result)) int suite_plan_set_rate(struct suite_plan_step *s, double rate);

/* Appends the command to out as a line to paste into sh (env, then the words).
 * Returns BUF_OK or a BUF_ERR_*. */
__attribute__((warn_unused_result)) int suite_plan_command_line(const struct suite_plan_tools *t,
                                                                const struct suite_argv *cmd,
                                                                bool is_wrk, struct buf *out);

#endif
