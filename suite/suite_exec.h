/* suite_exec: runs one program at a time with its output in pipes, copies the
 * output to files, hands each line to the caller, and turns Ctrl-C (SIGINT,
 * SIGTERM, SIGHUP to sm-suite) into a SIGINT for the program, so wrk ends its
 * run and writes its partial result files. A program never outlives sm-suite. */
#ifndef SM_SUITE_EXEC_H
#define SM_SUITE_EXEC_H

#include <stdbool.h>

#include "buf.h"

enum suite_exec_error {
    SUITE_EXEC_OK = 0,
    SUITE_EXEC_ERR_SYSTEM = -1, /* a system call failed: the message says which */
};

/* Where a program's output goes. */
struct suite_exec_io {
    int out_fd; /* a copy of its standard output (-1: none) */
    int err_fd; /* a copy of its standard error (-1: none) */
    void (*on_line)(void *ctx, const char *line, bool is_stderr); /* each line, without '\n' */
    void (*on_tick)(void *ctx); /* about once a second while it runs (may be NULL) */
    void *ctx;
    bool shielded; /* a stop is not passed on: it runs to its end (the clean-up after a stop) */
};

/* Installs the stop handlers and blocks those signals outside the waits. Call
 * once, first. Returns 0, or SUITE_EXEC_ERR_SYSTEM with a message in err. */
__attribute__((warn_unused_result)) int suite_exec_init(struct buf *err);

/* True once a stop was asked for (a signal still pending is taken now). */
bool suite_exec_stopping(void);

/* Runs argv (argv[0] searched in PATH) in a process group of its own, stdin
 * from /dev/null, until it exits; while a stop is asked for it gets SIGINT,
 * again every second until it ends. It gets SIGTERM from the kernel if
 * sm-suite dies first. *status: its exit status, 128 + the signal that killed
 * it, or 127 when it could not be started (the reason is one of its lines).
 * Returns 0, or SUITE_EXEC_ERR_SYSTEM (it could not be forked) with a message
 * in err. */
__attribute__((warn_unused_result)) int
suite_exec_run(char *const argv[], const struct suite_exec_io *io, int *status, struct buf *err);

#endif
