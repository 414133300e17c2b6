/* autoscale_remove: DeleteScalingPolicy of every policy, then
 * DeregisterScalableTarget, on an endpoint wrk-sagemaker created (epscale.h).
 * Destructive: runs only with "confirm": true. */
#include "epscale.h"
#include "mcp_aws.h"

static int tool_autoscale_remove_op(struct epops *ops, const char *region, const cJSON *args,
                                    struct epops_out *out, struct buf *err) {
    return epscale_remove(ops, region, mcp_aws_string(args, "endpoint_name", ""),
                          mcp_aws_string(args, "variant", NULL), false, out, err);
}

static int tool_autoscale_remove_call(const cJSON *args, struct mcp_tool_call *call, void *user) {
    return mcp_aws_run(user, call, args, tool_autoscale_remove_op);
}

/* What a call would remove (without "confirm": true). */
static int tool_autoscale_remove_preview(const cJSON *args, struct mcp_tool_call *call,
                                         void *user) {
    const char *region;
    const char *variant = mcp_aws_string(args, "variant", NULL);
    int rc = mcp_aws_region(user, call, args, &region);
    return rc ? rc
              : mcp_tool_text(call,
                              "remove the autoscaling of SageMaker endpoint %s in %s (%s%s): "
                              "DeleteScalingPolicy of each of its policies, then "
                              "DeregisterScalableTarget, if wrk-sagemaker created the endpoint; "
                              "its instance count stays where it is",
                              mcp_aws_string(args, "endpoint_name", ""), region,
                              variant ? "variant " : "every variant", variant ? variant : "");
}

const struct mcp_tool tool_autoscale_remove = {
    .name = "autoscale_remove",
    .title = "Remove endpoint autoscaling",
    .description = "Removes the Application Auto Scaling of a SageMaker endpoint: deletes each "
                   "scaling policy, then deregisters the scalable target, of one variant or "
                   "every variant; only on an endpoint wrk-sagemaker created (its tags say so). "
                   "Needs \"confirm\": true: without it, nothing changes and the reply says what "
                   "would; ask the user first, then call with confirm: true.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{" MCP_AWS_NAME_PROP "," MCP_AWS_REGION_PROP
        ",\"variant\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":63,\"description\":"
        "\"One production variant (default: every variant)\"},\"confirm\":{\"type\":\"boolean\","
        "\"description\":\"true once the user agreed to remove it\"}},"
        "\"required\":[\"endpoint_name\"],\"additionalProperties\":false}",
    .annotations = {.read_only = MCP_TOOL_HINT_NO,
                    .destructive = MCP_TOOL_HINT_YES,
                    .idempotent = MCP_TOOL_HINT_YES,
                    .open_world = MCP_TOOL_HINT_YES},
    .call = tool_autoscale_remove_call,
    .preview = tool_autoscale_remove_preview,
};
