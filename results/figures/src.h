/* src: what one input of a side measured, in one shape for every reader.
 *
 * A result file or journal of the decode, sweep, quiz or rate scenario, or a
 * compare.py measure file (the first three at once), becomes a struct src
 * holding "parts": the decode walls, the batches of each concurrency level, the
 * quiz replies, an open-loop run's rounds, and the container facts. Times are in real seconds: a
 * time-scaled file's times are already multiplied by its time_scale (wall-clock times of the
 * requests, for the server-log cross-check, are Unix seconds as measured). */
#ifndef SM_SRC_H
#define SM_SRC_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "climit.h"
#include "conntime.h"
#include "facts.h"
#include "stream.h"

#define SRC_MAX_LENGTHS  32
#define SRC_MEASURE_TOOL "compare.py via aws CLI" /* the client of compare.py's files */

/* Requests of one measurement: how many were sent, and why some failed. */
struct src_tally {
    long sent, ok, failed;
    struct src_tally_err {
        char *code, *message; /* owned; message may be NULL */
        long n;
    } * errs;
    size_t nerrs;
};

struct src_decode {
    int lengths[SRC_MAX_LENGTHS]; /* the lengths asked for, ascending */
    size_t nlengths;
    long repeats;           /* per length, or -1 when unknown */
    char *prompt;           /* owned, or NULL */
    double *tokens, *walls; /* each successful reply: length asked, wall seconds */
    size_t n;
    bool medians_only;          /* a compare.py file: only the figures below */
    double rate, fixed;         /* medians_only: the saved decode rate and fixed cost */
    double med_short, med_long; /* medians_only: the saved median walls, or NAN */
    bool unverified;            /* some replies carried no token count */
    struct stream_meas stream;  /* the successful replies' streaming figures (one cluster each) */
    struct src_tally tally;
};

/* A successful request of a sweep level on the wall clock. */
struct src_span {
    double start, end; /* Unix seconds, as measured */
    double tokens;
};

struct src_level {
    int c;           /* concurrency */
    bool steady;     /* steady mode: one window instead of batches */
    long max_tokens; /* per request, or -1 */
    double *tps;     /* tokens per second of each batch used (steady: of the window) */
    double *bwall;   /* the wall seconds of each batch used */
    size_t nb;
    long batches;        /* batches with records */
    long batches_failed; /* left out: a request failed */
    long batches_short;  /* left out: fewer requests than the level (or no duration) */
    double *lat;         /* wall seconds of each successful request (none from compare.py) */
    size_t nlat;
    bool no_counts; /* replies carried no token counts: no throughput */
    struct src_span *spans;
    size_t nspans;
    double wall_first, wall_last; /* the level's records on the wall clock; 0 when unknown */
    struct stream_meas stream;    /* the successful requests' streaming figures (batch clusters) */
    struct src_tally tally;
};

struct src_quiz_item {
    char *id, *kind, *expected, *text; /* owned; text NULL when the request failed */
    char *error;                       /* the failure's code, or NULL */
    int correct;                       /* 1, 0, or -1 when unknown */
};

struct src_kind_score {
    char *kind;
    long correct, answered, total;
};

struct src_quiz {
    char *name, *sha; /* the quiz's name and the sha256 of its file, or NULL */
    long questions;   /* questions in the quiz */
    struct src_quiz_item *items;
    size_t n;
    struct src_kind_score *kinds;
    size_t nkinds;
    long correct, answered; /* over the items */
    struct src_tally tally;
};

/* A request of the file on the wall clock, whatever came of it (the CloudWatch
 * cross-check, cloudwatch_check.h, counts them). */
struct src_call {
    double start, end; /* Unix seconds, as measured (end: start + its duration) */
    int status;        /* HTTP status; 0: no reply */
    double wall;       /* end-to-end seconds, real units (time_scale applied) */
};

enum src_kind { SRC_RESULT, SRC_JOURNAL, SRC_MEASURE };

struct openloop;    /* openloop.h */
struct scaling;     /* scaling.h */
struct shards_info; /* shards.h */

struct src {
    char *path; /* owned */
    enum src_kind kind;
    char *tool;               /* the client that measured ("wrk-sagemaker 0.1.0"), or NULL */
    char *client;             /* the load generator: "wrk" or "sm-stream" (NULL for imports) */
    bool streamed;            /* its replies were streamed (sm-stream): they have TTFT and ITL */
    char *label;              /* the side's label (result files) or endpoint name (compare.py) */
    char *run_id;             /* or NULL */
    char *scenario;           /* decode, sweep, quiz, ... ("measure" for compare.py) */
    char *started;            /* the run's start time as written, or NULL */
    cJSON *endpoint;          /* owned copy of the file's endpoint object, or NULL */
    cJSON *settings;          /* owned copy of the file's settings, or NULL */
    cJSON *template_overhead; /* owned copy of the file's template_overhead (rfmt.h), or NULL */
    double time_scale;
    bool scale_biased; /* time-scaled and some time converted without server_us (tscale.h) */
    bool partial;
    char *partial_reason; /* owned, or NULL */
    struct src_decode *decode;
    struct src_level *levels;
    size_t nlevels;
    struct src_quiz *quiz;
    struct openloop *rate; /* an open-loop run's rounds (openloop.h), or NULL */
    void (*rate_free)(
        struct openloop *);  /* frees what rate owns (openloop_free: openloop.h sits above src) */
    struct scaling *scaling; /* a ramp's scaling (scaling.h), or NULL */
    void (*scaling_free)(struct scaling *); /* frees it (scaling.h sits above src) */
    struct facts *facts;                    /* compare.py's load_facts */
    bool have_server_peak;                  /* compare.py's server_throughput_during_load */
    double server_peak_tps;     /* its peak generation throughput (vLLM's log), tokens/s */
    long server_peak_lines;     /* the log lines it was read from */
    struct shards_info *shards; /* a sharded run's shards (merged into this input), or NULL */
    struct src_call *calls;     /* owned: the records of its phase with wall_start_us, file order */
    size_t ncalls;
    struct climit_run self; /* what its client recorded of itself (client_rounds) */
    struct conntime conn;   /* its phase's connection times (sm-stream's records) */
};

/* Frees what s owns and zeroes it. */
void src_free(struct src *s);
/* The file name without its directories. */
const char *src_name(const struct src *s);

/* Counts one request (code and message only for a failure; both may be NULL).
 * Returns 0, or -1 out of memory. */
__attribute__((warn_unused_result)) int src_tally_add(struct src_tally *t, bool ok,
                                                      const char *code, const char *message);
/* Adds n failures of one kind at once; 0 or -1 out of memory. */
__attribute__((warn_unused_result)) int src_tally_fail(struct src_tally *t, const char *code,
                                                       const char *message, long n);
/* Adds from to into; 0 or -1 out of memory. */
__attribute__((warn_unused_result)) int src_tally_merge(struct src_tally *into,
                                                        const struct src_tally *from);
void src_tally_free(struct src_tally *t);

/* strdup that accepts NULL. */
char *src_dup(const char *s);
/* Appends one double to a growing array (*cap is the caller's capacity); 0 or -1. */
__attribute__((warn_unused_result)) int src_push(double **arr, size_t *n, size_t *cap, double v);

#endif
