/* sm-mcp's server core: whole sessions (JSON-RPC lines in, exact lines out)
 * over in-memory files, with test tools registered here. */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>

#include "mcp_test.h"

/* ---- test tools ---- */

#define LOOK_IN                                                                                    \
    "{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"}},\"additionalProperties\":"  \
    "false}"
#define LOOK_OUT                                                                                   \
    "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]}"
#define WIPE_IN                                                                                    \
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"confirm\":{\"type\":"   \
    "\"boolean\"}},\"required\":[\"name\"],\"additionalProperties\":false}"
#define EMPTY_IN "{\"type\":\"object\",\"additionalProperties\":false}"

static int echo(const cJSON *args, struct mcp_tool_call *call, void *user) {
    const char *text = cJSON_GetObjectItem(args, "text")->valuestring;
    const cJSON *times = cJSON_GetObjectItem(args, "times");
    const cJSON *mode = cJSON_GetObjectItem(args, "mode");
    char out[64];
    snprintf(out, sizeof out, "%s%s", (const char *)user, text);
    if (mode && strcmp(mode->valuestring, "upper") == 0)
        for (char *p = out; *p; p++) *p = (char)toupper((unsigned char)*p);
    for (int i = 0; i < (times ? times->valueint : 1); i++) {
        int rc = mcp_tool_text(call, "%s", out);
        if (rc) return rc;
    }
    return MCP_TOOL_OK;
}

static int look(const cJSON *args, struct mcp_tool_call *call, void *user) {
    (void)args, (void)user;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "n", 3);
    return mcp_tool_structured(call, o);
}

static int bad_output(const cJSON *args, struct mcp_tool_call *call, void *user) {
    (void)args, (void)user;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "n", "three");
    return mcp_tool_structured(call, o);
}

static int wipe(const cJSON *args, struct mcp_tool_call *call, void *user) {
    (void)user;
    return mcp_tool_text(call, "wiped %s", cJSON_GetObjectItem(args, "name")->valuestring);
}

/* What wipe would do; it refuses a name it does not know, as a tool checks
 * its arguments before it asks for a confirmation. */
static int wipe_preview(const cJSON *args, struct mcp_tool_call *call, void *user) {
    (void)user;
    const char *name = cJSON_GetObjectItem(args, "name")->valuestring;
    if (strcmp(name, "missing") == 0) return mcp_tool_fail(call, "no database named %s", name);
    return mcp_tool_text(call, "wipe the database %s", name);
}

static int make_preview(const cJSON *args, struct mcp_tool_call *call, void *user) {
    (void)args, (void)user;
    return mcp_tool_text(call, "make a thing and bill for it");
}

/* Three steps of progress; a repeated value is dropped. */
static int slow(const cJSON *args, struct mcp_tool_call *call, void *user) {
    (void)args, (void)user;
    int rc = mcp_tool_progress(call, 1, 3, "step 1");
    if (!rc) rc = mcp_tool_progress(call, 1, 3, "step 1 again");
    if (!rc) rc = mcp_tool_progress(call, 2, -1, NULL);
    if (!rc) rc = mcp_tool_progress(call, 3, 3, "step 3");
    return rc ? rc : mcp_tool_text(call, "done");
}

/* Polls for its cancellation a few times, as a wait loop would. */
static int wait_tool(const cJSON *args, struct mcp_tool_call *call, void *user) {
    (void)args, (void)user;
    for (int i = 0; i < 5; i++)
        if (mcp_tool_cancelled(call)) return MCP_TOOL_CANCELLED;
    return mcp_tool_text(call, "not cancelled");
}

static int fail_tool(const cJSON *args, struct mcp_tool_call *call, void *user) {
    (void)args, (void)user;
    int rc = mcp_tool_text(call, "partial output, dropped by mcp_tool_fail");
    return rc ? rc : mcp_tool_fail(call, "it broke: %s", "disk full");
}

static int crash(const cJSON *args, struct mcp_tool_call *call, void *user) {
    (void)args, (void)call, (void)user;
    return MCP_TOOL_INTERNAL;
}

#define RO                                                                                         \
    { .read_only = MCP_TOOL_HINT_YES, .open_world = MCP_TOOL_HINT_NO }

static const struct mcp_tool t_echo = {
    .name = "echo",
    .description = "Echoes.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\",\"maxLength\":8},"
        "\"times\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":3},"
        "\"mode\":{\"type\":\"string\",\"enum\":[\"plain\",\"upper\"]},"
        "\"ratio\":{\"type\":\"number\"},\"flag\":{\"type\":\"boolean\"},"
        "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"maxItems\":2}},"
        "\"required\":[\"text\"],\"additionalProperties\":false}",
    .annotations = RO,
    .call = echo,
};
static const struct mcp_tool t_look = {.name = "look",
                                       .title = "Look",
                                       .description = "Looks.",
                                       .input_schema = LOOK_IN,
                                       .output_schema = LOOK_OUT,
                                       .annotations = RO,
                                       .call = look};
static const struct mcp_tool t_bad_output = {.name = "bad_output",
                                             .description = "Breaks its output schema.",
                                             .input_schema = EMPTY_IN,
                                             .output_schema = LOOK_OUT,
                                             .annotations = RO,
                                             .call = bad_output};
/* Default annotations: destructive, as MCP says. */
static const struct mcp_tool t_wipe = {.name = "wipe",
                                       .description = "Wipes.",
                                       .input_schema = WIPE_IN,
                                       .call = wipe,
                                       .preview = wipe_preview};
