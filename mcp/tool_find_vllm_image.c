/* find_vllm_image: the AWS vLLM container image of a region, from the facts
 * file (with its sources and the seed's rule for the newest tag). Read-only,
 * and nothing leaves this machine. */
#include "epinfo.h"
#include "mcp_aws.h"

static int tool_find_vllm_image_op(struct epops *ops, const char *region, const cJSON *args,
                                   struct epops_out *out, struct buf *err) {
    (void)args;
    return epinfo_images(ops, region, out, err);
}

static int tool_find_vllm_image_call(const cJSON *args, struct mcp_tool_call *call, void *user) {
    return mcp_aws_run(user, call, args, tool_find_vllm_image_op);
}

const struct mcp_tool tool_find_vllm_image = {
    .name = "find_vllm_image",
    .title = "Find the vLLM SageMaker image",
    .description = "The AWS vLLM container image (a Deep Learning Container) for a region: the "
                   "ECR account of the region, the repository and the release tag this build "
                   "knows, where each fact comes from, and how to find the newest tag.",
    .input_schema = "{\"type\":\"object\",\"properties\":{" MCP_AWS_REGION_PROP
                    "},\"additionalProperties\":false}",
    .annotations = {.read_only = MCP_TOOL_HINT_YES,
                    .idempotent = MCP_TOOL_HINT_YES,
                    .open_world = MCP_TOOL_HINT_NO},
    .call = tool_find_vllm_image_call,
};
