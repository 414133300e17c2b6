/* cmp: the comparison of two sides, ready for any output format.
 *
 * Holds the rows of the reference table (and the decode, latency, cost and
 * quiz-kind rows that follow it), each with both values, the ratio candidate /
 * baseline and bootstrap 95% intervals where the data allow one; the quiz
 * comparison (identical answers, disagreements, McNemar's exact test) and a
 * short verdict. A value that cannot be given carries the reason instead.
 * Settings that make the sides incomparable are an error naming the files. */
#ifndef SM_CMP_H
#define SM_CMP_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "side.h"

enum row_group {
    ROW_MAIN,    /* the reference table */
    ROW_DECODE,  /* fixed cost, median walls, least squares */
    ROW_LATENCY, /* per level p50/p90/p99 */
    ROW_COST,    /* per level, with --price-per-hour */
    ROW_KIND,    /* quiz correct per kind */
};

struct ci {
    bool ok;
    double lo, hi;
    long resamples; /* how many resamples it rests on */
};

struct row {
    char name[64];
    enum row_group group;
    struct val b, c, ratio;
    bool no_ratio;         /* the reference gives no ratio for this row */
    int decimals;          /* rounding of the values; -1: as read */
    int load_c;            /* a load_cN_tokens_per_second row's N; 0 for other rows */
    long b_total, c_total; /* > 0: the values count out of these */
    struct ci ci_b, ci_c, ci_r;
};

struct disagreement {
    const char *id, *expected;       /* expected may be NULL */
    const struct quiz_item *bi, *ci; /* NULL where a side has no such question */
    const char *right;               /* "baseline", "candidate", "both", "neither" or "unknown" */
};

struct cmp_opts {
    uint64_t seed;  /* of the bootstrap */
    long resamples; /* per interval (fewer for very large samples) */
    bool have_price;
    double price; /* USD per hour */
};

struct cmp {
    const struct side *b, *c;
    char bname[160], cname[160]; /* distinct names of the two sides */
    struct cmp_opts opts;
    struct row *rows;
    size_t nrows;
    bool have_quiz;     /* both sides have a quiz */
    char quiz_why[200]; /* else why not */
    long identical, qtotal;
    struct disagreement *dis;
    size_t ndis;
    bool have_mcnemar;
    unsigned mc_b, mc_c; /* questions only the baseline / only the candidate got right */
    double mc_p;
    char mc_text[700];    /* the test's result and what the quiz can show, or why none */
    char scale_note[400]; /* "" when both sides ran in real time */
    char verdict[1500];
};

/* Compares b and c (which must outlive m); bad input goes to d. */
__attribute__((warn_unused_result)) int cmp_build(struct cmp *m, const struct side *b,
                                                  const struct side *c, const struct cmp_opts *o,
                                                  struct diag *d);
void cmp_free(struct cmp *m);
/* v rounded to the row's decimals (unchanged when decimals < 0). */
double cmp_round(double v, int decimals);
/* The row with this name, or NULL. */
const struct row *cmp_row(const struct cmp *m, const char *name);

#endif
