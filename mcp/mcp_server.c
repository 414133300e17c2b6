#include "mcp_server.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mcp_rpc.h"
#include "mcp_schema.h"

/* The protocol versions, oldest first: comparisons read as "this version or later". */
enum mcp_server_version {
    MCP_SERVER_V2024_11_05,
    MCP_SERVER_V2025_03_26,
    MCP_SERVER_V2025_06_18,
    MCP_SERVER_V2025_11_25,
    MCP_SERVER_V_COUNT,
    MCP_SERVER_V_NONE = -1
};

static const char *const version_names[MCP_SERVER_V_COUNT] = {
    "2024-11-05", "2025-03-26", "2025-06-18", MCP_SERVER_LATEST_VERSION};

/* A registered tool with its parsed schemas. */
struct mcp_server_entry {
    const struct mcp_tool *tool;
    void *user;
    cJSON *input;     /* the input schema */
    cJSON *output;    /* the output schema, or NULL */
    bool destructive; /* resolved from the annotations: its destructiveHint */
    bool confirm;     /* not read-only: runs only with "confirm": true */
};

struct mcp_server {
    struct mcp_server_info info;
    struct mcp_server_entry *tools;
    const struct mcp_tool **list; /* the descriptors, for handlers (mcp_tool_at) */
    size_t ntools;
    size_t page_size; /* 0: one page */
    size_t max_line;
    FILE *log;
    /* The session. */
    int version;       /* enum version, V_NONE before initialize */
    bool client_ready; /* notifications/initialized arrived (or its absence was logged) */
    bool out_failed;   /* a write failed: the session ends */
    struct mcp_rpc_in in;
    struct mcp_rpc_out out;
    /* The call in progress. */
    const cJSON *call_id;
    bool call_cancelled;
    size_t peek; /* how far mcp_rpc_in_peek has looked for its cancellation */
};

__attribute__((format(printf, 2, 3))) static void mcp_server_log(struct mcp_server *s,
                                                                 const char *fmt, ...) {
    if (!s->log) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(s->log, "%s: ", s->info.name);
    vfprintf(s->log, fmt, ap);
    fputc('\n', s->log);
    fflush(s->log);
    va_end(ap);
}

struct mcp_server *mcp_server_new(const struct mcp_server_info *info) {
    struct mcp_server *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->info = *info;
    s->version = MCP_SERVER_V_NONE;
    return s;
}

void mcp_server_free(struct mcp_server *s) {
    if (!s) return;
    for (size_t i = 0; i < s->ntools; i++) {
        cJSON_Delete(s->tools[i].input);
        cJSON_Delete(s->tools[i].output);
    }
    free(s->tools);
    free(s->list);
    free(s);
}

void mcp_server_set_page_size(struct mcp_server *s, size_t n) {
    s->page_size = n;
}

void mcp_server_set_max_line(struct mcp_server *s, size_t n) {
    s->max_line = n;
}

void mcp_server_set_log(struct mcp_server *s, FILE *log) {
    s->log = log;
}

/* ---- the registry ---- */

__attribute__((format(printf, 3, 4))) static int
mcp_server_refuse(struct buf *err, const char *name, const char *fmt, ...) {
    buf_reset(err);
    int rc = buf_addf(err, "tool %s: ", name ? name : "(no name)");
    va_list ap;
    va_start(ap, fmt);
    if (!rc) rc = buf_vaddf(err, fmt, ap);
    va_end(ap);
    return rc ? MCP_SERVER_ERR_NOMEM : MCP_SERVER_ERR_TOOL;
}

static bool mcp_server_name_ok(const char *name) {
    size_t n = name ? strlen(name) : 0;
    if (n < 1 || n > 128) return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '-' || c == '.';
        if (!ok) return false;
    }
    return true;
}

static struct mcp_server_entry *mcp_server_find_tool(struct mcp_server *s, const char *name) {
    for (size_t i = 0; i < s->ntools; i++)
        if (strcmp(s->tools[i].tool->name, name) == 0) return &s->tools[i];
    return NULL;
}

