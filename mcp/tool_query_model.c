/* query_model: one chat request to the endpoint. Read-only (it changes no AWS resource). */
#include "epinfo.h"
#include "mcp_aws.h"

static int tool_query_model_op(struct epops *ops, const char *region, const cJSON *args,
                               struct epops_out *out, struct buf *err) {
    struct epinfo_query q = {
        mcp_aws_string(args, "prompt", ""), mcp_aws_string(args, "system", NULL),
        (long)mcp_aws_number(args, "max_tokens", 512), mcp_aws_number(args, "temperature", 0.2),
        mcp_aws_string(args, "variant", NULL)};
    return epinfo_query(ops, region, mcp_aws_string(args, "endpoint_name", ""), &q, out, err);
}

static int tool_query_model_call(const cJSON *args, struct mcp_tool_call *call, void *user) {
    return mcp_aws_run(user, call, args, tool_query_model_op);
}

const struct mcp_tool tool_query_model = {
    .name = "query_model",
    .title = "Query model",
    .description = "Sends one chat completion to the endpoint (InvokeEndpoint) and returns the "
                   "reply, its token counts and the wall time.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{" MCP_AWS_NAME_PROP ",\"prompt\":{\"type\":"
        "\"string\",\"minLength\":1,\"maxLength\":100000,\"contentMediaType\":\"text/plain\"},"
        "\"system\":{\"type\":\"string\",\"maxLength\":100000,\"contentMediaType\":"
        "\"text/plain\"},\"max_tokens\":{\"type\":\"integer\","
        "\"minimum\":1,\"maximum\":8192},\"temperature\":{\"type\":\"number\","
        "\"minimum\":0,\"maximum\":2},\"variant\":{\"type\":\"string\",\"maxLength\":63}"
        "," MCP_AWS_REGION_PROP "},\"required\":[\"endpoint_name\",\"prompt\"],"
        "\"additionalProperties\":false}",
    .annotations = {.read_only = MCP_TOOL_HINT_YES},
    .call = tool_query_model_call,
};
