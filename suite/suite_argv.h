/* suite_argv: a growable list of owned strings (a command's words) and the
 * shell quoting that prints a command so it can be pasted back into sh. */
#ifndef SM_SUITE_ARGV_H
#define SM_SUITE_ARGV_H

#include <stddef.h>

#include "buf.h"

/* The one way a list fails: out of memory (the list is unchanged). */
enum suite_argv_error {
    SUITE_ARGV_OK = 0,
    SUITE_ARGV_ERR_NOMEM = -1,
};

struct suite_argv {
    char **v; /* n owned strings and a NULL, ready for execvp; NULL while empty */
    size_t n;
    size_t cap;
};

/* Starts an empty list. */
void suite_argv_init(struct suite_argv *a);
/* Frees every word; the list may be used again after suite_argv_init. */
void suite_argv_free(struct suite_argv *a);
/* Appends a copy of s. Returns 0 or SUITE_ARGV_ERR_NOMEM. */
__attribute__((warn_unused_result)) int suite_argv_add(struct suite_argv *a, const char *s);
/* Appends a formatted word. Returns 0 or SUITE_ARGV_ERR_NOMEM. */
__attribute__((warn_unused_result, format(printf, 2, 3))) int suite_argv_addf(struct suite_argv *a,
                                                                              const char *fmt, ...);
/* Appends copies of n words. Returns 0 or SUITE_ARGV_ERR_NOMEM. */
__attribute__((warn_unused_result)) int suite_argv_addv(struct suite_argv *a, char *const *words,
                                                        size_t n);

/* Appends s to out as one sh word: as it is when it holds only safe characters,
 * else in single quotes ('\'' for a quote). Returns BUF_OK or a BUF_ERR_*. */
__attribute__((warn_unused_result)) int suite_argv_quote(struct buf *out, const char *s);
/* Appends the words of a, quoted, separated by spaces. Returns BUF_OK or a BUF_ERR_*. */
__attribute__((warn_unused_result)) int suite_argv_quote_all(struct buf *out,
                                                             const struct suite_argv *a);

#endif
