#!/usr/bin/python3
"""sm-endpoint against sm-emulator's control plane (and a fake CloudWatch Logs).

    test_sm_endpoint.py GROUP

usage      every command's bad input: one line "sm-endpoint: ...", exit 2
lifecycle  deploy (progress with the price and the cost so far), status, verify, query,
           list, swap (UpdateEndpoint and --as), delete: refused without a terminal and
           while Creating, then with --yes --wait; what is gone is "not found"
fallback   instance pools (the next type on InsufficientInstanceCapacity), regions (the
           next on a want of capacity or of quota), Failed when none has capacity, the
           wait's timeout
quotas     the endpoint-usage quota of each type and what the endpoints hold
logs       FilterLogEvents on /aws/sagemaker/Endpoints/NAME, paged; no log group yet
confirm    delete on a terminal asks first: "n" keeps the endpoint, "y" deletes it
interrupt  Ctrl-C during a deploy's wait: exit 130, the endpoint is left Creating and the
           message says how to delete it
hostile    a server whose every string holds escape sequences (C0 and C1 controls): status,
           logs, query (text and --json) and a refusal reach the terminal escaped
tags       what deploy and swap create carries wrk-sagemaker:created-by and
           wrk-sagemaker:run, read with the aws CLI (list-tags; add-tags, delete-tags)
taken      (issue 28, N1) a deploy onto a name that exists fails and touches nothing; a
           delete of what another run or no wrk-sagemaker run created is refused
shared     (issue 28, N2) a delete refuses an endpoint config or model another endpoint
           uses, and a model that only shares the name; nothing is deleted first
autoscale  (issue 33) autoscale set, show and remove: what set registers the aws CLI reads
           (application-autoscaling describe-*); refused without --yes off a terminal, on
           an endpoint wrk-sagemaker did not create (exit 2, one line naming it); --dry-run
           prints the calls and changes nothing
"""
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import emulator  # noqa: E402
from testkit import expect as check, finish, isolated_env  # noqa: E402

ROLE = "arn:aws:iam::123456789012:role/sm-test"
BF16, QAT = "google/gemma-4-E2B-it", "google/gemma-4-E2B-it-qat-w4a16-ct"
KEY = dict(AWS_ACCESS_KEY_ID="AKIDENDPOINTTEST", AWS_SECRET_ACCESS_KEY="endpoint-test-secret-key")
ENV = isolated_env(**KEY)


def binary():
    return os.environ.get("SM_ENDPOINT", "sm-endpoint")


class Run:
    def __init__(self, p):
        self.rc, self.out, self.err = p.returncode, p.stdout.decode(), p.stderr.decode()

    def json(self):
        return json.loads(self.out)


def se(url, *args, region="us-east-1", scale=1000, stdin=subprocess.DEVNULL):
    cmd = [binary()]
    if url:
        cmd += ["--endpoint-url", url, "--time-scale", str(scale)]
    if region:
        cmd += ["--region", region]
    p = subprocess.run(cmd + list(args), stdin=stdin, capture_output=True, env=ENV, timeout=60)
    return Run(p)


def emu(*args):
    return emulator.Emulator(["--no-endpoints", "--time-scale", "1000", "--create-time", "300",
                              "--capacity-wait", "600"] + list(args), env=ENV)


def deploy(url, name, *extra, model=BF16):
    return se(url, "deploy", name, "--model", model, "--role", ROLE, *extra)


def one_line(r, want, code=2):
    lines = r.err.splitlines()
    return check(r.rc == code and lines == ["sm-endpoint: " + want],
                 "want exit %d and [%s], got %d %r" % (code, want, r.rc, lines))


