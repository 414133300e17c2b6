/* autoscale_set: Application Auto Scaling of an endpoint's variant
 * (RegisterScalableTarget and one target-tracking policy, epscale.h), only on
 * an endpoint wrk-sagemaker created. It changes how many instances bill: not
 * read-only, so it runs only with "confirm": true; destructive (it replaces
 * an earlier policy of the same name and the target's bounds); idempotent. */
#include "epscale.h"
#include "mcp_aws.h"

/* The request of a call, checked: 0, or a line in err. */
static int tool_autoscale_set_req(const cJSON *args, struct epscale_set_req *r, struct buf *err) {
    const cJSON *inv = cJSON_GetObjectItemCaseSensitive(args, "target_invocations");
    const cJSON *conc = cJSON_GetObjectItemCaseSensitive(args, "target_concurrency");
    *r = (struct epscale_set_req){
        .name = mcp_aws_string(args, "endpoint_name", ""),
        .variant = mcp_aws_string(args, "variant", NULL),
        .min = (long)mcp_aws_number(args, "min_instances", 0),
        .max = (long)mcp_aws_number(args, "max_instances", 0),
        .metric = conc ? EPSCALE_CONCURRENCY : EPSCALE_INVOCATIONS,
        .target = conc  ? conc->valuedouble
                  : inv ? inv->valuedouble
                        : 0,
        .scale_in_cooldown_s = (long)mcp_aws_number(args, "scale_in_cooldown", -1),
        .scale_out_cooldown_s = (long)mcp_aws_number(args, "scale_out_cooldown", -1),
        .disable_scale_in = mcp_aws_bool(args, "disable_scale_in", false),
    };
    if (!inv == !conc)
        return buf_fail(err, EPOPS_ERR_INPUT,
                        "pass one of target_invocations and target_concurrency");
    return epscale_check(r, err);
}

static int tool_autoscale_set_op(struct epops *ops, const char *region, const cJSON *args,
                                 struct epops_out *out, struct buf *err) {
    struct epscale_set_req r;
    int rc = tool_autoscale_set_req(args, &r, err);
    return rc ? rc : epscale_set(ops, region, &r, false, out, err);
}

static int tool_autoscale_set_call(const cJSON *args, struct mcp_tool_call *call, void *user) {
    return mcp_aws_run(user, call, args, tool_autoscale_set_op);
}

/* The calls a call would send (without "confirm": true). */
static int tool_autoscale_set_preview(const cJSON *args, struct mcp_tool_call *call, void *user) {
    const char *region;
    struct epscale_set_req r;
    struct buf err, text;
    int rc = mcp_aws_region(user, call, args, &region);
    if (rc) return rc;
    buf_init(&err, 1024);
    buf_init(&text, 16384);
    if (tool_autoscale_set_req(args, &r, &err))
        rc = mcp_tool_fail(call, "%s", buf_str(&err));
    else if (buf_addf(&text,
                      "set the autoscaling of SageMaker endpoint %s in %s (variant %s) to %ld to "
                      "%ld instance(s), target %g %s, if wrk-sagemaker created the endpoint; it "
                      "changes how many instances bill. The calls:\n",
                      r.name, region,
                      r.variant ? r.variant : "its only one, AllTraffic for a wrk-sagemaker deploy",
                      r.min, r.max, r.target, epscale_metric_type(r.metric)) ||
             epscale_set_calls(&r, r.variant, &text))
        rc = MCP_TOOL_INTERNAL;
    else
        rc = mcp_tool_text_n(call, buf_str(&text), text.len);
    buf_free(&err);
    buf_free(&text);
    return rc;
}

const struct mcp_tool tool_autoscale_set = {
    .name = "autoscale_set",
    .title = "Set endpoint autoscaling",
    .description =
        "Sets Application Auto Scaling on a SageMaker endpoint's variant: its instance count "
        "between min_instances and max_instances (RegisterScalableTarget) and one "
        "target-tracking policy on invocations per instance a minute (target_invocations: "
        "SageMakerVariantInvocationsPerInstance) or concurrent requests per model "
        "(target_concurrency: SageMakerVariantConcurrentRequestsPerModelHighResolution). Only on "
        "an endpoint wrk-sagemaker created (its tags say so). It changes how many instances "
        "bill. Needs \"confirm\": true: without it, nothing changes and the reply lists the "
        "calls it would send; ask the user first, then call with confirm: true.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{" MCP_AWS_NAME_PROP "," MCP_AWS_REGION_PROP
        ",\"variant\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":63,\"description\":"
        "\"The production variant (default: the endpoint's only one)\"},"
        "\"min_instances\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000},"
        "\"max_instances\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000},"
        "\"target_invocations\":{\"type\":\"number\",\"minimum\":0.001,\"maximum\":1000000,"
        "\"description\":\"Invocations a minute per instance to keep near\"},"
        "\"target_concurrency\":{\"type\":\"number\",\"minimum\":0.001,\"maximum\":1000000,"
        "\"description\":\"Concurrent requests per model to keep near\"},"
        "\"scale_in_cooldown\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":86400},"
        "\"scale_out_cooldown\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":86400},"
        "\"disable_scale_in\":{\"type\":\"boolean\",\"description\":\"The policy only adds "
        "instances\"},\"confirm\":{\"type\":\"boolean\",\"description\":\"true once the user "
        "agreed to the change\"}},"
        "\"required\":[\"endpoint_name\",\"min_instances\",\"max_instances\"],"
        "\"additionalProperties\":false}",
    .annotations = {.read_only = MCP_TOOL_HINT_NO,
                    .destructive = MCP_TOOL_HINT_YES,
                    .idempotent = MCP_TOOL_HINT_YES,
                    .open_world = MCP_TOOL_HINT_YES},
    .call = tool_autoscale_set_call,
    .preview = tool_autoscale_set_preview,
};
