/* sigcreds: the credentials one client thread signs with, refreshed from the
 * run's credential cache (run.h) at most once a second, with a generation that
 * changes when they do, so that a prepared request (sreq.h) is signed again
 * only when its second or its credentials changed. Not thread-safe: one per
 * client thread. */
#ifndef SM_SIGCREDS_H
#define SM_SIGCREDS_H

#include <stddef.h>
#include <time.h>

#include "buf.h"
#include "creds.h"
#include "sreq.h"

struct sigcreds {
    struct creds creds; /* the current ones */
    time_t at;          /* the second they were fetched for */
    unsigned long gen;  /* changes with them */
};

/* Wipes the credentials; the struct may be used again. */
void sigcreds_clear(struct sigcreds *s);

/* r signed for the run's signing time with the current credentials: *raw
 * (owned by r, valid until r is signed again) and *len. Returns 0, or -1 with a
 * one-line err (no credentials, or the signer refused). */
__attribute__((warn_unused_result)) int
sigcreds_sign(struct sigcreds *s, struct sreq *r, const char **raw, size_t *len, struct buf *err);

#endif
