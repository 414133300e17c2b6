#include "warmup.h"

#include <string.h>

#include "rfield.h"

bool warmup_is(const struct rfile *rf, const struct rfile_rec *r) {
    const char *phase = r->phase ? rfile_str(rf, r->phase) : NULL;
    return phase && strcmp(phase, RFIELD_PHASE_WARMUP) == 0;
}

size_t warmup_count(const struct rfile *rf) {
    size_t n = 0;
    for (size_t i = 0; i < rf->nrecs; i++) n += warmup_is(rf, &rf->recs[i]);
    return n;
}
