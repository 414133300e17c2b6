/* diag: the first error and the list of warnings of one sm-compare run.
 *
 * An error is one line naming the file and the problem (the program prints it
 * and exits 2); a warning is a mismatch that still allows the comparison and
 * is printed with the report. */
#ifndef SM_DIAG_H
#define SM_DIAG_H

#include <stddef.h>

struct diag {
    char error[1024]; /* the first error, "" while none */
    char **warnings;  /* owned, in the order they were raised, no repeats */
    size_t nwarnings;
};

void diag_init(struct diag *d);
void diag_free(struct diag *d);
/* Keeps the message unless an error is already set; always returns -1. */
__attribute__((format(printf, 2, 3))) int diag_error(struct diag *d, const char *fmt, ...);
/* Adds a warning (a repeated text is kept once); out of memory becomes the error. */
__attribute__((format(printf, 2, 3))) void diag_warn(struct diag *d, const char *fmt, ...);

/* Adds from's error (unless d has one) and warnings to d. */
void diag_merge(struct diag *d, const struct diag *from);

#endif
