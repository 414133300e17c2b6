/* get_endpoint_logs: the container's log (CloudWatch Logs). Read-only. */
#include "epinfo.h"
#include "mcp_aws.h"

static int tool_get_endpoint_logs_op(struct epops *ops, const char *region, const cJSON *args,
                                     struct epops_out *out, struct buf *err) {
    return epinfo_logs(ops, region, mcp_aws_string(args, "endpoint_name", ""),
                       mcp_aws_number(args, "since_s", 3600),
                       (long)mcp_aws_number(args, "limit", 50), out, err);
}

static int tool_get_endpoint_logs_call(const cJSON *args, struct mcp_tool_call *call, void *user) {
    return mcp_aws_run(user, call, args, tool_get_endpoint_logs_op);
}

const struct mcp_tool tool_get_endpoint_logs = {
    .name = "get_endpoint_logs",
    .title = "Endpoint container logs",
    .description = "The last lines of the endpoint's container log (/aws/sagemaker/Endpoints/NAME "
                   "in CloudWatch Logs): model download, vLLM start-up, errors. A capacity wait "
                   "has no log yet: that tells it from a slow start.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{" MCP_AWS_NAME_PROP "," MCP_AWS_REGION_PROP
        ",\"since_s\":{\"type\":\"number\",\"minimum\":1,\"maximum\":1209600,"
        "\"description\":\"How far back (default 3600)\"},\"limit\":{\"type\":"
        "\"integer\",\"minimum\":1,\"maximum\":10000,\"description\":\"Lines (default "
        "50)\"}},\"required\":[\"endpoint_name\"],\"additionalProperties\":false}",
    .annotations = {.read_only = MCP_TOOL_HINT_YES},
    .call = tool_get_endpoint_logs_call,
};
