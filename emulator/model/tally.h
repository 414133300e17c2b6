/* tally: what the emulator received and sent, for the server, each endpoint and
 * each variant, written into GET /emulator/stats (tests prove with it that a
 * client lost and invented nothing). */
#ifndef EMU_TALLY_H
#define EMU_TALLY_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "fault.h"

#define TALLY_STATUS_MAX 32

struct tally {
    unsigned long requests; /* requests received */
    struct {
        int status;
        unsigned long n;
    } replies[TALLY_STATUS_MAX]; /* complete replies sent, by status */
    size_t n_statuses;
    unsigned long prompt_tokens, completion_tokens; /* of complete 2xx replies */
    unsigned long faults[FAULT_KINDS];              /* faults injected, by kind */
    unsigned long dropped;   /* connections closed before the reply was complete */
    unsigned long in_flight; /* received, not yet answered */
};

/* Counts one reply with status (past TALLY_STATUS_MAX statuses, with the last one). */
void tally_reply(struct tally *t, int status);

/* Adds more's counts to t (a variant's instances into one). */
void tally_add(struct tally *t, const struct tally *more);

/* The number of replies counted with status. */
unsigned long tally_replies(const struct tally *t, int status);

/* Appends the counts as a JSON object without its closing brace, so that a
 * caller can add members (e.g. "variants"). with_faults adds "faults".
 * Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int tally_json_open(struct buf *out, const struct tally *t,
                                                        bool with_faults);

#endif
