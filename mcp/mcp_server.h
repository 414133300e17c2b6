/* mcp_server: an MCP server session over a pair of file descriptors (the
 * stdio transport), and the registry of the tools it serves.
 *
 * Protocol versions: 2025-11-25 (the current one), 2025-06-18, 2025-03-26 and
 * 2024-11-05. initialize answers with the client's version when it is one of
 * these, else with 2025-11-25. What differs by version:
 *   - tool "title", "outputSchema" and "structuredContent", serverInfo.title:
 *     2025-06-18 and later;
 *   - tool "annotations" and the progress "message": 2025-03-26 and later;
 *   - JSON-RPC batches (arrays): accepted in 2025-03-26 only (they were added
 *     there and removed in 2025-06-18); otherwise -32600;
 *   - arguments that fail the tool's input schema: an isError result in
 *     2025-11-25 (input validation errors are tool execution errors, so the
 *     model can correct itself), a -32602 error before.
 *
 * Lifecycle: before initialize only ping is answered; other requests get
 * -32600 ("not initialized"). notifications/initialized is noted but not
 * awaited (some clients never send it). Requests are handled one at a time in
 * arrival order; a tool call may read ahead for its cancellation (see
 * mcp_tool_cancelled). Malformed input never ends the session: a line that is
 * not JSON or longer than the cap gets -32700, a message of the wrong shape
 * -32600 (without an id when the id cannot be read). Notifications and
 * responses get no reply. The session ends at the end of the input.
 *
 * Errors from the server's own calls: 0 or a negative enum mcp_server_status,
 * with one line in the caller's err. */
#ifndef MCP_SERVER_H
#define MCP_SERVER_H

#include <stddef.h>
#include <stdio.h>

#include "buf.h"
#include "mcp_tool.h"

/* The newest protocol version the server speaks. */
#define MCP_SERVER_LATEST_VERSION "2025-11-25"

enum mcp_server_status {
    MCP_SERVER_OK = 0,
    MCP_SERVER_ERR_TOOL = -1,  /* a tool descriptor was refused (err says why) */
    MCP_SERVER_ERR_IO = -2,    /* reading the input or writing the output failed */
    MCP_SERVER_ERR_NOMEM = -3, /* out of memory */
};

/* Who the server is (serverInfo and instructions of the initialize result).
 * The strings are not copied: static data. */
struct mcp_server_info {
    const char *name;         /* e.g. "sm-mcp" */
    const char *title;        /* display name, or NULL */
    const char *version;      /* e.g. "0.1.0" */
    const char *instructions; /* how to use the server, for the model; or NULL */
};

struct mcp_server;

/* A server with no tools. Returns NULL when out of memory. */
struct mcp_server *mcp_server_new(const struct mcp_server_info *info);
void mcp_server_free(struct mcp_server *s);

/* Registers a tool (the descriptor is not copied: static data). user is
 * handed to its handler. Refuses, with MCP_SERVER_ERR_TOOL and the reason in
 * err: a bad or duplicate name, a missing description or handler, a schema
 * that is not JSON or leaves mcp_schema.h's subset, an input schema that is
 * not an object schema with "additionalProperties": false, contradictory
 * annotations, and a destructive tool whose input schema lacks a boolean
 * "confirm" property. */
__attribute__((warn_unused_result)) int
mcp_server_add(struct mcp_server *s, const struct mcp_tool *tool, void *user, struct buf *err);

/* Tools per tools/list page (0, the default: all in one page). */
void mcp_server_set_page_size(struct mcp_server *s, size_t n);
/* The longest message accepted, in bytes (0: MCP_RPC_MAX_LINE_DEFAULT). */
void mcp_server_set_max_line(struct mcp_server *s, size_t n);
/* Where to log one line per notable event (NULL, the default: nowhere).
 * Never stdout: it carries the protocol. */
void mcp_server_set_log(struct mcp_server *s, FILE *log);

/* Runs one session: reads messages from in_fd and writes replies to out_fd
 * (neither is closed) until the input ends. Returns MCP_SERVER_OK at the end
 * of the input, or MCP_SERVER_ERR_IO / MCP_SERVER_ERR_NOMEM with err set. A
 * server may run several sessions one after another; each starts
 * uninitialized. */
__attribute__((warn_unused_result)) int mcp_server_run(struct mcp_server *s, int in_fd, int out_fd,
                                                       struct buf *err);

#endif
