/* mcp_tool: what an MCP tool is and what its handler sees. A tool author
 * includes this header only.
 *
 * Adding a tool to sm-mcp
 * -----------------------
 * 1. Write tool_<name>.c with the handler and the descriptor, next to each
 *    other:
 *
 *        static int tool_get_endpoint_status_call(const cJSON *args,
 *                                                 struct mcp_tool_call *call, void *user) {
 *            const char *name = cJSON_GetObjectItem(args, "endpoint_name")->valuestring;
 *            ...                                   // long waits: see below
 *            if (failed) return mcp_tool_fail(call, "endpoint %s: %s", name, why);
 *            return mcp_tool_text(call, "endpoint %s is InService", name);
 *        }
 *        const struct mcp_tool tool_get_endpoint_status = {
 *            .name = "get_endpoint_status",
 *            .title = "Endpoint status",
 *            .description = "...",
 *            .input_schema = "{\"type\":\"object\",\"properties\":{...},"
 *                            "\"required\":[\"endpoint_name\"],\"additionalProperties\":false}",
 *            .annotations = {.read_only = MCP_TOOL_HINT_YES, .open_world = MCP_TOOL_HINT_YES},
 *            .call = tool_get_endpoint_status_call,
 *        };
 *
 *    Every name of the file starts with its basename, tool_<name>_
 *    (tests/layout/test_names.py).
 *
 *    A tool that is not read-only (it creates, changes, deletes or spends:
 *    deploys, benchmarks) also declares a boolean "confirm" property and a
 *    .preview handler that says what the call would do without doing it.
 *
 * 2. Add one line to the table in tools.c and the file to CMakeLists.txt.
 *
 * What the server guarantees the handler
 * --------------------------------------
 *  - args is an object that passed input_schema (mcp_schema.h: types,
 *    required, enum, limits, additionalProperties): required arguments are
 *    there with the declared types; optional ones may be absent.
 *  - Every string in args (values, and the names of object members) holds
 *    no NUL and no control character (C0, DEL, C1: U+0000-U+001F,
 *    U+007F-U+009F); a string whose schema node says "contentMediaType":
 *    "text/plain" may also hold TAB, LF and CR (a prompt).
 *  - A tool that is not read-only (read_only != MCP_TOOL_HINT_YES: it creates,
 *    changes, deletes or spends) is called only with "confirm": true in args,
 *    whatever its destructive hint. Its input_schema must declare a boolean
 *    "confirm" property and it must have a preview handler, or registration
 *    fails. A call without confirm: true runs the preview instead (which
 *    adds text saying what the call would do, and must do nothing) and gets
 *    an isError result with that text telling the model to ask the user
 *    first; the handler is not run. A preview that fails (mcp_tool_fail: bad
 *    arguments, no region) gives its own error.
 *  - Calls run one at a time on the server's thread; the handler may block.
 *
 * What the handler does
 * ---------------------
 *  - Adds text blocks (mcp_tool_text) and/or one structured object
 *    (mcp_tool_structured), then returns MCP_TOOL_OK; or returns
 *    mcp_tool_fail(...) for a tool execution error (AWS refused, endpoint
 *    missing, bad value the schema could not catch): the model sees the text
 *    with isError and can correct itself.
 *  - During a long operation, reports progress (mcp_tool_progress: sent only
 *    when the client asked for it) and checks mcp_tool_cancelled() between
 *    steps; when it is true, stops and returns MCP_TOOL_CANCELLED (no reply is
 *    sent, as MCP asks).
 *  - Writes nothing to stdout (it carries the protocol); diagnostics go to
 *    stderr. */
#ifndef MCP_TOOL_H
#define MCP_TOOL_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* A behaviour hint; DEFAULT takes MCP's default for that hint. */
enum mcp_tool_hint { MCP_TOOL_HINT_DEFAULT = 0, MCP_TOOL_HINT_NO, MCP_TOOL_HINT_YES };

/* MCP's tool annotations (hints to the client; sm-mcp also enforces the
 * confirmation of every tool that is not read-only). Defaults: read_only no, destructive
 * yes (meaningful only when not read-only), idempotent no, open_world yes. */
struct mcp_tool_annotations {
    enum mcp_tool_hint read_only;   /* changes nothing */
    enum mcp_tool_hint destructive; /* may delete or overwrite (not only add) */
    enum mcp_tool_hint idempotent;  /* the same call repeated changes nothing more */
    enum mcp_tool_hint open_world;  /* talks to the outside world (AWS), not a closed domain */
};

/* The call in progress. Its fields belong to the server (which fills them
 * through the hooks); handlers use only the functions below. */
struct mcp_tool_call {
    cJSON *content;                      /* array of content blocks added so far */
    cJSON *structured;                   /* the structured result, or NULL */
    const char *version;                 /* negotiated protocol version */
    bool progress_message;               /* the version carries a progress message */
    const cJSON *progress_token;         /* the request's _meta.progressToken, or NULL */
    bool progressed;                     /* a progress notification was sent */
    double last_progress;                /* the last progress value sent */
    const struct mcp_tool *const *tools; /* the server's tools */
    size_t ntools;
    /* Sends a notification (takes params); returns 0 or negative. */
    int (*notify)(void *io, const char *method, cJSON *params);
    /* Says whether the client cancelled the request. */
    bool (*cancelled)(void *io);
    /* Says whether the server's input has ended (the client left). */
    bool (*input_ended)(void *io);
    void *io; /* the hooks' argument */
};