/* Parses and checks one schema of a tool (which names it in messages). */
static int mcp_server_load_schema(const char *text, const char *which, const char *name,
                                  cJSON **out, struct buf *err) {
    *out = text ? cJSON_Parse(text) : NULL;
    if (!*out)
        return mcp_server_refuse(err, name, "%s is %s", which, text ? "not JSON" : "missing");
    struct buf why;
    buf_init(&why, 512);
    int rc = mcp_schema_check(*out, &why);
    if (rc)
        rc = mcp_server_refuse(err, name, "%s: %s", which, buf_str(&why));
    else if (strcmp(cJSON_GetObjectItem(*out, "type")->valuestring, "object") != 0)
        rc = mcp_server_refuse(err, name, "%s: the root must have type object", which);
    buf_free(&why);
    return rc;
}

/* The confirmation rule and the other checks that need the parsed schemas. */
static int mcp_server_check_entry(const struct mcp_server_entry *e, struct buf *err) {
    const struct mcp_tool *t = e->tool;
    const struct mcp_tool_annotations *a = &t->annotations;
    if (!cJSON_IsFalse(cJSON_GetObjectItem(e->input, "additionalProperties")))
        return mcp_server_refuse(err, t->name,
                                 "input_schema must say \"additionalProperties\": false");
    if (a->read_only == MCP_TOOL_HINT_YES && a->destructive == MCP_TOOL_HINT_YES)
        return mcp_server_refuse(err, t->name, "annotations: read-only and destructive at once");
    if (!e->confirm) return MCP_SERVER_OK;
    const cJSON *confirm = mcp_schema_property(e->input, "confirm");
    const cJSON *type = cJSON_GetObjectItem(confirm, "type");
    if (!cJSON_IsString(type) || strcmp(type->valuestring, "boolean") != 0)
        return mcp_server_refuse(
            err, t->name,
            "not read-only (it needs \"confirm\": true) but input_schema declares no "
            "boolean \"confirm\" property");
    if (!t->preview)
        return mcp_server_refuse(
            err, t->name,
            "not read-only (it needs \"confirm\": true) but has no preview to say what "
            "it would do");
    return MCP_SERVER_OK;
}

/* Makes room for one more tool. */
static int mcp_server_grow(struct mcp_server *s, struct buf *err) {
    struct mcp_server_entry *tools = realloc(s->tools, (s->ntools + 1) * sizeof *tools);
    if (tools) s->tools = tools;
    const struct mcp_tool **list =
        realloc(s->list, (s->ntools + 1) * sizeof(const struct mcp_tool *));
    if (list) s->list = list;
    if (tools && list) return MCP_SERVER_OK;
    buf_reset(err);
    (void)!buf_adds(err, "out of memory");
    return MCP_SERVER_ERR_NOMEM;
}

int mcp_server_add(struct mcp_server *s, const struct mcp_tool *t, void *user, struct buf *err) {
    if (!mcp_server_name_ok(t->name))
        return mcp_server_refuse(err, t->name, "the name must be 1 to 128 of A-Z a-z 0-9 _ - .");
    if (mcp_server_find_tool(s, t->name))
        return mcp_server_refuse(err, t->name, "registered twice");
    if (!t->description || !*t->description || !t->call)
        return mcp_server_refuse(err, t->name, "a description and a handler are required");
    struct mcp_server_entry e = {.tool = t, .user = user};
    e.destructive = mcp_tool_destructive(t);
    e.confirm = mcp_tool_needs_confirm(t);
    int rc = mcp_server_load_schema(t->input_schema, "input_schema", t->name, &e.input, err);
    if (!rc && t->output_schema)
        rc = mcp_server_load_schema(t->output_schema, "output_schema", t->name, &e.output, err);
    if (!rc) rc = mcp_server_check_entry(&e, err);
    if (!rc) rc = mcp_server_grow(s, err);
    if (rc) {
        cJSON_Delete(e.input);
        cJSON_Delete(e.output);
        return rc;
    }
    s->list[s->ntools] = t;
    s->tools[s->ntools++] = e;
    return MCP_SERVER_OK;
}

/* ---- replies ---- */