/* Not destructive (it only adds), but not read-only: it spends, so it needs
 * the confirmation too. */
static const struct mcp_tool t_make = {.name = "make",
                                       .description = "Makes.",
                                       .input_schema = WIPE_IN,
                                       .annotations = {.destructive = MCP_TOOL_HINT_NO},
                                       .call = wipe,
                                       .preview = make_preview};
static const struct mcp_tool t_slow = {.name = "slow",
                                       .description = "Slow.",
                                       .input_schema = EMPTY_IN,
                                       .annotations = RO,
                                       .call = slow};
static const struct mcp_tool t_wait = {.name = "wait",
                                       .description = "Waits.",
                                       .input_schema = EMPTY_IN,
                                       .annotations = RO,
                                       .call = wait_tool};
static const struct mcp_tool t_fail = {.name = "fail",
                                       .description = "Fails.",
                                       .input_schema = EMPTY_IN,
                                       .annotations = RO,
                                       .call = fail_tool};
static const struct mcp_tool t_crash = {.name = "crash",
                                        .description = "Crashes.",
                                        .input_schema = EMPTY_IN,
                                        .annotations = RO,
                                        .call = crash};

static const struct mcp_server_info info = {
    .name = "t", .title = "Test", .version = "1", .instructions = "Use it."};

enum { MAIN, LIST, PAGED, TINY, NSERVERS };

static struct mcp_server *servers[NSERVERS];

static struct mcp_server *make(const struct mcp_tool *const *tools, size_t n) {
    struct mcp_server *s = mcp_server_new(&info);
    struct buf err;
    buf_init(&err, 1024);
    for (size_t i = 0; s && i < n; i++) {
        int rc = mcp_server_add(s, tools[i], "> ", &err);
        if (rc) fprintf(stderr, "registering %s: %s\n", tools[i]->name, buf_str(&err));
        CHECK_INT(rc, 0);
    }
    buf_free(&err);
    return s;
}

static void make_servers(void) {
    const struct mcp_tool *main_tools[] = {&t_echo, &t_look, &t_wipe,  &t_make,      &t_slow,
                                           &t_wait, &t_fail, &t_crash, &t_bad_output};
    const struct mcp_tool *list_tools[] = {&t_look, &t_wipe};
    servers[MAIN] = make(main_tools, sizeof main_tools / sizeof main_tools[0]);
    servers[LIST] = make(list_tools, 2);
    servers[PAGED] = make(list_tools, 2);
    mcp_server_set_page_size(servers[PAGED], 1);
    servers[TINY] = make(NULL, 0);
    mcp_server_set_max_line(servers[TINY], 64);
}

/* ---- sessions ---- */

/* clang-format off */
#define REQ(id, method, params) "{'jsonrpc':'2.0','id':" id ",'method':'" method "','params':" params "}\n"
#define NOTE(method, params) "{'jsonrpc':'2.0','method':'" method "','params':" params "}\n"
#define INIT(v) REQ("0", "initialize", "{'protocolVersion':'" v "','capabilities':{},'clientInfo':{'name':'c','version':'2'}}")
#define INITIALIZED NOTE("notifications/initialized", "{}")
#define CALL(id, tool, args) REQ(id, "tools/call", "{'name':'" tool "','arguments':" args "}")
#define CALL_P(id, tool, token) REQ(id, "tools/call", "{'name':'" tool "','arguments':{},'_meta':{'progressToken':" token "}}")

#define OK(id, result) "{'jsonrpc':'2.0','id':" id ",'result':" result "}\n"
#define ERR(id, code, msg) "{'jsonrpc':'2.0','id':" id ",'error':{'code':" code ",'message':'" msg "'}}\n"
#define ERR_NOID(code, msg) "{'jsonrpc':'2.0','error':{'code':" code ",'message':'" msg "'}}\n"
#define CAPS "'capabilities':{'tools':{'listChanged':false}}"
#define INIT_OK(v) OK("0", "{'protocolVersion':'" v "'," CAPS ",'serverInfo':{'name':'t','title':'Test','version':'1'},'instructions':'Use it.'}")
#define INIT_OK_OLD(v) OK("0", "{'protocolVersion':'" v "'," CAPS ",'serverInfo':{'name':'t','version':'1'},'instructions':'Use it.'}")
#define TEXT(t) "{'type':'text','text':'" t "'}"
#define RESULT(id, blocks) OK(id, "{'content':[" blocks "]}")
#define TOOL_ERROR(id, t) OK(id, "{'content':[" TEXT(t) "],'isError':true}")
#define BAD_ARGS "Invalid arguments for tool echo: "

#define START INIT("2025-11-25") INITIALIZED
#define STARTED INIT_OK("2025-11-25")
#define START_0618 INIT("2025-06-18") INITIALIZED
#define STARTED_0618 INIT_OK("2025-06-18")
#define START_0326 INIT("2025-03-26") INITIALIZED
#define STARTED_0326 INIT_OK_OLD("2025-03-26")
#define START_1105 INIT("2024-11-05") INITIALIZED
#define STARTED_1105 INIT_OK_OLD("2024-11-05")

