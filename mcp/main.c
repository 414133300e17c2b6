/* sm-mcp: the MCP server of wrk-sagemaker, for AI coding agents (stdio). */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "creds.h"
#include "mcp_aws.h"
#include "mcp_proc.h"
#include "mcp_server.h"
#include "plainhttp.h"
#include "tools.h"

static const char usage[] =
    "Usage: sm-mcp [--region REGION] [--profile NAME] [--endpoint-url URL]\n"
    "              [--allow-plain-http] [--time-scale K] [--facts FILE] [--runs-dir DIR]\n"
    "              | --help | --version\n"
    "\n"
    "An MCP (Model Context Protocol) server over stdio: an AI coding agent starts it\n"
    "and drives wrk-sagemaker's SageMaker endpoint tools and benchmark through it.\n"
    "It reads JSON-RPC 2.0 messages from standard input, one per line, and writes\n"
    "one reply per line to standard output; diagnostics go to standard error. It\n"
    "ends when standard input ends.\n"
    "\n"
    "Protocol versions: " MCP_SERVER_LATEST_VERSION " (current), 2025-06-18, 2025-03-26 and\n"
    "2024-11-05. Call the get_help tool for the workflow and the tools of this build.\n"
    "Tools that create, change or delete AWS resources or send load (deploy_endpoint,\n"
    "delete_endpoint, autoscale_set, autoscale_remove, run_benchmark)\n"
    "run only with \"confirm\": true; without it they do nothing and say what they\n"
    "would do. A string argument holding NUL or another control character is refused.\n"
    "\n"
    "A client configuration (e.g. in an agent's MCP settings):\n"
    "  {\"command\": \"/path/to/sm-mcp\", \"args\": [\"--region\", \"us-east-2\"]}\n"
    "\n"
    "Options:\n"
    "  --region REGION     the tools' default region (default: AWS_REGION,\n"
    "                      AWS_DEFAULT_REGION, then the profile's region)\n"
    "  --profile NAME      the AWS profile whose credentials sign the calls\n"
    "  --endpoint-url URL  send every AWS call (control plane and InvokeEndpoint) there:\n"
    "                      sm-emulator's URL, to try it all offline\n"
    "  --allow-plain-http  sign for an http:// --endpoint-url whose host is not loopback\n"
    "                      (the signature and session token cross the network in\n"
    "                      clear); http:// to 127.0.0.0/8, ::1 or localhost needs none\n"
    "  --time-scale K      sm-emulator's --time-scale: times and costs told emulated\n"
    "  --facts FILE        the facts file (images, prices; default the installed one)\n"
    "  --runs-dir DIR      the runs folder (default ./runs, made when needed):\n"
    "                      run_benchmark writes its run directory inside it and\n"
    "                      compare_results reads only inside it; names given are\n"
    "                      relative, without \"..\", and no link is followed on the way\n"
    "  -h, --help          this text\n"
    "  -V, --version       the version and the protocol versions\n"
    "\n"
    "run_benchmark runs sm-suite, compare_results sm-compare: $SM_SUITE and $SM_COMPARE,\n"
    "else those beside sm-mcp (this build's or the install's), else on the PATH.\n"
    "run_benchmark's sweep levels are at most 256 (16 of them). When standard input\n"
    "ends, or the client cancels the call, the program and every process it started\n"
    "are stopped (SIGTERM, then SIGKILL a second later) before sm-mcp goes on; on\n"
    "SIGTERM, SIGINT or SIGHUP the same, then sm-mcp ends by that signal.\n"
    "\n"
    "Exit status: 0 when the input ended; 1 when reading or writing failed; 2 on bad\n"
    "usage.\n";

static const struct mcp_server_info info = {
    .name = "sm-mcp",
    .title = "wrk-sagemaker",
    .version = SM_VERSION,
    .instructions =
        "sm-mcp deploys, checks and deletes Amazon SageMaker real-time endpoints serving LLMs "
        "(vLLM) and benchmarks them with wrk-sagemaker. Call get_help first: it gives the "
        "workflow and the tools of this build. A tool that creates, changes or deletes AWS "
        "resources or sends load takes \"confirm\": true; without it, it only says what it would "
        "do: tell the user, and set it only after they have agreed to that action.",
};

static int main_usage_error(const char *msg, const char *arg) {
    fprintf(stderr, "sm-mcp: %s: %s (see sm-mcp --help)\n", msg, arg);
    return 2;
}

/* A program: $var, else beside this one (rel), else installed beside it (name), else PATH. */
static char *main_find_program(const char *var, const char *rel, const char *name) {
    const char *v = getenv(var);
    if (v && *v) return strdup(v);
    char exe[PATH_MAX], *path = NULL;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        const char *dir = dirname(exe);
        for (int i = 0; i < 2 && !path; i++) {
            char *p;
            if (asprintf(&p, "%s/%s", dir, i ? name : rel) < 0) continue;
            if (access(p, X_OK) == 0) path = realpath(p, NULL);
            free(p);
        }
    }
    const char *env_path = getenv("PATH");
    for (const char *d = env_path ? env_path : "/usr/bin:/bin"; !path && *d;) {
        size_t k = strcspn(d, ":");
        char *p;
        if (asprintf(&p, "%.*s/%s", (int)k, k ? d : ".", name) >= 0) {
            if (access(p, X_OK) == 0) path = realpath(p, NULL);
            free(p);
        }
        d += k + (d[k] == ':');
    }
    return path;
}

