/* autoscale_show: the scalable targets, scaling policies and last scaling
 * activities of an endpoint's variants (epscale.h). Read-only. */
#include "epscale.h"
#include "mcp_aws.h"

static int tool_autoscale_show_op(struct epops *ops, const char *region, const cJSON *args,
                                  struct epops_out *out, struct buf *err) {
    return epscale_show(ops, region, mcp_aws_string(args, "endpoint_name", ""), out, err);
}

static int tool_autoscale_show_call(const cJSON *args, struct mcp_tool_call *call, void *user) {
    return mcp_aws_run(user, call, args, tool_autoscale_show_op);
}

const struct mcp_tool tool_autoscale_show = {
    .name = "autoscale_show",
    .title = "Endpoint autoscaling",
    .description = "The Application Auto Scaling of a SageMaker endpoint: each variant's "
                   "scalable target (min and max instances), its scaling policies and its last "
                   "scaling activities; any endpoint.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{" MCP_AWS_NAME_PROP "," MCP_AWS_REGION_PROP "},"
        "\"required\":[\"endpoint_name\"],\"additionalProperties\":false}",
    .annotations = {.read_only = MCP_TOOL_HINT_YES, .idempotent = MCP_TOOL_HINT_YES},
    .call = tool_autoscale_show_call,
};