#define LOOK_IN_Q "{'type':'object','properties':{'q':{'type':'string'}},'additionalProperties':false}"
#define LOOK_OUT_Q "{'type':'object','properties':{'n':{'type':'integer'}},'required':['n']}"
#define WIPE_IN_Q "{'type':'object','properties':{'name':{'type':'string'},'confirm':{'type':'boolean'}},'required':['name'],'additionalProperties':false}"
#define LOOK_HINTS "{'title':'Look','readOnlyHint':true,'destructiveHint':false,'idempotentHint':false,'openWorldHint':false}"
#define WIPE_HINTS "{'readOnlyHint':false,'destructiveHint':true,'idempotentHint':false,'openWorldHint':true}"
#define LOOK_LATEST "{'name':'look','title':'Look','description':'Looks.','inputSchema':" LOOK_IN_Q ",'outputSchema':" LOOK_OUT_Q ",'annotations':" LOOK_HINTS "}"
#define WIPE_LATEST "{'name':'wipe','description':'Wipes.','inputSchema':" WIPE_IN_Q ",'annotations':" WIPE_HINTS "}"

#define NOT_INIT "Not initialized: the first request must be initialize"
#define REFUSED "wipe was not run: it needs \\'confirm\\': true. The call would wipe the database db. Tell the user what it will do, and call it again with \\'confirm\\': true only after they agree."
#define MAKE_REFUSED "make was not run: it needs \\'confirm\\': true. The call would make a thing and bill for it. Tell the user what it will do, and call it again with \\'confirm\\': true only after they agree."
#define CTRL ": no NUL or other control character (U+0000-U+001F, U+007F-U+009F) is accepted"
#define PARSE_ERROR ERR_NOID("-32700", "Parse error: not one JSON value in UTF-8")
#define BAD_ID ERR_NOID("-32600", "Invalid Request: id must be a string or an integer")
#define TOO_LONG ERR_NOID("-32700", "Parse error: a message longer than 64 bytes")
#define NO_BATCH ERR_NOID("-32600", "Invalid Request: batches are accepted only in protocol version 2025-03-26")

