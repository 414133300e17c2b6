/* mcp_aws: what sm-mcp's AWS tools share: the session's settings (region,
 * profile, --endpoint-url, --time-scale, the facts file; sm-suite and
 * sm-compare for the benchmark tools), an epops context per call whose hooks
 * are the call's (progress lines become MCP progress notifications, a
 * cancellation stops a wait), common arguments (region, regions, instance
 * types), and the result of an operation as the tool's text and structured
 * content. The tools are the seed's eleven and two more (tool_*.c). */
#ifndef MCP_AWS_H
#define MCP_AWS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "epops.h"
#include "mcp_tool.h"

/* The session's settings; the user pointer of every tool. Strings borrowed. */
struct mcp_aws {
    const char *region;       /* the default region, or NULL (a tool then needs one) */
    const char *profile;      /* or NULL */
    const char *endpoint_url; /* the emulator's URL: the control plane and the runtime */
    bool allow_plain_http;    /* --allow-plain-http: to epops and sm-suite (plainhttp.h) */
    const char *facts;        /* or NULL: the installed facts file */
    double time_scale;        /* sm-emulator's --time-scale (1 for AWS) */
    const char *suite;        /* sm-suite to run, or NULL when not found */
    const char *compare;      /* sm-compare to run, or NULL */
    const char *runs_dir;     /* the runs folder (--runs-dir): run_benchmark writes, compare_results
                                 reads only inside it */
};

/* The call's region (its "region", else the session's) into *region. Returns
 * 0, or MCP_TOOL_FAILED after mcp_tool_fail (no region, not a region). */
__attribute__((warn_unused_result)) int mcp_aws_region(const struct mcp_aws *a,
                                                       struct mcp_tool_call *call,
                                                       const cJSON *args, const char **region);

/* The hourly price of type (NULL: unknown) in region: given when > 0, else
 * the facts'; 0 when unknown. *source says where it comes from. For previews. */
double mcp_aws_price(const struct mcp_aws *a, double given, const char *type, const char *region,
                     const char **source);

/* Appends list joined with ", " to out. Returns MCP_TOOL_OK or MCP_TOOL_INTERNAL. */
__attribute__((warn_unused_result)) int mcp_aws_join(const char *const *list, size_t n,
                                                     struct buf *out);

/* The epops context of a call: progress and cancellation through call. Returns
 * 0, or MCP_TOOL_FAILED after mcp_tool_fail (e.g. no region). */
__attribute__((warn_unused_result)) int mcp_aws_open(const struct mcp_aws *a,
                                                     struct mcp_tool_call *call, const cJSON *args,
                                                     struct epops **ops, const char **region);

/* Ends a call: 0 puts out's text and JSON in the call's result; an error its
 * line (isError), a stop MCP_TOOL_CANCELLED. Frees ops. Returns the tool's status. */
__attribute__((warn_unused_result)) int mcp_aws_close(struct mcp_tool_call *call, struct epops *ops,
                                                      int rc, struct epops_out *out,
                                                      const struct buf *err);

/* An operation of a tool: args validated by the tool's schema. */
typedef int mcp_aws_op_fn(struct epops *ops, const char *region, const cJSON *args,
                          struct epops_out *out, struct buf *err);

/* Runs op for a tool call: mcp_aws_open, op, mcp_aws_close. user: the struct
 * mcp_aws. Returns the tool's status. */
__attribute__((warn_unused_result)) int mcp_aws_run(void *user, struct mcp_tool_call *call,
                                                    const cJSON *args, mcp_aws_op_fn *op);

/* The string array argument key (at most max) into list; its count. */
size_t mcp_aws_strings(const cJSON *args, const char *key, const char **list, size_t max);
/* The string argument key, or dflt. */
const char *mcp_aws_string(const cJSON *args, const char *key, const char *dflt);
/* The number argument key, or dflt. */
double mcp_aws_number(const cJSON *args, const char *key, double dflt);
/* The boolean argument key, or dflt. */
bool mcp_aws_bool(const cJSON *args, const char *key, bool dflt);

/* The regions argument, or else the call's region: their count (at least 1). */
size_t mcp_aws_regions(const cJSON *args, const char *region, const char **list);
/* A deployment's arguments (get_deployment_config's, deploy_endpoint's) into r,
 * in region when they give no regions. r's strings are borrowed from args. */
void mcp_aws_deploy_req(const cJSON *args, const char *region, struct epops_deploy_req *r);

/* Appends "--price-per-hour VALUE" to argv at *n when args give price_per_hour
 * (text holds VALUE). */
void mcp_aws_price_arg(const cJSON *args, char **argv, int *n, char text[32]);
/* Runs argv (sm-suite, sm-compare) for call: its output lines go to on_line
 * with ud; the client's cancellation, or the end of sm-mcp's input, stops it
 * and every process it started (mcp_proc.h). Returns 0 with *status its exit
 * status, MCP_TOOL_CANCELLED, or the tool's status after mcp_tool_fail when it
 * could not run or was stopped because the input ended. */
__attribute__((warn_unused_result)) int
mcp_aws_program(struct mcp_tool_call *call, char *const argv[],
                void (*on_line)(void *ud, const char *line, bool is_stderr), void *ud, int *status);

/* The JSON Schema text of the "region" property, for the tools' schemas. */
#define MCP_AWS_REGION_PROP                                                                        \
    "\"region\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":31,\"description\":"            \
    "\"The AWS region, e.g. us-east-2 (default: sm-mcp's --region)\"}"
#define MCP_AWS_NAME_PROP                                                                          \
    "\"endpoint_name\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":63,\"description\":"     \
    "\"The SageMaker endpoint's name\"}"

#endif
