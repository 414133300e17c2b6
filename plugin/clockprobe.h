/* clockprobe: measures this host's clock against a server's before a run, by
 * sending it plain GET requests (no credentials, no body) on one keep-alive
 * connection and reading the Date header of each reply, at the times the plan
 * of clockoff.h picks. It stops when the offset is known to target_us, after
 * max_probes replies, or when budget_us of wall time is spent. As wrk does not,
 * it does not check the server's certificate: only the Date header is read.
 * libcurl; the wall clock is the process's. */
#ifndef SM_CLOCKPROBE_H
#define SM_CLOCKPROBE_H

#include <stdbool.h>

#include "buf.h"
#include "rfmt.h"

enum clockprobe_error {
    CLOCKPROBE_OK = 0,
    CLOCKPROBE_ERR_NOMEM = -1,
    CLOCKPROBE_ERR_NONE = -2, /* not measurable: err says why (no reply, no Date, a clock jump) */
};

/* Probes url (scheme, host, port and path); *out is the offset when it could be
 * measured. Returns 0, or an error with one line in err (out->have false). */
__attribute__((warn_unused_result)) int clockprobe_run(const char *url, long long budget_us,
                                                       long max_probes, long long target_us,
                                                       struct rfmt_clock *out, struct buf *err);

#endif
