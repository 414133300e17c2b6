/* cmp: the comparison of two sides, ready for any output format.
 *
 * Holds the rows of the reference table (and the decode, latency, cost and
 * quiz-kind rows that follow it), each with both values, the ratio candidate /
 * baseline, the requests behind each value and 95% intervals where the data
 * allow one (interval.h); the quiz comparison (qcmp.h), the server-log
 * cross-check (xcheck.h), the CloudWatch cross-check (cwcheck.h) and a short
 * verdict. A value that cannot be given
 * carries the reason instead. Whether the sides may be compared at all is
 * guard.h's to say, before. */
#ifndef SM_CMP_H
#define SM_CMP_H

#include <stdbool.h>
#include <stdint.h>

#include "buf.h"
#include "climit.h"
#include "conntime.h"
#include "cwcheck.h"
#include "interval.h"
#include "ocmp.h"
#include "qcmp.h"
#include "qfam.h"
#include "side.h"
#include "warnings.h"
#include "xcheck.h"

enum cmp_err { CMP_OK = 0, CMP_ERR_NOMEM = -1, CMP_ERR_INPUT = -3 };

enum cmp_group {
    CMP_MAIN,    /* the reference table */
    CMP_DECODE,  /* fixed cost, median walls, least squares */
    CMP_LATENCY, /* per level p50/p90/p99 */
    CMP_COST,    /* per level, with --price-per-hour */
    CMP_KIND,    /* quiz correct per kind */
    CMP_STREAM,  /* per streamed measurement: TTFT, ITL, TPOT, end-to-end p50/p90/p99 (scmp.h) */
    CMP_OPEN,    /* per asked rate of an open-loop run, and the capacity (ocmp.h; CSV only) */
};

/* The sample behind a streaming row's value. */
struct cmp_n {
    size_t requests;
    uint64_t tokens; /* ITL: the tokens of those requests; 0 for other figures */
};

struct cmp_row {
    char name[64];
    enum cmp_group group;
    struct side_val b, c, ratio;
    bool no_ratio;                    /* the reference gives no ratio for this row */
    bool server_fact;                 /* from the server's start-up log: never client-limited */
    int decimals;                     /* rounding of the values in text; -1: as read */
    int load_c;                       /* a load_cN_tokens_per_second row's N; 0 for others */
    long b_total, c_total;            /* > 0: the values count out of these (answered) */
    long b_unanswered, c_unanswered;  /* counts: questions a side left unanswered */
    const struct src_tally *tb, *tc;  /* the requests behind each value, or NULL */
    struct interval ci_b, ci_c, ci_r; /* 95% intervals (ok false: why none) */
    struct interval_fig fig_b, fig_c; /* what the intervals rest on */
    size_t nb, nc;                    /* samples the intervals rest on (0: none) */
    const char *method;               /* how the intervals were computed, or NULL */
    struct cmp_n n_b, n_c;            /* CMP_STREAM: the values' requests (and tokens) */
    char note[160];                   /* more to say (a bounded value), or "" */
    char limited_b[CLIMIT_WHY];       /* "" or why the baseline's client limited its value */
    char limited_c[CLIMIT_WHY];       /* the same of the candidate's */
};

struct cmp_opts {
    bool have_price;
    double price;              /* USD per hour */
    const struct slo_set *slo; /* open-loop SLOs, or NULL */
    double margin;             /* the quiz's equivalence margin (0: QPLAN_MARGIN) */
};

struct cmp {
    const struct side *b, *c;
    char bname[160], cname[160]; /* distinct names of the two sides */
    struct cmp_opts opts;
    struct cmp_row *rows;
    size_t nrows;
    struct qcmp quiz;
    struct qfam fam; /* the quiz's paired analysis by family */
    struct xcheck xc;
    struct cwcheck cw;    /* the CloudWatch cross-check (cwcheck.h) */
    char scale_note[400]; /* "" when both sides ran in real time */
    bool stream_mixed;    /* one side streamed a measurement the other measured unstreamed */
    size_t itl_token[2], itl_chunk[2]; /* per side: requests whose ITL was per token / chunk */
    struct conntime_summary conn[2];   /* per side: opening connections (conntime.h) */
    struct ocmp open;                  /* the open-loop runs (ocmp.h) */
    char verdict[2000];
};

/* Compares b and c (which must outlive m; so must o->slo). Returns 0, or
 * CMP_ERR_NOMEM or CMP_ERR_INPUT (SLOs that do not apply) with err; what the
 * reader should know (failure rates, samples too small for an
 * interval, time scales, server-log differences) goes to w. */
__attribute__((warn_unused_result)) int cmp_build(struct cmp *m, const struct side *b,
                                                  const struct side *c, const struct cmp_opts *o,
                                                  struct warnings *w, struct buf *err);
void cmp_free(struct cmp *m);
/* A new row of m (its intervals say "no interval" until set), or NULL out of
 * memory; the row is m's, valid until the next one is added. */
struct cmp_row *cmp_add_row(struct cmp *m, const char *name, enum cmp_group g, int decimals);
/* Sets r's ratio c / b from its values (or why there is none). */
void cmp_set_ratio(struct cmp_row *r);
/* Whether either side's value of r is client-limited (limited_b, limited_c). */
bool cmp_row_limited(const struct cmp_row *r);
/* v rounded to decimals (unchanged when decimals < 0). */
double cmp_round(double v, int decimals);
/* The row with this name, or NULL. */
const struct cmp_row *cmp_row(const struct cmp *m, const char *name);

/* Side k's ITL unit as its records said it: "token", "chunk", "token and chunk"
 * (some of each), or NULL (none said). */
const char *cmp_itl_unit(const struct cmp *m, int k);

#endif
