#!/usr/bin/env python3
"""sm-mcp's command line: --help, --version, bad usage (one line, exit 2),
and a session over real stdio: replies on stdout only, one JSON message a
line, logs on stderr, exit 0 when stdin ends.

Usage: test_cli.py SM_MCP VERSION"""
import json
import subprocess
import sys

failures = []
# The seed's eleven tools, the three of autoscaling and the benchmark's two, in tools/list order.
TOOLS = ["get_help", "check_quotas", "find_vllm_image", "get_deployment_config", "deploy_endpoint",
         "get_endpoint_status", "get_endpoint_logs", "verify_model_health", "query_model",
         "list_endpoints", "delete_endpoint", "autoscale_set", "autoscale_show",
         "autoscale_remove", "run_benchmark", "compare_results"]


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what, file=sys.stderr)


def run(binary, args, stdin=b""):
    return subprocess.run([binary] + args, input=stdin, capture_output=True, timeout=30)


def main():
    binary, version = sys.argv[1], sys.argv[2]

    r = run(binary, ["--help"])
    check(r.returncode == 0, "--help exits 0")
    check(r.stdout.startswith(b"Usage: sm-mcp"), "--help prints the usage on stdout")
    check(b"get_help" in r.stdout and b"2025-11-25" in r.stdout, "--help names get_help and the version")
    check(b"--runs-dir DIR" in r.stdout and b"run only with \"confirm\": true" in r.stdout,
          "--help names the runs folder and the confirmation")
    check(r.stderr == b"", "--help writes nothing on stderr")

    r = run(binary, ["-V"])
    check(r.returncode == 0, "-V exits 0")
    check(r.stdout.decode() == "sm-mcp %s (MCP 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)\n" % version,
          "-V prints the version and the protocol versions: %r" % r.stdout)

    for args, msg in ((["--port", "1"], "unknown option: --port"),
                      (["stdio"], "unexpected argument: stdio"),
                      (["--help", "x"], "unexpected argument: x"),
                      (["--region", "US"], "--region wants a region such as us-east-2: US"),
                      (["--endpoint-url", "x"], "--endpoint-url wants an http:// or https:// URL: x"),
                      (["--time-scale", "0"], "--time-scale wants a number from 0.001 to 1000000: 0"),
                      (["--runs-dir", ""], '--runs-dir wants a folder: ""'),
                      (["--region"], "a value is needed: --region")):
        r = run(binary, args)
        check(r.returncode == 2, "%s exits 2" % args)
        check(r.stdout == b"", "%s writes nothing on stdout" % args)
        lines = r.stderr.decode().splitlines()
        check(lines == ["sm-mcp: %s (see sm-mcp --help)" % msg], "%s: one line: %r" % (args, lines))

    r = run(binary, [])
    check(r.returncode == 0 and r.stdout == b"", "empty stdin: exit 0, nothing on stdout")

    session = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "cli-test", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_help", "arguments": {}}},
    ]
    stdin = b"".join(json.dumps(m).encode() + b"\n" for m in session) + b"not json\n"
    r = run(binary, [], stdin)
    check(r.returncode == 0, "a session ends with exit 0 at the end of stdin")
    check(r.stdout.endswith(b"\n"), "the last reply ends its line")
    replies = [json.loads(line) for line in r.stdout.decode().split("\n")[:-1]]
    check([m.get("id") for m in replies] == [1, 2, 3, None], "one reply a request: %r" % replies)
    if len(replies) == 4:
        check(replies[0]["result"]["protocolVersion"] == "2025-06-18", "the client's version is spoken")
        check(replies[0]["result"]["serverInfo"] == {"name": "sm-mcp", "title": "wrk-sagemaker",
                                                     "version": version}, "serverInfo")
        names = [t["name"] for t in replies[1]["result"]["tools"]]
        check(names == TOOLS, "the tools of this build: %r" % names)
        text = replies[2]["result"]["content"][0]["text"]
        check("Workflow of a benchmark" in text and "[not in this build]" not in text,
              "get_help's text: every step of the workflow has its tool")
        check(replies[3]["error"]["code"] == -32700, "a bad line gets a parse error")
    log = r.stderr.decode()
    check("sm-mcp: client cli-test asked for 2025-06-18; speaking 2025-06-18" in log,
          "the log goes to stderr: %r" % log)

    if failures:
        sys.exit(1)
    print("sm-mcp command line: all checks passed")


if __name__ == "__main__":
    main()
