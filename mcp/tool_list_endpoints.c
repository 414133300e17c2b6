/* list_endpoints: the endpoints of regions, by name. Read-only. */
#include "epinfo.h"
#include "mcp_aws.h"

static int tool_list_endpoints_op(struct epops *ops, const char *region, const cJSON *args,
                                  struct epops_out *out, struct buf *err) {
    const char *regions[EPOPS_MAX_REGIONS];
    size_t n = mcp_aws_regions(args, region, regions);
    return epinfo_list(ops, regions, n, mcp_aws_string(args, "name_contains", NULL), out, err);
}

static int tool_list_endpoints_call(const cJSON *args, struct mcp_tool_call *call, void *user) {
    return mcp_aws_run(user, call, args, tool_list_endpoints_op);
}

const struct mcp_tool tool_list_endpoints = {
    .name = "list_endpoints",
    .title = "List endpoints",
    .description = "The endpoints of one or more regions (their status), e.g. to find one left "
                   "running: it bills until deleted.",
    .input_schema = "{\"type\":\"object\",\"properties\":{\"name_contains\":{\"type\":\"string\","
                    "\"minLength\":1,\"maxLength\":63},\"regions\":{\"type\":\"array\",\"items\":{"
                    "\"type\":\"string\",\"maxLength\":31},\"maxItems\":8}," MCP_AWS_REGION_PROP
                    "},\"additionalProperties\":false}",
    .annotations = {.read_only = MCP_TOOL_HINT_YES},
    .call = tool_list_endpoints_call,
};
