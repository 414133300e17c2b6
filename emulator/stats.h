/* stats: what the emulator received and sent, per endpoint and variant, for
 * GET /emulator/stats (tests prove with it that a client lost and invented
 * nothing). */
#ifndef EMU_STATS_H
#define EMU_STATS_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "fault.h"

#define STATS_STATUS_MAX 32

struct stats_counts {
    unsigned long requests; /* requests received */
    struct {
        int status;
        unsigned long n;
    } replies[STATS_STATUS_MAX]; /* complete replies sent, by status */
    size_t n_statuses;
    unsigned long prompt_tokens, completion_tokens; /* of complete 2xx replies */
    unsigned long faults[FAULT_KINDS];              /* faults injected, by kind */
    unsigned long dropped;   /* connections closed before the reply was complete */
    unsigned long in_flight; /* received, not yet answered */
};

/* Counts one reply with status. */
void stats_reply(struct stats_counts *c, int status);

/* The number of replies with status. */
unsigned long stats_replies(const struct stats_counts *c, int status);

/* Appends the counts as a JSON object without its closing brace, so a caller
 * can add members (e.g. "variants"). with_faults adds "faults". */
__attribute__((warn_unused_result)) int
stats_json_open(struct buf *out, const struct stats_counts *c, bool with_faults);

#endif
