/* compare_results: sm-compare -f json on two sides (run directories or
 * result files inside the runs folder): the ratios with their intervals.
 * Read-only, local. */
#include <stdio.h>
#include <string.h>

#include "mcp_aws.h"
#include "mcp_runs.h"

struct tool_compare_results_state {
    struct buf out;
    char last[1024];
};

static void tool_compare_results_on_line(void *ud, const char *line, bool is_stderr) {
    struct tool_compare_results_state *c = ud;
    if (is_stderr)
        snprintf(c->last, sizeof c->last, "%s", line);
    else if (buf_adds(&c->out, line) || buf_addc(&c->out, '\n'))
        buf_reset(&c->out);
}

static int tool_compare_results_call(const cJSON *args, struct mcp_tool_call *call, void *user) {
    const struct mcp_aws *a = user;
    if (!a) return mcp_tool_fail(call, "this server runs no program (registered without one)");
    const char *base = mcp_aws_string(args, "baseline", ""),
               *cand = mcp_aws_string(args, "candidate", "");
    char price[32];
    char *argv[8] = {(char *)a->compare, "-f", "json"};
    int n = 3, status = -1;
    if (!a->compare)
        return mcp_tool_fail(call, "sm-compare was not found beside sm-mcp or on PATH");
    struct buf sides[2], err;
    buf_init(&sides[0], 4096);
    buf_init(&sides[1], 4096);
    buf_init(&err, 1024);
    int rc = mcp_runs_open(a->runs_dir, "baseline", base, false, &sides[0], &err);
    if (!rc) rc = mcp_runs_open(a->runs_dir, "candidate", cand, false, &sides[1], &err);
    if (rc) rc = mcp_tool_fail(call, "%s", buf_str(&err));
    mcp_aws_price_arg(args, argv, &n, price);
    argv[n++] = (char *)buf_str(&sides[0]);
    argv[n++] = (char *)buf_str(&sides[1]);
    argv[n] = NULL;
    struct tool_compare_results_state c = {.last = ""};
    buf_init(&c.out, (size_t)16 << 20);
    if (!rc) rc = mcp_aws_program(call, argv, tool_compare_results_on_line, &c, &status);
    cJSON *j = !rc && status == 0 ? cJSON_ParseWithLength(buf_str(&c.out), c.out.len) : NULL;
    if (!rc && status != 0)
        rc = mcp_tool_fail(call, "sm-compare exited with status %d: %s", status, c.last);
    else if (!rc && !cJSON_IsObject(j))
        rc = mcp_tool_fail(call, "sm-compare did not print a JSON object");
    else if (!rc) {
        rc = mcp_tool_text_n(call, buf_str(&c.out), c.out.len);
        if (!rc) {
            rc = mcp_tool_structured(call, j);
            j = NULL;
        }
    }
    buf_free(&sides[0]);
    buf_free(&sides[1]);
    buf_free(&err);
    cJSON_Delete(j);
    buf_free(&c.out);
    return rc;
}

const struct mcp_tool tool_compare_results = {
    .name = "compare_results",
    .title = "Compare two runs",
    .description = "Compares two sides (run directories or result files of run_benchmark inside "
                   "sm-mcp's runs folder, e.g. RUN/bf16 and RUN/qat) with sm-compare: ratios "
                   "candidate / baseline with 95% intervals, "
                   "latency, cost per million tokens, the quiz's disagreements, as JSON.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{\"baseline\":{\"type\":\"string\","
        "\"minLength\":1,\"maxLength\":4096,\"description\":\"A run's side folder "
        "inside the runs folder, e.g. x/bf16\"},\"candidate\":{\"type\":\"string\",\"minLength\":1,"
        "\"maxLength\":4096},\"price_per_hour\":{\"type\":\"number\",\"minimum\":"
        "0.0001,\"maximum\":10000}},\"required\":[\"baseline\",\"candidate\"],"
        "\"additionalProperties\":false}",
    .annotations = {.read_only = MCP_TOOL_HINT_YES,
                    .idempotent = MCP_TOOL_HINT_YES,
                    .open_world = MCP_TOOL_HINT_NO},
    .call = tool_compare_results_call,
};
