/* suite_search: the capacity search of one side (sm-suite --capacity-search
 * LO:HI), pure: the rate of each probe from the verdicts of those before it,
 * which the caller measures and judges (sm-compare --slo on the probe's result
 * file: the SLO logic lives in results/ only).
 *
 * Probe 1 is LO: when it fails, the capacity is below LO and the search ends.
 * Probe 2 is HI: when it holds, the capacity is at least HI and the search
 * ends. Then each probe is the geometric middle of the bracket [the highest
 * rate that held, the lowest that failed], rounded to 4 significant digits,
 * until the probes are spent or the bracket is within the tolerance (failed /
 * held - 1 <= tol). The middle is geometric because the bracket is asked as a
 * relative width and LO:HI may span orders of magnitude; a probe is never
 * outside the bracket, so every rate that held is below every rate that
 * failed, and sm-compare reads the capacity from the same bracketing pair. */
#ifndef SM_SUITE_SEARCH_H
#define SM_SUITE_SEARCH_H

#include <stdbool.h>

#include "buf.h"

#define SUITE_SEARCH_MAX_PROBES     20   /* --search-probes at most */
#define SUITE_SEARCH_DEFAULT_PROBES 6    /* per side */
#define SUITE_SEARCH_TOLERANCE      0.02 /* the bracket's relative width that ends a search */

enum suite_search_error {
    SUITE_SEARCH_OK = 0,
    SUITE_SEARCH_ERR_USAGE = -1, /* a bad range or number of probes */
};

/* How a search stands. */
enum suite_search_end {
    SUITE_SEARCH_RUNNING,
    SUITE_SEARCH_BELOW,  /* LO failed: the capacity is below LO */
    SUITE_SEARCH_ABOVE,  /* HI held: the capacity is at least HI */
    SUITE_SEARCH_NARROW, /* the bracket is within the tolerance (or its rounding) */
    SUITE_SEARCH_SPENT,  /* every probe used; the bracket is what it is */
};

struct suite_search {
    double lo, hi;       /* the range asked */
    double tol;          /* the bracket's relative width that ends the search */
    int max_probes;      /* probes at most (>= 2) */
    int probes;          /* recorded so far */
    double held, failed; /* the bracket: the highest rate that held, the lowest that
                            failed (NAN: none yet) */
    enum suite_search_end end;
};

/* Starts a search of lo:hi (0 < lo < hi) in at most max_probes probes (2 to
 * SUITE_SEARCH_MAX_PROBES) to the relative tolerance tol (> 0). Returns 0, or
 * SUITE_SEARCH_ERR_USAGE with one line in err. */
__attribute__((warn_unused_result)) int suite_search_init(struct suite_search *s, double lo,
                                                          double hi, int max_probes, double tol,
                                                          struct buf *err);
/* Reads "LO:HI" (two numbers, 0 < LO < HI). Returns 0, or SUITE_SEARCH_ERR_USAGE
 * with one line in err naming arg. */
__attribute__((warn_unused_result)) int suite_search_parse_range(const char *arg, double *lo,
                                                                 double *hi, struct buf *err);
/* The rate of the next probe into *rate; false when the search has ended. */
bool suite_search_next(const struct suite_search *s, double *rate);
/* Records the verdict of the probe at rate (the one suite_search_next gave). */
void suite_search_record(struct suite_search *s, double rate, bool held);

/* A probe: measures rate (probe k, from 1) and says whether the SLOs held;
 * returns 0, or a negative code that stops the search. */
typedef int suite_search_probe_fn(void *ctx, int k, double rate, bool *held);
/* Runs the whole search with probe. Returns 0, or probe's negative code. */
__attribute__((warn_unused_result)) int suite_search_run(struct suite_search *s,
                                                         suite_search_probe_fn *probe, void *ctx);

/* "below 2", "at least 8", "between 4.5 and 4.6", for a message. */
void suite_search_text(const struct suite_search *s, char *out, size_t cap);

#endif
