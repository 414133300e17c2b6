#!/usr/bin/python3
"""x-sm-emulator-service-us (emulator/README.md, Service time): every reply to a call
carries the call's model microseconds to its head leaving. Fixed steps, no jitter, at
--time-scale 1 and 10: a whole reply's value is never less than the model's plan (overhead
+ n steps) and never more than the request log's received-to-replied span times the scale
(the log's span holds the call's); a streamed reply's head says the overhead (it leaves
before the first token, which the log times); a refused signature carries none."""
import json
import os
import sys
import tempfile

from emutest import chat, check, emulator, finish, invoke, request, signed_headers

HEADER = "x-sm-emulator-service-us"
STEP, OVERHEAD, N = 0.010, 0.05, 8


def read_log(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def run(scale):
    """(whole reply, streamed reply, refused reply, log entries by api) at scale."""
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "requests.jsonl")
        args = ["--endpoint", "ep=instant", "--set", "ep.step_ms=1:%g" % (STEP * 1000),
                "--set", "ep.overhead_s=%g" % OVERHEAD, "--time-scale", str(scale),
                "--request-log", log]
        with emulator.Emulator(args) as emu:
            whole = invoke(emu.url, "ep", chat("Write a story.", N, ignore_eos=True))
            path = "/endpoints/ep/invocations-response-stream"
            body = json.dumps(chat("Write a story.", N, ignore_eos=True, stream=True)).encode()
            streamed = request(emu.url, path, body, signed_headers(emu.url, path, body))
            refused = invoke(emu.url, "ep", chat("Hi", 2), secret="wrong")
        entries = {e["api"]: e for e in read_log(log) if e["status"] == 200}
    return whole, streamed, refused, entries


def value(reply, what):
    v = reply.header(HEADER)
    check(v is not None and v.isdigit(), "%s: %s is %r" % (what, HEADER, v))
    return int(v) if v and v.isdigit() else -1


def test(scale):
    whole, streamed, refused, log = run(scale)
    check(whole.status == 200 and streamed.status == 200, "replies %d %d" % (whole.status,
                                                                              streamed.status))
    v = value(whole, "whole reply at K=%g" % scale)
    plan = (OVERHEAD + N * STEP) * 1e6
    span = (log["invoke"]["replied"] - log["invoke"]["received"]) * 1e6
    # Never before the plan (replies wait out their due time); within the log's span
    # (received before the call began, replied after the header was stamped), which
    # is on the wall clock: 100 us of slack for its slew against the monotonic one.
    check(plan - 1 <= v <= span * scale + 100 * scale,
          "whole reply at K=%g: %d us, plan %d us, the log's span %d us x K"
          % (scale, v, plan, span))
    s = value(streamed, "streamed head at K=%g" % scale)
    first = (log["stream"]["first_token"] - log["stream"]["received"]) * 1e6
    # The head goes when the overhead's timer fires (up to MCLOCK_WAKE_LEAD early),
    # before the first token leaves.
    check(OVERHEAD * 1e6 - 300 * scale - 1 <= s <= first * scale + 100 * scale and s < plan,
          "streamed head at K=%g: %d us, overhead %d us, first token %d us x K"
          % (scale, s, OVERHEAD * 1e6, first))
    check(refused.status == 403 and refused.header(HEADER) is None,
          "a refused signature has no %s (%d, %r)" % (HEADER, refused.status,
                                                      refused.header(HEADER)))


def main():
    for scale in (1, 10):
        test(scale)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