struct main_config {
    struct mcp_aws aws;
    struct buf region;
    char *suite, *compare;
    bool help, version;
};

static int main_parse(int argc, char **argv, struct main_config *m) {
    static const struct option opts[] = {{"region", required_argument, NULL, 'r'},
                                         {"profile", required_argument, NULL, 'p'},
                                         {"endpoint-url", required_argument, NULL, 'u'},
                                         {"allow-plain-http", no_argument, NULL, 'P'},
                                         {"time-scale", required_argument, NULL, 't'},
                                         {"facts", required_argument, NULL, 'f'},
                                         {"runs-dir", required_argument, NULL, 'd'},
                                         {"help", no_argument, NULL, 'h'},
                                         {"version", no_argument, NULL, 'V'},
                                         {NULL, 0, NULL, 0}};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":hV", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'r':
            m->aws.region = optarg;
            break;
        case 'p':
            m->aws.profile = optarg;
            break;
        case 'u':
            if (strncmp(optarg, "http://", 7) != 0 && strncmp(optarg, "https://", 8) != 0)
                return main_usage_error("--endpoint-url wants an http:// or https:// URL", optarg);
            m->aws.endpoint_url = optarg;
            break;
        case 'P':
            m->aws.allow_plain_http = true;
            break;
        case 't':
            m->aws.time_scale = strtod(optarg, &end);
            if (end == optarg || *end || !(m->aws.time_scale >= 0.001) || m->aws.time_scale > 1e6)
                return main_usage_error("--time-scale wants a number from 0.001 to 1000000",
                                        optarg);
            break;
        case 'f':
            m->aws.facts = optarg;
            break;
        case 'd':
            if (!*optarg) return main_usage_error("--runs-dir wants a folder", "\"\"");
            m->aws.runs_dir = optarg;
            break;
        case 'h':
            m->help = true;
            break;
        case 'V':
            m->version = true;
            break;
        case ':':
            return main_usage_error("a value is needed", argv[optind - 1]);
        default:
            return main_usage_error(argv[optind - 1][0] == '-' ? "unknown option"
                                                               : "unexpected argument",
                                    argv[optind - 1]);
        }
    }
    if (optind < argc) return main_usage_error("unexpected argument", argv[optind]);
    if (m->aws.region && !creds_name_ok(m->aws.region))
        return main_usage_error("--region wants a region such as us-east-2", m->aws.region);
    struct buf why;
    buf_init(&why, 1024);
    int rc = 0;
    if (m->aws.endpoint_url &&
        plainhttp_check(m->aws.endpoint_url, m->aws.allow_plain_http, &why)) {
        fprintf(stderr, "sm-mcp: --endpoint-url: %s\n", buf_str(&why));
        rc = 2;
    }
    buf_free(&why);
    return rc;
}

/* The default region when --region is not given: the environment's or the profile's. */
static void main_default_region(struct main_config *m) {
    struct creds_options co = {.profile = m->aws.profile};
    struct buf err;
    buf_init(&err, 1024);
    if (!m->aws.region && creds_region(&co, &m->region, &err) == 0 && m->region.len &&
        creds_name_ok(buf_str(&m->region)))
        m->aws.region = buf_str(&m->region);
    buf_free(&err);
}

static int main_serve(struct main_config *m) {
    struct buf err;
    buf_init(&err, 1024);
    struct mcp_server *s = mcp_server_new(&info);
    int rc = s ? tools_register(s, &m->aws, &err) : MCP_SERVER_ERR_NOMEM;
    if (!rc) {
        mcp_server_set_log(s, stderr);
        rc = mcp_server_run(s, STDIN_FILENO, STDOUT_FILENO, &err);
    }
    if (rc) fprintf(stderr, "sm-mcp: %s\n", err.len ? buf_str(&err) : "out of memory");
    mcp_server_free(s);
    buf_free(&err);
    return rc ? 1 : 0;
}

int main(int argc, char **argv) {
    struct main_config m = {.aws = {.time_scale = 1, .runs_dir = "runs"}};
    buf_init(&m.region, 64);
    int rc = main_parse(argc, argv, &m);
    if (!rc && m.help) {
        fputs(usage, stdout);
    } else if (!rc && m.version) {
        printf("sm-mcp %s (MCP %s, 2025-06-18, 2025-03-26, 2024-11-05)\n", SM_VERSION,
               MCP_SERVER_LATEST_VERSION);
    } else if (!rc) {
        signal(SIGPIPE, SIG_IGN); /* a closed stdout is a write error, not a silent death */
        mcp_proc_catch_signals();
        main_default_region(&m);
        m.aws.suite = m.suite = main_find_program("SM_SUITE", "../suite/sm-suite", "sm-suite");
        m.aws.compare = m.compare =
            main_find_program("SM_COMPARE", "../results/sm-compare", "sm-compare");
        rc = main_serve(&m);
    }
    free(m.suite);
    free(m.compare);
    buf_free(&m.region);
    return rc;
}
