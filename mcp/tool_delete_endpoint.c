/* delete_endpoint: the endpoint, its config and its model; stops the billing.
 * Destructive: runs only with "confirm": true. */
#include "epops.h"
#include "mcp_aws.h"

static int tool_delete_endpoint_op(struct epops *ops, const char *region, const cJSON *args,
                                   struct epops_out *out, struct buf *err) {
    return epops_delete(ops, region, mcp_aws_string(args, "endpoint_name", ""),
                        mcp_aws_bool(args, "wait", false),
                        mcp_aws_number(args, "price_per_hour", 0), true, out, err);
}

static int tool_delete_endpoint_call(const cJSON *args, struct mcp_tool_call *call, void *user) {
    return mcp_aws_run(user, call, args, tool_delete_endpoint_op);
}

/* What a call would delete (without "confirm": true). */
static int tool_delete_endpoint_preview(const cJSON *args, struct mcp_tool_call *call, void *user) {
    const char *region;
    int rc = mcp_aws_region(user, call, args, &region);
    return rc ? rc
              : mcp_tool_text(call,
                              "delete SageMaker endpoint %s in %s with its endpoint config(s) and "
                              "model(s), for good (it stops the endpoint's billing), if "
                              "wrk-sagemaker created them and no other endpoint uses them",
                              mcp_aws_string(args, "endpoint_name", ""), region);
}

const struct mcp_tool tool_delete_endpoint = {
    .name = "delete_endpoint",
    .title = "Delete endpoint",
    .description = "Deletes a SageMaker endpoint, its endpoint config(s) and model(s), which stops "
                   "its billing, and says what it cost; only what wrk-sagemaker created (its tags "
                   "say so) and no other endpoint uses. SageMaker refuses while it is Creating or "
                   "Updating: pass wait to wait that out. Needs \"confirm\": true: without it, "
                   "nothing is deleted and the reply says what would be; ask the user first, then "
                   "call with confirm: true.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{" MCP_AWS_NAME_PROP "," MCP_AWS_REGION_PROP
        ",\"wait\":{\"type\":\"boolean\",\"description\":\"Wait while it is Creating "
        "or Updating, then delete, then wait until it is "
        "gone\"},\"price_per_hour\":{\"type\":\"number\","
        "\"minimum\":0.0001,\"maximum\":10000},\"confirm\":{\"type\":\"boolean\","
        "\"description\":\"true once the user agreed to delete it\"}},"
        "\"required\":[\"endpoint_name\"],\"additionalProperties\":false}",
    .annotations = {.read_only = MCP_TOOL_HINT_NO,
                    .destructive = MCP_TOOL_HINT_YES,
                    .idempotent = MCP_TOOL_HINT_YES,
                    .open_world = MCP_TOOL_HINT_YES},
    .call = tool_delete_endpoint_call,
    .preview = tool_delete_endpoint_preview,
};