static void mcp_server_sent(struct mcp_server *s, int rc) {
    if (rc == MCP_RPC_OK || s->out_failed) return;
    s->out_failed = true;
    mcp_server_log(s, "cannot write a reply: %s",
                   rc == MCP_RPC_ERR_IO ? strerror(errno) : "no memory");
}

static void mcp_server_reply(struct mcp_server *s, const cJSON *id, cJSON *result) {
    mcp_server_sent(s, mcp_rpc_result(&s->out, id, result));
}

__attribute__((format(printf, 4, 5))) static void
mcp_server_fail(struct mcp_server *s, const cJSON *id, int code, const char *fmt, ...) {
    struct buf msg;
    buf_init(&msg, 4096);
    va_list ap;
    va_start(ap, fmt);
    int rc = buf_vaddf(&msg, fmt, ap);
    va_end(ap);
    mcp_server_sent(s,
                    mcp_rpc_error(&s->out, id, code, rc ? "Internal error" : buf_str(&msg), NULL));
    buf_free(&msg);
}

/* ---- initialize ---- */

static cJSON *mcp_server_initialize_result(struct mcp_server *s, int v) {
    cJSON *r = cJSON_CreateObject(), *caps, *tools, *info;
    if (!r || !cJSON_AddStringToObject(r, "protocolVersion", version_names[v]) ||
        !(caps = cJSON_AddObjectToObject(r, "capabilities")) ||
        !(tools = cJSON_AddObjectToObject(caps, "tools")) ||
        !cJSON_AddFalseToObject(tools, "listChanged") ||
        !(info = cJSON_AddObjectToObject(r, "serverInfo")) ||
        !cJSON_AddStringToObject(info, "name", s->info.name) ||
        (v >= MCP_SERVER_V2025_06_18 && s->info.title &&
         !cJSON_AddStringToObject(info, "title", s->info.title)) ||
        !cJSON_AddStringToObject(info, "version", s->info.version) ||
        (s->info.instructions &&
         !cJSON_AddStringToObject(r, "instructions", s->info.instructions))) {
        cJSON_Delete(r);
        return NULL;
    }
    return r;
}

static void mcp_server_do_initialize(struct mcp_server *s, const cJSON *id, const cJSON *params) {
    const cJSON *pv = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
    const cJSON *caps = cJSON_GetObjectItemCaseSensitive(params, "capabilities");
    const cJSON *client = cJSON_GetObjectItemCaseSensitive(params, "clientInfo");
    if (!cJSON_IsString(pv)) {
        mcp_server_fail(s, id, MCP_RPC_INVALID_PARAMS,
                        "initialize: protocolVersion must be a string");
        return;
    }
    if ((caps && !cJSON_IsObject(caps)) || (client && !cJSON_IsObject(client))) {
        mcp_server_fail(s, id, MCP_RPC_INVALID_PARAMS,
                        "initialize: capabilities and clientInfo must be objects");
        return;
    }
    int v = MCP_SERVER_V2025_11_25;
    for (int i = 0; i < MCP_SERVER_V_COUNT; i++)
        if (strcmp(pv->valuestring, version_names[i]) == 0) v = i;
    cJSON *r = mcp_server_initialize_result(s, v);
    if (!r) {
        mcp_server_fail(s, id, MCP_RPC_INTERNAL_ERROR, "Internal error");
        return;
    }
    s->version = v;
    const cJSON *cname = cJSON_GetObjectItemCaseSensitive(client, "name");
    mcp_server_log(s, "client %.100s asked for %.40s; speaking %s",
                   cJSON_IsString(cname) ? cname->valuestring : "(unnamed)", pv->valuestring,
                   version_names[v]);
    mcp_server_reply(s, id, r);
}

/* ---- tools/list ---- */

static bool mcp_server_add_hint(cJSON *a, const char *key, bool value) {
    return cJSON_AddBoolToObject(a, key, value) != NULL;
}

