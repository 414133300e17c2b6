/* sm-mcp: the MCP server of wrk-sagemaker, for AI coding agents (stdio). */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "mcp_server.h"
#include "tools.h"

static const char usage[] =
    "Usage: sm-mcp [--help | --version]\n"
    "\n"
    "An MCP (Model Context Protocol) server over stdio: an AI coding agent starts it\n"
    "and drives wrk-sagemaker's SageMaker endpoint tools and benchmark through it.\n"
    "It reads JSON-RPC 2.0 messages from standard input, one per line, and writes\n"
    "one reply per line to standard output; diagnostics go to standard error. It\n"
    "ends when standard input ends.\n"
    "\n"
    "Protocol versions: " MCP_SERVER_LATEST_VERSION " (current), 2025-06-18, 2025-03-26 and\n"
    "2024-11-05. Call the get_help tool for the workflow and the tools of this build.\n"
    "Tools that change or delete AWS resources run only with \"confirm\": true.\n"
    "\n"
    "A client configuration (e.g. in an agent's MCP settings):\n"
    "  {\"command\": \"/path/to/sm-mcp\"}\n"
    "\n"
    "Options:\n"
    "  -h, --help     this text\n"
    "  -V, --version  the version and the protocol versions\n"
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
        "workflow and the tools of this build. A tool that changes or deletes AWS resources "
        "takes \"confirm\": true; set it only after the user has agreed to that action.",
};

static int usage_error(const char *msg, const char *arg) {
    fprintf(stderr, "sm-mcp: %s: %s (see sm-mcp --help)\n", msg, arg);
    return 2;
}

int main(int argc, char **argv) {
    if (argc > 1) {
        const char *a = argv[1];
        bool help = strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0;
        bool version = strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0;
        if (!help && !version)
            return usage_error(a[0] == '-' ? "unknown option" : "unexpected argument", a);
        if (argc > 2) return usage_error("unexpected argument", argv[2]);
        if (help)
            fputs(usage, stdout);
        else
            printf("sm-mcp %s (MCP %s, 2025-06-18, 2025-03-26, 2024-11-05)\n", SM_VERSION,
                   MCP_SERVER_LATEST_VERSION);
        return 0;
    }
    signal(SIGPIPE, SIG_IGN); /* a closed stdout is a write error, not a silent death */
    struct buf err;
    buf_init(&err, 1024);
    struct mcp_server *s = mcp_server_new(&info);
    int rc = s ? tools_register(s, NULL, &err) : MCP_SERVER_ERR_NOMEM;
    if (!rc) {
        mcp_server_set_log(s, stderr);
        rc = mcp_server_run(s, STDIN_FILENO, STDOUT_FILENO, &err);
    }
    if (rc) fprintf(stderr, "sm-mcp: %s\n", err.len ? buf_str(&err) : "out of memory");
    mcp_server_free(s);
    buf_free(&err);
    return rc ? 1 : 0;
}