/* One session per row: the lines sent, the exact lines expected back. */
static const struct row {
    const char *name;
    int server;
    const char *in, *out;
} rows[] = {
    /* initialize and version negotiation */
    {"initialize_speaks_the_current_version", MAIN,
     START,
     STARTED},
    {"initialize_2025_06_18_then_a_second_initialize_is_refused", MAIN,
     INIT("2025-06-18") INIT("2025-03-26"),
     STARTED_0618 ERR("0", "-32600", "initialize: already initialized")},
    {"initialize_2025_03_26_has_no_server_title", MAIN,
     START_0326,
     STARTED_0326},
    {"initialize_2024_11_05", MAIN,
     START_1105,
     STARTED_1105},
    {"initialize_unsupported_version_gets_the_latest", MAIN,
     INIT("1999-01-01"),
     INIT_OK("2025-11-25")},
    {"initialize_draft_stateless_version_gets_the_latest", MAIN,
     INIT("2026-07-28"),
     INIT_OK("2025-11-25")},
    {"initialize_without_version_is_invalid_params_and_changes_nothing", MAIN,
     REQ("0", "initialize", "{'capabilities':{},'clientInfo':{'name':'c','version':'2'}}")
     REQ("1", "initialize", "{'protocolVersion':20251125}")
     "{'jsonrpc':'2.0','id':2,'method':'initialize'}\n"
     REQ("3", "initialize", "{'protocolVersion':'2025-11-25','capabilities':[]}")
     REQ("4", "tools/list", "{}")
     INIT("2025-11-25"),
     ERR("0", "-32602", "initialize: protocolVersion must be a string")
     ERR("1", "-32602", "initialize: protocolVersion must be a string")
     ERR("2", "-32602", "initialize: protocolVersion must be a string")
     ERR("3", "-32602", "initialize: capabilities and clientInfo must be objects")
     ERR("4", "-32600", NOT_INIT)
     STARTED},
    {"requests_before_initialize_are_refused_but_ping", MAIN,
     REQ("1", "tools/list", "{}") CALL("2", "echo", "{'text':'a'}") REQ("3", "ping", "{}")
     REQ("4", "no/such", "{}") INITIALIZED,
     ERR("1", "-32600", NOT_INIT) ERR("2", "-32600", NOT_INIT) OK("3", "{}")
     ERR("4", "-32600", NOT_INIT)},
    {"initialized_notification_is_not_awaited", MAIN,
     INIT("2025-11-25") REQ("1", "ping", "{}") REQ("2", "tools/list", "{'cursor':'x'}"),
     STARTED OK("1", "{}") ERR("2", "-32602", "Invalid cursor")},
    {"ping_without_params", MAIN,
     START "{'jsonrpc':'2.0','id':'p','method':'ping'}\n",
     STARTED OK("'p'", "{}")},
    {"unknown_method_after_initialize", MAIN,
     START REQ("1", "resources/list", "{}"),
     STARTED ERR("1", "-32601", "Method not found: resources/list")},

    /* tools/list by version */
    {"tools_list_2025_11_25_titles_annotations_output_schema", LIST,
     START REQ("1", "tools/list", "{}"),
     STARTED OK("1", "{'tools':[" LOOK_LATEST "," WIPE_LATEST "]}")},
    {"tools_list_2025_06_18_same_as_latest", LIST,
     START_0618 REQ("1", "tools/list", "{}"),
     STARTED_0618 OK("1", "{'tools':[" LOOK_LATEST "," WIPE_LATEST "]}")},
    {"tools_list_2025_03_26_annotations_without_title_or_output_schema", LIST,
     START_0326 REQ("1", "tools/list", "{}"),
     STARTED_0326 OK("1", "{'tools':["
                          "{'name':'look','description':'Looks.','inputSchema':" LOOK_IN_Q ",'annotations':" LOOK_HINTS "},"
                          "{'name':'wipe','description':'Wipes.','inputSchema':" WIPE_IN_Q ",'annotations':" WIPE_HINTS "}]}")},
    {"tools_list_2024_11_05_name_description_schema_only", LIST,
     START_1105 REQ("1", "tools/list", "{}"),
     STARTED_1105 OK("1", "{'tools':["
                          "{'name':'look','description':'Looks.','inputSchema':" LOOK_IN_Q "},"
                          "{'name':'wipe','description':'Wipes.','inputSchema':" WIPE_IN_Q "}]}")},
    {"tools_list_pages_with_cursors", PAGED,
     START REQ("1", "tools/list", "{}") REQ("2", "tools/list", "{'cursor':'t1'}")
     REQ("3", "tools/list", "{'cursor':'t2'}") REQ("4", "tools/list", "{'cursor':'t0'}")
     REQ("5", "tools/list", "{'cursor':1}"),
     STARTED OK("1", "{'tools':[" LOOK_LATEST "],'nextCursor':'t1'}")
     OK("2", "{'tools':[" WIPE_LATEST "]}")
     ERR("3", "-32602", "Invalid cursor") ERR("4", "-32602", "Invalid cursor")
     ERR("5", "-32602", "Invalid cursor")},
    {"tools_list_rejects_a_cursor_it_never_gave", LIST,
     START REQ("1", "tools/list", "{'cursor':'t1'}"),
     STARTED ERR("1", "-32602", "Invalid cursor")},

    /* tools/call */
    {"call_returns_the_handlers_text_blocks", MAIN,
     START CALL("1", "echo", "{'text':'hi','times':2,'mode':'upper'}"),
     STARTED RESULT("1", TEXT("> HI") "," TEXT("> HI"))},
    {"call_without_arguments_member_is_an_empty_object", MAIN,
     START REQ("1", "tools/call", "{'name':'slow'}"),
     STARTED RESULT("1", TEXT("done"))},
    {"call_structured_result_also_as_text_2025_11_25", MAIN,
     START CALL("1", "look", "{}"),
     STARTED OK("1", "{'content':[" TEXT("{\\'n\\':3}") "],'structuredContent':{'n':3}}")},
    {"call_structured_result_left_out_before_2025_06_18", MAIN,
     START_0326 CALL("1", "look", "{}"),
     STARTED_0326 RESULT("1", TEXT("{\\'n\\':3}"))},
    {"call_unknown_tool_is_invalid_params", MAIN,
     START CALL("1", "nope", "{}"),
     STARTED ERR("1", "-32602", "Unknown tool: nope")},
    {"call_malformed_request_is_invalid_params_in_every_version", MAIN,
     START REQ("1", "tools/call", "{'arguments':{}}") CALL("2", "echo", "[]")
     CALL("3", "echo", "'text'") REQ("4", "tools/call", "{'name':'slow','_meta':{'progressToken':1.5}}"),
     STARTED ERR("1", "-32602", "tools/call: name must be a string")
     ERR("2", "-32602", "tools/call: arguments must be an object")
     ERR("3", "-32602", "tools/call: arguments must be an object")
     ERR("4", "-32602", "tools/call: _meta.progressToken must be a string or an integer")},
    {"call_bad_arguments_are_tool_errors_in_2025_11_25", MAIN,
     START CALL("1", "echo", "{}") CALL("2", "echo", "{'text':5}")
     CALL("3", "echo", "{'text':'a','x':1}") CALL("4", "echo", "{'text':'a','mode':'loud'}")
     CALL("5", "echo", "{'text':'a','times':4}") CALL("6", "echo", "{'text':'a','times':1.5}")
     CALL("7", "echo", "{'text':'123456789'}") CALL("8", "echo", "{'text':'a','tags':['x',2]}")
     CALL("9", "echo", "{'text':'a','tags':['x','y','z']}")
     CALL("10", "echo", "{'text':'a','times':2.0,'ratio':0.5,'flag':false,'tags':[]}"),
     STARTED TOOL_ERROR("1", BAD_ARGS "missing required argument \\'text\\'")
     TOOL_ERROR("2", BAD_ARGS "argument \\'text\\': expected a string, got a number")
     TOOL_ERROR("3", BAD_ARGS "unknown argument \\'x\\'")
     TOOL_ERROR("4", BAD_ARGS "argument \\'mode\\': must be one of [\\'plain\\',\\'upper\\']")
     TOOL_ERROR("5", BAD_ARGS "argument \\'times\\': must be at most 3")
     TOOL_ERROR("6", BAD_ARGS "argument \\'times\\': expected an integer, got a number")
     TOOL_ERROR("7", BAD_ARGS "argument \\'text\\': must have at most 8 characters")
     TOOL_ERROR("8", BAD_ARGS "argument \\'tags[1]\\': expected a string, got a number")
     TOOL_ERROR("9", BAD_ARGS "argument \\'tags\\': must have at most 2 items")
     RESULT("10", TEXT("> a") "," TEXT("> a"))},
    {"call_bad_arguments_are_invalid_params_before_2025_11_25", MAIN,
     START_0618 CALL("1", "echo", "{}") CALL("2", "echo", "{'text':'a','x':1}"),
     STARTED_0618 ERR("1", "-32602", BAD_ARGS "missing required argument \\'text\\'")
     ERR("2", "-32602", BAD_ARGS "unknown argument \\'x\\'")},
    {"call_tool_failure_is_an_is_error_result", MAIN,
     START CALL("1", "fail", "{}"),
     STARTED TOOL_ERROR("1", "it broke: disk full")},
    {"call_internal_failure_is_internal_error", MAIN,
     START CALL("1", "crash", "{}"),
     STARTED ERR("1", "-32603", "Internal error in tool crash")},
    {"call_result_breaking_the_output_schema_is_internal_error", MAIN,
     START CALL("1", "bad_output", "{}"),
     STARTED ERR("1", "-32603", "Internal error in tool bad_output")},

    /* the destructive rule */
    {"destructive_tool_runs_only_with_confirm_true", MAIN,
     START CALL("1", "wipe", "{'name':'db'}") CALL("2", "wipe", "{'name':'db','confirm':false}")
     CALL("3", "wipe", "{'name':'db','confirm':true}"),
     STARTED TOOL_ERROR("1", REFUSED) TOOL_ERROR("2", REFUSED) RESULT("3", TEXT("wiped db"))},
    {"destructive_refusal_is_a_tool_error_in_old_versions_too", MAIN,
     START_1105 CALL("1", "wipe", "{'name':'db'}"),
     STARTED_1105 TOOL_ERROR("1", REFUSED)},
    {"additive_tool_that_is_not_read_only_runs_only_with_confirm_true", MAIN,
     START CALL("1", "make", "{'name':'x'}") CALL("2", "make", "{'name':'x','confirm':true}"),
     STARTED TOOL_ERROR("1", MAKE_REFUSED) RESULT("2", TEXT("wiped x"))},
    {"unconfirmed_call_gets_the_preview_s_own_error_when_the_preview_fails", MAIN,
     START CALL("1", "wipe", "{'name':'missing'}"),
     STARTED TOOL_ERROR("1", "no database named missing")},
    {"nul_in_an_argument_is_refused_naming_it_not_cut_short", MAIN,
     START CALL("1", "wipe", "{'name':'team-prod\\u0000-scratch','confirm':true}")
     CALL("2", "echo", "{'text':'a\\u0085'}") CALL("3", "echo", "{'text':'a','t\\u0000':1}"),
     STARTED TOOL_ERROR("1", "Invalid arguments for tool wipe: argument \\'name\\' holds a NUL (U+0000) at character 10" CTRL)
     TOOL_ERROR("2", "Invalid arguments for tool echo: argument \\'text\\' holds the control character U+0085 at character 2" CTRL)
     TOOL_ERROR("3", "Invalid arguments for tool echo: an argument name holds a NUL (U+0000) at character 2" CTRL)},
    {"nul_in_a_tool_name_is_no_other_tool", MAIN,
     START CALL("1", "echo\\u0000x", "{'text':'a'}"),
     STARTED ERR("1", "-32602", "Unknown tool: echo??x")},
    {"destructive_confirm_of_the_wrong_type_fails_the_schema_first", MAIN,
     START CALL("1", "wipe", "{'name':'db','confirm':'yes'}"),
     STARTED TOOL_ERROR("1", "Invalid arguments for tool wipe: argument \\'confirm\\': expected a boolean, got a string")},

    /* progress */
    {"progress_notifications_follow_a_progress_token", MAIN,
     START CALL_P("1", "slow", "'tok'"),
     STARTED NOTE("notifications/progress", "{'progressToken':'tok','progress':1,'total':3,'message':'step 1'}")
     NOTE("notifications/progress", "{'progressToken':'tok','progress':2}")
     NOTE("notifications/progress", "{'progressToken':'tok','progress':3,'total':3,'message':'step 3'}")
     RESULT("1", TEXT("done"))},
    {"progress_integer_token_and_no_message_in_2024_11_05", MAIN,
     START_1105 CALL_P("1", "slow", "7"),
     STARTED_1105 NOTE("notifications/progress", "{'progressToken':7,'progress':1,'total':3}")
     NOTE("notifications/progress", "{'progressToken':7,'progress':2}")
     NOTE("notifications/progress", "{'progressToken':7,'progress':3,'total':3}")
     RESULT("1", TEXT("done"))},
    {"progress_not_sent_without_a_token", MAIN,
     START CALL("1", "slow", "{}"),
     STARTED RESULT("1", TEXT("done"))},

    /* cancellation */
    {"cancelled_call_gets_no_reply_and_the_session_goes_on", MAIN,
     START CALL("9", "wait", "{}") NOTE("notifications/cancelled", "{'requestId':9,'reason':'user'}")
     REQ("10", "ping", "{}"),
     STARTED OK("10", "{}")},
    {"cancellation_of_another_request_is_ignored", MAIN,
     START CALL("'a'", "wait", "{}") NOTE("notifications/cancelled", "{'requestId':'b'}")
     NOTE("notifications/cancelled", "{'requestId':9}"),
     STARTED RESULT("'a'", TEXT("not cancelled"))},

    /* notifications and responses get no reply */
    {"notifications_get_no_reply", MAIN,
     START NOTE("notifications/initialized", "{}") NOTE("notifications/roots/list_changed", "{}")
     NOTE("notifications/cancelled", "{'requestId':1}") "{'jsonrpc':'2.0','method':'x'}\n"
     "{'jsonrpc':'2.0','id':5,'result':{}}\n"
     "{'jsonrpc':'2.0','id':6,'error':{'code':1,'message':'m'}}\n",
     STARTED},

    /* malformed input */
    {"malformed_json_is_a_parse_error_without_id", MAIN,
     START "{'jsonrpc':'2.0','id':1,'method':'ping'\n" "{'jsonrpc':'2.0','id':2,'method':'ping'} x\n"
     "nul\n" REQ("3", "ping", "{}"),
     STARTED PARSE_ERROR PARSE_ERROR PARSE_ERROR OK("3", "{}")},
    {"blank_lines_are_skipped", MAIN,
     START "\n   \n\t\r\n" REQ("1", "ping", "{}"),
     STARTED OK("1", "{}")},
    {"invalid_requests_keep_a_readable_id", MAIN,
     START "{'jsonrpc':'1.0','id':1,'method':'ping'}\n" "{'id':2,'method':'ping'}\n"
     "{'jsonrpc':'2.0','id':3,'method':5}\n" "{'jsonrpc':'2.0','id':4,'method':'ping','params':[]}\n"
     "{'jsonrpc':'2.0','id':5}\n",
     STARTED ERR("1", "-32600", "Invalid Request: jsonrpc must be \\'2.0\\'")
     ERR("2", "-32600", "Invalid Request: jsonrpc must be \\'2.0\\'")
     ERR("3", "-32600", "Invalid Request: method must be a string")
     ERR("4", "-32600", "Invalid Request: params must be an object")
     ERR("5", "-32600", "Invalid Request: a request needs a method")},
    {"invalid_ids_are_refused_without_an_id", MAIN,
     START "{'jsonrpc':'2.0','id':null,'method':'ping'}\n" "{'jsonrpc':'2.0','id':1.5,'method':'ping'}\n"
     "{'jsonrpc':'2.0','id':true,'method':'ping'}\n" "{'jsonrpc':'2.0','id':{},'method':'ping'}\n" "5\n",
     STARTED BAD_ID BAD_ID BAD_ID BAD_ID
     ERR_NOID("-32600", "Invalid Request: a message must be a JSON object")},

    /* batches: 2025-03-26 only */
    {"batch_in_2025_03_26_gets_one_array_of_responses", MAIN,
     START_0326 "[{'jsonrpc':'2.0','id':1,'method':'ping'},{'jsonrpc':'2.0','method':'notifications/x'},"
     "{'jsonrpc':'2.0','id':2,'method':'tools/call','params':{'name':'echo','arguments':{'text':'b'}}},"
     "{'jsonrpc':'2.0','id':3,'method':'initialize','params':{'protocolVersion':'2025-03-26'}},7]\n",
     STARTED_0326 "[{'jsonrpc':'2.0','id':1,'result':{}},"
     "{'jsonrpc':'2.0','id':2,'result':{'content':[" TEXT("> b") "]}},"
     "{'jsonrpc':'2.0','id':3,'error':{'code':-32600,'message':'initialize must not be part of a batch'}},"
     "{'jsonrpc':'2.0','error':{'code':-32600,'message':'Invalid Request: a message must be a JSON object'}}]\n"},
    {"batch_of_notifications_gets_nothing_and_an_empty_batch_an_error", MAIN,
     START_0326 "[{'jsonrpc':'2.0','method':'notifications/x'}]\n[]\n",
     STARTED_0326 ERR_NOID("-32600", "Invalid Request: an empty batch")},
    {"batch_with_progress_writes_notifications_before_the_array", MAIN,
     START_0326 "[{'jsonrpc':'2.0','id':1,'method':'tools/call','params':{'name':'slow','_meta':{'progressToken':'k'}}}]\n",
     STARTED_0326 NOTE("notifications/progress", "{'progressToken':'k','progress':1,'total':3,'message':'step 1'}")
     NOTE("notifications/progress", "{'progressToken':'k','progress':2}")
     NOTE("notifications/progress", "{'progressToken':'k','progress':3,'total':3,'message':'step 3'}")
     "[{'jsonrpc':'2.0','id':1,'result':{'content':[" TEXT("done") "]}}]\n"},
    {"batch_refused_in_other_versions_and_before_initialize", MAIN,
     "[{'jsonrpc':'2.0','id':1,'method':'ping'}]\n" START "[{'jsonrpc':'2.0','id':1,'method':'ping'}]\n",
     NO_BATCH STARTED NO_BATCH},
    {"batch_refused_in_2024_11_05", MAIN,
     START_1105 "[{'jsonrpc':'2.0','id':1,'method':'ping'}]\n",
     STARTED_1105 NO_BATCH},

    /* the end of the input */
    {"empty_input_ends_the_session_silently", MAIN,
     "",
     ""},
    {"last_line_without_newline_is_answered", MAIN,
     "{'jsonrpc':'2.0','id':1,'method':'ping'}",
     OK("1", "{}")},
};
/* clang-format on */

