/* mcp_rpc: JSON-RPC 2.0 over a byte stream, one message a line, as MCP's stdio
 * transport carries it (UTF-8, newline-delimited, no embedded newlines).
 *
 * Three parts, each usable alone:
 *  - a line reader over a file descriptor whose buffer never passes a cap: a
 *    longer line is reported (MCP_RPC_ERR_LONG) and its bytes are skipped up to
 *    the next newline, so a peer cannot make it grow without bound;
 *  - parsing and checking one message (JSON, UTF-8, the JSON-RPC 2.0 shape
 *    with MCP's rules: a request id is a string or an integer, never null;
 *    params, when present, an object);
 *  - writing results, errors and notifications, one line each with write(2)
 *    (nothing is buffered), or collecting responses into a batch reply.
 *
 * Nothing here knows MCP methods; mcp_server does. */
#ifndef MCP_RPC_H
#define MCP_RPC_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "buf.h"

/* The largest line (message) the reader accepts by default, in bytes. */
#define MCP_RPC_MAX_LINE_DEFAULT ((size_t)1 << 20)

/* JSON-RPC 2.0 error codes. */
enum mcp_rpc_code {
    MCP_RPC_PARSE_ERROR = -32700,
    MCP_RPC_INVALID_REQUEST = -32600,
    MCP_RPC_METHOD_NOT_FOUND = -32601,
    MCP_RPC_INVALID_PARAMS = -32602,
    MCP_RPC_INTERNAL_ERROR = -32603,
};

enum mcp_rpc_status {
    MCP_RPC_OK = 0,
    MCP_RPC_EOF = 1,          /* mcp_rpc_in_next: the input ended */
    MCP_RPC_ERR_LONG = -1,    /* a line passed the cap (it is being skipped) */
    MCP_RPC_ERR_IO = -2,      /* read or write failed (errno says why) */
    MCP_RPC_ERR_NOMEM = -3,   /* out of memory */
    MCP_RPC_ERR_PARSE = -4,   /* not JSON, not UTF-8, or text after the value */
    MCP_RPC_ERR_INVALID = -5, /* JSON, but not a JSON-RPC 2.0 message MCP accepts */
};

/* The line reader. Fields are private; the struct is public for embedding. */
struct mcp_rpc_in {
    int fd;
    struct buf data; /* bytes read and not yet consumed start at head */
    size_t head;     /* start of the unconsumed bytes */
    size_t taken;    /* length (with its newline) of the line last returned */
    size_t clean;    /* bytes from head known to hold no newline */
    size_t max_line; /* longest line accepted, without its newline */
    bool eof;        /* read() returned 0 */
    bool skipping;   /* inside an overlong line: dropping bytes up to a newline */
};

/* Starts a reader of fd (not owned: never closed here) accepting lines of at
 * most max_line bytes (0: MCP_RPC_MAX_LINE_DEFAULT). It holds at most about
 * max_line + 1 bytes. */
void mcp_rpc_in_init(struct mcp_rpc_in *in, int fd, size_t max_line);
void mcp_rpc_in_free(struct mcp_rpc_in *in);

/* Blocks until the next line. Returns MCP_RPC_OK with *line, *len (without the
 * newline; valid until the next call on the reader), MCP_RPC_EOF when the
 * input ended (a last line without a newline is returned first),
 * MCP_RPC_ERR_LONG once for each line longer than the cap (the reader then
 * drops it, as it arrives, up to its newline), or MCP_RPC_ERR_IO. */
__attribute__((warn_unused_result)) int mcp_rpc_in_next(struct mcp_rpc_in *in, const char **line,
                                                        size_t *len);

/* Reads what the input already holds without blocking (as much as fits under
 * the cap), so that mcp_rpc_in_peek can look ahead during a long call.
 * Returns MCP_RPC_OK (also when nothing was there) or MCP_RPC_ERR_IO. */
__attribute__((warn_unused_result)) int mcp_rpc_in_poll(struct mcp_rpc_in *in);

/* Iterates over the complete lines already read after the one last returned,
 * without consuming them. *cursor is the caller's position, 0 to start (stays
 * valid across mcp_rpc_in_poll, not across mcp_rpc_in_next). Returns true with
 * *line, *len, or false when no complete line is left. */
bool mcp_rpc_in_peek(const struct mcp_rpc_in *in, size_t *cursor, const char **line, size_t *len);

/* True once the input has ended (read() returned 0). */
bool mcp_rpc_in_eof(const struct mcp_rpc_in *in);

/* Parses one line into *out (the caller frees it with cJSON_Delete). A line
 * of white space only gives MCP_RPC_OK with *out NULL. A NUL inside a string
 * (\u0000) is kept as the bytes C0 80 (not valid UTF-8, so never mistaken for
 * text) instead of cutting the string there: mcp_schema refuses it. Returns
 * MCP_RPC_ERR_PARSE for anything that is not exactly one JSON value in valid
 * UTF-8, or MCP_RPC_ERR_NOMEM. */
__attribute__((warn_unused_result)) int mcp_rpc_parse(const char *line, size_t len, cJSON **out);

enum mcp_rpc_kind {
    MCP_RPC_REQUEST,      /* method and id: wants a response */
    MCP_RPC_NOTIFICATION, /* method, no id: gets no response */
    MCP_RPC_RESPONSE,     /* result or error and an id: a reply to us */
};

/* One checked message: pointers into the cJSON tree it came from. */
struct mcp_rpc_msg {
    enum mcp_rpc_kind kind;
    const cJSON *id;     /* a string or an integral number; NULL when absent or unreadable */
    const char *method;  /* requests and notifications */
    const cJSON *params; /* an object, or NULL when absent */
};

/* Checks that obj is a JSON-RPC 2.0 message MCP accepts and fills *msg.
 * Returns MCP_RPC_OK, or MCP_RPC_ERR_INVALID with *why (static text) and
 * msg->id set when the id could be read (the error reply carries it). */
__attribute__((warn_unused_result)) int mcp_rpc_check(const cJSON *obj, struct mcp_rpc_msg *msg,
                                                      const char **why);

/* True when id is a valid request id (a string or an integral number). */
bool mcp_rpc_id_ok(const cJSON *id);

/* The writer. While batch is set, responses are appended to it instead of
 * being written; notifications are always written at once. */
struct mcp_rpc_out {
    int fd;       /* not owned */
    cJSON *batch; /* an array collecting responses, or NULL */
};

/* Writes msg as one line (compact JSON and a newline) with write(2), retrying
 * short writes. Returns MCP_RPC_OK, MCP_RPC_ERR_IO or MCP_RPC_ERR_NOMEM. */
__attribute__((warn_unused_result)) int mcp_rpc_write(int fd, const cJSON *msg);

/* Sends {"jsonrpc":"2.0","id":id,"result":result}; takes result (freed even on
 * failure). id is copied. */
__attribute__((warn_unused_result)) int mcp_rpc_result(struct mcp_rpc_out *out, const cJSON *id,
                                                       cJSON *result);

/* Sends an error response; id NULL leaves out the id (MCP's error response for
 * a request whose id could not be read). data (may be NULL) is taken. */
__attribute__((warn_unused_result)) int mcp_rpc_error(struct mcp_rpc_out *out, const cJSON *id,
                                                      int code, const char *message, cJSON *data);

/* Sends a notification; params (may be NULL) is taken. */
__attribute__((warn_unused_result)) int mcp_rpc_notify(struct mcp_rpc_out *out, const char *method,
                                                       cJSON *params);

#endif
