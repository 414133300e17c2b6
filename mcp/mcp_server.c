#include "mcp_server.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mcp_rpc.h"
#include "mcp_schema.h"

/* The protocol versions, oldest first: comparisons read as "this version or later". */
enum version { V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25, V_COUNT, V_NONE = -1 };

static const char *const version_names[V_COUNT] = {"2024-11-05", "2025-03-26", "2025-06-18",
                                                   MCP_SERVER_LATEST_VERSION};

/* A registered tool with its parsed schemas. */
struct entry {
    const struct mcp_tool *tool;
    void *user;
    cJSON *input;     /* the input schema */
    cJSON *output;    /* the output schema, or NULL */
    bool destructive; /* resolved from the annotations: its destructiveHint */
    bool confirm;     /* not read-only: runs only with "confirm": true */
};

struct mcp_server {
    struct mcp_server_info info;
    struct entry *tools;
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

__attribute__((format(printf, 2, 3))) static void server_log(struct mcp_server *s, const char *fmt,
                                                             ...) {
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
    s->version = V_NONE;
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

__attribute__((format(printf, 3, 4))) static int refuse(struct buf *err, const char *name,
                                                        const char *fmt, ...) {
    buf_reset(err);
    int rc = buf_addf(err, "tool %s: ", name ? name : "(no name)");
    va_list ap;
    va_start(ap, fmt);
    if (!rc) rc = buf_vaddf(err, fmt, ap);
    va_end(ap);
    return rc ? MCP_SERVER_ERR_NOMEM : MCP_SERVER_ERR_TOOL;
}

static bool name_ok(const char *name) {
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

static struct entry *find_tool(struct mcp_server *s, const char *name) {
    for (size_t i = 0; i < s->ntools; i++)
        if (strcmp(s->tools[i].tool->name, name) == 0) return &s->tools[i];
    return NULL;
}

/* Parses and checks one schema of a tool (which names it in messages). */
static int load_schema(const char *text, const char *which, const char *name, cJSON **out,
                       struct buf *err) {
    *out = text ? cJSON_Parse(text) : NULL;
    if (!*out) return refuse(err, name, "%s is %s", which, text ? "not JSON" : "missing");
    struct buf why;
    buf_init(&why, 512);
    int rc = mcp_schema_check(*out, &why);
    if (rc)
        rc = refuse(err, name, "%s: %s", which, buf_str(&why));
    else if (strcmp(cJSON_GetObjectItem(*out, "type")->valuestring, "object") != 0)
        rc = refuse(err, name, "%s: the root must have type object", which);
    buf_free(&why);
    return rc;
}

/* The confirmation rule and the other checks that need the parsed schemas. */
static int check_entry(const struct entry *e, struct buf *err) {
    const struct mcp_tool *t = e->tool;
    const struct mcp_tool_annotations *a = &t->annotations;
    if (!cJSON_IsFalse(cJSON_GetObjectItem(e->input, "additionalProperties")))
        return refuse(err, t->name, "input_schema must say \"additionalProperties\": false");
    if (a->read_only == MCP_HINT_YES && a->destructive == MCP_HINT_YES)
        return refuse(err, t->name, "annotations: read-only and destructive at once");
    if (!e->confirm) return MCP_SERVER_OK;
    const cJSON *confirm = mcp_schema_property(e->input, "confirm");
    const cJSON *type = cJSON_GetObjectItem(confirm, "type");
    if (!cJSON_IsString(type) || strcmp(type->valuestring, "boolean") != 0)
        return refuse(err, t->name,
                      "not read-only (it needs \"confirm\": true) but input_schema declares no "
                      "boolean \"confirm\" property");
    if (!t->preview)
        return refuse(err, t->name,
                      "not read-only (it needs \"confirm\": true) but has no preview to say what "
                      "it would do");
    return MCP_SERVER_OK;
}

/* Makes room for one more tool. */
static int grow(struct mcp_server *s, struct buf *err) {
    struct entry *tools = realloc(s->tools, (s->ntools + 1) * sizeof *tools);
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
    if (!name_ok(t->name))
        return refuse(err, t->name, "the name must be 1 to 128 of A-Z a-z 0-9 _ - .");
    if (find_tool(s, t->name)) return refuse(err, t->name, "registered twice");
    if (!t->description || !*t->description || !t->call)
        return refuse(err, t->name, "a description and a handler are required");
    struct entry e = {.tool = t, .user = user};
    e.destructive = mcp_tool_destructive(t);
    e.confirm = mcp_tool_needs_confirm(t);
    int rc = load_schema(t->input_schema, "input_schema", t->name, &e.input, err);
    if (!rc && t->output_schema)
        rc = load_schema(t->output_schema, "output_schema", t->name, &e.output, err);
    if (!rc) rc = check_entry(&e, err);
    if (!rc) rc = grow(s, err);
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

static void sent(struct mcp_server *s, int rc) {
    if (rc == MCP_RPC_OK || s->out_failed) return;
    s->out_failed = true;
    server_log(s, "cannot write a reply: %s", rc == MCP_RPC_ERR_IO ? strerror(errno) : "no memory");
}

static void reply(struct mcp_server *s, const cJSON *id, cJSON *result) {
    sent(s, mcp_rpc_result(&s->out, id, result));
}

__attribute__((format(printf, 4, 5))) static void fail(struct mcp_server *s, const cJSON *id,
                                                       int code, const char *fmt, ...) {
    struct buf msg;
    buf_init(&msg, 4096);
    va_list ap;
    va_start(ap, fmt);
    int rc = buf_vaddf(&msg, fmt, ap);
    va_end(ap);
    sent(s, mcp_rpc_error(&s->out, id, code, rc ? "Internal error" : buf_str(&msg), NULL));
    buf_free(&msg);
}

/* ---- initialize ---- */

static cJSON *initialize_result(struct mcp_server *s, int v) {
    cJSON *r = cJSON_CreateObject(), *caps, *tools, *info;
    if (!r || !cJSON_AddStringToObject(r, "protocolVersion", version_names[v]) ||
        !(caps = cJSON_AddObjectToObject(r, "capabilities")) ||
        !(tools = cJSON_AddObjectToObject(caps, "tools")) ||
        !cJSON_AddFalseToObject(tools, "listChanged") ||
        !(info = cJSON_AddObjectToObject(r, "serverInfo")) ||
        !cJSON_AddStringToObject(info, "name", s->info.name) ||
        (v >= V2025_06_18 && s->info.title &&
         !cJSON_AddStringToObject(info, "title", s->info.title)) ||
        !cJSON_AddStringToObject(info, "version", s->info.version) ||
        (s->info.instructions &&
         !cJSON_AddStringToObject(r, "instructions", s->info.instructions))) {
        cJSON_Delete(r);
        return NULL;
    }
    return r;
}

static void do_initialize(struct mcp_server *s, const cJSON *id, const cJSON *params) {
    const cJSON *pv = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
    const cJSON *caps = cJSON_GetObjectItemCaseSensitive(params, "capabilities");
    const cJSON *client = cJSON_GetObjectItemCaseSensitive(params, "clientInfo");
    if (!cJSON_IsString(pv)) {
        fail(s, id, MCP_RPC_INVALID_PARAMS, "initialize: protocolVersion must be a string");
        return;
    }
    if ((caps && !cJSON_IsObject(caps)) || (client && !cJSON_IsObject(client))) {
        fail(s, id, MCP_RPC_INVALID_PARAMS,
             "initialize: capabilities and clientInfo must be objects");
        return;
    }
    int v = V2025_11_25;
    for (int i = 0; i < V_COUNT; i++)
        if (strcmp(pv->valuestring, version_names[i]) == 0) v = i;
    cJSON *r = initialize_result(s, v);
    if (!r) {
        fail(s, id, MCP_RPC_INTERNAL_ERROR, "Internal error");
        return;
    }
    s->version = v;
    const cJSON *cname = cJSON_GetObjectItemCaseSensitive(client, "name");
    server_log(s, "client %.100s asked for %.40s; speaking %s",
               cJSON_IsString(cname) ? cname->valuestring : "(unnamed)", pv->valuestring,
               version_names[v]);
    reply(s, id, r);
}

/* ---- tools/list ---- */

static bool add_hint(cJSON *a, const char *key, bool value) {
    return cJSON_AddBoolToObject(a, key, value) != NULL;
}

static cJSON *annotations_json(const struct entry *e) {
    const struct mcp_tool_annotations *h = &e->tool->annotations;
    cJSON *a = cJSON_CreateObject();
    if (!a || (e->tool->title && !cJSON_AddStringToObject(a, "title", e->tool->title)) ||
        !add_hint(a, "readOnlyHint", h->read_only == MCP_HINT_YES) ||
        !add_hint(a, "destructiveHint", e->destructive) ||
        !add_hint(a, "idempotentHint", h->idempotent == MCP_HINT_YES) ||
        !add_hint(a, "openWorldHint", h->open_world != MCP_HINT_NO)) {
        cJSON_Delete(a);
        return NULL;
    }
    return a;
}

/* Adds a copy of item under key; false when out of memory. */
static bool add_copy(cJSON *obj, const char *key, const cJSON *item) {
    cJSON *copy = cJSON_Duplicate(item, 1);
    if (!copy) return false;
    cJSON_AddItemToObject(obj, key, copy);
    return true;
}

static cJSON *tool_json(const struct entry *e, int v) {
    const struct mcp_tool *t = e->tool;
    cJSON *j = cJSON_CreateObject(), *a = NULL;
    bool ok = j && cJSON_AddStringToObject(j, "name", t->name) &&
              (v < V2025_06_18 || !t->title || cJSON_AddStringToObject(j, "title", t->title)) &&
              cJSON_AddStringToObject(j, "description", t->description) &&
              add_copy(j, "inputSchema", e->input) &&
              (v < V2025_06_18 || !e->output || add_copy(j, "outputSchema", e->output));
    if (ok && v >= V2025_03_26) {
        ok = (a = annotations_json(e)) != NULL;
        if (ok) cJSON_AddItemToObject(j, "annotations", a);
    }
    if (ok) return j;
    cJSON_Delete(j);
    return NULL;
}

/* Reads a cursor this server gives ("t" and the index of the first tool of a
 * page past the first). Returns the index, or 0 when it is not one. */
static size_t read_cursor(const struct mcp_server *s, const char *c) {
    if (!s->page_size || c[0] != 't' || c[1] < '1' || c[1] > '9') return 0;
    char *end;
    errno = 0;
    unsigned long long i = strtoull(c + 1, &end, 10);
    bool ok = !errno && !*end && i < s->ntools && i % s->page_size == 0;
    return ok ? (size_t)i : 0;
}

static void do_tools_list(struct mcp_server *s, const cJSON *id, const cJSON *params) {
    const cJSON *cursor = cJSON_GetObjectItemCaseSensitive(params, "cursor");
    size_t start = 0;
    if (cursor && (!cJSON_IsString(cursor) || !(start = read_cursor(s, cursor->valuestring)))) {
        fail(s, id, MCP_RPC_INVALID_PARAMS, "Invalid cursor");
        return;
    }
    size_t end =
        s->page_size && s->ntools - start > s->page_size ? start + s->page_size : s->ntools;
    cJSON *r = cJSON_CreateObject(), *list = r ? cJSON_AddArrayToObject(r, "tools") : NULL;
    bool ok = list != NULL;
    for (size_t i = start; ok && i < end; i++) {
        cJSON *t = tool_json(&s->tools[i], s->version);
        if (t) cJSON_AddItemToArray(list, t);
        ok = t != NULL;
    }
    char next[32];
    snprintf(next, sizeof next, "t%zu", end);
    if (ok && end < s->ntools) ok = cJSON_AddStringToObject(r, "nextCursor", next) != NULL;
    if (!ok) {
        cJSON_Delete(r);
        fail(s, id, MCP_RPC_INTERNAL_ERROR, "Internal error");
        return;
    }
    reply(s, id, r);
}

/* ---- tools/call ---- */

/* The hooks of struct mcp_call. */
static int call_notify(void *io, const char *method, cJSON *params) {
    struct mcp_server *s = io;
    int rc = mcp_rpc_notify(&s->out, method, params);
    sent(s, rc);
    return rc;
}

/* True when line is notifications/cancelled for the call in progress. */
static bool cancels_call(const struct mcp_server *s, const char *line, size_t len) {
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

static bool call_cancelled(void *io) {
    struct mcp_server *s = io;
    if (s->call_cancelled) return true;
    if (mcp_rpc_in_poll(&s->in) != MCP_RPC_OK) return false;
    const char *line;
    size_t len;
    while (!s->call_cancelled && mcp_rpc_in_peek(&s->in, &s->peek, &line, &len))
        s->call_cancelled = cancels_call(s, line, len);
    return s->call_cancelled;
}

static bool call_input_ended(void *io) {
    struct mcp_server *s = io;
    if (mcp_rpc_in_poll(&s->in) != MCP_RPC_OK) return true; /* it cannot be read any more */
    return mcp_rpc_in_eof(&s->in);
}

/* The result of a call that returned MCP_TOOL_OK or MCP_TOOL_FAILED. */
static cJSON *call_result(struct mcp_server *s, struct mcp_call *c, bool is_error) {
    cJSON *r = cJSON_CreateObject();
    if (!r) return NULL;
    if (!is_error && c->structured && !cJSON_GetArraySize(c->content)) {
        char *text = cJSON_PrintUnformatted(c->structured);
        int rc = text ? mcp_tool_text_n(c, text, strlen(text)) : MCP_TOOL_INTERNAL;
        cJSON_free(text);
        if (rc) goto fail;
    }
    cJSON_AddItemToObject(r, "content", c->content);
    c->content = NULL;
    if (!is_error && c->structured && s->version >= V2025_06_18) {
        cJSON_AddItemToObject(r, "structuredContent", c->structured);
        c->structured = NULL;
    }
    if (is_error && !cJSON_AddTrueToObject(r, "isError")) goto fail;
    return r;
fail:
    cJSON_Delete(r);
    return NULL;
}

/* Checks a successful call's structured result against the output schema. */
static bool output_ok(struct mcp_server *s, const struct entry *e, const struct mcp_call *c) {
    if (!e->output) return true;
    struct buf why;
    buf_init(&why, 1024);
    int rc = c->structured ? mcp_schema_validate(e->output, c->structured, &why) : -1;
    if (rc)
        server_log(s, "tool %s: %s", e->tool->name,
                   c->structured ? buf_str(&why)
                                 : "no structured result despite its output_schema");
    buf_free(&why);
    return rc == 0;
}

static void run_tool(struct mcp_server *s, const cJSON *id, const struct entry *e,
                     const cJSON *args, const cJSON *token) {
    struct mcp_call c;
    if (mcp_tool_call_init(&c)) {
        fail(s, id, MCP_RPC_INTERNAL_ERROR, "Internal error");
        return;
    }
    c.version = version_names[s->version];
    c.progress_message = s->version >= V2025_03_26;
    c.progress_token = token;
    c.tools = s->list;
    c.ntools = s->ntools;
    c.notify = call_notify;
    c.cancelled = call_cancelled;
    c.input_ended = call_input_ended;
    c.io = s;
    s->call_id = id;
    s->call_cancelled = false;
    s->peek = 0;
    int rc = e->tool->call(args, &c, e->user);
    if (rc == MCP_TOOL_OK && !output_ok(s, e, &c)) rc = MCP_TOOL_INTERNAL;
    cJSON *r = NULL;
    if (rc == MCP_TOOL_CANCELLED || s->call_cancelled) {
        server_log(s, "tool %s: cancelled by the client; no reply", e->tool->name);
    } else if ((rc == MCP_TOOL_OK || rc == MCP_TOOL_FAILED) &&
               (r = call_result(s, &c, rc == MCP_TOOL_FAILED))) {
        reply(s, id, r);
    } else {
        server_log(s, "tool %s: internal error (handler returned %d)", e->tool->name, rc);
        fail(s, id, MCP_RPC_INTERNAL_ERROR, "Internal error in tool %s", e->tool->name);
    }
    s->call_id = NULL;
    mcp_tool_call_free(&c);
}

/* Replies with an isError result of one text block (printf-style). */
__attribute__((format(printf, 3, 4))) static void tool_error(struct mcp_server *s, const cJSON *id,
                                                             const char *fmt, ...) {
    struct buf text;
    buf_init(&text, 4096);
    va_list ap;
    va_start(ap, fmt);
    int rc = buf_vaddf(&text, fmt, ap);
    va_end(ap);
    struct mcp_call c;
    cJSON *r = NULL;
    if (!rc && mcp_tool_call_init(&c) == MCP_TOOL_OK) {
        if (mcp_tool_text_n(&c, buf_str(&text), text.len) == MCP_TOOL_OK)
            r = call_result(s, &c, true);
        mcp_tool_call_free(&c);
    }
    buf_free(&text);
    if (r)
        reply(s, id, r);
    else
        fail(s, id, MCP_RPC_INTERNAL_ERROR, "Internal error");
}

/* A call without "confirm": true: the tool's preview says what it would do
 * (an isError result the model shows the user), or why it could not run. */
static void refuse_unconfirmed(struct mcp_server *s, const cJSON *id, const struct entry *e,
                               const cJSON *args) {
    struct mcp_call c;
    if (mcp_tool_call_init(&c)) {
        fail(s, id, MCP_RPC_INTERNAL_ERROR, "Internal error");
        return;
    }
    int rc = e->tool->preview(args, &c, e->user);
    cJSON *r = NULL;
    if (rc == MCP_TOOL_FAILED && (r = call_result(s, &c, true))) {
        reply(s, id, r);
    } else if (rc == MCP_TOOL_OK) {
        const cJSON *block = cJSON_GetArrayItem(c.content, 0);
        const cJSON *text = cJSON_GetObjectItemCaseSensitive(block, "text");
        tool_error(s, id,
                   "%s was not run: it needs \"confirm\": true. The call would %s. Tell the user "
                   "what it will do, and call it again with \"confirm\": true only after they "
                   "agree.",
                   e->tool->name, cJSON_IsString(text) ? text->valuestring : "act");
    } else {
        server_log(s, "tool %s: internal error (preview returned %d)", e->tool->name, rc);
        fail(s, id, MCP_RPC_INTERNAL_ERROR, "Internal error in tool %s", e->tool->name);
    }
    mcp_tool_call_free(&c);
}

/* The tools/call checks that come before the handler; true when it may run.
 * Arguments that fail the input schema are a tool execution error from
 * 2025-11-25 on, a protocol error before. */
static bool call_allowed(struct mcp_server *s, const cJSON *id, const struct entry *e,
                         const cJSON *args) {
    struct buf why;
    buf_init(&why, 1024);
    int rc = mcp_schema_validate(e->input, args, &why);
    if (rc == MCP_SCHEMA_ERR_INVALID && s->version < V2025_11_25)
        fail(s, id, MCP_RPC_INVALID_PARAMS, "Invalid arguments for tool %s: %s", e->tool->name,
             buf_str(&why));
    else if (rc == MCP_SCHEMA_ERR_INVALID)
        tool_error(s, id, "Invalid arguments for tool %s: %s", e->tool->name, buf_str(&why));
    else if (rc)
        fail(s, id, MCP_RPC_INTERNAL_ERROR, "Internal error");
    buf_free(&why);
    if (rc) return false;
    if (!e->confirm || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "confirm"))) return true;
    refuse_unconfirmed(s, id, e, args);
    return false;
}

static void do_tools_call(struct mcp_server *s, const cJSON *id, const cJSON *params) {
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    const cJSON *token = cJSON_GetObjectItemCaseSensitive(meta, "progressToken");
    if (!cJSON_IsString(name)) {
        fail(s, id, MCP_RPC_INVALID_PARAMS, "tools/call: name must be a string");
        return;
    }
    if (args && !cJSON_IsObject(args)) {
        fail(s, id, MCP_RPC_INVALID_PARAMS, "tools/call: arguments must be an object");
        return;
    }
    if ((meta && !cJSON_IsObject(meta)) || (token && !mcp_rpc_id_ok(token))) {
        fail(s, id, MCP_RPC_INVALID_PARAMS,
             "tools/call: _meta.progressToken must be a string or an integer");
        return;
    }
    const struct entry *e = find_tool(s, name->valuestring);
    if (!e) {
        fail(s, id, MCP_RPC_INVALID_PARAMS, "Unknown tool: %.128s", name->valuestring);
        return;
    }
    cJSON *empty = args ? NULL : cJSON_CreateObject();
    if (!args && !empty) {
        fail(s, id, MCP_RPC_INTERNAL_ERROR, "Internal error");
        return;
    }
    if (call_allowed(s, id, e, args ? args : empty)) run_tool(s, id, e, args ? args : empty, token);
    cJSON_Delete(empty);
}

/* ---- dispatch ---- */

static void do_request(struct mcp_server *s, const struct mcp_rpc_msg *m, bool in_batch) {
    const char *method = m->method;
    if (strcmp(method, "ping") == 0) {
        reply(s, m->id, cJSON_CreateObject());
        return;
    }
    if (strcmp(method, "initialize") == 0) {
        if (in_batch) {
            fail(s, m->id, MCP_RPC_INVALID_REQUEST, "initialize must not be part of a batch");
            return;
        }
        if (s->version != V_NONE) {
            fail(s, m->id, MCP_RPC_INVALID_REQUEST, "initialize: already initialized");
            return;
        }
        do_initialize(s, m->id, m->params);
        return;
    }
    if (s->version == V_NONE) {
        fail(s, m->id, MCP_RPC_INVALID_REQUEST,
             "Not initialized: the first request must be initialize");
        return;
    }
    if (!s->client_ready) { /* served anyway: some clients never send it */
        server_log(s, "%s before notifications/initialized", method);
        s->client_ready = true; /* (said once) */
    }
    if (strcmp(method, "tools/list") == 0) {
        do_tools_list(s, m->id, m->params);
        return;
    }
    if (strcmp(method, "tools/call") == 0) {
        do_tools_call(s, m->id, m->params);
        return;
    }
    fail(s, m->id, MCP_RPC_METHOD_NOT_FOUND, "Method not found: %.128s", method);
}

static void do_notification(struct mcp_server *s, const struct mcp_rpc_msg *m) {
    if (strcmp(m->method, "notifications/initialized") == 0) {
        if (s->version == V_NONE)
            server_log(s, "initialized before initialize: ignored");
        else
            s->client_ready = true;
    }
    /* Anything else (a late cancellation, roots changes...) needs nothing. */
}

static void do_message(struct mcp_server *s, const cJSON *obj, bool in_batch) {
    struct mcp_rpc_msg m;
    const char *why;
    if (mcp_rpc_check(obj, &m, &why) != MCP_RPC_OK) {
        fail(s, m.id, MCP_RPC_INVALID_REQUEST, "Invalid Request: %s", why);
        return;
    }
    if (m.kind == MCP_RPC_REQUEST) {
        do_request(s, &m, in_batch);
        return;
    }
    if (m.kind == MCP_RPC_NOTIFICATION) {
        do_notification(s, &m);
        return;
    }
    server_log(s, "a response to a request never sent: ignored");
}

static void do_batch(struct mcp_server *s, const cJSON *batch) {
    if (s->version != V2025_03_26) {
        fail(s, NULL, MCP_RPC_INVALID_REQUEST,
             "Invalid Request: batches are accepted only in protocol version 2025-03-26");
        return;
    }
    if (!cJSON_GetArraySize(batch)) {
        fail(s, NULL, MCP_RPC_INVALID_REQUEST, "Invalid Request: an empty batch");
        return;
    }
    s->out.batch = cJSON_CreateArray();
    if (!s->out.batch) {
        fail(s, NULL, MCP_RPC_INTERNAL_ERROR, "Internal error");
        return;
    }
    const cJSON *m;
    cJSON_ArrayForEach(m, batch) {
        do_message(s, m, true);
    }
    cJSON *replies = s->out.batch;
    s->out.batch = NULL;
    if (cJSON_GetArraySize(replies)) sent(s, mcp_rpc_write(s->out.fd, replies));
    cJSON_Delete(replies);
}

static void do_line(struct mcp_server *s, const char *line, size_t len) {
    cJSON *m;
    int rc = mcp_rpc_parse(line, len, &m);
    if (rc == MCP_RPC_ERR_PARSE) {
        fail(s, NULL, MCP_RPC_PARSE_ERROR, "Parse error: not one JSON value in UTF-8");
        return;
    }
    if (rc) {
        fail(s, NULL, MCP_RPC_INTERNAL_ERROR, "Internal error");
        return;
    }
    if (cJSON_IsArray(m))
        do_batch(s, m);
    else if (m)
        do_message(s, m, false);
    cJSON_Delete(m);
}

int mcp_server_run(struct mcp_server *s, int in_fd, int out_fd, struct buf *err) {
    s->version = V_NONE;
    s->client_ready = false;
    s->out_failed = false;
    s->out = (struct mcp_rpc_out){.fd = out_fd, .batch = NULL};
    mcp_rpc_in_init(&s->in, in_fd, s->max_line);
    int rc = MCP_RPC_OK;
    const char *line;
    size_t len;
    while (!s->out_failed && (rc = mcp_rpc_in_next(&s->in, &line, &len)) != MCP_RPC_EOF) {
        if (rc == MCP_RPC_OK)
            do_line(s, line, len);
        else if (rc == MCP_RPC_ERR_LONG)
            fail(s, NULL, MCP_RPC_PARSE_ERROR, "Parse error: a message longer than %zu bytes",
                 s->in.max_line);
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