static cJSON *mcp_server_annotations_json(const struct mcp_server_entry *e) {
    const struct mcp_tool_annotations *h = &e->tool->annotations;
    cJSON *a = cJSON_CreateObject();
    if (!a || (e->tool->title && !cJSON_AddStringToObject(a, "title", e->tool->title)) ||
        !mcp_server_add_hint(a, "readOnlyHint", h->read_only == MCP_TOOL_HINT_YES) ||
        !mcp_server_add_hint(a, "destructiveHint", e->destructive) ||
        !mcp_server_add_hint(a, "idempotentHint", h->idempotent == MCP_TOOL_HINT_YES) ||
        !mcp_server_add_hint(a, "openWorldHint", h->open_world != MCP_TOOL_HINT_NO)) {
        cJSON_Delete(a);
        return NULL;
    }
    return a;
}

/* Adds a copy of item under key; false when out of memory. */
static bool mcp_server_add_copy(cJSON *obj, const char *key, const cJSON *item) {
    cJSON *copy = cJSON_Duplicate(item, 1);
    if (!copy) return false;
    cJSON_AddItemToObject(obj, key, copy);
    return true;
}

static cJSON *mcp_server_tool_json(const struct mcp_server_entry *e, int v) {
    const struct mcp_tool *t = e->tool;
    cJSON *j = cJSON_CreateObject(), *a = NULL;
    bool ok = j && cJSON_AddStringToObject(j, "name", t->name) &&
              (v < MCP_SERVER_V2025_06_18 || !t->title ||
               cJSON_AddStringToObject(j, "title", t->title)) &&
              cJSON_AddStringToObject(j, "description", t->description) &&
              mcp_server_add_copy(j, "inputSchema", e->input) &&
              (v < MCP_SERVER_V2025_06_18 || !e->output ||
               mcp_server_add_copy(j, "outputSchema", e->output));
    if (ok && v >= MCP_SERVER_V2025_03_26) {
        ok = (a = mcp_server_annotations_json(e)) != NULL;
        if (ok) cJSON_AddItemToObject(j, "annotations", a);
    }
    if (ok) return j;
    cJSON_Delete(j);
    return NULL;
}

/* Reads a cursor this server gives ("t" and the index of the first tool of a
 * page past the first). Returns the index, or 0 when it is not one. */
static size_t mcp_server_read_cursor(const struct mcp_server *s, const char *c) {
    if (!s->page_size || c[0] != 't' || c[1] < '1' || c[1] > '9') return 0;
    char *end;
    errno = 0;
    unsigned long long i = strtoull(c + 1, &end, 10);
    bool ok = !errno && !*end && i < s->ntools && i % s->page_size == 0;
    return ok ? (size_t)i : 0;
}

static void mcp_server_do_tools_list(struct mcp_server *s, const cJSON *id, const cJSON *params) {
    const cJSON *cursor = cJSON_GetObjectItemCaseSensitive(params, "cursor");
    size_t start = 0;
    if (cursor &&
        (!cJSON_IsString(cursor) || !(start = mcp_server_read_cursor(s, cursor->valuestring)))) {
        mcp_server_fail(s, id, MCP_RPC_INVALID_PARAMS, "Invalid cursor");
        return;
    }
    size_t end =
        s->page_size && s->ntools - start > s->page_size ? start + s->page_size : s->ntools;
    cJSON *r = cJSON_CreateObject(), *list = r ? cJSON_AddArrayToObject(r, "tools") : NULL;
    bool ok = list != NULL;
    for (size_t i = start; ok && i < end; i++) {
        cJSON *t = mcp_server_tool_json(&s->tools[i], s->version);
        if (t) cJSON_AddItemToArray(list, t);
        ok = t != NULL;
    }
    char next[32];
    snprintf(next, sizeof next, "t%zu", end);
    if (ok && end < s->ntools) ok = cJSON_AddStringToObject(r, "nextCursor", next) != NULL;
    if (!ok) {
        cJSON_Delete(r);
        mcp_server_fail(s, id, MCP_RPC_INTERNAL_ERROR, "Internal error");
        return;
    }
    mcp_server_reply(s, id, r);
}

/* ---- tools/call ---- */

/* The hooks of struct mcp_tool_call. */
static int mcp_server_call_notify(void *io, const char *method, cJSON *params) {
    struct mcp_server *s = io;
    int rc = mcp_rpc_notify(&s->out, method, params);
    mcp_server_sent(s, rc);
    return rc;
}