def test_usage():
    rows = [
        ([], "no command (see sm-endpoint --help)"),
        (["launch"], "unknown command 'launch' (see sm-endpoint --help)"),
        (["status"], "status: which endpoint? (sm-endpoint status NAME)"),
        (["status", "a", "b"], "status: unexpected argument 'b'"),
        (["list", "--bogus"], "unknown option '--bogus' (see sm-endpoint --help)"),
        (["status", "e", "--region"], "--region needs a value (see sm-endpoint --help)"),
        (["deploy", "e", "--role", ROLE],
         "deploy: which checkpoint? pass --model MODEL_ID (SM_VLLM_MODEL), e.g. "
         "google/gemma-4-E2B-it"),
        (["deploy", "e", "--model", BF16],
         "deploy: pass --role ARN, the execution role SageMaker runs the container with "
         "(arn:aws:iam::ACCOUNT:role/NAME)"),
        (["deploy", "e_1", "--model", BF16, "--role", ROLE],
         "'e_1' is not an endpoint name (letters, digits and inner '-', at most 63)"),
        (["deploy", "e", "--model", BF16, "--role", "me"],
         "no execution role: pass --role arn:aws:iam::ACCOUNT:role/NAME (SageMaker runs the "
         "container with it)"),
        (["deploy", "e", "--model", BF16, "--role", ROLE, "--instance-type", "g6.xlarge"],
         "'g6.xlarge' is not an instance type such as ml.g6.xlarge"),
        (["deploy", "e", "--model", BF16, "--role", ROLE, "--provision-timeout", "60"],
         "--provision-timeout: '60' is not a number from 300 to 3600"),
        (["deploy", "e", "--model", BF16, "--role", ROLE, "--instance-type",
          "ml.a,ml.b,ml.c,ml.d,ml.e,ml.f"], "--instance-type: at most 5 of them"),
        (["deploy", "e", "--model", BF16, "--role", ROLE, "--env", "NOEQUALS"],
         "--env 'NOEQUALS': want KEY=VALUE"),
        (["status", "e", "--yes"], "--yes does not go with status (see sm-endpoint --help)"),
        (["list", "--model", BF16], "--model does not go with list (see sm-endpoint --help)"),
        (["query", "e"], "query: pass --prompt TEXT"),
        (["query", "e", "--prompt", "hi", "--temperature", "3"],
         "--temperature: '3' is not a number from 0 to 2"),
        (["logs", "e", "--limit", "0"], "--limit: '0' is not a number from 1 to 10000"),
        (["status", "e", "--endpoint-url", "ftp://x"],
         "--endpoint-url: 'ftp://x' is not an http:// or https:// URL"),
        (["status", "e", "--time-scale", "0"], "--time-scale: '0' is not a number from 0.001 to 1e+06"),
        (["delete", "e", "--run", "r1"], "delete e: standard input is not a terminal to ask on: "
                                         "pass --yes to delete the endpoint, its config and model"),
        (["delete", "e", "--yes"], "delete: pass --run RUN_ID (the run that deployed it: deploy "
                                   "prints it) or --created-by-tool (anything wrk-sagemaker "
                                   "created), not both"),
        (["delete", "e", "--yes", "--run", "r1", "--created-by-tool"],
         "delete: pass --run RUN_ID (the run that deployed it: deploy prints it) or "
         "--created-by-tool (anything wrk-sagemaker created), not both"),
        (["delete", "e", "--yes", "--run", "a b"],
         "--run: 'a b' is not a run id (1 to 63 letters, digits, '-', '_' and '.')"),
        (["status", "e", "--run", "r1"], "--run does not go with status (see sm-endpoint --help)"),
        (["swap", "e", "--model", BF16, "--created-by-tool"],
         "--created-by-tool does not go with swap (see sm-endpoint --help)"),
        (["swap", "e", "--as", "f"], "swap: which checkpoint? pass --model MODEL_ID "
                                     "(SM_VLLM_MODEL), e.g. google/gemma-4-E2B-it"),
        (["autoscale"], "autoscale: '' is not set, show or remove (see sm-endpoint --help)"),
        (["autoscale", "grow", "e"],
         "autoscale: 'grow' is not set, show or remove (see sm-endpoint --help)"),
        (["autoscale", "show"], "autoscale show: which endpoint? (sm-endpoint autoscale show NAME)"),
        (["autoscale", "set", "e", "--max", "2", "--target-invocations", "5"],
         "autoscale set: pass --min N and --max N (the instances it scales between)"),
        (["autoscale", "set", "e", "--min", "3", "--max", "2", "--target-invocations", "5"],
         "autoscale set: --min 3 is above --max 2"),
        (["autoscale", "set", "e", "--min", "0", "--max", "2"],
         "--min: '0' is not a number from 1 to 1000"),
        (["autoscale", "set", "e", "--min", "1", "--max", "2"],
         "autoscale set: pass one of --target-invocations X and --target-concurrency X"),
        (["autoscale", "set", "e", "--min", "1", "--max", "2", "--target-invocations", "5",
          "--target-concurrency", "2"],
         "autoscale set: pass one of --target-invocations X and --target-concurrency X"),
        (["autoscale", "set", "e", "--min", "1", "--max", "2", "--target-invocations", "-1"],
         "--target-invocations: '-1' is not a number from 0.001 to 1e+06"),
        (["autoscale", "set", "e", "--min", "1", "--max", "2", "--target-invocations", "5",
          "--scale-in-cooldown", "90000"],
         "--scale-in-cooldown: '90000' is not a number from 0 to 86400"),
        (["autoscale", "show", "e", "--min", "1"],
         "--min does not go with autoscale show (see sm-endpoint --help)"),
        (["autoscale", "show", "e", "--yes"],
         "--yes does not go with autoscale show (see sm-endpoint --help)"),
        (["status", "e", "--dry-run"], "--dry-run does not go with status (see sm-endpoint --help)"),
        (["autoscale", "remove", "e"],
         "autoscale remove e: standard input is not a terminal to ask on: pass --yes to change "
         "its autoscaling (or --dry-run to see the calls)"),
        (["images", "--region", "us-west-9"],
         "no Deep Learning Containers account known for region us-west-9: pass --image URI"),
    ]
    for args, want in rows:
        r = se(None, *args, region="us-east-1" if "--region" not in args else None)
        one_line(r, want)
    r = se(None, "status", "e", region=None)
    one_line(r, "no region: pass --region REGION (or set AWS_REGION)")
    r = se(None, "--help", region=None)
    check(r.rc == 0 and r.out.startswith("Usage: sm-endpoint") and "delete NAME" in r.out,
          "--help")
    r2 = se(None, "status", "e", "-h", region=None)  # the short one, after a command
    check(r2.rc == 0 and r2.out == r.out, "-h: %d %s" % (r2.rc, r2.err))
    # --version is bit 32 of the options given: past an unsigned int
    r = se(None, "list", "--json", "--version", region=None)
    check(r.rc == 0 and r.out.startswith("sm-endpoint (wrk-sagemaker) ") and
          "\ndefault facts: /" in r.out and r.out.rstrip().endswith("endpoint-facts.json"),
          "--version: %r" % r.out)