/* Status a handler returns (the mcp_tool_* helpers return these too). */
enum mcp_tool_status {
    MCP_TOOL_OK = 0,         /* success: the content added is the result */
    MCP_TOOL_FAILED = -1,    /* a tool execution error: isError result (mcp_tool_fail) */
    MCP_TOOL_CANCELLED = -2, /* the client cancelled: no response is sent */
    MCP_TOOL_INTERNAL = -3,  /* a bug or out of memory: JSON-RPC internal error (-32603) */
};

/* The handler: args (never NULL) is the validated arguments object, owned by
 * the server; user is the pointer given with the tool at registration. */
typedef int mcp_tool_fn(const cJSON *args, struct mcp_tool_call *call, void *user);

/* A tool. Descriptors are static data and must outlive the server. */
struct mcp_tool {
    const char *name;          /* 1-128 of A-Z a-z 0-9 _ - . ; unique in the server */
    const char *title;         /* short display name (MCP 2025-06-18+; also annotations.title) */
    const char *description;   /* what it does and when to use it, for the model */
    const char *input_schema;  /* JSON text: an object schema in mcp_schema.h's subset with
                                  "additionalProperties": false */
    const char *output_schema; /* JSON text or NULL: when set, every successful call must add a
                                  structured object that matches it */
    struct mcp_tool_annotations annotations;
    mcp_tool_fn *call;
    /* Required when not read-only: adds one text block saying what call
     * would do with args ("it would create ..."), doing nothing; or fails. */
    mcp_tool_fn *preview;
};

/* True when t is destructive: not read-only, and not declared non-destructive
 * (MCP's defaults): its destructiveHint. */
bool mcp_tool_destructive(const struct mcp_tool *t);

/* True when t needs "confirm": true: it is not read-only (it creates,
 * changes, deletes or spends). */
bool mcp_tool_needs_confirm(const struct mcp_tool *t);

/* Appends a text content block (printf-style). Returns MCP_TOOL_OK or
 * MCP_TOOL_INTERNAL (out of memory), so `return mcp_tool_text(...)` works. */
__attribute__((warn_unused_result, format(printf, 2, 3))) int
mcp_tool_text(struct mcp_tool_call *call, const char *fmt, ...);

/* Appends text[0..len) as a text content block. */
__attribute__((warn_unused_result)) int mcp_tool_text_n(struct mcp_tool_call *call,
                                                        const char *text, size_t len);

/* Sets the structured result (a JSON object; replaces an earlier one); takes
 * obj, even on failure. Sent as structuredContent to clients of MCP
 * 2025-06-18 and later; when the handler adds no text, its JSON text is added
 * as the text block older clients read. Returns MCP_TOOL_OK or
 * MCP_TOOL_INTERNAL (obj not an object, out of memory). */
__attribute__((warn_unused_result)) int mcp_tool_structured(struct mcp_tool_call *call, cJSON *obj);

/* Replaces the content with one text block (printf-style) and returns
 * MCP_TOOL_FAILED: `return mcp_tool_fail(call, "...")`. */
__attribute__((warn_unused_result, format(printf, 2, 3))) int
mcp_tool_fail(struct mcp_tool_call *call, const char *fmt, ...);

/* Sends notifications/progress when the request carried a progressToken;
 * otherwise does nothing. progress must grow from call to call (a value not
 * above the last one sent is dropped); total < 0 means unknown; message may be
 * NULL (it is left out for MCP 2024-11-05 clients); a progress that is not
 * finite is dropped. Returns MCP_TOOL_OK, or
 * MCP_TOOL_INTERNAL when the notification could not be written. */
__attribute__((warn_unused_result)) int
mcp_tool_progress(struct mcp_tool_call *call, double progress, double total, const char *message);

/* True when the client has cancelled this request (notifications/cancelled).
 * Reads pending input without blocking; cheap enough to call between steps of
 * a wait loop. (Closing the input is not a cancellation: `printf ... | sm-mcp`
 * still gets its replies.) */
bool mcp_tool_cancelled(struct mcp_tool_call *call);

/* True when the server's input has ended (the client closed it, or left).
 * Reads pending input without blocking. A tool that runs programs stops them
 * then (mcp_aws_program does), so that none goes on without a client; other
 * tools finish and reply. */
bool mcp_tool_input_ended(struct mcp_tool_call *call);

/* The protocol version negotiated for the session, e.g. "2025-11-25". */
const char *mcp_tool_version(const struct mcp_tool_call *call);

/* The tools the server offers, in registration order: for get_help. */
size_t mcp_tool_count(const struct mcp_tool_call *call);
const struct mcp_tool *mcp_tool_at(const struct mcp_tool_call *call, size_t i);

/* For the server: starts a call (content empty, no structured result, the
 * other fields zero for the server to fill). Returns MCP_TOOL_OK or
 * MCP_TOOL_INTERNAL. */
__attribute__((warn_unused_result)) int mcp_tool_call_init(struct mcp_tool_call *call);
/* For the server: frees what the call holds. */
void mcp_tool_call_free(struct mcp_tool_call *call);

#endif
