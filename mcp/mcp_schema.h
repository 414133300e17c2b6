/* mcp_schema: the subset of JSON Schema (2020-12 semantics) that sm-mcp's
 * tool schemas use, checked when a tool is registered and applied to every
 * call's arguments (and to structured results when a tool declares an output
 * schema).
 *
 * A schema node is an object with "type" (one of object, string, integer,
 * number, boolean, array) and, by type:
 *   object   properties (name -> node), required (names of properties),
 *            additionalProperties (true or false; absent means true)
 *   string   enum, minLength, maxLength (in code points), contentMediaType
 *            (only "text/plain": text whose lines may break, see below)
 *   integer, number   enum, minimum, maximum
 *   array    items (a node), minItems, maxItems
 * plus the annotations description, title, default and examples, which
 * validation ignores. Any other keyword makes mcp_schema_check fail, so a
 * schema can never promise a check that is not made. Pure: no I/O. */
#ifndef MCP_SCHEMA_H
#define MCP_SCHEMA_H

#include <cjson/cJSON.h>

#include "buf.h"

/* Nesting limit of schema nodes (and so of the values they describe). */
#define MCP_SCHEMA_MAX_DEPTH 8

enum mcp_schema_status {
    MCP_SCHEMA_OK = 0,
    MCP_SCHEMA_ERR_SCHEMA = -1,  /* the schema leaves the subset (a bug in a tool) */
    MCP_SCHEMA_ERR_INVALID = -2, /* the value does not match the schema */
    MCP_SCHEMA_ERR_NOMEM = -3,
};

/* Checks that schema stays within the subset. Returns MCP_SCHEMA_OK or
 * MCP_SCHEMA_ERR_SCHEMA with one line (naming the node's path) in err. */
__attribute__((warn_unused_result)) int mcp_schema_check(const cJSON *schema, struct buf *err);

/* Validates value against a schema that passed mcp_schema_check. Beyond the
 * keywords, no string (a value, or the name of an object's member) may hold
 * NUL (as mcp_rpc_parse marks it) or another control character: C0
 * (U+0000-U+001F), DEL and C1 (U+0080-U+009F); a string whose node says
 * "contentMediaType": "text/plain" may hold tab, LF and CR. Returns
 * MCP_SCHEMA_OK, or MCP_SCHEMA_ERR_INVALID with one line for the first
 * mismatch in err, worded for the model that sent the arguments (e.g.
 * `missing required argument "name"`, `argument "count": expected an
 * integer, got a string`). */
__attribute__((warn_unused_result)) int mcp_schema_validate(const cJSON *schema, const cJSON *value,
                                                            struct buf *err);

/* The node of property name in an object schema, or NULL. */
const cJSON *mcp_schema_property(const cJSON *schema, const char *name);

#endif