static void run_row(const struct row *r) {
    char *in = mt_q(r->in), *want = mt_q(r->out);
    int rc;
    char *got = mt_session_raw(servers[r->server], in, strlen(in), &rc);
    if (rc || !got || strcmp(got, want) != 0) fprintf(stderr, "-- case %s\n", r->name);
    CHECK_INT(rc, 0);
    CHECK_STR(got, want);
    free(in);
    free(want);
    free(got);
}

/* ---- sessions that need raw bytes ---- */

static void test_invalid_utf8_is_a_parse_error(void) {
    char *start = mt_q(START REQ("1", "ping", "{'x':'\xff'}") REQ("2", "ping", "{'x':'\xc3\xa9'}")
                           REQ("3", "ping", "{'x':'\xed\xa0\x80'}"));
    char *want = mt_q(STARTED PARSE_ERROR OK("2", "{}") PARSE_ERROR);
    int rc;
    char *got = mt_session_raw(servers[MAIN], start, strlen(start), &rc);
    CHECK_INT(rc, 0);
    CHECK_STR(got, want);
    free(start);
    free(want);
    free(got);
}

/* TINY accepts lines of 64 bytes: a longer one gets one parse error while
 * its bytes are skipped, and the session goes on. */
static void test_overlong_line_is_a_parse_error_and_skipped(void) {
    char in[8192];
    char pad[80], big[3000];
    memset(pad, ' ', sizeof pad);
    memset(big, 'x', sizeof big);
    /* 64 bytes exactly: a ping padded with spaces. */
    const char *ping = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
    size_t n = (size_t)snprintf(in, sizeof in, "%s%.*s\n", ping, (int)(64 - strlen(ping)), pad);
    n += (size_t)snprintf(in + n, sizeof in - n, "%s%.*s\n", ping, (int)(65 - strlen(ping)), pad);
    n += (size_t)snprintf(in + n, sizeof in - n, "[\"%.*s\"]\n", (int)sizeof big, big);
    n += (size_t)snprintf(in + n, sizeof in - n,
                          "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
    n += (size_t)snprintf(in + n, sizeof in - n, "%.*s", (int)sizeof big, big);
    int rc;
    char *got = mt_session_raw(servers[TINY], in, n, &rc);
    char *want = mt_q(OK("1", "{}") TOO_LONG TOO_LONG OK("2", "{}") TOO_LONG);
    CHECK_INT(rc, 0);
    CHECK_STR(got, want);
    free(got);
    free(want);
}

/* Every session starts uninitialized, whatever the last one negotiated. */
static void test_each_run_is_a_new_session(void) {
    char *a = mt_q(START), *b = mt_q(REQ("1", "tools/list", "{}"));
    char *want = mt_q(ERR("1", "-32600", NOT_INIT));
    int rc;
    free(mt_session_raw(servers[MAIN], a, strlen(a), &rc));
    char *got = mt_session_raw(servers[MAIN], b, strlen(b), &rc);
    CHECK_STR(got, want);
    free(a);
    free(b);
    free(want);
    free(got);
}

/* A closed output ends the session with an error instead of looping. */
static void test_write_failure_ends_the_session(void) {
    char *in = mt_q(REQ("1", "ping", "{}") REQ("2", "ping", "{}"));
    int fd = mt_memfile(in, strlen(in));
    int ro = open("/dev/null", O_RDONLY); /* writes fail with EBADF */
    struct buf err;
    buf_init(&err, 1024);
    CHECK_INT(mcp_server_run(servers[MAIN], fd, ro, &err), MCP_SERVER_ERR_IO);
    CHECK_STR(buf_str(&err), "cannot write to the output");
    buf_free(&err);
    close(fd);
    close(ro);
    free(in);
}

/* ---- registration ---- */

static int noop(const cJSON *args, struct mcp_tool_call *call, void *user) {
    (void)args, (void)user;
    return mcp_tool_text(call, "ok");
}

#define OBJ(props) "{\"type\":\"object\",\"properties\":{" props "},\"additionalProperties\":false}"
#define CONFIRM    "\"confirm\":{\"type\":\"boolean\"}"

static const struct refusal {
    struct mcp_tool tool;
    const char *err; /* NULL: accepted */
} refusals[] = {
    {{.name = "a b", .description = "d", .input_schema = EMPTY_IN, .annotations = RO, .call = noop},
     "tool a b: the name must be 1 to 128 of A-Z a-z 0-9 _ - ."},
    {{.name = "", .description = "d", .input_schema = EMPTY_IN, .annotations = RO, .call = noop},
     "tool : the name must be 1 to 128 of A-Z a-z 0-9 _ - ."},
    {{.name = "x", .description = "d", .input_schema = EMPTY_IN, .annotations = RO, .call = noop},
     NULL},
    {{.name = "x", .description = "d", .input_schema = EMPTY_IN, .annotations = RO, .call = noop},
     "tool x: registered twice"},
    {{.name = "nodesc", .input_schema = EMPTY_IN, .annotations = RO, .call = noop},
     "tool nodesc: a description and a handler are required"},
    {{.name = "nocall", .description = "d", .input_schema = EMPTY_IN, .annotations = RO},
     "tool nocall: a description and a handler are required"},
    {{.name = "notjson", .description = "d", .input_schema = "{", .annotations = RO, .call = noop},
     "tool notjson: input_schema is not JSON"},
    {{.name = "noschema", .description = "d", .annotations = RO, .call = noop},
     "tool noschema: input_schema is missing"},
    {{.name = "pattern",
      .description = "d",
      .input_schema = OBJ("\"s\":{\"type\":\"string\",\"pattern\":\"^a\"}"),
      .annotations = RO,
      .call = noop},
     "tool pattern: input_schema: schema node \"s\": keyword \"pattern\" is not supported for type "
     "string"},
    {{.name = "minimum_on_string",
      .description = "d",
      .input_schema = OBJ("\"s\":{\"type\":\"string\",\"minimum\":1}"),
      .annotations = RO,
      .call = noop},
     "tool minimum_on_string: input_schema: schema node \"s\": keyword \"minimum\" is not "
     "supported "
     "for type string"},
    {{.name = "notype",
      .description = "d",
      .input_schema = OBJ("\"s\":{\"description\":\"any\"}"),
      .annotations = RO,
      .call = noop},
     "tool notype: input_schema: schema node \"s\": type must be one of the supported types"},
    {{.name = "badreq",
      .description = "d",
      .input_schema = "{\"type\":\"object\",\"required\":[\"s\"],\"additionalProperties\":false}",
      .annotations = RO,
      .call = noop},
     "tool badreq: input_schema: schema: required names a property that is not declared"},
    {{.name = "badenum",
      .description = "d",
      .input_schema = OBJ("\"n\":{\"type\":\"integer\",\"enum\":[1,\"2\"]}"),
      .annotations = RO,
      .call = noop},
     "tool badenum: input_schema: schema node \"n\": an enum value has the wrong type"},
    {{.name = "open",
      .description = "d",
      .input_schema = "{\"type\":\"object\"}",
      .annotations = RO,
      .call = noop},
     "tool open: input_schema must say \"additionalProperties\": false"},
    {{.name = "notobject",
      .description = "d",
      .input_schema = "{\"type\":\"string\"}",
      .annotations = RO,
      .call = noop},
     "tool notobject: input_schema: the root must have type object"},
    {{.name = "badout",
      .description = "d",
      .input_schema = EMPTY_IN,
      .output_schema = "{\"type\":\"object\",\"oneOf\":[]}",
      .annotations = RO,
      .call = noop},
     "tool badout: output_schema: schema: keyword \"oneOf\" is not supported for type object"},
    /* The confirmation rule: a tool that is not read-only (MCP's default) needs it. */
    {{.name = "forgot", .description = "d", .input_schema = EMPTY_IN, .call = noop},
     "tool forgot: not read-only (it needs \"confirm\": true) but input_schema declares no "
     "boolean \"confirm\" property"},
    {{.name = "forgot2",
      .description = "d",
      .input_schema = OBJ("\"confirm\":{\"type\":\"string\"}"),
      .annotations = {.destructive = MCP_TOOL_HINT_YES},
      .call = noop,
      .preview = noop},
     "tool forgot2: not read-only (it needs \"confirm\": true) but input_schema declares no "
     "boolean \"confirm\" property"},
    {{.name = "nopreview", .description = "d", .input_schema = OBJ(CONFIRM), .call = noop},
     "tool nopreview: not read-only (it needs \"confirm\": true) but has no preview to say what "
     "it would do"},
    {{.name = "both",
      .description = "d",
      .input_schema = OBJ(CONFIRM),
      .annotations = {.read_only = MCP_TOOL_HINT_YES, .destructive = MCP_TOOL_HINT_YES},
      .call = noop},
     "tool both: annotations: read-only and destructive at once"},
    {{.name = "additive_unconfirmed",
      .description = "d",
      .input_schema = EMPTY_IN,
      .annotations = {.destructive = MCP_TOOL_HINT_NO},
      .call = noop,
      .preview = noop},
     "tool additive_unconfirmed: not read-only (it needs \"confirm\": true) but input_schema "
     "declares no boolean \"confirm\" property"},
    {{.name = "additive",
      .description = "d",
      .input_schema = OBJ(CONFIRM),
      .annotations = {.destructive = MCP_TOOL_HINT_NO},
      .call = noop,
      .preview = noop},
     NULL},
    {{.name = "deleter",
      .description = "d",
      .input_schema = OBJ(CONFIRM),
      .call = noop,
      .preview = noop},
     NULL},
};

static void test_registration_refusals(void) {
    struct mcp_server *s = mcp_server_new(&info);
    struct buf err;
    buf_init(&err, 1024);
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
        const struct refusal *r = &refusals[i];
        int rc = mcp_server_add(s, &r->tool, NULL, &err);
        if ((rc != 0) != (r->err != NULL)) fprintf(stderr, "-- tool %s\n", r->tool.name);
        CHECK_INT(rc, r->err ? MCP_SERVER_ERR_TOOL : MCP_SERVER_OK);
        if (r->err) CHECK_STR(buf_str(&err), r->err);
    }
    /* Only the accepted ones are listed, destructiveHint as resolved. */
    char *in = mt_q(START REQ("1", "tools/list", "{}"));
    int rc;
    char *got = mt_session_raw(s, in, strlen(in), &rc);
    /* clang-format off */
    char *want = mt_q(STARTED OK("1", "{'tools':["
        "{'name':'x','description':'d','inputSchema':{'type':'object','additionalProperties':false},"
        "'annotations':{'readOnlyHint':true,'destructiveHint':false,'idempotentHint':false,'openWorldHint':false}},"
        "{'name':'additive','description':'d','inputSchema':{'type':'object','properties':{'confirm':{'type':'boolean'}},'additionalProperties':false},"
        "'annotations':{'readOnlyHint':false,'destructiveHint':false,'idempotentHint':false,'openWorldHint':true}},"
        "{'name':'deleter','description':'d','inputSchema':{'type':'object','properties':{'confirm':{'type':'boolean'}},'additionalProperties':false},"
        "'annotations':{'readOnlyHint':false,'destructiveHint':true,'idempotentHint':false,'openWorldHint':true}}]}"));
    /* clang-format on */
    CHECK_STR(got, want);
    free(in);
    free(got);
    free(want);
    buf_free(&err);
    mcp_server_free(s);
}

int main(void) {
    make_servers();
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) run_row(&rows[i]);
    test_invalid_utf8_is_a_parse_error();
    test_overlong_line_is_a_parse_error_and_skipped();
    test_each_run_is_a_new_session();
    test_write_failure_ends_the_session();
    test_registration_refusals();
    for (int i = 0; i < NSERVERS; i++) mcp_server_free(servers[i]);
    return check_exit();
}
