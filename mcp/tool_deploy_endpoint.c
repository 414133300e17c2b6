/* deploy_endpoint: CreateModel (SM_VLLM_MODEL), CreateEndpointConfig (an
 * instance type or instance pools), CreateEndpoint, and the wait, with
 * progress notifications. It creates and bills, it deletes nothing: not
 * read-only, not destructive. */
#include "epops.h"
#include "mcp_aws.h"

static int op(struct epops *ops, const char *region, const cJSON *args, struct epops_out *out,
              struct buf *err) {
    struct epops_deploy_req r;
    mcp_aws_deploy_req(args, region, &r);
    return epops_deploy(ops, &r, out, err);
}

static int call(const cJSON *args, struct mcp_call *call, void *user) {
    return mcp_aws_run(user, call, args, op);
}

const struct mcp_tool tool_deploy_endpoint = {
    .name = "deploy_endpoint",
    .title = "Deploy endpoint",
    .description =
        "Creates a SageMaker real-time endpoint serving model_id with the AWS vLLM container "
        "(SM_VLLM_MODEL = model_id; the checkpoint is that one variable) and waits until it is "
        "InService, reporting progress. It bills its instance's hourly price from now until "
        "delete_endpoint: tell the user. instance_types is a priority list (InstancePools): "
        "SageMaker places the first with capacity. regions are tried in order on "
        "InsufficientInstanceCapacity or a quota too low. L4 capacity can take 30 minutes to fail.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{" MCP_AWS_NAME_PROP ",\"model_id\":{\"type\":"
        "\"string\",\"minLength\":1,\"maxLength\":255,\"description\":\"The checkpoint, e.g. "
        "google/gemma-4-E2B-it\"},\"role_arn\":{\"type\":\"string\",\"minLength\":20,"
        "\"maxLength\":2048,\"description\":\"The execution role SageMaker runs the container "
        "with\"},\"instance_types\":{\"type\":\"array\",\"items\":{\"type\":\"string\","
        "\"maxLength\":47},\"minItems\":1,\"maxItems\":5,\"description\":\"In priority order "
        "(default ml.g6.xlarge)\"}," MCP_AWS_REGION_PROP ",\"regions\":{\"type\":\"array\","
        "\"items\":{\"type\":\"string\",\"maxLength\":31},\"minItems\":1,\"maxItems\":8},"
        "\"image\":{\"type\":\"string\",\"maxLength\":255,\"description\":\"Default: the "
        "region's vLLM image (find_vllm_image)\"},\"max_model_len\":{\"type\":\"integer\","
        "\"minimum\":16,\"maximum\":1048576},\"wait\":{\"type\":\"boolean\",\"description\":"
        "\"Wait for InService (default true)\"},\"wait_timeout_s\":{\"type\":\"number\","
        "\"minimum\":1,\"maximum\":86400},\"price_per_hour\":{\"type\":\"number\","
        "\"minimum\":0.0001,\"maximum\":10000}},\"required\":[\"endpoint_name\",\"model_id\","
        "\"role_arn\"],\"additionalProperties\":false}",
    .annotations = {.read_only = MCP_HINT_NO,
                    .destructive = MCP_HINT_NO,
                    .idempotent = MCP_HINT_NO,
                    .open_world = MCP_HINT_YES},
    .call = call,
};
