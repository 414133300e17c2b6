/* suite_opts: sm-suite's command line: the suite's own options, and the
 * scenarios' options it passes through, checked by each scenario's own list of
 * options (suite_spec) before anything runs, so a typo costs no measurement.
 *
 * It is read twice: suite_opts_scan reads the suite's own options and steps
 * over the rest, enough to find the scenarios and ask them for their options;
 * suite_opts_parse then reads everything with those lists. */
#ifndef SM_SUITE_OPTS_H
#define SM_SUITE_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "suite_argv.h"
#include "suite_spec.h"

enum suite_opts_error {
    SUITE_OPTS_OK = 0,
    SUITE_OPTS_ERR_USAGE = -1, /* bad usage: the message says what */
    SUITE_OPTS_ERR_NOMEM = -2,
};

/* The scenarios of the suite, as bits: 1 << k for the k-th (decode, sweep, quiz). */
enum suite_opts_scenario {
    SUITE_OPTS_DECODE = 1,
    SUITE_OPTS_SWEEP = 2,
    SUITE_OPTS_QUIZ = 4,
    SUITE_OPTS_RATE = 8, /* open loop (rate.lua): only when --scenarios names it */
};

#define SUITE_OPTS_NSCENARIOS 4
#define SUITE_OPTS_MAX_SLOS   8  /* sm-compare takes as many */
#define SUITE_OPTS_NAME_MAX   64 /* endpoint and variant names: SageMaker allows 63 */
#define SUITE_OPTS_MAX_LEVELS 16

/* One side: an endpoint, or a production variant of --endpoint; either may name an
 * inference component of it (--baseline-component, --candidate-component). */
struct suite_opts_side {
    char name[SUITE_OPTS_NAME_MAX];      /* the endpoint */
    char variant[SUITE_OPTS_NAME_MAX];   /* "" for none */
    char component[SUITE_OPTS_NAME_MAX]; /* the inference component, "" for none */
    char label[SUITE_OPTS_NAME_MAX];     /* names the side's folder and column */
    bool labelled;                       /* the label was given (NAME=LABEL) */
};

/* A scenario option to pass through: the word(s) and the scenarios they go to. */
struct suite_opts_pass {
    unsigned scenarios; /* SUITE_OPTS_* bits */
    const char *name;   /* the scenario's option, e.g. "--max-tokens" (its spec's) */
    bool negated;       /* a flag given as --no-NAME */
    const char *value;  /* NULL for a flag */
};

struct suite_opts {
    const char *region;
    const char *url;                /* NULL: https://runtime.sagemaker.REGION.amazonaws.com */
    struct suite_opts_side side[2]; /* baseline, candidate */
    bool variants;                  /* the sides are variants of side[0].name */
    unsigned order[SUITE_OPTS_NSCENARIOS]; /* the scenarios to run, in order */
    int nscenarios;
    int levels[SUITE_OPTS_MAX_LEVELS];
    int nlevels;
    bool aba;
    double time_scale;
    const char *out, *resume, *scenario_dir;
    const char *facts[2];
    double price; /* 0: none */
    bool dry_run, help, version;
    bool stream;        /* --stream: decode and sweep through sm-stream (the quiz stays on wrk) */
    const char *cacert; /* --cacert: the CA certificates sm-stream trusts, or NULL */
    const char *slo[SUITE_OPTS_MAX_SLOS]; /* --slo, passed to sm-compare (it checks them) */
    int nslo;
    const char *max_error_rate; /* --max-error-rate, passed to sm-compare, or NULL */
    const char *min_attainment; /* --min-attainment, passed to sm-compare, or NULL */
    /* the endpoints' life (suite_deploy.h, by running sm-endpoint) */
    bool deploy;               /* --deploy: create both endpoints first */
    bool delete_after;         /* --delete-after: delete them at the end, however it ends */
    bool no_endpoint_check;    /* --no-endpoint-check: no DescribeEndpoint before the run */
    const char *model[2];      /* --baseline-model, --candidate-model: their SM_VLLM_MODEL */
    const char *instance_type; /* --instance-type T[,T...] (a list: instance pools) */
    const char *role;          /* --role ARN */
    const char *endpoint_url;  /* --endpoint-url: the control plane sm-endpoint calls */
    bool no_cloudwatch;        /* --no-cloudwatch: no logs and metrics fetched (suite_cw.h) */
    bool allow_plain_http;     /* --allow-plain-http: passed to every scenario, sm-endpoint and
                                  the CloudWatch calls (plainhttp.h) */
    /* the capacity search (suite_search.h): the rate step's probes, each side on its own */
    bool searching; /* --capacity-search LO:HI given */
    double search_lo, search_hi;
    int search_probes; /* --search-probes, per side (SUITE_SEARCH_DEFAULT_PROBES) */
    /* the lists of options of the scenarios run (borrowed; NULL for the others) */
    const struct suite_spec *spec[SUITE_OPTS_NSCENARIOS];
    struct suite_opts_pass *pass; /* owned array; the strings belong to the words and specs */
    size_t npass, cap;
    struct suite_argv saved; /* the options to keep in the manifest (not --out, --resume,
                                --dry-run): a resume reads them again */
};

