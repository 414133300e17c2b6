#include "fault.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "splitmix.h"

static const char *const fault_names[FAULT_KINDS] = {
    "throttle",     "unavailable", "internal",   "model_error",  "drop",
    "truncate",     "slow",        "lose",       "stream_error", "stream_failure",
    "stream_stall", "stream_crc",  "stream_cut",
};

const char *fault_name(int kind) {
    return kind >= 0 && kind < FAULT_KINDS ? fault_names[kind] : NULL;
}

int fault_lookup(const char *name) {
    for (int k = 0; k < FAULT_KINDS; k++)
        if (strcmp(name, fault_names[k]) == 0) return k;
    return FAULT_NONE;
}

int fault_parse_spec(const char *value, struct fault_spec *spec, struct buf *err) {
    char *end = NULL;
    if (strncmp(value, "every:", 6) == 0) {
        unsigned long n = strtoul(value + 6, &end, 10);
        if (end == value + 6 || *end || n == 0 || value[6] == '-') goto fail;
        *spec = (struct fault_spec){0, n};
        return FAULT_OK;
    }
    double rate = strtod(value, &end);
    if (end == value || *end || !(rate >= 0 && rate <= 1)) goto fail;
    *spec = (struct fault_spec){rate, 0};
    return FAULT_OK;
fail:
    return buf_fail(err, FAULT_ERR_INVALID,
                    "'%s' is not a fault rate (0 to 1) or 'every:N' (N >= 1)", value);
}

/* The first of the kinds [first, end) that fires for the n-th draw. */
static int fault_draw(const struct fault_spec specs[FAULT_KINDS], int first, int end, uint64_t *rng,
                      unsigned long n) {
    int picked = FAULT_NONE;
    for (int k = first; k < end; k++) {
        double u = splitmix_unit(rng);
        bool fires = specs[k].every ? n % specs[k].every == 0 : u < specs[k].rate;
        if (fires && picked == FAULT_NONE) picked = k;
    }
    return picked;
}

int fault_pick(const struct fault_spec specs[FAULT_KINDS], struct fault_state *st) {
    int early = fault_draw(specs, 0, FAULT_LATE_FIRST, &st->rng, ++st->requests);
    int late = fault_draw(specs, FAULT_LATE_FIRST, FAULT_STREAM_FIRST, &st->late_rng, st->requests);
    return early != FAULT_NONE ? early : late;
}

int fault_pick_stream(const struct fault_spec specs[FAULT_KINDS], struct fault_state *st) {
    return fault_draw(specs, FAULT_STREAM_FIRST, FAULT_KINDS, &st->stream_rng, ++st->streams);
}
