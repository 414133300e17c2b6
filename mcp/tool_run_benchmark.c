/* run_benchmark: runs sm-suite (the decode test, the concurrency sweep and
 * the quiz against two endpoints, then sm-compare), with each step as a
 * progress notification; a cancellation stops it as Ctrl-C does. It writes a
 * run directory and sends requests, changing no AWS resource. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mcp_aws.h"

#define RUN_MAX_ARGS 40

struct run_state {
    struct mcp_call *call;
    double sent;
    struct buf out;     /* sm-suite's standard output: the table */
    char last[3][1024]; /* its last lines on standard error */
};

static void on_line(void *ud, const char *line, bool is_stderr) {
    struct run_state *r = ud;
    if (!is_stderr) {
        if (buf_adds(&r->out, line) || buf_addc(&r->out, '\n')) buf_reset(&r->out);
        return;
    }
    memmove(r->last[0], r->last[1], sizeof r->last[0] * 2);
    snprintf(r->last[2], sizeof r->last[2], "%s", line);
    if (strncmp(line, "sm-suite: [", 11) == 0 || strncmp(line, "sm-suite: deploying", 19) == 0) {
        r->sent += 1;
        (void)!mcp_tool_progress(r->call, r->sent, -1, line + 10);
    }
}

/* A value that will follow an option: never one that looks like an option. */
static bool word_ok(const char *s) {
    return s && *s && s[0] != '-';
}

static int call(const cJSON *args, struct mcp_call *call, void *user) {
    const struct mcp_aws *a = user;
    if (!a) return mcp_tool_fail(call, "this server runs no program (registered without one)");
    const char *region = mcp_aws_string(args, "region", a->region);
    const char *words[] = {
        mcp_aws_string(args, "baseline", NULL), mcp_aws_string(args, "candidate", NULL),
        mcp_aws_string(args, "out", NULL), mcp_aws_string(args, "scenarios", NULL),
        mcp_aws_string(args, "levels", NULL)};
    char out[64], price[32], scale[32];
    char *argv[RUN_MAX_ARGS];
    int n = 0;
    if (!a->suite) return mcp_tool_fail(call, "sm-suite was not found beside sm-mcp or on PATH");
    if (!region)
        return mcp_tool_fail(call, "no region: give \"region\", or start sm-mcp with --region");
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (words[i] && !word_ok(words[i]))
            return mcp_tool_fail(call, "\"%.60s\" may not start with '-'", words[i]);
    if (!words[2]) {
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(out, sizeof out, "runs/mcp-%Y%m%dT%H%M%SZ", &tm);
        words[2] = out;
    }
    argv[n++] = (char *)a->suite;
    argv[n++] = "--region";
    argv[n++] = (char *)region;
    if (a->endpoint_url) {
        argv[n++] = "--url";
        argv[n++] = (char *)a->endpoint_url;
        argv[n++] = "--endpoint-url";
        argv[n++] = (char *)a->endpoint_url;
    }
    if (a->allow_plain_http) argv[n++] = "--allow-plain-http";
    if (a->time_scale != 1) {
        snprintf(scale, sizeof scale, "%g", a->time_scale);
        argv[n++] = "--time-scale";
        argv[n++] = scale;
    }
    static const char *const flags[] = {"--baseline", "--candidate", "--out", "--scenarios",
                                        "--levels"};
    for (size_t i = 0; i < 5; i++)
        if (words[i]) {
            argv[n++] = (char *)flags[i];
            argv[n++] = (char *)words[i];
        }
    mcp_aws_price_arg(args, argv, &n, price);
    argv[n] = NULL;
    struct run_state r = {.call = call};
    buf_init(&r.out, (size_t)1 << 20);
    int status;
    int rc = mcp_aws_program(call, argv, on_line, &r, &status);
    if (!rc && status != 0)
        rc = mcp_tool_fail(call, "sm-suite exited with status %d: %s %s %s (the run: %s)", status,
                           r.last[0], r.last[1], r.last[2], words[2]);
    else if (!rc) {
        cJSON *j = cJSON_CreateObject();
        char report[128];
        snprintf(report, sizeof report, "%s/report.json", words[2]);
        rc = mcp_tool_text(call, "%s\nThe run: %s (report.md, report.json, chart.svg)",
                           buf_str(&r.out), words[2]);
        if (!rc && (!j || !cJSON_AddStringToObject(j, "run_dir", words[2]) ||
                    !cJSON_AddStringToObject(j, "report_json", report) ||
                    !cJSON_AddNumberToObject(j, "exit_status", status)))
            rc = MCP_TOOL_INTERNAL;
        if (!rc)
            rc = mcp_tool_structured(call, j);
        else
            cJSON_Delete(j);
    }
    buf_free(&r.out);
    return rc;
}

const struct mcp_tool tool_run_benchmark = {
    .name = "run_benchmark",
    .title = "Run the benchmark",
    .description = "Runs sm-suite against two endpoints (baseline and candidate, e.g. bf16 and its "
                   "QAT build): the fixed-length decode test, the concurrency sweep and the "
                   "exact-answer quiz as plain wrk commands, then sm-compare's table of ratios. "
                   "Each step is reported as progress; it takes minutes. The run directory keeps "
                   "the result files and reports.",
    .input_schema = "{\"type\":\"object\",\"properties\":{\"baseline\":{\"type\":\"string\","
                    "\"minLength\":1,\"maxLength\":130,\"description\":\"NAME[=LABEL]\"},"
                    "\"candidate\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":130},"
                    "\"out\":{\"type\":\"string\",\"maxLength\":255,\"description\":\"The run "
                    "directory, new or empty (default runs/mcp-TIME)\"},\"scenarios\":{\"type\":"
                    "\"string\",\"maxLength\":40,\"description\":\"e.g. decode,sweep,quiz\"},"
                    "\"levels\":{\"type\":\"string\",\"maxLength\":60,\"description\":\"The "
                    "sweep's concurrency levels, e.g. 1,4,16\"},\"price_per_hour\":{\"type\":"
                    "\"number\",\"minimum\":0.0001,\"maximum\":10000}," MCP_AWS_REGION_PROP
                    "},\"required\":[\"baseline\",\"candidate\"],\"additionalProperties\":false}",
    .annotations = {.read_only = MCP_HINT_NO,
                    .destructive = MCP_HINT_NO,
                    .idempotent = MCP_HINT_NO,
                    .open_world = MCP_HINT_YES},
    .call = call,
};
