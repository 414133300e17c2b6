/* mcp_proc: runs one program for a tool (sm-suite, sm-compare) with its
 * standard input from /dev/null and both outputs in pipes (never sm-mcp's
 * standard output, which carries the protocol), hands each output line to the
 * caller, and stops it with SIGINT (as Ctrl-C would) when the caller's cancel
 * hook says so; the kernel sends it SIGTERM if sm-mcp dies first. */
#ifndef MCP_PROC_H
#define MCP_PROC_H

#include <stdbool.h>

#include "buf.h"

struct mcp_proc_io {
    void (*on_line)(void *ud, const char *line, bool is_stderr); /* may be NULL */
    bool (*cancelled)(void *ud);                                 /* may be NULL */
    void *ud;
};

enum mcp_proc_error { MCP_PROC_OK = 0, MCP_PROC_ERR_SYSTEM = -1 };

/* Runs argv until it exits: *status its exit status (128 + a signal; 127 when
 * it could not be started), *cancelled whether it was stopped for the caller.
 * Returns 0, or MCP_PROC_ERR_SYSTEM with one line in err. */
__attribute__((warn_unused_result)) int mcp_proc_run(char *const argv[],
                                                     const struct mcp_proc_io *io, int *status,
                                                     bool *cancelled, struct buf *err);

#endif
