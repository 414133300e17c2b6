#include "pareto.h"

#include <math.h>
#include <string.h>

bool pareto_eligible(const struct pareto_item *it) {
    return !it->excluded && isfinite(it->usd);
}

/* Whether a dominates b: at most as costly and as slow, better in one. */
static bool pareto_dominates(const struct pareto_item *a, const struct pareto_item *b) {
    return a->usd <= b->usd && a->lat <= b->lat && (a->usd < b->usd || a->lat < b->lat);
}

static bool pareto_on_front(const struct pareto_item *it, size_t n, size_t i) {
    if (!pareto_eligible(&it[i]) || !isfinite(it[i].lat)) return false;
    for (size_t j = 0; j < n; j++)
        if (j != i && pareto_eligible(&it[j]) && isfinite(it[j].lat) &&
            pareto_dominates(&it[j], &it[i]))
            return false;
    return true;
}

/* Whether a is chosen before b: cheaper, or as cheap and faster. */
static bool pareto_before(const struct pareto_item *a, const struct pareto_item *b) {
    return a->usd < b->usd || (a->usd == b->usd && a->lat < b->lat);
}

void pareto_choose(const struct pareto_item *it, size_t n, struct pareto_result *r) {
    memset(r, 0, sizeof *r);
    r->best = -1;
    if (n > PARETO_MAX) n = PARETO_MAX;
    r->none = n ? PARETO_NONE_ALL_OUT : PARETO_NONE_EMPTY;
    for (size_t i = 0; i < n; i++) {
        r->front[i] = pareto_on_front(it, n, i);
        if (pareto_eligible(&it[i]) && (r->best < 0 || pareto_before(&it[i], &it[r->best])))
            r->best = (int)i;
    }
    if (r->best < 0) return;
    r->none = PARETO_NONE_FOUND;
    const struct pareto_item *b = &it[r->best];
    double hi = isfinite(b->usd_hi) ? b->usd_hi : b->usd;
    for (size_t i = 0; i < n; i++) {
        if ((int)i == r->best || !pareto_eligible(&it[i])) continue;
        double lo = isfinite(it[i].usd_lo) ? it[i].usd_lo : 0;
        /* the first rate that failed is not in the capacity's range: ends that touch
           do not overlap, unless the costs are equal */
        r->within[i] = lo < hi || it[i].usd == b->usd;
        r->nwithin += r->within[i];
    }
}
