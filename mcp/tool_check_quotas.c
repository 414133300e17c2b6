/* check_quotas: the "TYPE for endpoint usage" quotas and what is in use. Read-only. */
#include "epinfo.h"
#include "mcp_aws.h"

static int tool_check_quotas_op(struct epops *ops, const char *region, const cJSON *args,
                                struct epops_out *out, struct buf *err) {
    const char *regions[EPOPS_MAX_REGIONS], *types[EPREQ_MAX_TYPES];
    size_t nr = mcp_aws_regions(args, region, regions);
    size_t nt = mcp_aws_strings(args, "instance_types", types, EPREQ_MAX_TYPES);
    return epinfo_quotas(ops, regions, nr, types, nt, out, err);
}

static int tool_check_quotas_call(const cJSON *args, struct mcp_tool_call *call, void *user) {
    return mcp_aws_run(user, call, args, tool_check_quotas_op);
}

const struct mcp_tool tool_check_quotas = {
    .name = "check_quotas",
    .title = "Check endpoint quotas",
    .description = "The account's 'TYPE for endpoint usage' quota of each instance type in each "
                   "region (Service Quotas), with the instances its endpoints hold. 0 means "
                   "request an increase first. A quota lets you ask for an instance; whether the "
                   "region has one free is another matter (InsufficientInstanceCapacity).",
    .input_schema = "{\"type\":\"object\",\"properties\":{\"instance_types\":{\"type\":\"array\","
                    "\"items\":{\"type\":\"string\",\"maxLength\":47},\"maxItems\":5,"
                    "\"description\":\"Default: the L4 types with one GPU\"},\"regions\":{\"type\":"
                    "\"array\",\"items\":{\"type\":\"string\",\"maxLength\":31},\"maxItems\":8}"
                    "," MCP_AWS_REGION_PROP "},\"additionalProperties\":false}",
    .annotations = {.read_only = MCP_TOOL_HINT_YES, .idempotent = MCP_TOOL_HINT_YES},
    .call = tool_check_quotas_call,
};