/* True when line is notifications/cancelled for the call in progress. */
static bool mcp_server_cancels_call(const struct mcp_server *s, const char *line, size_t len) {
    cJSON *m = NULL;
    struct mcp_rpc_msg msg;
    const char *why;
    bool hit = false;
    if (mcp_rpc_parse(line, len, &m) == MCP_RPC_OK && m && mcp_rpc_check(m, &msg, &why) == 0 &&
        msg.kind == MCP_RPC_NOTIFICATION && strcmp(msg.method, "notifications/cancelled") == 0) {
        const cJSON *rid = cJSON_GetObjectItemCaseSensitive(msg.params, "requestId");
        hit = mcp_rpc_id_ok(rid) && cJSON_Compare(rid, s->call_id, 1);
    }
    cJSON_Delete(m);
    return hit;
}

static bool mcp_server_call_cancelled(void *io) {
    struct mcp_server *s = io;
    if (s->call_cancelled) return true;
    if (mcp_rpc_in_poll(&s->in) != MCP_RPC_OK) return false;
    const char *line;
    size_t len;
    while (!s->call_cancelled && mcp_rpc_in_peek(&s->in, &s->peek, &line, &len))
        s->call_cancelled = mcp_server_cancels_call(s, line, len);
    return s->call_cancelled;
}

static bool mcp_server_call_input_ended(void *io) {
    struct mcp_server *s = io;
    if (mcp_rpc_in_poll(&s->in) != MCP_RPC_OK) return true; /* it cannot be read any more */
    return mcp_rpc_in_eof(&s->in);
}

/* The result of a call that returned MCP_TOOL_OK or MCP_TOOL_FAILED. */
static cJSON *mcp_server_call_result(struct mcp_server *s, struct mcp_tool_call *c, bool is_error) {
    cJSON *r = cJSON_CreateObject();
    if (!r) return NULL;
    if (!is_error && c->structured && !cJSON_GetArraySize(c->content)) {
        char *text = cJSON_PrintUnformatted(c->structured);
        int rc = text ? mcp_tool_text_n(c, text, strlen(text)) : MCP_TOOL_INTERNAL;
        cJSON_free(text);
        if (rc) goto mcp_server_fail;
    }
    cJSON_AddItemToObject(r, "content", c->content);
    c->content = NULL;
    if (!is_error && c->structured && s->version >= MCP_SERVER_V2025_06_18) {
        cJSON_AddItemToObject(r, "structuredContent", c->structured);
        c->structured = NULL;
    }
    if (is_error && !cJSON_AddTrueToObject(r, "isError")) goto mcp_server_fail;
    return r;
mcp_server_fail:
    cJSON_Delete(r);
    return NULL;
}

/* Checks a successful call's structured result against the output schema. */
static bool mcp_server_output_ok(struct mcp_server *s, const struct mcp_server_entry *e,
                                 const struct mcp_tool_call *c) {
    if (!e->output) return true;
    struct buf why;
    buf_init(&why, 1024);
    int rc = c->structured ? mcp_schema_validate(e->output, c->structured, &why) : -1;
    if (rc)
        mcp_server_log(s, "tool %s: %s", e->tool->name,
                       c->structured ? buf_str(&why)
                                     : "no structured result despite its output_schema");
    buf_free(&why);
    return rc == 0;
}

