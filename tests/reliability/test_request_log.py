#!/usr/bin/python3
"""sm-emulator's --request-log, which the other reliability tests use to match
records to requests: one line per request the stats count, whatever its fate.

A call, a refused stale session token, an unknown endpoint, an unsigned call, a
ping, malformed requests (400, 411, 431), a body over the limit (413) and a call
whose client gave up (status 0): the log has exactly totals.requests lines, its
statuses are the stats' replies (431 and 411 counted as themselves), its ids are
unique and the call's is the x-amzn-RequestId its client saw, the access key, the
endpoint, the prompt and the tokens are those of the call; GET /emulator/stats is
not logged. No secret in the log or any output.

usage: test_request_log.py all"""
import collections
import json
import os
import socket
import subprocess
import sys
import time

import harness
from harness import check

PROMPT = "What is 54 * 28? Reply with the number only."


def raw(url, data):
    """Sends bytes, returns the reply's status line."""
    host, port = url.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=30) as s:
        s.sendall(data)
        reply = b""
        while b"\r\n" not in reply:
            chunk = s.recv(65536)
            if not chunk:
                break
            reply += chunk
    return reply.split(b"\r\n", 1)[0].decode()


def invoke(work, url, keys, endpoint, *extra):
    body = os.path.join(work.inputs, "body.json")
    with open(body, "w") as f:
        json.dump({"messages": [{"role": "user", "content": PROMPT}], "max_tokens": 8}, f)
    env = harness.base_env()
    env.update(keys.env(), AWS_REGION="us-east-1")
    p = subprocess.run([os.environ["SM_INVOKE"], "--endpoint", endpoint, "--body", body, "--url",
                        url, "-v"] + list(extra), env=env, capture_output=True, text=True,
                       timeout=60)
    with open(work.path("invoke-%s-%d.stderr" % (endpoint, time.monotonic_ns())), "w") as f:
        f.write(p.stderr)
    ids = [line.split(":", 1)[1].strip() for line in p.stderr.splitlines()
           if line.lower().startswith("< x-amzn-requestid:")]
    return p.returncode, ids


def case_all():
    work = harness.Work("request-log")
    good = work.new_keys()
    stale = work.new_keys(expiration=int(time.time()) - 60)
    emu = harness.Emu(work, ["--endpoint", "ep=instant", "--endpoint", "slow=instant",
                             "--set", "slow.overhead_s=30"], [good, stale])
    try:
        rc, ids = invoke(work, emu.url, good, "ep")
        check(rc == 0 and len(ids) == 1, "the call failed: %s" % rc)
        check(invoke(work, emu.url, stale, "ep")[0] == 1, "a stale token was accepted")
        check(invoke(work, emu.url, good, "nope")[0] == 1, "an unknown endpoint answered")
        # the client gives up after 1 s; the emulator sees the connection close
        check(invoke(work, emu.url, good, "slow", "--timeout", "1")[0] == 1, "slow answered")
        harness.wait_for("the dropped call", lambda: emu.stats()["totals"]["dropped"] == 1)
        for data, want in (
            (b"GET /ping HTTP/1.1\r\nHost: x\r\n\r\n", " 200 "),
            (b"POST /endpoints/ep/invocations HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
             b"Connection: close\r\n\r\n{}", " 403 "),
            (b"BAD\r\n\r\n", " 400 "),
            (b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", " 411 "),
            (b"GET / HTTP/1.1\r\nX: " + b"y" * 70000 + b"\r\n\r\n", " 431 "),
            (b"POST /x HTTP/1.1\r\nContent-Length: 7000000\r\n\r\n", " 413 "),
        ):
            status = raw(emu.url, data)
            check(want in status + " ", "%r: %s" % (data[:30], status))
        st = emu.stats()
    finally:
        emu.stop()
    log = emu.requests()
    totals = st["totals"]
    check(len(log) == totals["requests"] == 10, "%d log lines, %d requests (want 10)"
          % (len(log), totals["requests"]))
    statuses = collections.Counter(str(e["status"]) for e in log if e["status"])
    check(dict(statuses) == totals["replies"], "log %s, stats %s" % (dict(statuses),
                                                                     totals["replies"]))
    check(totals["replies"].get("431") == 1 and totals["replies"].get("411") == 1,
          "malformed requests counted under the wrong status: %s" % totals["replies"])
    check(len({e["id"] for e in log}) == len(log), "request ids repeat")
    call = [e for e in log if e["id"] == ids[0]]
    check(len(call) == 1, "the call's x-amzn-RequestId %s is not in the log" % ids[0])
    c = call[0]
    check((c["endpoint"], c["variant"], c["access_key_id"], c["status"], c["prompt"]) ==
          ("ep", "AllTraffic", good.akid, 200, PROMPT), "the call's line: %s" % c)
    check(c["completion_tokens"] == st["endpoints"]["ep"]["completion_tokens"] > 0
          and c["prompt_tokens"] == st["endpoints"]["ep"]["prompt_tokens"], "tokens: %s" % c)
    check(c["received"] <= c["replied"], "replied before received: %s" % c)
    expired = [e for e in log if e["error_type"] == "ExpiredTokenException"]
    check(len(expired) == 1 and expired[0]["access_key_id"] == stale.akid
          and expired[0]["status"] == 403, "the stale token's line: %s" % expired)
    dropped = [e for e in log if e["status"] == 0]
    check(len(dropped) == 1 and dropped[0]["endpoint"] == "slow"
          and dropped[0]["prompt"] == PROMPT, "the dropped call's line: %s" % dropped)
    unknown = [e for e in log if e["error_type"] == "ValidationError"]
    check(len(unknown) == 1 and unknown[0]["endpoint"] is None, "unknown endpoint: %s" % unknown)
    work.scan()
    work.clean()


CASES = {"all": case_all}

if __name__ == "__main__":
    sys.exit(harness.run_cases(CASES, sys.argv))
