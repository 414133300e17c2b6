/* suite_opts: sm-suite's command line. The suite's own options, and the
 * scenarios' options it passes through (a table of what each scenario takes),
 * checked before anything runs so a typo costs no measurement. */
#ifndef SM_SUITE_OPTS_H
#define SM_SUITE_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "suite_argv.h"

/* The scenarios of the suite, as bits. */
enum suite_scenario { SUITE_DECODE = 1, SUITE_SWEEP = 2, SUITE_QUIZ = 4 };

#define SUITE_NAME_MAX   64 /* endpoint and variant names: SageMaker allows 63 */
#define SUITE_MAX_LEVELS 16

/* One side: an endpoint, or a production variant of --endpoint. */
struct suite_side {
    char name[SUITE_NAME_MAX];    /* the endpoint */
    char variant[SUITE_NAME_MAX]; /* "" for none */
    char label[SUITE_NAME_MAX];   /* names the side's folder and column */
    bool labelled;                /* the label was given (NAME=LABEL) */
};

/* A scenario option to pass through: the word(s) and the scenarios they go to. */
struct suite_pass {
    unsigned scenarios; /* SUITE_* bits */
    const char *name;   /* the scenario's option, e.g. "--max-tokens" */
    const char *value;  /* NULL for a flag */
};

struct suite_opts {
    const char *region;
    const char *url;           /* NULL: https://runtime.sagemaker.REGION.amazonaws.com */
    struct suite_side side[2]; /* baseline, candidate */
    bool variants;             /* the sides are variants of side[0].name */
    unsigned order[3];         /* the scenarios to run, in order */
    int nscenarios;
    int levels[SUITE_MAX_LEVELS];
    int nlevels;
    bool aba;
    double time_scale;
    const char *out, *resume, *scenario_dir;
    const char *facts[2];
    double price; /* 0: none */
    bool dry_run, help, version;
    struct suite_pass *pass; /* owned array; the strings belong to the words parsed */
    size_t npass;
    struct suite_argv saved; /* the options to keep in the manifest (not --out, --resume,
                                --dry-run): a resume parses them again */
};

/* Parses words (the command line without the program's name) into o.
 * env_region is the region from the environment (or NULL). The strings in o
 * point into words, which must outlive o. Returns 0, or -1 with a one-line
 * message in err. */
SUITE_WUR int suite_opts_parse(char *const *words, size_t n, const char *env_region,
                               struct suite_opts *o, char *err, size_t errlen);
/* Frees what suite_opts_parse allocated. */
void suite_opts_free(struct suite_opts *o);

/* The last value of a passed-through option for one scenario (e.g. "--repeats"
 * for SUITE_DECODE), or NULL when it is not given. */
const char *suite_opts_value(const struct suite_opts *o, unsigned scenario, const char *name);
/* The scenario's name ("decode", "sweep", "quiz"). */
const char *suite_scenario_name(unsigned scenario);

#endif
