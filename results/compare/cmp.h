/* cmp: the comparison of two sides, ready for any output format: numbers and
 * enums (the report, results/report, puts them in words).
 *
 * Holds the rows of the reference table (and the decode, latency, cost and
 * quiz-kind rows that follow it), each with both values, the ratio candidate /
 * baseline, the requests behind each value and 95% intervals where the data
 * allow one (interval.h); the streaming rows (streamrows.h), the open-loop part
 * (openloop_cmp.h, its rows: openrows.h), the quiz comparison (quiz_cmp.h), the server-log
 * cross-check (xcheck.h) and the CloudWatch cross-check (cloudwatch_check.h). A value
 * that cannot be given carries the reason instead. Whether the sides may be
 * compared at all is guard.h's to say, before; comparison.h builds the whole. */
#ifndef SM_CMP_H
#define SM_CMP_H

#include <stdbool.h>
#include <stdint.h>

#include "buf.h"
#include "climit.h"
#include "cloudwatch_check.h"
#include "conntime.h"
#include "interval.h"
#include "openloop_cmp.h"
#include "quiz_cmp.h"
#include "quiz_family.h"
#include "side.h"
#include "xcheck.h"

enum cmp_err { CMP_OK = 0, CMP_ERR_NOMEM = -1, CMP_ERR_INPUT = -3 };

enum cmp_group {
    CMP_MAIN,    /* the reference table */
    CMP_DECODE,  /* fixed cost, median walls, least squares */
    CMP_LATENCY, /* per level p50/p90/p99 */
    CMP_COST,    /* per level, with --price-per-hour */
    CMP_KIND,    /* quiz correct per kind */
    CMP_STREAM,  /* per streamed measurement: TTFT, ITL, TPOT, end-to-end p50/p90/p99 (streamrows.h)
                  */
    CMP_OPEN, /* per asked rate of an open-loop run, and the capacity (openloop_cmp.h; CSV only) */
};

/* How a row's value stands for its figure: the figure itself, or a bound of it
 * (an open-loop capacity when every rate held, or none did). */
enum cmp_bound { CMP_EXACT, CMP_AT_LEAST, CMP_AT_MOST, CMP_MORE_THAN, CMP_LESS_THAN };

/* The sample behind a streaming row's value. */
struct cmp_n {
    size_t requests;
    uint64_t tokens; /* ITL: the tokens of those requests; 0 for other figures */
};

struct cmp_row {
    char name[64];
    enum cmp_group group;
    struct side_val b, c, ratio;
    bool no_ratio;         /* the reference gives no ratio for this row */
    bool server_fact;      /* the server's own figure (start-up log, throughput lines): never
                              client-limited */
    int decimals;          /* rounding of the values in text; -1: as read */
    int load_c;            /* a load_cN_tokens_per_second row's N; 0 for others */
    long b_total, c_total; /* > 0: the values count out of these (answered) */
    long b_unanswered, c_unanswered;  /* counts: questions a side left unanswered */
    const struct src_tally *tb, *tc;  /* the requests behind each value, or NULL */
    struct interval ci_b, ci_c, ci_r; /* 95% intervals (ok false: why none) */
    struct interval_fig fig_b, fig_c; /* what the intervals rest on */
    size_t nb, nc;                    /* samples the intervals rest on (0: none) */
    const char *method;               /* how the intervals were computed, or NULL */
    struct cmp_n n_b, n_c;            /* CMP_STREAM: the values' requests (and tokens) */
    enum cmp_bound bound_b, bound_c, bound_ratio; /* CMP_EXACT unless the value is a bound */
    char limited_b[CLIMIT_WHY]; /* "" or why the baseline's client limited its value */
    char limited_c[CLIMIT_WHY]; /* the same of the candidate's */
};

struct cmp_opts {
    bool have_price;
    double price;              /* USD per hour */
    const struct slo_set *slo; /* open-loop SLOs, or NULL */
    double margin;             /* the quiz's equivalence margin (0: QUIZ_PLAN_MARGIN) */
};

struct cmp {
    const struct side *b, *c;
    char bname[160], cname[160]; /* distinct names of the two sides */
    struct cmp_opts opts;
    struct cmp_row *rows;
    size_t nrows;
    struct quiz_cmp quiz;
    struct quiz_family fam; /* the quiz's paired analysis by family */
    struct xcheck xc;
    struct cloudwatch_check cw; /* the CloudWatch cross-check (cloudwatch_check.h) */
    bool stream_mixed;          /* one side streamed a measurement the other measured unstreamed */
    size_t itl_token[2], itl_chunk[2]; /* per side: requests whose ITL was per token / chunk */
    struct conntime_summary conn[2];   /* per side: opening connections (conntime.h) */
    struct openloop_cmp open;          /* the open-loop runs (openloop_cmp.h) */
};

/* Starts the comparison of b and c (which must outlive m; so must o->slo): the
 * sides' names and the rows of the reference table, decode, levels, quiz,
 * latency and cost; comparison_build (comparison.h) adds the rest. Returns 0,
 * or CMP_ERR_NOMEM with err. */
__attribute__((warn_unused_result)) int cmp_start(struct cmp *m, const struct side *b,
                                                  const struct side *c, const struct cmp_opts *o,
                                                  struct buf *err);
/* Marks every measured value of m a side's client limited (climit.h) with why;
 * once every row is there. */
void cmp_mark_client(struct cmp *m);
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