static void mcp_server_run_tool(struct mcp_server *s, const cJSON *id,
                                const struct mcp_server_entry *e, const cJSON *args,
                                const cJSON *token) {
    struct mcp_tool_call c;
    if (mcp_tool_call_init(&c)) {
        mcp_server_fail(s, id, MCP_RPC_INTERNAL_ERROR, "Internal error");
        return;
    }
    c.version = version_names[s->version];
    c.progress_message = s->version >= MCP_SERVER_V2025_03_26;
    c.progress_token = token;
    c.tools = s->list;
    c.ntools = s->ntools;
    c.notify = mcp_server_call_notify;
    c.cancelled = mcp_server_call_cancelled;
    c.input_ended = mcp_server_call_input_ended;
    c.io = s;
    s->call_id = id;
    s->call_cancelled = false;
    s->peek = 0;
    int rc = e->tool->call(args, &c, e->user);
    if (rc == MCP_TOOL_OK && !mcp_server_output_ok(s, e, &c)) rc = MCP_TOOL_INTERNAL;
    cJSON *r = NULL;
    if (rc == MCP_TOOL_CANCELLED || s->call_cancelled) {
        mcp_server_log(s, "tool %s: cancelled by the client; no reply", e->tool->name);
    } else if ((rc == MCP_TOOL_OK || rc == MCP_TOOL_FAILED) &&
               (r = mcp_server_call_result(s, &c, rc == MCP_TOOL_FAILED))) {
        mcp_server_reply(s, id, r);
    } else {
        mcp_server_log(s, "tool %s: internal error (handler returned %d)", e->tool->name, rc);
        mcp_server_fail(s, id, MCP_RPC_INTERNAL_ERROR, "Internal error in tool %s", e->tool->name);
    }
    s->call_id = NULL;
    mcp_tool_call_free(&c);
}

/* Replies with an isError result of one text block (printf-style). */
__attribute__((format(printf, 3, 4))) static void
mcp_server_tool_error(struct mcp_server *s, const cJSON *id, const char *fmt, ...) {
    struct buf text;
    buf_init(&text, 4096);
    va_list ap;
    va_start(ap, fmt);
    int rc = buf_vaddf(&text, fmt, ap);
    va_end(ap);
    struct mcp_tool_call c;
    cJSON *r = NULL;
    if (!rc && mcp_tool_call_init(&c) == MCP_TOOL_OK) {
        if (mcp_tool_text_n(&c, buf_str(&text), text.len) == MCP_TOOL_OK)
            r = mcp_server_call_result(s, &c, true);
        mcp_tool_call_free(&c);
    }
    buf_free(&text);
    if (r)
        mcp_server_reply(s, id, r);
    else
        mcp_server_fail(s, id, MCP_RPC_INTERNAL_ERROR, "Internal error");
}

/* A call without "confirm": true: the tool's preview says what it would do
 * (an isError result the model shows the user), or why it could not run. */
static void mcp_server_refuse_unconfirmed(struct mcp_server *s, const cJSON *id,
                                          const struct mcp_server_entry *e, const cJSON *args) {
    struct mcp_tool_call c;
    if (mcp_tool_call_init(&c)) {
        mcp_server_fail(s, id, MCP_RPC_INTERNAL_ERROR, "Internal error");
        return;
    }
    int rc = e->tool->preview(args, &c, e->user);
    cJSON *r = NULL;
    if (rc == MCP_TOOL_FAILED && (r = mcp_server_call_result(s, &c, true))) {
        mcp_server_reply(s, id, r);
    } else if (rc == MCP_TOOL_OK) {
        const cJSON *block = cJSON_GetArrayItem(c.content, 0);
        const cJSON *text = cJSON_GetObjectItemCaseSensitive(block, "text");
        mcp_server_tool_error(
            s, id,
            "%s was not run: it needs \"confirm\": true. The call would %s. Tell the user "
            "what it will do, and call it again with \"confirm\": true only after they "
            "agree.",
            e->tool->name, cJSON_IsString(text) ? text->valuestring : "act");
    } else {
        mcp_server_log(s, "tool %s: internal error (preview returned %d)", e->tool->name, rc);
        mcp_server_fail(s, id, MCP_RPC_INTERNAL_ERROR, "Internal error in tool %s", e->tool->name);
    }
    mcp_tool_call_free(&c);
}

/* The tools/call checks that come before the handler; true when it may run.
 * Arguments that fail the input schema are a tool execution error from
 * 2025-11-25 on, a protocol error before. */
