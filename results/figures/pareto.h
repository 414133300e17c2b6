/* pareto: the N-way choice among candidates (sm-compare --candidates): the Pareto
 * front of cost per million tokens against latency at the SLO, and the
 * recommendation, the cheapest candidate at capacity that met the SLO, with the
 * others that its cost's range cannot tell apart from it.
 *
 * A candidate is on the front when no other candidate is at most as costly and at
 * most as slow, and better in one of the two (equal candidates are both on it).
 * The cost's range is the capacity's bracket read as cost (the last rate that held
 * and the first that failed): the probes' resolution, not a confidence interval; a
 * candidate is within it when its own range overlaps the recommended one's (ends that
 * only touch do not: a capacity lies below its first failed rate), or its cost is
 * the same. A
 * candidate left out (its search failed, it had errors, it has no price) is never
 * on the front nor recommended; the caller says why next to it.
 *
 * Pure: numbers in, flags out. */
#ifndef SM_PARETO_H
#define SM_PARETO_H

#include <stdbool.h>
#include <stddef.h>

#define PARETO_MAX 16 /* candidates */

/* One candidate's figures (NAN: not known). */
struct pareto_item {
    bool excluded; /* left out of the choice (the caller keeps why) */
    double usd;    /* USD per million tokens at capacity */
    double usd_lo; /* the range's ends: NAN when unbounded that way (every rate held: */
    double usd_hi; /* the capacity is a lower bound, so the cost an upper one) */
    double lat;    /* seconds at the SLO's percentile at capacity */
};

/* What pareto_choose found. */
enum pareto_none {
    PARETO_NONE_FOUND,   /* best is set */
    PARETO_NONE_EMPTY,   /* no candidate */
    PARETO_NONE_ALL_OUT, /* every candidate was left out or has no cost */
};

struct pareto_result {
    bool front[PARETO_MAX];  /* on the front */
    int best;                /* the recommended candidate, or -1 */
    enum pareto_none none;   /* why best is -1 */
    bool within[PARETO_MAX]; /* others whose cost range overlaps best's */
    size_t nwithin;
};

/* Whether item i takes part: not excluded, with a finite cost. */
bool pareto_eligible(const struct pareto_item *it);

/* The front, the recommendation and the candidates within its range, of the n
 * (at most PARETO_MAX; more are ignored) items. A tie on cost goes to the faster (a
 * latency NAN is never faster), a tie on both to the first. */
void pareto_choose(const struct pareto_item *it, size_t n, struct pareto_result *r);

#endif
