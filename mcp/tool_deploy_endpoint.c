/* deploy_endpoint: CreateModel (SM_VLLM_MODEL), CreateEndpointConfig (an
 * instance type or instance pools), CreateEndpoint, and the wait, with
 * progress notifications. It creates and bills, it deletes nothing of the
 * account's (only its own model and config when the endpoint cannot be
 * created): not read-only, so it runs only with "confirm": true; not
 * destructive. */
#include "epops.h"
#include "mcp_aws.h"

/* What a call would create, and what it would cost. */
static int tool_deploy_endpoint_preview(const cJSON *args, struct mcp_tool_call *call, void *user) {
    const struct mcp_aws *a = user;
    const char *region, *source;
    int rc = mcp_aws_region(a, call, args, &region);
    if (rc) return rc;
    struct epops_deploy_req r;
    mcp_aws_deploy_req(args, region, &r);
    struct buf types, regions, text;
    buf_init(&types, 4096);
    buf_init(&regions, 4096);
    buf_init(&text, 16384);
    double price = mcp_aws_price(a, r.price, r.n_types ? r.types[0] : NULL, r.regions[0], &source);
    rc = mcp_aws_join(r.types, r.n_types, &types);
    if (!rc) rc = mcp_aws_join(r.regions, r.n_regions, &regions);
    if (!rc && buf_addf(&text,
                        "create SageMaker endpoint %s in %s serving %s with image %s on %s, "
                        "and ",
                        r.name, buf_str(&regions), r.model_id,
                        r.image ? r.image : "the region's vLLM image",
                        r.n_types ? buf_str(&types) : "the default instance type"))
        rc = MCP_TOOL_INTERNAL;
    if (!rc && (price > 0 ? buf_addf(&text, "bill USD %g an hour (%s)", price, source)
                          : buf_adds(&text, "bill an hourly price sm-mcp does not know "
                                            "(price_per_hour tells it)")))
        rc = MCP_TOOL_INTERNAL;
    if (!rc && buf_adds(&text, " from its creation until it is deleted (delete_endpoint)"))
        rc = MCP_TOOL_INTERNAL;
    if (!rc) rc = mcp_tool_text_n(call, buf_str(&text), text.len);
    buf_free(&types);
    buf_free(&regions);
    buf_free(&text);
    return rc;
}

static int tool_deploy_endpoint_op(struct epops *ops, const char *region, const cJSON *args,
                                   struct epops_out *out, struct buf *err) {
    struct epops_deploy_req r;
    mcp_aws_deploy_req(args, region, &r);
    return epops_deploy(ops, &r, out, err);
}

static int tool_deploy_endpoint_call(const cJSON *args, struct mcp_tool_call *call, void *user) {
    return mcp_aws_run(user, call, args, tool_deploy_endpoint_op);
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
        "InsufficientInstanceCapacity or a quota too low. L4 capacity can take 30 minutes to fail. "
        "Needs \"confirm\": true: without it, nothing is created and the reply says what would "
        "be and its price; ask the user, then call again with confirm: true.",
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
        "\"minimum\":0.0001,\"maximum\":10000},\"confirm\":{\"type\":\"boolean\",\"description\":"
        "\"true once the user agreed to create it and pay for it\"}},\"required\":["
        "\"endpoint_name\",\"model_id\",\"role_arn\"],\"additionalProperties\":false}",
    .annotations = {.read_only = MCP_TOOL_HINT_NO,
                    .destructive = MCP_TOOL_HINT_NO,
                    .idempotent = MCP_TOOL_HINT_NO,
                    .open_world = MCP_TOOL_HINT_YES},
    .call = tool_deploy_endpoint_call,
    .preview = tool_deploy_endpoint_preview,
};