static bool mcp_server_call_allowed(struct mcp_server *s, const cJSON *id,
                                    const struct mcp_server_entry *e, const cJSON *args) {
    struct buf why;
    buf_init(&why, 1024);
    int rc = mcp_schema_validate(e->input, args, &why);
    if (rc == MCP_SCHEMA_ERR_INVALID && s->version < MCP_SERVER_V2025_11_25)
        mcp_server_fail(s, id, MCP_RPC_INVALID_PARAMS, "Invalid arguments for tool %s: %s",
                        e->tool->name, buf_str(&why));
    else if (rc == MCP_SCHEMA_ERR_INVALID)
        mcp_server_tool_error(s, id, "Invalid arguments for tool %s: %s", e->tool->name,
                              buf_str(&why));
    else if (rc)
        mcp_server_fail(s, id, MCP_RPC_INTERNAL_ERROR, "Internal error");
    buf_free(&why);
    if (rc) return false;
    if (!e->confirm || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "confirm"))) return true;
    mcp_server_refuse_unconfirmed(s, id, e, args);
    return false;
}

static void mcp_server_do_tools_call(struct mcp_server *s, const cJSON *id, const cJSON *params) {
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    const cJSON *token = cJSON_GetObjectItemCaseSensitive(meta, "progressToken");
    if (!cJSON_IsString(name)) {
        mcp_server_fail(s, id, MCP_RPC_INVALID_PARAMS, "tools/call: name must be a string");
        return;
    }
    if (args && !cJSON_IsObject(args)) {
        mcp_server_fail(s, id, MCP_RPC_INVALID_PARAMS, "tools/call: arguments must be an object");
        return;
    }
    if ((meta && !cJSON_IsObject(meta)) || (token && !mcp_rpc_id_ok(token))) {
        mcp_server_fail(s, id, MCP_RPC_INVALID_PARAMS,
                        "tools/call: _meta.progressToken must be a string or an integer");
        return;
    }
    const struct mcp_server_entry *e = mcp_server_find_tool(s, name->valuestring);
    if (!e) {
        mcp_server_fail(s, id, MCP_RPC_INVALID_PARAMS, "Unknown tool: %.128s", name->valuestring);
        return;
    }
    cJSON *empty = args ? NULL : cJSON_CreateObject();
    if (!args && !empty) {
        mcp_server_fail(s, id, MCP_RPC_INTERNAL_ERROR, "Internal error");
        return;
    }
    if (mcp_server_call_allowed(s, id, e, args ? args : empty))
        mcp_server_run_tool(s, id, e, args ? args : empty, token);
    cJSON_Delete(empty);
}

/* ---- dispatch ---- */

static void mcp_server_do_request(struct mcp_server *s, const struct mcp_rpc_msg *m,
                                  bool in_batch) {
    const char *method = m->method;
    if (strcmp(method, "ping") == 0) {
        mcp_server_reply(s, m->id, cJSON_CreateObject());
        return;
    }
    if (strcmp(method, "initialize") == 0) {
        if (in_batch) {
            mcp_server_fail(s, m->id, MCP_RPC_INVALID_REQUEST,
                            "initialize must not be part of a batch");
            return;
        }
        if (s->version != MCP_SERVER_V_NONE) {
            mcp_server_fail(s, m->id, MCP_RPC_INVALID_REQUEST, "initialize: already initialized");
            return;
        }
        mcp_server_do_initialize(s, m->id, m->params);
        return;
    }
    if (s->version == MCP_SERVER_V_NONE) {
        mcp_server_fail(s, m->id, MCP_RPC_INVALID_REQUEST,
                        "Not initialized: the first request must be initialize");
        return;
    }
    if (!s->client_ready) { /* served anyway: some clients never send it */
        mcp_server_log(s, "%s before notifications/initialized", method);
        s->client_ready = true; /* (said once) */
    }
    if (strcmp(method, "tools/list") == 0) {
        mcp_server_do_tools_list(s, m->id, m->params);
        return;
    }
    if (strcmp(method, "tools/call") == 0) {
        mcp_server_do_tools_call(s, m->id, m->params);
        return;
    }
    mcp_server_fail(s, m->id, MCP_RPC_METHOD_NOT_FOUND, "Method not found: %.128s", method);
}

static void mcp_server_do_notification(struct mcp_server *s, const struct mcp_rpc_msg *m) {
    if (strcmp(m->method, "notifications/initialized") == 0) {
        if (s->version == MCP_SERVER_V_NONE)
            mcp_server_log(s, "initialized before initialize: ignored");
        else
            s->client_ready = true;
    }
    /* Anything else (a late cancellation, roots changes...) needs nothing. */
}

