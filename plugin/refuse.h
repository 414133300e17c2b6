/* refuse: when a run stops because an endpoint refuses everything. An endpoint
 * whose first refuse_after requests all failed (retries of a signing-time
 * refusal aside) stops the run, with a reason that names the first error and
 * what to check. Pure C. */
#ifndef SM_REFUSE_H
#define SM_REFUSE_H

#include <stdbool.h>
#include <stddef.h>

#include "record.h"

/* Whether counts (of the file endpoint's records go to) say the endpoint
 * refuses everything; then the one-line reason is in reason. */
bool refuse_check(const struct rec_counts *c, int refuse_after, const char *endpoint, char *reason,
                  size_t size);

/* What to check when every request fails with code, or NULL. */
const char *refuse_hint(const char *code);

#endif