def test_lifecycle():
    with emu("--quota", "us-east-1/*=4") as e:
        u = e.url
        r = deploy(u, "gemma-4-e2b", "--price-per-hour", "1.5")
        check(r.rc == 0 and r.out.startswith("gemma-4-e2b is InService in us-east-1 after "),
              "deploy: %d %s %s" % (r.rc, r.out, r.err))
        check("deploying gemma-4-e2b (google/gemma-4-E2B-it) in us-east-1 on ml.g6.xlarge: USD "
              "1.5 an hour (--price-per-hour) from its creation until it is deleted" in r.err,
              "the price it was told: %s" % r.err)
        # The first line's elapsed time is whenever the first poll came (later under a
        # sanitizer): its form, not its value.
        check(re.search(r"^sm-endpoint: gemma-4-e2b in us-east-1: Creating, \d+:\d\d emulated "
                        r"elapsed, USD \d+\.\d\d so far at USD 1\.5/h$", r.err, re.M) and
              ": InService, " in r.err, "progress lines: %s" % r.err)
        r = se(u, "status", "gemma-4-e2b", "--json")
        s = r.json() if r.rc == 0 else {}
        check(s.get("status") == "InService" and s.get("model_id") == BF16 and
              s.get("variants", [{}])[0].get("instance_types") == ["ml.g6.xlarge"],
              "status --json: %s %s" % (r.out, r.err))
        r = se(u, "verify", "gemma-4-e2b")
        check(r.rc == 0 and r.out.startswith("gemma-4-e2b is healthy: gemma-4-e2b answered 1512"),
              "verify: %s %s" % (r.out, r.err))
        r = se(u, "query", "gemma-4-e2b", "--prompt", "What is the capital of Brazil?", "--json")
        check(r.rc == 0 and r.json()["reply"] == "Brasília" and r.json()["model"] == BF16,
              "query: %s %s" % (r.out, r.err))
        r = se(u, "verify", "nowhere")
        check(r.rc == 1 and "Endpoint nowhere of account 123456789012 not found" in r.err,
              "verify of no endpoint: %s" % r.err)
        r = se(u, "swap", "gemma-4-e2b", "--model", QAT)
        check(r.rc == 0 and "updating gemma-4-e2b: %s" % QAT in r.err, "swap: %s" % r.err)
        r = se(u, "query", "gemma-4-e2b", "--prompt", "hi", "--max-tokens", "4", "--json")
        check(r.rc == 0 and r.json()["model"] == QAT, "the swap serves QAT: %s" % r.out)
        r = se(u, "swap", "gemma-4-e2b", "--model", BF16, "--as", "gemma-b", "--no-wait")
        check(r.rc == 0 and r.out == "gemma-b is Creating in us-east-1 with %s\n" % BF16,
              "swap --as: %s %s" % (r.out, r.err))
        r = se(u, "list", "--json")
        names = sorted(x["endpoint"] for x in r.json()["endpoints"]) if r.rc == 0 else []
        check(names == ["gemma-4-e2b", "gemma-b"], "list: %s" % r.out)
        one_line(se(u, "delete", "gemma-b", "--yes", "--created-by-tool"),
                 "gemma-b in us-east-1 is Creating: SageMaker deletes an endpoint once it is "
                 "InService or Failed; wait for that, or delete with --wait", code=1)
        r = se(u, "delete", "gemma-b", "--yes", "--wait", "--created-by-tool")
        check(r.rc == 0 and re.search(r"^endpoint gemma-b: deleted\nendpoint config gemma-b: "
                                      r"deleted\nmodel gemma-b: deleted\nendpoint gemma-b: gone "
                                      r"after \d+:\d\d emulated\n\Z", r.out, re.M),
              "delete --wait: %s %s" % (r.out, r.err))
        one_line(se(u, "status", "gemma-b"), 'sagemaker DescribeEndpoint: ValidationException: '
                 'Could not find endpoint "arn:aws:sagemaker:us-east-1:123456789012:endpoint/'
                 'gemma-b". (HTTP 400)', code=1)  # --wait returned once it was gone
        r = se(u, "delete", "gemma-4-e2b", "--yes", "--price-per-hour", "1.5", "--json",
               "--created-by-tool")
        d = r.json() if r.rc == 0 else {}
        check(d.get("results", {}).get("endpoint gemma-4-e2b") == "deleted" and d.get("usd", 0) > 0
              and len(d.get("results", {})) == 5, "delete after a swap: %s %s" % (r.out, r.err))
        r = se(u, "delete", "gemma-4-e2b", "--yes", "--created-by-tool")
        check(r.rc == 0 and ("endpoint gemma-4-e2b: not found" in r.out or
                             "endpoint gemma-4-e2b: already being deleted" in r.out) and
              "model gemma-4-e2b: not found" in r.out, "again: %s" % r.out)
        r = se(u, "status", "gemma-4-e2b")
        check(r.rc in (0, 1), "status of a deleted endpoint answers")


def test_fallback():
    with emu("--capacity", "us-east-1/ml.g6.xlarge=0", "--quota", "eu-west-1/ml.g6.xlarge=0",
             "--control-region", "us-east-2", "--capacity", "us-west-2/*=0") as e:
        u = e.url
        r = deploy(u, "pools", "--instance-type", "ml.g6.xlarge,ml.g6.2xlarge")
        check(r.rc == 0 and r.out.startswith("pools is InService in us-east-1 after ") and
              r.out.splitlines()[0].endswith(" on ml.g6.2xlarge"), "pools: %s %s" % (r.out, r.err))
        check(se(u, "status", "pools", "--json").json()["variants"][0]["placed_type"] ==
              "ml.g6.2xlarge", "the placed pool")
        r = deploy(u, "regions", "--regions", "us-east-1,us-east-2")
        check(r.rc == 0 and "regions is InService in us-east-2" in r.out, "regions: %s" % r.err)
        check("regions in us-east-1 is Failed: Unable to provision requested ML compute capacity "
              "due to InsufficientInstanceCapacity error. (deleting it there, and trying the next "
              "region)" in r.err, "the fallback says why: %s" % r.err)
        check(se(u, "status", "regions", region="us-east-1").rc == 1, "nothing left in us-east-1")
        r = deploy(u, "quota", "--regions", "eu-west-1,us-east-2")
        check(r.rc == 0 and "quota is InService in us-east-2" in r.out and
              "quota: no quota in eu-west-1 (sagemaker CreateEndpoint: ResourceLimitExceeded" in r.err,
              "quota fallback: %s" % r.err)
        r = se(u, "list", region="eu-west-1")
        check(r.out.startswith("0 endpoint"), "nothing left in eu-west-1: %s" % r.out)
        r = deploy(u, "nowhere", "--regions", "us-west-2")
        check(r.rc == 1 and r.err.splitlines()[-1] == "sm-endpoint: nowhere in us-west-2 is Failed: "
              "Unable to provision requested ML compute capacity due to InsufficientInstanceCapacity "
              "error.", "no capacity anywhere: %s" % r.err)
        r = deploy(u, "slow", "--wait-timeout", "30")
        # how far past 30 s the last poll lands depends on the load (creation takes 300 s)
        m = re.search(r"slow in us-east-1 is still Creating after (\d+):(\d\d): ", r.err)
        check(r.rc == 1 and m is not None and int(m[1]) * 60 + int(m[2]) >= 30,
              "the wait's timeout: %s" % r.err)


