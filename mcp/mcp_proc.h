/* mcp_proc: runs one program for a tool (sm-suite, sm-compare) with its
 * standard input from /dev/null and both outputs in pipes (never sm-mcp's
 * standard output, which carries the protocol), and hands each output line to
 * the caller. The program leads a new process group, and sm-mcp is the
 * subreaper of whatever it starts, so nothing it starts (wrk in its own group
 * included) can slip away: when the caller's stop hook says so, every
 * descendant gets SIGTERM, then SIGKILL after MCP_PROC_GRACE_S, and
 * mcp_proc_run returns only once none is left; the same sweep ends whatever
 * the program left behind when it exits. The kernel sends the program
 * SIGTERM if sm-mcp dies first; SIGTERM, SIGINT or SIGHUP to sm-mcp stop the
 * tree as the stop hook does, then end sm-mcp by that signal
 * (mcp_proc_catch_signals). */
#ifndef MCP_PROC_H
#define MCP_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "buf.h"

/* Seconds between the SIGTERM of a stop and the SIGKILL of what is left. */
#define MCP_PROC_GRACE_S 1.0

struct mcp_proc_io {
    void (*on_line)(void *ud, const char *line, bool is_stderr); /* may be NULL */
    bool (*stop)(void *ud); /* may be NULL: true stops the program and its descendants */
    void *ud;
};

enum mcp_proc_error { MCP_PROC_OK = 0, MCP_PROC_ERR_SYSTEM = -1 };

/* Runs argv until it and every process it started have ended: *status its
 * exit status (128 + a signal; 127 when it could not be started), *stopped
 * whether the stop hook stopped it. Returns 0, or MCP_PROC_ERR_SYSTEM with one
 * line in err. */
__attribute__((warn_unused_result)) int mcp_proc_run(char *const argv[],
                                                     const struct mcp_proc_io *io, int *status,
                                                     bool *stopped, struct buf *err);

/* Installs the handlers of SIGTERM, SIGINT and SIGHUP: during mcp_proc_run they
 * stop the program and its descendants, which are waited for before the
 * process ends by the signal; at any other time the signal acts at once. */
void mcp_proc_catch_signals(void);

/* The descendants of root among n processes given as {pid, ppid} pairs:
 * written to out (at most max), their count returned. Pure. */
size_t mcp_proc_descendants(const pid_t (*procs)[2], size_t n, pid_t root, pid_t *out, size_t max);

#endif
