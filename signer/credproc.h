/* credproc: runs a credential_process command and collects what it prints. */
#ifndef SM_CREDPROC_H
#define SM_CREDPROC_H

#include "buf.h"

enum credproc_error {
    CREDPROC_OK = 0,
    CREDPROC_ERR_NOMEM = -1,
    CREDPROC_ERR_RUN = -2,    /* could not start, exited non-zero, killed, timed out */
    CREDPROC_ERR_OUTPUT = -3, /* printed more than out's cap, or reading failed */
};

/* Appends how a message names command: "credential_process (program 'NAME')",
 * the file name of its program alone, since the rest of a command line
 * (arguments, environment assignments) may hold a secret. Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int credproc_name(const char *command, struct buf *out);

/* Runs command with /bin/sh -c in its own process group, standard input from
 * /dev/null and standard error discarded (it may print secrets), and appends
 * its standard output to out (at most out's cap) until the pipe's end, or until
 * the command exited and its output is one whole JSON value (a child it left in
 * the background may hold the pipe open). After timeout_ms the group is killed.
 * On error err holds one line naming the program (credproc_name) and what went
 * wrong; what the command printed is never put in err. */
__attribute__((warn_unused_result)) int credproc_run(const char *command, int timeout_ms,
                                                     struct buf *out, struct buf *err);

#endif
