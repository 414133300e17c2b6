#!/usr/bin/python3
"""sm-mcp's guards over raw stdio JSON-RPC against sm-emulator, each a probe of
an audit finding:
  - N3: deploy_endpoint (and delete_endpoint, run_benchmark) without
    "confirm": true does nothing and says what it would do, price included;
  - N12: "team-prod\\u0000-scratch" is refused naming the argument, and
    team-prod is left alone;
  - N13: run_benchmark's out stays inside the runs folder (no absolute path,
    no "..", no link on the way) and its levels are capped;
  - N11: the end of stdin, or notifications/cancelled, stops the program and
    every process it started (a child, and a grandchild in its own session
    that ignores SIGTERM) within the grace period; /proc is polled until none
    is left, with a deadline.

    test_guards.py SM_MCP

Environment: SM_EMULATOR."""
import os
import shutil
import subprocess
import signal
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import emulator  # noqa: E402
from mcpsession import Session  # noqa: E402
from testkit import FAILED, expect as check, finish, isolated_env  # noqa: E402

ROLE = "arn:aws:iam::123456789012:role/sm-mcp-test"
# A stop sends SIGTERM, then SIGKILL a second later: everything is gone well
# before this deadline, which only bounds a failing test.
STOP_DEADLINE_S = 10


def text(r):
    return r["content"][0]["text"]


