/* verify_model_health: one InvokeEndpoint checked for the reply's shape and a
 * known answer. Read-only. */
#include "epinfo.h"
#include "mcp_aws.h"

static int tool_verify_model_health_op(struct epops *ops, const char *region, const cJSON *args,
                                       struct epops_out *out, struct buf *err) {
    return epinfo_verify(ops, region, mcp_aws_string(args, "endpoint_name", ""),
                         mcp_aws_string(args, "variant", NULL), out, err);
}

static int tool_verify_model_health_call(const cJSON *args, struct mcp_tool_call *call,
                                         void *user) {
    return mcp_aws_run(user, call, args, tool_verify_model_health_op);
}

const struct mcp_tool tool_verify_model_health = {
    .name = "verify_model_health",
    .title = "Verify model health",
    .description = "Asks the endpoint \"" EPINFO_VERIFY_PROMPT "\" and checks the reply: the vLLM "
                   "chat shape with usage, and the answer " EPINFO_VERIFY_ANSWER ".",
    .input_schema = "{\"type\":\"object\",\"properties\":{" MCP_AWS_NAME_PROP ",\"variant\":{"
                    "\"type\":\"string\",\"maxLength\":63}," MCP_AWS_REGION_PROP
                    "},\"required\":[\"endpoint_name\"],\"additionalProperties\":false}",
    .annotations = {.read_only = MCP_TOOL_HINT_YES},
    .call = tool_verify_model_health_call,
};
