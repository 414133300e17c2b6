/* get_help: what sm-mcp offers and the workflow of a benchmark, from the
 * tools this build actually registered. Read-only, no AWS. */
#include <stdbool.h>
#include <string.h>

#include "buf.h"
#include "mcp_tool.h"

#ifndef SM_VERSION
#define SM_VERSION "0"
#endif

/* The steps of a benchmark, and the tool each needs. */
static const struct tool_get_help_step {
    const char *tool;
    const char *what;
} workflow[] = {
    {"check_quotas", "check the account's quota for the instance type in the region (capacity is "
                     "separate: a placement can still fail with InsufficientInstanceCapacity)"},
    {"find_vllm_image", "find the AWS vLLM container image for the region"},
    {"get_deployment_config", "prepare the model, endpoint config and endpoint settings "
                              "(SM_VLLM_MODEL names the checkpoint)"},
    {"deploy_endpoint", "create the endpoint"},
    {"get_endpoint_status", "poll until InService, or Failed with its reason"},
    {"get_endpoint_logs", "read the container's log (CloudWatch) when start-up fails or stalls"},
    {"verify_model_health", "send a test prompt and check the answer"},
    {"query_model", "send one prompt of your own"},
    {"run_benchmark", "run the wrk scenarios (decode, sweep, quiz) and save the result files"},
    {"compare_results", "compare two runs (e.g. bf16 against QAT) as ratios"},
    {"autoscale_set", "optionally, scale the endpoint's instances with its load (autoscale_show, "
                      "autoscale_remove)"},
    {"list_endpoints", "list the endpoints of the region, to find leftovers"},
    {"delete_endpoint", "delete the endpoint when done: it bills by the hour"},
};

#define TOOL_GET_HELP_NSTEPS (sizeof workflow / sizeof workflow[0])

static const struct mcp_tool *tool_get_help_find(const struct mcp_tool_call *call,
                                                 const char *name) {
    for (size_t i = 0; i < mcp_tool_count(call); i++)
        if (strcmp(mcp_tool_at(call, i)->name, name) == 0) return mcp_tool_at(call, i);
    return NULL;
}

static const char *tool_get_help_flags(const struct mcp_tool *t) {
    if (t->annotations.read_only == MCP_TOOL_HINT_YES) return " (read-only)";
    return mcp_tool_needs_confirm(t) ? " (needs confirm)" : "";
}

