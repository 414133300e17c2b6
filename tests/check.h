/* check: the few assertions the C unit tests share. A failed check prints
 * file:line and what differed, and the test goes on; check_exit() returns
 * the process exit code (1 when anything failed). */
#ifndef SM_CHECK_H
#define SM_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failed;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            check_failed++;                                                                        \
        }                                                                                          \
    } while (0)

#define CHECK_INT(got, want)                                                                       \
    do {                                                                                           \
        long long g_ = (long long)(got), w_ = (long long)(want);                                   \
        if (g_ != w_) {                                                                            \
            fprintf(stderr, "%s:%d: %s is %lld, want %lld\n", __FILE__, __LINE__, #got, g_, w_);   \
            check_failed++;                                                                        \
        }                                                                                          \
    } while (0)

#define CHECK_STR(got, want)                                                                       \
    do {                                                                                           \
        const char *g_ = (got), *w_ = (want);                                                      \
        if (!g_ || !w_ || strcmp(g_, w_) != 0) {                                                   \
            fprintf(stderr, "%s:%d: %s is\n[%s]\nwant\n[%s]\n", __FILE__, __LINE__, #got,          \
                    g_ ? g_ : "(null)", w_ ? w_ : "(null)");                                       \
            check_failed++;                                                                        \
        }                                                                                          \
    } while (0)

static inline int check_exit(void) {
    if (check_failed) fprintf(stderr, "%d check(s) failed\n", check_failed);
    return check_failed ? 1 : 0;
}

#endif
