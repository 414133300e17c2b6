/* warnings: the report's warnings, in the order they were raised, each once.
 *
 * A warning is a mismatch or a limit that still allows the comparison (a
 * partial run, a failure rate, a sample too small for an interval); the report
 * prints them in its Warnings section. It is not an error carrier: errors are
 * a negative code and one line in the caller's struct buf (buf_fail). */
#ifndef SM_WARNINGS_H
#define SM_WARNINGS_H

#include <stdbool.h>
#include <stddef.h>

struct warnings {
    char **items; /* owned, one line each */
    size_t n;
    bool nomem; /* a warning was lost for want of memory */
};

void warnings_init(struct warnings *w);
void warnings_free(struct warnings *w);
/* Adds a warning (a repeated text is kept once); out of memory sets w->nomem. */
__attribute__((format(printf, 2, 3))) void warnings_add(struct warnings *w, const char *fmt, ...);
/* Adds from's warnings to w, in order. */
void warnings_merge(struct warnings *w, const struct warnings *from);

#endif
