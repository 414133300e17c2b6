/* wrkargs: wrk 4.1.0's command line read the way wrk reads it (GNU getopt_long
 * with wrk's options, its units and defaults), so a script can learn what wrk
 * does not tell it: threads, connections, duration and timeout. The script's
 * own arguments are the words after the URL (wrk passes them to init() too).
 *
 * Pure C; the caller owns argv, and the results point into it. */
#ifndef SM_WRKARGS_H
#define SM_WRKARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

enum wrkargs_error {
    WRKARGS_OK = 0,
    WRKARGS_ERR_NOMEM = -1,
    WRKARGS_ERR_USAGE = -2, /* wrk itself would print its usage and exit */
};

struct wrkargs {
    unsigned long long threads;     /* -t, default 2 */
    unsigned long long connections; /* -c, default 10 */
    unsigned long long duration_s;  /* -d, default 10 */
    unsigned long long timeout_ms;  /* --timeout, default 2000 */
    bool threads_set, connections_set, duration_set, timeout_set;
    const char *script; /* -s, or NULL */
    const char *url;    /* the first word that is not an option */
    const char **args;  /* malloc'ed: the words after the URL */
    size_t n_args;
    char *data, **argv; /* wrkargs_read's: what the strings point into */
};

/* Parses argv[1..argc) into out (freed with wrkargs_free, also after an error).
 * On WRKARGS_ERR_USAGE err holds one line (control characters shown as '?'). */
__attribute__((warn_unused_result)) int wrkargs_parse(int argc, char *const *argv,
                                                      struct wrkargs *out, struct buf *err);
void wrkargs_free(struct wrkargs *a);

/* Reads and parses a command line in the format of /proc/self/cmdline from the
 * file at path into out (freed with wrkargs_free, which frees the text too). */
__attribute__((warn_unused_result)) int wrkargs_read(const char *path, struct wrkargs *out,
                                                     struct buf *err);

/* Splits a NUL-separated command line (the format of /proc/self/cmdline) of len
 * bytes into *argv_out (malloc'ed, pointing into data, NULL-terminated). */
__attribute__((warn_unused_result)) int wrkargs_split(char *data, size_t len, char ***argv_out,
                                                      int *argc_out);

#endif
