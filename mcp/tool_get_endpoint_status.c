/* get_endpoint_status: DescribeEndpoint, with the config's instance types,
 * the model it serves and the cost so far. Read-only. */
#include "epinfo.h"
#include "mcp_aws.h"

static int tool_get_endpoint_status_op(struct epops *ops, const char *region, const cJSON *args,
                                       struct epops_out *out, struct buf *err) {
    return epinfo_status(ops, region, mcp_aws_string(args, "endpoint_name", ""),
                         mcp_aws_number(args, "price_per_hour", 0), out, err);
}

static int tool_get_endpoint_status_call(const cJSON *args, struct mcp_tool_call *call,
                                         void *user) {
    return mcp_aws_run(user, call, args, tool_get_endpoint_status_op);
}

const struct mcp_tool tool_get_endpoint_status = {
    .name = "get_endpoint_status",
    .title = "Endpoint status",
    .description = "The status of a SageMaker endpoint (Creating, Updating, InService, Failed "
                   "with its reason, Deleting), the model it serves (SM_VLLM_MODEL), its "
                   "instances and placed instance type, and what it has cost since its creation.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{" MCP_AWS_NAME_PROP "," MCP_AWS_REGION_PROP
        ",\"price_per_hour\":{\"type\":\"number\",\"minimum\":0.0001,\"maximum\":10000,"
        "\"description\":\"USD an hour (default: the known price of its type)\"}},"
        "\"required\":[\"endpoint_name\"],\"additionalProperties\":false}",
    .annotations = {.read_only = MCP_TOOL_HINT_YES, .idempotent = MCP_TOOL_HINT_YES},
    .call = tool_get_endpoint_status_call,
};
