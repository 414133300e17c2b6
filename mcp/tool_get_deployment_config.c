/* get_deployment_config: the requests and aws CLI commands of a deploy,
 * sending nothing. Read-only. */
#include "epinfo.h"
#include "mcp_aws.h"

static int tool_get_deployment_config_op(struct epops *ops, const char *region, const cJSON *args,
                                         struct epops_out *out, struct buf *err) {
    struct epops_deploy_req r;
    mcp_aws_deploy_req(args, region, &r); /* its schema has no regions: region */
    return epinfo_config(ops, &r, out, err);
}

static int tool_get_deployment_config_call(const cJSON *args, struct mcp_tool_call *call,
                                           void *user) {
    return mcp_aws_run(user, call, args, tool_get_deployment_config_op);
}

const struct mcp_tool tool_get_deployment_config = {
    .name = "get_deployment_config",
    .title = "Deployment requests and aws CLI commands",
    .description = "What deploy_endpoint would send (CreateModel with SM_VLLM_MODEL, "
                   "CreateEndpointConfig, CreateEndpoint) and the aws CLI commands that do the "
                   "same by hand, without changing anything.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{" MCP_AWS_NAME_PROP ",\"model_id\":{"
        "\"type\":\"string\",\"minLength\":1,\"maxLength\":255},\"role_arn\":{\"type\":"
        "\"string\",\"maxLength\":2048},\"instance_types\":{\"type\":\"array\","
        "\"items\":{\"type\":\"string\",\"maxLength\":47},\"minItems\":1,"
        "\"maxItems\":5},\"image\":{\"type\":\"string\",\"maxLength\":255}," MCP_AWS_REGION_PROP
        "},\"required\":[\"endpoint_name\",\"model_id\"],"
        "\"additionalProperties\":false}",
    .annotations = {.read_only = MCP_TOOL_HINT_YES,
                    .idempotent = MCP_TOOL_HINT_YES,
                    .open_world = MCP_TOOL_HINT_NO},
    .call = tool_get_deployment_config_call,
};
