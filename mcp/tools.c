#include "tools.h"

/* The tools sm-mcp serves, in tools/list order. To add a tool: write
 * tool_<name>.c defining `const struct mcp_tool tool_<name>` (see
 * mcp_tool.h), add X(<name>) here and the file to CMakeLists.txt. */
#define TOOLS_LIST(X)                                                                              \
    X(get_help)                                                                                    \
    X(check_quotas)                                                                                \
    X(find_vllm_image)                                                                             \
    X(get_deployment_config)                                                                       \
    X(deploy_endpoint)                                                                             \
    X(get_endpoint_status)                                                                         \
    X(get_endpoint_logs)                                                                           \
    X(verify_model_health)                                                                         \
    X(query_model)                                                                                 \
    X(list_endpoints)                                                                              \
    X(delete_endpoint)                                                                             \
    X(autoscale_set)                                                                               \
    X(autoscale_show)                                                                              \
    X(autoscale_remove)                                                                            \
    X(run_benchmark)                                                                               \
    X(compare_results)

#define TOOLS_DECLARE(name) extern const struct mcp_tool tool_##name;
TOOLS_LIST(TOOLS_DECLARE)

#define TOOLS_ENTRY(name) &tool_##name,
static const struct mcp_tool *const table[] = {TOOLS_LIST(TOOLS_ENTRY)};

int tools_register(struct mcp_server *s, void *user, struct buf *err) {
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        int rc = mcp_server_add(s, table[i], user, err);
        if (rc) return rc;
    }
    return MCP_SERVER_OK;
}

size_t tools_count(void) {
    return sizeof table / sizeof table[0];
}