def descendants(root):
    """The pids below root, from /proc."""
    parent = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    stat = f.read()
            except OSError:
                continue
            parent[int(d)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, todo = set(), [root]
    while todo:
        p = todo.pop()
        for c, pp in parent.items():
            if pp == p and c not in found:
                found.add(c)
                todo.append(c)
    return found


def alive(pids):
    """Those of pids that still exist (a zombie counts: it is not yet waited for)."""
    return {p for p in pids if os.path.exists("/proc/%d" % p)}


def poll(what, cond, deadline_s):
    end = time.monotonic() + deadline_s
    while True:
        got = cond()
        if got or time.monotonic() > end:
            check(got, what)
            return got
        time.sleep(0.02)  # a polling interval, not a synchronisation


def test_confirmation(s):
    """N3: nothing is created, deleted or run without confirm: true."""
    r = s.tool("deploy_endpoint", {"endpoint_name": "big", "model_id": "org/model",
                                   "role_arn": ROLE, "instance_types": ["ml.p5.48xlarge"],
                                   "image": "123456789012.dkr.ecr.us-east-1.amazonaws.com/any:1",
                                   "wait": False})
    check(r.get("isError"), "an unconfirmed deploy is a tool error: %s" % r)
    check(text(r).startswith('deploy_endpoint was not run: it needs "confirm": true. The call would '
                             "create SageMaker endpoint big in us-east-1 serving org/model with image "
                             "123456789012.dkr.ecr.us-east-1.amazonaws.com/any:1 on ml.p5.48xlarge"),
          "it says what it would create: %s" % text(r))
    check("price_per_hour tells it" in text(r), "and that its price is unknown: %s" % text(r))
    r = s.tool("deploy_endpoint", {"endpoint_name": "big", "model_id": "org/model",
                                   "role_arn": ROLE, "price_per_hour": 98.32, "confirm": False,
                                   "wait": False})
    check(r.get("isError") and "bill USD 98.32 an hour" in text(r), "with its price: %s" % text(r))
    r = s.tool("list_endpoints", {})
    names = [e["endpoint"] for e in r["structuredContent"]["endpoints"]]
    check("big" not in names, "no endpoint was created: %s" % names)
    r = s.tool("delete_endpoint", {"endpoint_name": "team-prod"})
    check(r.get("isError") and "would delete SageMaker endpoint team-prod in us-east-1" in text(r),
          "an unconfirmed delete says what it would delete: %s" % r)
    r = s.tool("run_benchmark", {"baseline": "team-prod", "candidate": "team-prod", "out": "r1"})
    check(r.get("isError") and "would run sm-suite in us-east-1 against endpoints team-prod and "
          "team-prod" in text(r) and "write the run to runs/r1" in text(r),
          "an unconfirmed benchmark says what it would run: %s" % r)
    r = s.tool("get_endpoint_status", {"endpoint_name": "team-prod"})
    check(r["structuredContent"]["status"] == "InService", "team-prod is still there: %s" % r)
    tools = s.request("tools/list", {})["result"]["tools"]
    by = {t["name"]: t for t in tools}
    for name in ("deploy_endpoint", "delete_endpoint", "run_benchmark"):
        t = by[name]
        check(t["annotations"]["readOnlyHint"] is False, "%s: readOnlyHint false" % name)
        check(t["inputSchema"]["properties"].get("confirm", {}).get("type") == "boolean",
              "%s: its schema lists confirm" % name)
        check('"confirm": true' in t["description"], "%s: its description names confirm" % name)
    check(by["delete_endpoint"]["annotations"]["destructiveHint"] is True, "delete: destructive")


def test_control_characters(s):
    """N12: a NUL is not a cut: the argument is refused, by name."""
    r = s.tool("delete_endpoint", {"endpoint_name": "team-prod\u0000-scratch", "confirm": True})
    check(r.get("isError") and text(r) == (
        'Invalid arguments for tool delete_endpoint: argument "endpoint_name" holds a NUL (U+0000) '
        "at character 10: no NUL or other control character (U+0000-U+001F, U+007F-U+009F) is "
        "accepted"), "NUL refused, naming the argument: %s" % r)
    r = s.tool("get_endpoint_status", {"endpoint_name": "team-prod\u001b[2J"})
    check(r.get("isError") and "holds the control character U+001B" in text(r), "ESC: %s" % r)
    r = s.tool("get_endpoint_status", {"endpoint_name": "team-prod\u0085"})
    check(r.get("isError") and "holds the control character U+0085" in text(r), "C1: %s" % r)
    r = s.tool("get_endpoint_status", {"endpoint_name": "team-prod"})
    check(r["structuredContent"]["status"] == "InService", "team-prod was not deleted: %s" % r)


def test_run_bounds(s, tmp):
    """N13: the run stays inside the runs folder; levels are capped."""
    os.makedirs(os.path.join(tmp, "runs"), exist_ok=True)
    os.symlink(tmp, os.path.join(tmp, "runs", "up"))
    for out, why in (("/tmp/x", 'out "/tmp/x" is an absolute path'),
                     ("../escaped", 'out "../escaped" has a "." or ".." component'),
                     ("up/escaped", "runs/up/escaped is a link or not a folder on the way")):
        r = s.tool("run_benchmark", {"baseline": "a", "candidate": "b", "out": out,
                                     "confirm": True})
        check(r.get("isError") and why in text(r), "out %s refused: %s" % (out, r))
    check(not os.path.exists(os.path.join(tmp, "escaped")), "nothing made outside the runs folder")
    r = s.tool("run_benchmark", {"baseline": "a", "candidate": "b", "levels": [1, 100000],
                                 "confirm": True})
    check(r.get("isError") and text(r).endswith('argument "levels[1]": must be at most 256'),
          "levels capped: %s" % r)
    r = s.tool("run_benchmark", {"baseline": "a", "candidate": "b", "levels": list(range(1, 18)),
                                 "confirm": True})
    check(r.get("isError") and text(r).endswith('argument "levels": must have at most 16 items'),
          "at most 16 levels: %s" % r)
    r = s.tool("compare_results", {"baseline": "/etc", "candidate": "x"})
    check(r.get("isError") and 'baseline "/etc" is an absolute path' in text(r),
          "compare_results reads only inside the runs folder: %s" % r)
    tools = {t["name"]: t for t in s.request("tools/list", {})["result"]["tools"]}
    levels = tools["run_benchmark"]["inputSchema"]["properties"]["levels"]
    check(levels.get("items", {}).get("maximum") == 256 and levels.get("maxItems") == 16,
          "caps in the schema: %s" % levels)


def cleanup(s, pids):
    """After a failed stop: ends what is left, so that no test leaves a process behind."""
    for p in alive(pids) | {s.p.pid}:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
    s.p.wait()


def start_run(server, env, tmp, out):
    """A session running the fake sm-suite; its processes once all have started."""
    s = Session(server, ["--region", "us-east-1", "--endpoint-url", "http://127.0.0.1:9"],
                dict(env, SM_SUITE=os.path.join(HERE, "fake_suite.sh")), tmp,
                stderr=subprocess.DEVNULL)
    rid = s.start("tools/call", {"name": "run_benchmark",
                                 "arguments": {"baseline": "a", "candidate": "b", "out": out,
                                               "confirm": True}}, token="p")
    note = s.read_until(lambda m: m.get("method") == "notifications/progress" or "id" in m)
    check(note and note.get("method") == "notifications/progress", "the run started: %s" % note)
    pids = poll("the program, its child and its grandchild run",
                lambda: (lambda d: d if len(d) >= 3 else None)(descendants(s.p.pid)), STOP_DEADLINE_S)
    return s, rid, pids or set()


def test_stop_at_end_of_input(server, env, tmp):
    """N11: closing stdin stops every process the run started."""
    s, rid, pids = start_run(server, env, tmp, "eof")
    s.p.stdin.close()
    if not poll("no process of the run is left after the input ended (%s)" % sorted(pids),
                lambda: not alive(pids), STOP_DEADLINE_S):
        return cleanup(s, pids)
    reply = s.read_until(lambda m: m.get("id") == rid)
    check(reply and reply["result"].get("isError") and "sm-mcp's input ended" in text(reply["result"]),
          "the reply says why it stopped: %s" % reply)
    check(s.p.wait(timeout=STOP_DEADLINE_S) == 0, "sm-mcp ends at the end of its input")


def test_stop_at_cancellation(server, env, tmp):
    """N11: notifications/cancelled stops them too, and the session goes on."""
    s, rid, pids = start_run(server, env, tmp, "cancelled")
    s.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid}})
    if not poll("no process of the run is left after the cancellation (%s)" % sorted(pids),
                lambda: not alive(pids), STOP_DEADLINE_S):
        return cleanup(s, pids)
    r = s.request("ping", {})
    check(r == {"jsonrpc": "2.0", "id": s.id, "result": {}}, "the session goes on: %s" % r)
    check(not any(m.get("id") == rid for m in s.notes), "no reply to the cancelled call")
    s.close()