/* {name, title, description, read_only, needs_confirm}; NULL when out of memory. */
static cJSON *tool_get_help_summary(const struct mcp_tool *t) {
    cJSON *j = cJSON_CreateObject();
    if (!j || !cJSON_AddStringToObject(j, "name", t->name) ||
        (t->title && !cJSON_AddStringToObject(j, "title", t->title)) ||
        !cJSON_AddStringToObject(j, "description", t->description) ||
        !cJSON_AddBoolToObject(j, "read_only", t->annotations.read_only == MCP_TOOL_HINT_YES) ||
        !cJSON_AddBoolToObject(j, "needs_confirm", mcp_tool_needs_confirm(t))) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

static int tool_get_help_add_workflow(struct mcp_tool_call *call, struct buf *text, cJSON *out) {
    cJSON *steps = cJSON_AddArrayToObject(out, "workflow");
    int rc = steps ? buf_adds(text, "Workflow of a benchmark:\n") : BUF_ERR_NOMEM;
    for (size_t i = 0; !rc && i < TOOL_GET_HELP_NSTEPS; i++) {
        const struct mcp_tool *t = tool_get_help_find(call, workflow[i].tool);
        cJSON *s = cJSON_CreateObject();
        cJSON_AddItemToArray(steps, s);
        if (!s || !cJSON_AddStringToObject(s, "tool", workflow[i].tool) ||
            !cJSON_AddStringToObject(s, "what", workflow[i].what) ||
            !cJSON_AddBoolToObject(s, "available", t != NULL))
            return BUF_ERR_NOMEM;
        rc = buf_addf(text, "  %zu. %s: %s%s\n", i + 1, workflow[i].tool, workflow[i].what,
                      t ? "" : " [not in this build]");
    }
    return rc;
}

static int tool_get_help_add_tools(struct mcp_tool_call *call, const struct mcp_tool *only,
                                   struct buf *text, cJSON *out) {
    cJSON *list = cJSON_AddArrayToObject(out, "tools");
    int rc = list ? buf_adds(text, only ? "" : "\nTools of this build:\n") : BUF_ERR_NOMEM;
    for (size_t i = 0; !rc && i < mcp_tool_count(call); i++) {
        const struct mcp_tool *t = mcp_tool_at(call, i);
        if (only && t != only) continue;
        cJSON *j = tool_get_help_summary(t);
        if (!j) return BUF_ERR_NOMEM;
        cJSON_AddItemToArray(list, j);
        rc = only ? buf_addf(text, "%s%s: %s\nArguments (JSON Schema): %s\n", t->name,
                             tool_get_help_flags(t), t->description, t->input_schema)
                  : buf_addf(text, "  %s%s: %s\n", t->name, tool_get_help_flags(t),
                             t->title ? t->title : "");
    }
    return rc;
}

static int tool_get_help_call(const cJSON *args, struct mcp_tool_call *call, void *user) {
    (void)user;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(args, "tool");
    const struct mcp_tool *only = name ? tool_get_help_find(call, name->valuestring) : NULL;
    if (name && !only)
        return mcp_tool_fail(call,
                             "no tool named \"%.128s\"; call get_help without arguments "
                             "for the list",
                             name->valuestring);
    struct buf text;
    buf_init(&text, BUF_NO_CAP);
    cJSON *out = cJSON_CreateObject();
    int rc = out && cJSON_AddStringToObject(out, "server", "sm-mcp") &&
                     cJSON_AddStringToObject(out, "version", SM_VERSION)
                 ? 0
                 : BUF_ERR_NOMEM;
    if (!rc && !only)
        rc = buf_addf(&text,
                      "sm-mcp %s: Amazon SageMaker endpoints for wrk-sagemaker benchmarks "
                      "(MCP %s).\n\n",
                      SM_VERSION, mcp_tool_version(call));
    if (!rc && !only) rc = tool_get_help_add_workflow(call, &text, out);
    if (!rc) rc = tool_get_help_add_tools(call, only, &text, out);
    if (!rc && !only)
        rc =
            buf_adds(&text, "\nA tool marked \"needs confirm\" creates, changes or deletes AWS "
                            "resources or sends load: without \"confirm\": true it only says what "
                            "it would do; tell the user, and pass \"confirm\": true only after "
                            "they agree. Call get_help with {\"tool\": NAME} for its arguments.\n");
    if (!rc) rc = mcp_tool_text_n(call, buf_str(&text), text.len);
    buf_free(&text);
    if (rc) {
        cJSON_Delete(out);
        return MCP_TOOL_INTERNAL;
    }
    return mcp_tool_structured(call, out);
}

const struct mcp_tool tool_get_help = {
    .name = "get_help",
    .title = "Help: workflow and tools",
    .description = "Explains what this server offers: the workflow of a SageMaker benchmark "
                   "(quotas, image, deploy, status, logs, health, benchmark, compare, delete) and "
                   "the tools of this build. Give \"tool\" to get one tool's arguments.",
    .input_schema = "{\"type\":\"object\",\"properties\":{\"tool\":{\"type\":\"string\","
                    "\"description\":\"The name of one tool to explain\"}},"
                    "\"additionalProperties\":false}",
    .output_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"server\":{\"type\":\"string\"},\"version\":{\"type\":\"string\"},"
        "\"workflow\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
        "\"tool\":{\"type\":\"string\"},\"what\":{\"type\":\"string\"},"
        "\"available\":{\"type\":\"boolean\"}},\"required\":[\"tool\",\"what\",\"available\"]}},"
        "\"tools\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
        "\"name\":{\"type\":\"string\"},\"title\":{\"type\":\"string\"},"
        "\"description\":{\"type\":\"string\"},\"read_only\":{\"type\":\"boolean\"},"
        "\"needs_confirm\":{\"type\":\"boolean\"}},"
        "\"required\":[\"name\",\"description\",\"read_only\",\"needs_confirm\"]}}},"
        "\"required\":[\"server\",\"version\",\"tools\"]}",
    .annotations = {.read_only = MCP_TOOL_HINT_YES,
                    .destructive = MCP_TOOL_HINT_NO,
                    .idempotent = MCP_TOOL_HINT_YES,
                    .open_world = MCP_TOOL_HINT_NO},
    .call = tool_get_help_call,
};