def test_quotas():
    with emu("--quota", "us-east-1/ml.g6.xlarge=3", "--quota", "us-east-1/ml.g6.2xlarge=1") as e:
        u = e.url
        check(deploy(u, "a").rc == 0, "a deployed")
        r = se(u, "quotas", "--json")
        rows = {q["instance_type"]: q for q in r.json()["quotas"]} if r.rc == 0 else {}
        check(rows.get("ml.g6.xlarge", {}).get("quota") == 3 and
              rows["ml.g6.xlarge"]["in_use"] == 1 and rows["ml.g6.2xlarge"]["quota"] == 1 and
              rows["ml.g6.4xlarge"]["quota"] == 2, "quotas: %s %s" % (r.out, r.err))
        r = se(u, "quotas", "--instance-type", "ml.g6.xlarge")
        check(r.out.startswith("ml.g6.xlarge     us-east-1      quota    3  in use    1  free    2"),
              "the table: %r" % r.out)


def send_json(handler, status, reply):
    """A fake AWS JSON service's reply."""
    data = json.dumps(reply).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/x-amz-json-1.1")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def fake_server(handler):
    """A fake AWS service on a port of its own: (server, its URL)."""
    srv = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, "http://127.0.0.1:%d" % srv.server_address[1]


class FakeLogs(BaseHTTPRequestHandler):
    seen = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeLogs.seen.append((self.headers["X-Amz-Target"], body))
        group = body.get("logGroupName", "")
        if group.endswith("/nope"):
            reply, status = {"__type": "ResourceNotFoundException",
                             "message": "The specified log group does not exist."}, 400
        elif "nextToken" not in body:
            reply, status = {"events": [{"timestamp": 1000, "message": "first\n"}],
                             "nextToken": "p2"}, 200
        else:
            reply, status = {"events": [{"timestamp": 2000, "message": "vLLM API server version "
                                         "0.30.0"}]}, 200
        send_json(self, status, reply)

    def log_message(self, *args):
        pass


def test_logs():
    srv, u = fake_server(FakeLogs)
    try:
        r = se(u, "logs", "gemma-4-e2b", "--since", "600")
        check(r.rc == 0 and r.out == "first \nvLLM API server version 0.30.0\n",
              "logs: %r %s" % (r.out, r.err))
        target, body = FakeLogs.seen[0]
        check(target == "Logs_20140328.FilterLogEvents" and
              body["logGroupName"] == "/aws/sagemaker/Endpoints/gemma-4-e2b" and
              body["startTime"] > 0 and len(FakeLogs.seen) == 2, "the request: %s" % FakeLogs.seen)
        r = se(u, "logs", "gemma-4-e2b", "--limit", "1")
        check(r.out == "vLLM API server version 0.30.0\n", "the last lines: %r" % r.out)
        one_line(se(u, "logs", "nope"), "no log group /aws/sagemaker/Endpoints/nope in us-east-1 "
                 "yet: the container has not started (a capacity wait has no log)", code=1)
    finally:
        srv.shutdown()