static void mcp_server_do_message(struct mcp_server *s, const cJSON *obj, bool in_batch) {
    struct mcp_rpc_msg m;
    const char *why;
    if (mcp_rpc_check(obj, &m, &why) != MCP_RPC_OK) {
        mcp_server_fail(s, m.id, MCP_RPC_INVALID_REQUEST, "Invalid Request: %s", why);
        return;
    }
    if (m.kind == MCP_RPC_REQUEST) {
        mcp_server_do_request(s, &m, in_batch);
        return;
    }
    if (m.kind == MCP_RPC_NOTIFICATION) {
        mcp_server_do_notification(s, &m);
        return;
    }
    mcp_server_log(s, "a response to a request never sent: ignored");
}

static void mcp_server_do_batch(struct mcp_server *s, const cJSON *batch) {
    if (s->version != MCP_SERVER_V2025_03_26) {
        mcp_server_fail(
            s, NULL, MCP_RPC_INVALID_REQUEST,
            "Invalid Request: batches are accepted only in protocol version 2025-03-26");
        return;
    }
    if (!cJSON_GetArraySize(batch)) {
        mcp_server_fail(s, NULL, MCP_RPC_INVALID_REQUEST, "Invalid Request: an empty batch");
        return;
    }
    s->out.batch = cJSON_CreateArray();
    if (!s->out.batch) {
        mcp_server_fail(s, NULL, MCP_RPC_INTERNAL_ERROR, "Internal error");
        return;
    }
    const cJSON *m;
    cJSON_ArrayForEach(m, batch) {
        mcp_server_do_message(s, m, true);
    }
    cJSON *replies = s->out.batch;
    s->out.batch = NULL;
    if (cJSON_GetArraySize(replies)) mcp_server_sent(s, mcp_rpc_write(s->out.fd, replies));
    cJSON_Delete(replies);
}

static void mcp_server_do_line(struct mcp_server *s, const char *line, size_t len) {
    cJSON *m;
    int rc = mcp_rpc_parse(line, len, &m);
    if (rc == MCP_RPC_ERR_PARSE) {
        mcp_server_fail(s, NULL, MCP_RPC_PARSE_ERROR, "Parse error: not one JSON value in UTF-8");
        return;
    }
    if (rc) {
        mcp_server_fail(s, NULL, MCP_RPC_INTERNAL_ERROR, "Internal error");
        return;
    }
    if (cJSON_IsArray(m))
        mcp_server_do_batch(s, m);
    else if (m)
        mcp_server_do_message(s, m, false);
    cJSON_Delete(m);
}

int mcp_server_run(struct mcp_server *s, int in_fd, int out_fd, struct buf *err) {
    s->version = MCP_SERVER_V_NONE;
    s->client_ready = false;
    s->out_failed = false;
    s->out = (struct mcp_rpc_out){.fd = out_fd, .batch = NULL};
    mcp_rpc_in_init(&s->in, in_fd, s->max_line);
    int rc = MCP_RPC_OK;
    const char *line;
    size_t len;
    while (!s->out_failed && (rc = mcp_rpc_in_next(&s->in, &line, &len)) != MCP_RPC_EOF) {
        if (rc == MCP_RPC_OK)
            mcp_server_do_line(s, line, len);
        else if (rc == MCP_RPC_ERR_LONG)
            mcp_server_fail(s, NULL, MCP_RPC_PARSE_ERROR,
                            "Parse error: a message longer than %zu bytes", s->in.max_line);
        else
            break;
    }
    int status = MCP_SERVER_OK;
    buf_reset(err);
    if (s->out_failed) {
        status = MCP_SERVER_ERR_IO;
        (void)!buf_adds(err, "cannot write to the output");
    } else if (rc != MCP_RPC_EOF) {
        status = rc == MCP_RPC_ERR_NOMEM ? MCP_SERVER_ERR_NOMEM : MCP_SERVER_ERR_IO;
        (void)!buf_addf(err, "cannot read the input: %s",
                        rc == MCP_RPC_ERR_NOMEM ? "out of memory" : strerror(errno));
    }
    mcp_rpc_in_free(&s->in);
    return status;
}