def test_stop_at_sigterm(server, env, tmp):
    """SIGTERM to sm-mcp stops every process the run started, then sm-mcp itself."""
    s, rid, pids = start_run(server, env, tmp, "sigterm")
    s.p.send_signal(signal.SIGTERM)
    if not poll("no process of the run is left after sm-mcp's SIGTERM (%s)" % sorted(pids),
                lambda: not alive(pids), STOP_DEADLINE_S):
        return cleanup(s, pids)
    check(s.p.wait(timeout=STOP_DEADLINE_S) == -signal.SIGTERM,
          "sm-mcp ends by the signal once its run is stopped")


def main():
    server = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="mcp-guards-")
    env = isolated_env(AWS_ACCESS_KEY_ID="AKIDMCPGUARDS", AWS_SECRET_ACCESS_KEY="mcp-guards-key",
                       AWS_REGION="eu-west-3", AWS_PROFILE="someone-else")
    try:
        with emulator.Emulator(["--endpoint", "team-prod=instant"],
                               env=env) as emu:
            s = Session(server, ["--region", "us-east-1", "--endpoint-url", emu.url], env, tmp,
                        stderr=subprocess.DEVNULL)
            test_confirmation(s)
            test_control_characters(s)
            test_run_bounds(s, tmp)
            s.close()
        test_stop_at_end_of_input(server, env, tmp)
        test_stop_at_cancellation(server, env, tmp)
        test_stop_at_sigterm(server, env, tmp)
    finally:
        if not FAILED:
            shutil.rmtree(tmp, ignore_errors=True)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
