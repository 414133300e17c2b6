/* suite_cand: sm-suite's candidates (issue 34): the file that names them, each an
 * existing endpoint (with a variant or an inference component) or a deploy spec,
 * and the summary of a run over them, candidates.json (docs/result-format.md,
 * "candidates.json"): capacity at the SLO with its bracket, cost per million
 * tokens at that capacity, quiz score, and which candidate is cheapest.
 *
 * Pure C: the caller reads the file and gives each candidate's measured figures. */
#ifndef SM_SUITE_CAND_H
#define SM_SUITE_CAND_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

#define SUITE_CAND_MAX       16      /* candidates in a file */
#define SUITE_CAND_ENV_MAX   32      /* environment variables of a deploy spec */
#define SUITE_CAND_FILE_MAX  1048576 /* the file's size at most */
#define SUITE_CAND_VALUE_MAX 1024    /* an environment value, as SageMaker's limit */

enum suite_cand_error {
    SUITE_CAND_OK = 0,
    SUITE_CAND_ERR_INVALID = -1, /* the file is not a candidates file: the message says where */
    SUITE_CAND_ERR_NOMEM = -2,
};

struct suite_cand_env {
    char key[128];
    char value[SUITE_CAND_VALUE_MAX + 1];
};

struct suite_cand {
    char label[65];         /* names the candidate's folder and row */
    bool deploy;            /* a deploy spec (else an existing endpoint) */
    char endpoint[64];      /* an existing endpoint's name ("" for a deploy spec) */
    char variant[64];       /* "" for none */
    char component[64];     /* an inference component, "" for none */
    char image[512];        /* deploy: the container image, "" for the facts file's vLLM image */
    char model[256];        /* deploy: the model id (SM_VLLM_MODEL) */
    char instance_type[48]; /* deploy: required; an endpoint: optional, for the price */
    int instance_count;     /* 1 to 100 (default 1) */
    struct suite_cand_env env[SUITE_CAND_ENV_MAX];
    size_t n_env;
    double price_per_hour; /* USD per instance, 0: not given (the facts file's, if any) */
};

struct suite_cand_list {
    struct suite_cand c[SUITE_CAND_MAX];
    size_t n;
};

/* Parses a candidates file's text (name names it in messages): an object with
 * "candidates", a list of 1 to SUITE_CAND_MAX objects, each with "label" and
 * exactly one of "endpoint" (with optional "variant" or "inference_component",
 * "instance_type", "instance_count") and "deploy" (an object with "model",
 * "instance_type", optional "image", "instance_count" and "environment", an object
 * of strings), and an optional "price_per_hour". An unknown member is refused, so a
 * typo costs no deployment. Returns 0, or SUITE_CAND_ERR_INVALID with one line in
 * err naming the file, the candidate and the member. */
__attribute__((warn_unused_result)) int suite_cand_parse(const char *text, size_t len,
                                                         const char *name,
                                                         struct suite_cand_list *l,
                                                         struct buf *err);

/* One candidate's measured figures, for the summary. NAN where not measured. */
struct suite_cand_figures {
    double capacity_rps;           /* requests per second at the SLO (sm-compare's capacity) */
    double last_held_rps;          /* the bracket: the highest rate that held */
    double first_failed_rps;       /* and the lowest that failed (NAN: none failed) */
    double tokens_per_request;     /* output tokens of a request at that capacity */
    long quiz_correct, quiz_total; /* quiz_total 0: no quiz */
    double price_per_hour;         /* USD per instance; 0: unknown */
    const char *price_source;      /* where the price comes from, or NULL */
};

/* USD per million output tokens when count instances at usd_per_hour each serve
 * tokens_per_second; NAN when a figure is missing or not positive. */
double suite_cand_usd_per_million(double usd_per_hour, int count, double tokens_per_second);

/* The index of the candidate with the lowest cost per million tokens at capacity,
 * or -1 when none has one. Ties go to the earlier candidate. */
int suite_cand_cheapest(const struct suite_cand_list *l, const struct suite_cand_figures *f);

/* Whether the capacity search's brackets alone decide that best (suite_cand_cheapest)
 * is the cheapest: its cost at the rate it last held (the most it can cost) is below
 * every other priced, measured candidate's cost at the rate that candidate first failed
 * (the least it can cost; one that failed no rate may serve more, so it has no such
 * bound). Returns -1 when they decide (or best is -1), else the first candidate whose
 * cost range overlaps best's: the choice then rests on where the capacities lie inside
 * the brackets, which a loaded client can move. */
int suite_cand_rival(const struct suite_cand_list *l, const struct suite_cand_figures *f, int best);

/* Appends candidates.json (one object, docs/result-format.md) for l and its figures
 * f[0..l->n-1], with slo the SLO the capacities were searched at (as given to
 * --slo). Returns 0, or SUITE_CAND_ERR_NOMEM. */
__attribute__((warn_unused_result)) int suite_cand_summary(const struct suite_cand_list *l,
                                                           const struct suite_cand_figures *f,
                                                           const char *slo, struct buf *out);

#endif