# What a hostile server puts in its strings: a title change (OSC), a screen clear and a
# colour (CSI), the same as C1 controls in UTF-8 (U+009B CSI, U+009D OSC), DEL, a bell.
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b[31m\u009b31m\u009d8;;http://x\u009c\x7f!"


class FakeHostile(BaseHTTPRequestHandler):
    """DescribeEndpoint, FilterLogEvents and InvokeEndpoint whose every string holds
    HOSTILE; anything else a 400 ValidationException."""

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        target = self.headers.get("X-Amz-Target", "")
        status = 200
        if target == "SageMaker.DescribeEndpoint":
            reply = {"EndpointName": "evil", "EndpointStatus": "Failed" + HOSTILE,
                     "EndpointArn": "arn:aws:sagemaker:us-east-1:111122223333:endpoint/evil",
                     "FailureReason": HOSTILE, "EndpointConfigName": "evil" + HOSTILE,
                     "CreationTime": 1.7e9, "ProductionVariants": []}
        elif target == "Logs_20140328.FilterLogEvents":
            reply = {"events": [{"timestamp": 1000, "message": "log " + HOSTILE}]}
        elif self.path.endswith("/invocations"):
            reply = {"model": "m" + HOSTILE, "choices": [{"message": {"content": HOSTILE},
                                                         "finish_reason": "stop" + HOSTILE}],
                     "usage": {"prompt_tokens": 1, "completion_tokens": 2}}
        else:
            reply, status = {"__type": "ValidationException", "message": HOSTILE}, 400
        send_json(self, status, reply)

    def log_message(self, *args):
        pass


def test_hostile():
    srv, u = fake_server(FakeHostile)
    try:
        for args in (["status", "evil"], ["status", "evil", "--json"], ["logs", "evil"],
                     ["query", "evil", "--prompt", "hi"], ["query", "evil", "--prompt", "hi",
                                                          "--json"], ["delete", "evil", "--yes", "--created-by-tool"]):
            r = se(u, *args)
            shown = r.out + r.err
            bad = [c for c in shown if ord(c) < 0x20 and c not in "\n" or 0x7f <= ord(c) <= 0x9f]
            check(not bad, "%s: control characters reach the terminal: %r" % (args, shown))
            check("pwned" in shown, "%s: the text is still shown, escaped: %r" % (args, shown))
            if "--json" in args:
                check("pwned" in json.dumps(r.json()), "%s: still JSON: %r" % (args, r.out))
    finally:
        srv.shutdown()


def pty_run(args, answer):
    """Runs sm-endpoint on a terminal, answers its question; returns (rc, what it wrote)."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(binary(), [binary()] + args, ENV)
    out = b""
    end = time.monotonic() + 30
    while b"[y/N]" not in out and time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 1)
        if ready:
            out += os.read(fd, 4096)
    os.write(fd, answer + b"\n")
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode(errors="replace")


def test_confirm():
    with emu() as e:
        u = e.url
        check(deploy(u, "keep").rc == 0, "deployed")
        base = ["--endpoint-url", u, "--time-scale", "1000", "--region", "us-east-1", "delete", "keep",
                "--created-by-tool"]
        rc, out = pty_run(base, b"n")
        check(rc == 1 and "Delete endpoint keep in us-east-1, its endpoint config and model? It "
              "stops the billing. [y/N]" in out and "not deleted" in out, "asked, no: %s" % out)
        check(se(u, "status", "keep").rc == 0, "still there")
        rc, out = pty_run(base, b"y")
        check(rc == 0 and "endpoint keep: deleted" in out, "asked, yes: %s" % out)


ACCOUNT_ARN = "arn:aws:sagemaker:us-east-1:123456789012:"
IMAGE = "763104351884.dkr.ecr.us-east-1.amazonaws.com/vllm:someone-else"


def aws(url, *args):
    p = subprocess.run(["aws", "--endpoint-url", url, "--region", "us-east-1", "--output", "json",
                        "sagemaker"] + list(args), capture_output=True, env=ENV, timeout=60)
    return Run(p)


def tags(url, kind, name):
    """{key: value} of a resource's tags (aws sagemaker list-tags)."""
    r = aws(url, "list-tags", "--resource-arn", ACCOUNT_ARN + kind + "/" + name)
    check(r.rc == 0, "list-tags %s/%s: %s" % (kind, name, r.err))
    return {t["Key"]: t["Value"] for t in r.json()["Tags"]} if r.rc == 0 else {}


def ours(run):
    return {"wrk-sagemaker:created-by": "wrk-sagemaker", "wrk-sagemaker:run": run}


def foreign(url, endpoint=None, config=None, model=None, uses_config=None, uses_model=None):
    """Creates resources as someone else would (the aws CLI, no tags)."""
    if model:
        r = aws(url, "create-model", "--model-name", model, "--execution-role-arn", ROLE,
                "--primary-container", json.dumps({"Image": IMAGE,
                                                   "Environment": {"SM_VLLM_MODEL": BF16}}))
        check(r.rc == 0, "create-model %s: %s" % (model, r.err))
    if config:
        v = [{"VariantName": "AllTraffic", "ModelName": uses_model or model,
              "InitialInstanceCount": 1, "InstanceType": "ml.g6.xlarge"}]
        r = aws(url, "create-endpoint-config", "--endpoint-config-name", config,
                "--production-variants", json.dumps(v))
        check(r.rc == 0, "create-endpoint-config %s: %s" % (config, r.err))
    if endpoint:
        r = aws(url, "create-endpoint", "--endpoint-name", endpoint, "--endpoint-config-name",
                uses_config or config)
        check(r.rc == 0, "create-endpoint %s: %s" % (endpoint, r.err))


def there(url, endpoint=None, config=None, model=None):
    """Whether each named resource still exists (describe-*)."""
    ok = True
    for what, flag, name in (("endpoint", "--endpoint-name", endpoint),
                             ("endpoint-config", "--endpoint-config-name", config),
                             ("model", "--model-name", model)):
        if name:
            ok = ok and aws(url, "describe-" + what, flag, name).rc == 0
    return ok


def test_tags():
    with emu("--quota", "us-east-1/*=4") as e:
        u = e.url
        r = deploy(u, "t")
        m = re.search(r"^sm-endpoint: run (\S+): what it creates is tagged "
                      r"wrk-sagemaker:created-by=wrk-sagemaker and wrk-sagemaker:run=\1$", r.err,
                      re.M)
        check(r.rc == 0 and m, "deploy says its run: %s" % r.err)
        run = m.group(1) if m else "?"
        check(re.match(r"^\d{8}T\d{6}Z-[0-9a-f]{8}$", run), "a run id of its own: %s" % run)
        check("run %s created it: sm-endpoint delete t --region us-east-1 --run %s deletes it\n"
              % (run, run) in r.out, "and how to delete it: %s" % r.out)
        for kind in ("endpoint", "endpoint-config", "model"):
            check(tags(u, kind, "t") == ours(run), "deploy tags its %s" % kind)
        r = se(u, "swap", "t", "--model", QAT, "--run", "swap-1")
        check(r.rc == 0, "swap: %s" % r.err)
        cfg = aws(u, "describe-endpoint", "--endpoint-name", "t").json()["EndpointConfigName"]
        check(cfg != "t" and tags(u, "endpoint-config", cfg) == ours("swap-1") and
              tags(u, "model", cfg) == ours("swap-1"), "the swap's config and model: %s" % cfg)
        r = se(u, "swap", "t", "--model", BF16, "--as", "t2", "--no-wait", "--run", "swap-2")
        check(r.rc == 0, "swap --as: %s" % r.err)
        for kind in ("endpoint", "endpoint-config", "model"):
            check(tags(u, kind, "t2") == ours("swap-2"), "swap --as tags its %s" % kind)
        # the aws CLI against the emulator's AddTags, ListTags and DeleteTags
        arn = ACCOUNT_ARN + "endpoint/t"
        r = aws(u, "add-tags", "--resource-arn", arn, "--tags", "Key=team,Value=perf")
        check(r.rc == 0 and r.json()["Tags"] == [{"Key": "team", "Value": "perf"}],
              "add-tags: %s %s" % (r.out, r.err))
        check(tags(u, "endpoint", "t") == dict(ours(run), team="perf"), "list-tags after add-tags")
        check(aws(u, "delete-tags", "--resource-arn", arn, "--tag-keys", "team").rc == 0,
              "delete-tags")
        check(tags(u, "endpoint", "t") == ours(run), "list-tags after delete-tags")
        r = aws(u, "list-tags", "--resource-arn", ACCOUNT_ARN + "endpoint/nowhere")
        check(r.rc != 0 and "ValidationException" in r.err and "Could not find" in r.err,
              "list-tags of nothing: %s" % r.err)
        r = aws(u, "add-tags", "--resource-arn", arn, "--tags", "Key=aws:x,Value=y")
        check(r.rc != 0 and "reserved" in r.err, "an aws: key is refused: %s" % r.err)


def test_taken():
    with emu("--quota", "us-east-1/*=4") as e:
        u = e.url
        foreign(u, endpoint="taken", config="taken", model="taken")
        r = deploy(u, "taken", "--run", "r2")
        check(r.rc == 1 and r.err.splitlines()[-1] ==
              "sm-endpoint: an endpoint named 'taken' exists in us-east-1: deploy creates its "
              "endpoint, config and model new and touches nothing that exists; nothing was "
              "created (choose another name)", "deploy onto a name taken: %s" % r.err)
        check("sm-endpoint delete" not in r.err, "no advice to delete it: %s" % r.err)
        check(there(u, "taken", "taken", "taken") and tags(u, "model", "taken") == {},
              "what was there is untouched")
        # only the model's name is taken: nothing is created, the model is left
        foreign(u, model="half")
        r = deploy(u, "half", "--run", "r2")
        check(r.rc == 1 and "a model named 'half' exists in us-east-1" in r.err,
              "a model's name taken: %s" % r.err)
        check(there(u, config=None, model="half") and
              aws(u, "describe-endpoint-config", "--endpoint-config-name", "half").rc != 0 and
              aws(u, "describe-endpoint", "--endpoint-name", "half").rc != 0, "nothing created")
        # the delete that once followed (sm-suite --delete-after) is refused, whatever the scope
        for scope in (["--run", "r2"], ["--created-by-tool"]):
            r = se(u, "delete", "taken", "--yes", *scope)
            lines = r.err.splitlines()
            check(r.rc == 1 and "sm-endpoint: refusing to delete endpoint 'taken': it has no tag "
                  "wrk-sagemaker:created-by=wrk-sagemaker: wrk-sagemaker did not create it; "
                  "nothing deleted (the other refusals are above)" == lines[-1] and
                  "sm-endpoint: refusing to delete endpoint config 'taken': it has no tag "
                  "wrk-sagemaker:created-by=wrk-sagemaker: wrk-sagemaker did not create it" in lines
                  and r.out == "", "delete %s refused: %s" % (scope, r.err))
            check(there(u, "taken", "taken", "taken"), "nothing deleted (%s)" % scope)
        # another run's endpoint: refused with --run of this one, deleted with its own
        check(deploy(u, "mine", "--run", "r1").rc == 0, "deployed mine")
        r = se(u, "delete", "mine", "--yes", "--run", "r2")
        check(r.rc == 1 and r.err.splitlines()[-1] == "sm-endpoint: refusing to delete endpoint "
              "'mine': run 'r1' created it, not run 'r2'; nothing deleted (the other refusals are "
              "above)", "another run's: %s" % r.err)
        check(there(u, "mine", "mine", "mine"), "another run's is left")
        r = se(u, "delete", "mine", "--yes", "--run", "r1")
        check(r.rc == 0 and "endpoint mine: deleted\nendpoint config mine: deleted\nmodel mine: "
              "deleted\n" in r.out, "its own run deletes it: %s %s" % (r.out, r.err))


def test_shared():
    with emu("--quota", "us-east-1/*=4") as e:
        u = e.url
        check(deploy(u, "mine", "--run", "r1").rc == 0, "deployed mine")
        # someone's endpoint on the config (and so the model) mine's deploy made
        foreign(u, endpoint="other", uses_config="mine")
        for scope in (["--run", "r1"], ["--created-by-tool"]):
            r = se(u, "delete", "mine", "--yes", *scope)
            lines = r.err.splitlines()
            check(r.rc == 1 and lines == [
                "sm-endpoint: refusing to delete model 'mine': endpoint 'other' uses it",
                "sm-endpoint: refusing to delete endpoint config 'mine': endpoint 'other' uses it; "
                "nothing deleted (the other refusals are above)"], "in use: %s" % r.err)
            check(there(u, "mine", "mine", "mine") and there(u, "other"), "nothing deleted")
        # a model that only shares the name: no such endpoint, not the tool's
        foreign(u, model="lonely")
        r = se(u, "delete", "lonely", "--yes", "--created-by-tool")
        one_line(r, "refusing to delete model 'lonely': it has no tag "
                 "wrk-sagemaker:created-by=wrk-sagemaker: wrk-sagemaker did not create it; "
                 "nothing deleted", code=1)
        check(there(u, model="lonely"), "the lonely model is left")
        # the tool's own config used by its own other endpoint: refused too
        check(se(u, "swap", "mine", "--model", QAT, "--as", "twin", "--run", "r1").rc == 0,
              "twin deployed")
        foreign(u, endpoint="third", uses_config="twin")
        r = se(u, "delete", "twin", "--yes", "--run", "r1")
        check(r.rc == 1 and "refusing to delete endpoint config 'twin': endpoint 'third' uses it"
              in r.err and there(u, "twin", "twin", "twin"), "twin in use: %s" % r.err)


def test_interrupt():
    with emu("--create-time", "600000") as e:
        p = subprocess.Popen([binary(), "--endpoint-url", e.url, "--time-scale", "1000", "--region",
                              "us-east-1", "deploy", "long", "--model", BF16, "--role", ROLE,
                              "--run", "r-long"],
                             stderr=subprocess.PIPE, stdout=subprocess.PIPE, env=ENV)
        err = b""
        while b"Creating" not in err:
            line = p.stderr.readline()
            if not line:
                break
            err += line
        p.send_signal(signal.SIGINT)
        out, rest = p.communicate(timeout=30)
        err += rest
        check(p.returncode == 130, "exit 130 on Ctrl-C: %d" % p.returncode)
        check(b"sm-endpoint: stopped waiting: long in us-east-1 is still Creating and goes on "
              b"(billed once placed): delete it with sm-endpoint delete long --region us-east-1 "
              b"--run r-long --wait" in err, "says what is left: %s" % err)
        check(json.loads(se(e.url, "status", "long", "--json").out)["status"] == "Creating",
              "the endpoint goes on")


def aas(url, *args):
    """The aws CLI's application-autoscaling against the emulator."""
    p = subprocess.run(["aws", "--endpoint-url", url, "--region", "us-east-1", "--output", "json",
                        "application-autoscaling"] + list(args), capture_output=True, env=ENV,
                       timeout=60)
    return Run(p)


def aas_list(url, what, key):
    r = aas(url, what, "--service-namespace", "sagemaker")
    check(r.rc == 0, "aws application-autoscaling %s: %s" % (what, r.err))
    return r.json()[key] if r.rc == 0 else []


SCALE_SET = ["autoscale", "set", "scaled", "--min", "1", "--max", "3", "--target-invocations",
             "70", "--scale-in-cooldown", "300", "--disable-scale-in"]


def test_autoscale():
    with emu("--quota", "us-east-1/*=4") as e:
        u = e.url
        check(deploy(u, "scaled", "--run", "r1").rc == 0, "deployed scaled")
        # no terminal to ask on and no --yes: one line, exit 2, nothing registered
        r = se(u, *SCALE_SET)
        one_line(r, "autoscale set scaled: standard input is not a terminal to ask on: pass --yes "
                 "to change its autoscaling (or --dry-run to see the calls)")
        check(aas_list(u, "describe-scalable-targets", "ScalableTargets") == [],
              "nothing registered without confirmation")
        # on a terminal it asks: "n" changes nothing
        rc, out = pty_run(["--endpoint-url", u, "--time-scale", "1000", "--region", "us-east-1"]
                          + SCALE_SET, b"n")
        check(rc == 1 and "Set the autoscaling of endpoint scaled in us-east-1 to 1 to 3 "
              "instance(s)? It changes how many instances bill. [y/N]" in out and
              "sm-endpoint: nothing changed" in out, "asked, no: %s" % out)
        check(aas_list(u, "describe-scalable-targets", "ScalableTargets") == [],
              "nothing registered after 'n'")
        # --dry-run: the calls, none sent
        r = se(u, *SCALE_SET, "--dry-run")
        lines = r.out.splitlines()
        check(r.rc == 0 and len(lines) == 3 and
              lines[0] == "dry run: autoscale set scaled/AllTraffic in us-east-1 would send:" and
              lines[1].startswith("application-autoscaling RegisterScalableTarget {") and
              lines[2].startswith("application-autoscaling PutScalingPolicy {"),
              "dry run prints the calls: %d %r %s" % (r.rc, r.out, r.err))
        if r.rc == 0 and len(lines) == 3:
            reg = json.loads(lines[1].split(" ", 2)[2])
            check(reg == {"ServiceNamespace": "sagemaker",
                          "ResourceId": "endpoint/scaled/variant/AllTraffic",
                          "ScalableDimension": "sagemaker:variant:DesiredInstanceCount",
                          "MinCapacity": 1, "MaxCapacity": 3}, "the register call: %r" % reg)
        check(aas_list(u, "describe-scalable-targets", "ScalableTargets") == [],
              "a dry run registers nothing")
        # set: the aws CLI reads what it registered
        r = se(u, *SCALE_SET, "--yes")
        check(r.rc == 0 and r.out.startswith(
            "autoscaling of endpoint scaled variant AllTraffic in us-east-1: 1 to 3 instance(s), "
            "target 70 SageMakerVariantInvocationsPerInstance (policy "
            "wrk-sagemaker-target-tracking: arn:aws:autoscaling:"), "set: %s %s" % (r.out, r.err))
        t = aas_list(u, "describe-scalable-targets", "ScalableTargets")
        check(len(t) == 1 and t[0]["ResourceId"] == "endpoint/scaled/variant/AllTraffic" and
              t[0]["ScalableDimension"] == "sagemaker:variant:DesiredInstanceCount" and
              (t[0]["MinCapacity"], t[0]["MaxCapacity"]) == (1, 3), "the target: %r" % t)
        pol = aas_list(u, "describe-scaling-policies", "ScalingPolicies")
        c = pol[0].get("TargetTrackingScalingPolicyConfiguration", {}) if len(pol) == 1 else {}
        check(len(pol) == 1 and pol[0]["PolicyName"] == "wrk-sagemaker-target-tracking" and
              pol[0]["PolicyType"] == "TargetTrackingScaling" and c.get("TargetValue") == 70 and
              c.get("PredefinedMetricSpecification") ==
              {"PredefinedMetricType": "SageMakerVariantInvocationsPerInstance"} and
              c.get("ScaleInCooldown") == 300 and "ScaleOutCooldown" not in c and
              c.get("DisableScaleIn") is True, "the policy the aws CLI sees: %r" % pol)
        # show, text and JSON
        r = se(u, "autoscale", "show", "scaled")
        check(r.rc == 0 and r.out.startswith(
            "variant AllTraffic: 1 to 3 instance(s)\n  policy wrk-sagemaker-target-tracking: "
            "TargetTrackingScaling, target 70 SageMakerVariantInvocationsPerInstance, scale-in "
            "cooldown 300 s, scale-in disabled\n"), "show: %r %s" % (r.out, r.err))
        r = se(u, "autoscale", "show", "scaled", "--json")
        j = r.json() if r.rc == 0 else {}
        check(j.get("endpoint") == "scaled" and len(j.get("targets", [])) == 1 and
              j["targets"][0]["MaxCapacity"] == 3 and len(j.get("policies", [])) == 1 and
              j["policies"][0]["PolicyName"] == "wrk-sagemaker-target-tracking" and
              isinstance(j.get("activities"), list), "show --json: %r %s" % (r.out, r.err))
        # set again: the policy is replaced, on the concurrency metric
        r = se(u, "autoscale", "set", "scaled", "--min", "2", "--max", "4",
               "--target-concurrency", "8", "--yes")
        pol = aas_list(u, "describe-scaling-policies", "ScalingPolicies")
        check(r.rc == 0 and len(pol) == 1 and
              pol[0]["TargetTrackingScalingPolicyConfiguration"]["PredefinedMetricSpecification"]
              == {"PredefinedMetricType":
                  "SageMakerVariantConcurrentRequestsPerModelHighResolution"} and
              pol[0]["TargetTrackingScalingPolicyConfiguration"]["TargetValue"] == 8,
              "set again replaces the policy: %s %r" % (r.err, pol))
        r = se(u, "autoscale", "set", "scaled", "--variant", "Other", "--min", "1", "--max", "2",
               "--target-invocations", "5", "--yes")
        one_line(r, "endpoint 'scaled' has no variant 'Other' (it has: AllTraffic)")
        # an endpoint wrk-sagemaker did not create: refused, exit 2, nothing changed
        foreign(u, endpoint="theirs", config="theirs", model="theirs")
        r = aas(u, "register-scalable-target", "--service-namespace", "sagemaker",
                "--resource-id", "endpoint/theirs/variant/AllTraffic", "--scalable-dimension",
                "sagemaker:variant:DesiredInstanceCount", "--min-capacity", "1",
                "--max-capacity", "2")
        check(r.rc == 0, "the aws CLI registers theirs: %s" % r.err)
        why = ("it has no tag wrk-sagemaker:created-by=wrk-sagemaker: wrk-sagemaker did not "
               "create it")
        for args in (["set", "theirs", "--min", "1", "--max", "5", "--target-invocations", "9"],
                     ["remove", "theirs"], ["remove", "theirs", "--dry-run"]):
            r = se(u, "autoscale", *args, "--yes")
            one_line(r, "refusing to change the autoscaling of endpoint 'theirs' in us-east-1: "
                     + why)
            check(r.out == "", "refused: no output %r" % r.out)
        t = [x for x in aas_list(u, "describe-scalable-targets", "ScalableTargets")
             if x["ResourceId"] == "endpoint/theirs/variant/AllTraffic"]
        check(len(t) == 1 and t[0]["MaxCapacity"] == 2, "theirs is left as it was: %r" % t)
        r = se(u, "autoscale", "show", "theirs")
        check(r.rc == 0 and r.out.startswith("variant AllTraffic: 1 to 2 instance(s)\n  no "
                                              "scaling policy\n"), "show reads any: %r" % r.out)
        r = se(u, "autoscale", "set", "nowhere", "--min", "1", "--max", "2",
               "--target-invocations", "5", "--yes")
        one_line(r, "endpoint 'nowhere' not found in us-east-1", code=1)
        # remove: --dry-run prints the calls, then remove deletes; the aws CLI sees nothing left
        r = se(u, "autoscale", "remove", "scaled", "--dry-run")
        check(r.rc == 0 and r.out.splitlines() == [
            "dry run: autoscale remove scaled in us-east-1 would send:",
            'application-autoscaling DeleteScalingPolicy {"ServiceNamespace":"sagemaker",'
            '"ResourceId":"endpoint/scaled/variant/AllTraffic","ScalableDimension":'
            '"sagemaker:variant:DesiredInstanceCount","PolicyName":'
            '"wrk-sagemaker-target-tracking"}',
            'application-autoscaling DeregisterScalableTarget {"ServiceNamespace":"sagemaker",'
            '"ResourceId":"endpoint/scaled/variant/AllTraffic","ScalableDimension":'
            '"sagemaker:variant:DesiredInstanceCount"}'], "remove --dry-run: %r %s" % (r.out, r.err))
        check(len(aas_list(u, "describe-scaling-policies", "ScalingPolicies")) == 1,
              "a dry run removes nothing")
        r = se(u, "autoscale", "remove", "scaled", "--yes")
        check(r.rc == 0 and r.out == "variant AllTraffic: policy wrk-sagemaker-target-tracking "
              "deleted\nvariant AllTraffic: scalable target deregistered\n",
              "remove: %r %s" % (r.out, r.err))
        check([x for x in aas_list(u, "describe-scalable-targets", "ScalableTargets")
               if x["ResourceId"].startswith("endpoint/scaled/")] == [] and
              aas_list(u, "describe-scaling-policies", "ScalingPolicies") == [],
              "the aws CLI sees no target or policy of scaled")
        r = se(u, "autoscale", "remove", "scaled", "--yes")
        check(r.rc == 0 and r.out == "endpoint scaled in us-east-1 has no autoscaling: nothing "
              "to remove\n", "remove again: %r %s" % (r.out, r.err))
        r = se(u, "autoscale", "show", "scaled")
        check(r.rc == 0 and r.out == "endpoint scaled in us-east-1: no autoscaling\n",
              "show after remove: %r" % r.out)


def main():
    tests = {"usage": test_usage, "lifecycle": test_lifecycle, "fallback": test_fallback,
             "quotas": test_quotas, "logs": test_logs, "confirm": test_confirm,
             "interrupt": test_interrupt, "hostile": test_hostile, "tags": test_tags,
             "taken": test_taken, "shared": test_shared, "autoscale": test_autoscale}
    group = sys.argv[1] if len(sys.argv) > 1 else ""
    if group not in tests:
        print(__doc__, file=sys.stderr)
        return 2
    tests[group]()
    return finish()


if __name__ == "__main__":
    sys.exit(main())
