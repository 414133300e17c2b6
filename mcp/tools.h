/* tools: the table of the tools sm-mcp serves (see tools.c to add one). */
#ifndef SM_MCP_TOOLS_H
#define SM_MCP_TOOLS_H

#include "buf.h"
#include "mcp_server.h"

/* Registers every tool of the table with s, in table order; user goes to
 * every handler (the struct mcp_aws the AWS tools share). With user NULL (the
 * fuzz target's server) a tool that would reach AWS or run a program answers
 * with an isError result instead. Returns MCP_SERVER_OK or the first refusal
 * of mcp_server_add, with err naming the tool. */
__attribute__((warn_unused_result)) int tools_register(struct mcp_server *s, void *user,
                                                       struct buf *err);

/* The number of tools in the table. */
size_t tools_count(void);

#endif
