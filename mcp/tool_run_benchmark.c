/* run_benchmark: runs sm-suite (the decode test, the concurrency sweep and
 * the quiz against two endpoints, then sm-compare), with each step as a
 * progress notification; a cancellation or the end of sm-mcp's input stops
 * it and every process it started. It writes a run directory inside the runs
 * folder and sends load (it spends the endpoints' time), changing no AWS
 * resource: not read-only, so it runs only with "confirm": true. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mcp_aws.h"
#include "mcp_runs.h"

#define TOOL_RUN_BENCHMARK_MAX_ARGS   40
#define TOOL_RUN_BENCHMARK_MAX_LEVEL  256 /* the highest concurrency of a sweep (wrk -c and -t) */
#define TOOL_RUN_BENCHMARK_MAX_LEVELS 16  /* sm-suite's SUITE_OPTS_MAX_LEVELS */
#define TOOL_RUN_BENCHMARK_STR(x)     #x
#define TOOL_RUN_BENCHMARK_XSTR(x)    TOOL_RUN_BENCHMARK_STR(x)

struct tool_run_benchmark_state {
    struct mcp_tool_call *call;
    double sent;
    struct buf out;     /* sm-suite's standard output: the table */
    char last[3][1024]; /* its last lines on standard error */
};

static void tool_run_benchmark_on_line(void *ud, const char *line, bool is_stderr) {
    struct tool_run_benchmark_state *r = ud;
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
static bool tool_run_benchmark_word_ok(const char *s) {
    return s && *s && s[0] != '-';
}

/* What a call runs: checked arguments, the run's folder, sm-suite's words. */
struct tool_run_benchmark_plan {
    const char *region;
    const char *words[4]; /* baseline, candidate, scenarios, levels (NULL: sm-suite's default) */
    char name[64];        /* the default run name */
    const char *out;      /* the run's name inside the runs folder */
    struct buf levels;    /* "1,4,16" */
};

static void tool_run_benchmark_plan_free(struct tool_run_benchmark_plan *p) {
    buf_free(&p->levels);
}

/* Checks args into p (its buffers freed by plan_free either way). */
static int tool_run_benchmark_check(const struct mcp_aws *a, const cJSON *args,
                                    struct mcp_tool_call *call, struct tool_run_benchmark_plan *p) {
    buf_init(&p->levels, 256);
    if (!a) return mcp_tool_fail(call, "this server runs no program (registered without one)");
    p->region = mcp_aws_string(args, "region", a->region);
    if (!p->region)
        return mcp_tool_fail(call, "no region: give \"region\", or start sm-mcp with --region");
    p->words[0] = mcp_aws_string(args, "baseline", NULL);
    p->words[1] = mcp_aws_string(args, "candidate", NULL);
    p->words[2] = mcp_aws_string(args, "scenarios", NULL);
    for (size_t i = 0; i < 3; i++)
        if (p->words[i] && !tool_run_benchmark_word_ok(p->words[i]))
            return mcp_tool_fail(call, "\"%.60s\" may not start with '-'", p->words[i]);
    const cJSON *lv = cJSON_GetObjectItemCaseSensitive(args, "levels"), *e;
    cJSON_ArrayForEach(e, lv) {
        /* the schema's caps, held here too: a run never plans past them */
        if (!cJSON_IsNumber(e) || e->valuedouble < 1 ||
            e->valuedouble > TOOL_RUN_BENCHMARK_MAX_LEVEL)
            return mcp_tool_fail(call, "levels: each is a concurrency from 1 to %d",
                                 TOOL_RUN_BENCHMARK_MAX_LEVEL);
        if (buf_addf(&p->levels, "%s%d", p->levels.len ? "," : "", e->valueint))
            return mcp_tool_fail(call, "levels: at most %d", TOOL_RUN_BENCHMARK_MAX_LEVELS);
    }
    if (cJSON_GetArraySize(lv) > TOOL_RUN_BENCHMARK_MAX_LEVELS)
        return mcp_tool_fail(call, "levels: at most %d", TOOL_RUN_BENCHMARK_MAX_LEVELS);
    p->words[3] = p->levels.len ? buf_str(&p->levels) : NULL;
    p->out = mcp_aws_string(args, "out", NULL);
    if (!p->out) {
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(p->name, sizeof p->name, "mcp-%Y%m%dT%H%M%SZ", &tm);
        p->out = p->name;
    }
    struct buf err;
    buf_init(&err, 1024);
    int rc = mcp_runs_check("out", p->out, &err) ? mcp_tool_fail(call, "%s", buf_str(&err)) : 0;
    buf_free(&err);
    return rc;
}

/* What a call would do (without "confirm": true). */
static int tool_run_benchmark_preview(const cJSON *args, struct mcp_tool_call *call, void *user) {
    const struct mcp_aws *a = user;
    struct tool_run_benchmark_plan p;
    int rc = tool_run_benchmark_check(a, args, call, &p);
    if (!rc)
        rc = mcp_tool_text(call,
                           "run sm-suite in %s against endpoints %s and %s (scenarios %s, "
                           "concurrency levels %s), sending them load for minutes, and write the "
                           "run to %s/%s",
                           p.region, p.words[0], p.words[1], p.words[2] ? p.words[2] : "default",
                           p.words[3] ? p.words[3] : "default", a->runs_dir, p.out);
    tool_run_benchmark_plan_free(&p);
    return rc;
}

static int tool_run_benchmark_call(const cJSON *args, struct mcp_tool_call *call, void *user) {
    const struct mcp_aws *a = user;
    struct tool_run_benchmark_plan p;
    char price[32], scale[32];
    char *argv[TOOL_RUN_BENCHMARK_MAX_ARGS];
    int n = 0;
    struct buf dir, err;
    buf_init(&dir, 4096);
    buf_init(&err, 4096);
    int rc = tool_run_benchmark_check(a, args, call, &p);
    if (!rc && !a->suite)
        rc = mcp_tool_fail(call, "sm-suite was not found beside sm-mcp or on PATH");
    if (!rc && mcp_runs_open(a->runs_dir, "out", p.out, true, &dir, &err))
        rc = mcp_tool_fail(call, "%s", buf_str(&err));
    if (rc) {
        tool_run_benchmark_plan_free(&p);
        buf_free(&dir);
        buf_free(&err);
        return rc;
    }
    argv[n++] = (char *)a->suite;
    argv[n++] = "--region";
    argv[n++] = (char *)p.region;
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
    static const char *const flags[] = {"--baseline", "--candidate", "--scenarios", "--levels"};
    for (size_t i = 0; i < 4; i++)
        if (p.words[i]) {
            argv[n++] = (char *)flags[i];
            argv[n++] = (char *)p.words[i];
        }
    argv[n++] = "--out";
    argv[n++] = (char *)buf_str(&dir);
    mcp_aws_price_arg(args, argv, &n, price);
    argv[n] = NULL;
    struct tool_run_benchmark_state r = {.call = call};
    buf_init(&r.out, (size_t)1 << 20);
    int status;
    rc = mcp_aws_program(call, argv, tool_run_benchmark_on_line, &r, &status);
    if (!rc && status != 0)
        rc = mcp_tool_fail(call, "sm-suite exited with status %d: %s %s %s (the run: %s)", status,
                           r.last[0], r.last[1], r.last[2], buf_str(&dir));
    else if (!rc) {
        cJSON *j = cJSON_CreateObject();
        buf_reset(&err);
        bool ok = !buf_addf(&err, "%s/report.json", buf_str(&dir));
        rc = mcp_tool_text(call, "%s\nThe run: %s (report.md, report.json, chart.svg)",
                           buf_str(&r.out), buf_str(&dir));
        if (!rc && (!ok || !j || !cJSON_AddStringToObject(j, "run_dir", p.out) ||
                    !cJSON_AddStringToObject(j, "path", buf_str(&dir)) ||
                    !cJSON_AddStringToObject(j, "report_json", buf_str(&err)) ||
                    !cJSON_AddNumberToObject(j, "exit_status", status)))
            rc = MCP_TOOL_INTERNAL;
        if (!rc)
            rc = mcp_tool_structured(call, j);
        else
            cJSON_Delete(j);
    }
    buf_free(&r.out);
    tool_run_benchmark_plan_free(&p);
    buf_free(&dir);
    buf_free(&err);
    return rc;
}

const struct
    mcp_tool
        tool_run_benchmark =
            {
                .name = "run_benchmark",
                .title = "Run the benchmark",
                .description =
                    "Runs sm-suite against two endpoints (baseline and candidate, e.g. bf16 and "
                    "its "
                    "QAT build): the fixed-length decode test, the concurrency sweep and the "
                    "exact-answer quiz as plain wrk commands, then sm-compare's table of ratios. "
                    "Each step is reported as progress; it takes minutes and sends load to both "
                    "endpoints. The run directory (inside sm-mcp's runs folder) keeps the result "
                    "files and reports. Needs \"confirm\": true: without it, nothing runs and the "
                    "reply says what would; ask the user, then call again with confirm: true.",
                .input_schema = "{\"type\":\"object\",\"properties\":{\"baseline\":{\"type\":"
                                "\"string\","
                                "\"minLength\":1,\"maxLength\":130,\"description\":\"NAME[=LABEL]"
                                "\"},"
                                "\"candidate\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":"
                                "130},"
                                "\"out\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":255,"
                                "\"description\":\"The run directory inside the runs folder "
                                "(relative: "
                                "A-Z a-z 0-9 . _ - and /, no ..), new or empty (default "
                                "mcp-TIME)\"},"
                                "\"scenarios\":{\"type\":\"string\",\"maxLength\":40,"
                                "\"description\":"
                                "\"e.g. "
                                "decode,sweep,quiz\"},\"levels\":{\"type\":\"array\",\"items\":{"
                                "\"type\":\"integer\",\"minimum\":1,"
                                "\"maximum\":" TOOL_RUN_BENCHMARK_XSTR(TOOL_RUN_BENCHMARK_MAX_LEVEL) "},\"minItems\":1,\"maxItems\":" TOOL_RUN_BENCHMARK_XSTR(
                                    TOOL_RUN_BENCHMARK_MAX_LEVELS) ",\"descriptio"
                                                                   "n\":"
                                                                   "\"The "
                                                                   "sweep's "
                                                                   "concurrency "
                                                                   "levels, e.g. "
                                                                   "[1,4,16]\"},"
                                                                   "\"price_per_"
                                                                   "hour\":{"
                                                                   "\"type\":"
                                                                   "\"number\","
                                                                   "\"minimum\":"
                                                                   "0.0001,"
                                                                   "\"maximum\":"
                                                                   "10000}"
                                                                   "," MCP_AWS_REGION_PROP
                                                                   ",\"confirm\":"
                                                                   "{\"type\":"
                                                                   "\"boolean\","
                                                                   "\"description"
                                                                   "\":"
                                                                   "\"true once "
                                                                   "the user "
                                                                   "agreed to "
                                                                   "send the "
                                                                   "load\"}},"
                                                                   "\"required\":"
                                                                   "[\"baseline\""
                                                                   ","
                                                                   "\"candidate\""
                                                                   "],"
                                                                   "\"additionalP"
                                                                   "roperties\":"
                                                                   "false}",
                .annotations = {.read_only = MCP_TOOL_HINT_NO,
                                .destructive = MCP_TOOL_HINT_NO,
                                .idempotent = MCP_TOOL_HINT_NO,
                                .open_world = MCP_TOOL_HINT_YES},
                .call = tool_run_benchmark_call,
                .preview = tool_run_benchmark_preview,
};
