/* mcp_runs: the runs folder of sm-mcp (--runs-dir, default ./runs): the only
 * place run_benchmark writes and compare_results reads. A name inside it is
 * relative, made of components of A-Z a-z 0-9 . _ - (none "." or "..", none
 * starting with '-'), and is opened one component at a time without
 * following a link, so neither "../x", "/etc" nor a link planted on the way
 * leads out of the folder. */
#ifndef MCP_RUNS_H
#define MCP_RUNS_H

#include <stdbool.h>

#include "buf.h"

/* The longest name inside the runs folder, in bytes. */
#define MCP_RUNS_NAME_MAX 255

enum mcp_runs_error {
    MCP_RUNS_OK = 0,
    MCP_RUNS_ERR_NAME = -1,  /* not a name inside the folder (absolute, "..", bad characters) */
    MCP_RUNS_ERR_PLACE = -2, /* a link, not a folder, missing, or cannot be made */
    MCP_RUNS_ERR_NOMEM = -3,
};

/* Checks name (what is "arg", for the message) without touching the disk.
 * Returns 0, or MCP_RUNS_ERR_NAME with one line in err naming arg and why. */
__attribute__((warn_unused_result)) int mcp_runs_check(const char *arg, const char *name,
                                                       struct buf *err);

/* Checks name and walks it under dir without following links: with create,
 * the missing folders (dir itself, then each component) are made, and the
 * last component must be a folder or absent (then it is made); without, every
 * component must exist and the last be a folder or a regular file. *path gets
 * "dir/name". Returns 0, or MCP_RUNS_ERR_* with one line in err. */
__attribute__((warn_unused_result)) int mcp_runs_open(const char *dir, const char *arg,
                                                      const char *name, bool create,
                                                      struct buf *path, struct buf *err);

#endif