/* Reads sm-suite's own options among words (the command line without the
 * program's name) into o and steps over the others (a scenario option takes
 * the next word as its value unless that starts with --); nothing else is
 * checked. The strings in o point into words. Returns 0, or
 * SUITE_OPTS_ERR_USAGE or _NOMEM with a one-line message in err. */
__attribute__((warn_unused_result)) int suite_opts_scan(char *const *words, size_t n,
                                                        struct suite_opts *o, struct buf *err);

/* Reads words into o, the scenario options by spec[k], the options of scenario
 * 1 << k (NULL: the suite does not run it); env_region is the region of the
 * environment (or NULL). The strings in o point into words and the specs, which
 * must outlive o. Returns as suite_opts_scan. */
__attribute__((warn_unused_result)) int
suite_opts_parse(char *const *words, size_t n, const char *env_region,
                 const struct suite_spec *const spec[SUITE_OPTS_NSCENARIOS], struct suite_opts *o,
                 struct buf *err);

/* "decode", "decode and sweep", "decode, sweep and quiz": the scenarios of bits. */
void suite_opts_list(unsigned bits, char *out, size_t len);

/* Frees what suite_opts_scan or suite_opts_parse allocated. */
void suite_opts_free(struct suite_opts *o);

/* The last value of a passed-through option for one scenario (e.g. "--repeats"
 * for SUITE_OPTS_DECODE), or NULL when it is not given. */
const char *suite_opts_value(const struct suite_opts *o, unsigned scenario, const char *name);
/* The value given, else the scenario's default, else NULL. */
const char *suite_opts_setting(const struct suite_opts *o, unsigned scenario, const char *name);

/* Whether word ("--label") is a scenario option sm-suite sets itself for every
 * scenario, and so does not pass through. */
bool suite_opts_reserved(const char *word);

/* The scenario's name ("decode", "sweep", "quiz"). */
const char *suite_opts_scenario_name(unsigned scenario);

/* Copies to out the words of an option list (as suite_opts.saved keeps them)
 * that choose the code that runs or where requests go (--url, --region,
 * --scenario-dir and the sides) when keep, else all the others. Returns 0 or
 * SUITE_OPTS_ERR_NOMEM. */
__attribute__((warn_unused_result)) int suite_opts_guarded(const struct suite_argv *words,
                                                           bool keep, struct suite_argv *out);
/* Appends to b the command that resumes the run in dir: self (how sm-suite was
 * invoked) --resume DIR and the options of o that choose the code and the
 * target, given again (the others come from the run's manifest). Returns 0 or
 * BUF_ERR_NOMEM. */
__attribute__((warn_unused_result)) int suite_opts_resume_command(const struct suite_opts *o,
                                                                  const char *self, const char *dir,
                                                                  struct buf *b);

#endif
