#!/usr/bin/python3
"""The built-in profiles plan the article's timing: the service time the emulator gives
every call (x-sm-emulator-service-us, model microseconds from the call's start to its
reply being due: emulator/README.md, "Service time") is the profile's plan, so the
figures the article's method takes from walls (decode rate and per-call fixed cost from
medians of 5 x 16 and 5 x 512 ignore_eos tokens, throughput of one 256-token call) come
out of those service times whatever the machine's load:

- bf16-l4 and qat-l4, the article's servers: the article's figures with its client's
  cost C (the aws CLI's, tests/data/aws-cli-cost.json) taken out: the decode rate
  unchanged (within 1%), the per-call cost F - C (within 2% of F, absolute), throughput
  at 1 256 / (256 / T - C) (within 2%);
- bf16-l4-awscli and qat-l4-awscli, the client model: the article's published figures
  (decode within 1%, the rest within 2%).

The bounds are the calibration's (the profiles' step and overhead are rounded, their
jitter is +-1%), not a margin for the machine: a service time ends when the reply was
due, never when a late process sent it, and no call is ever planned below its profile's
plan at the low end of its jitter (client_s + (overhead_s + n x step(1)) x 0.99 +
prefill_s_per_token x the prompt's tokens, from the request log), which every call is
checked against. What a client measures on the wall clock (and throughput at 4 and 16,
whose batches form as the requests happen to arrive) is the benchmark's:
tests/bench/run --parts profiles (BENCHMARKS.md). Optional argument: the time scale
(default 10)."""
import json
import os
import statistics
import sys
import tempfile

from emutest import chat, check, emulator, finish, invoke

TOLERANCE = 0.02
HEADER = "x-sm-emulator-service-us"
PROMPT = "Write a long, detailed story about a lighthouse keeper on a remote island."
# name, profile, through the aws CLI; the plan of each (README's profile table)
SIDES = (("bf16", "bf16-l4", False), ("qat", "qat-l4", False),
         ("bf16-cli", "bf16-l4-awscli", True), ("qat-cli", "qat-l4-awscli", True))
PLAN = {"bf16": (0.202, 0.0194932), "qat": (0.131, 0.0095147)}  # overhead_s, step(1) s
CLIENT_S, PREFILL_S, JITTER = 0.43, 0.00005, 0.01


def expected(article, cli_cost, side, through_cli):
    """[(figure, the article's value for it, tolerance as a fraction of the article's)]:
    the published figures through the aws CLI, else the server's (the CLI's cost out)."""
    ref = article["results"][side]
    fixed = ref["per_call_fixed_cost_seconds"]
    c1 = ref["load_tokens_per_second"]["1"]
    out = [("decode tokens/s", ref["decode_tokens_per_second"], 0.01)]
    if through_cli:
        out += [("per-call fixed cost s", fixed, TOLERANCE), ("c1 tokens/s", c1, TOLERANCE)]
    else:
        out += [("per-call fixed cost s", fixed - cli_cost, TOLERANCE * fixed / (fixed - cli_cost)),
                ("c1 tokens/s", 256 / (256 / c1 - cli_cost), TOLERANCE)]
    return out


def calls(scale):
    """{(side, tokens): [service seconds]} of lone calls, and the request log's entries."""
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "requests.jsonl")
        args = ["--time-scale", str(scale), "--request-log", log]
        for name, profile, _ in SIDES:
            args += ["--endpoint", "%s=%s" % (name, profile)]
        got = {}
        with emulator.Emulator(args) as emu:
            for rep in range(5):  # one call at a time: each alone in its variant's batch
                for name, _, _ in SIDES:
                    for n in (16, 512) + ((256,) if rep == 0 else ()):
                        r = invoke(emu.url, name, chat(PROMPT, n, ignore_eos=True))
                        v = r.header(HEADER)
                        check(r.status == 200 and v is not None and v.isdigit(),
                              "%s: %d tokens: status %d, %s %r" % (name, n, r.status, HEADER, v))
                        if r.status == 200 and v and v.isdigit():
                            check(r.json()["usage"]["completion_tokens"] == n,
                                  "%s: %d tokens asked, %s" % (name, n, r.json()["usage"]))
                            got.setdefault((name, n), []).append(
                                (int(v) / 1e6, r.header("x-amzn-requestid")))
        with open(log) as f:
            entries = {e["id"]: e for e in map(json.loads, f)}
    return got, entries


def main():
    scale = float(sys.argv[1]) if len(sys.argv) > 1 else 10
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
    article = json.load(open(os.path.join(data, "article-2026-09-25.json")))
    cli_cost = json.load(open(os.path.join(data, "aws-cli-cost.json")))["calibration_seconds"]
    got, log = calls(scale)
    for name, _, through_cli in SIDES:
        side = name.split("-")[0]
        overhead, step = PLAN[side]
        client = CLIENT_S if through_cli else 0
        for n in (16, 512, 256):
            for service, rid in got.get((name, n), []):
                e = log.get(rid, {})
                low = client + (overhead + n * step) * (1 - JITTER) + PREFILL_S * e.get(
                    "prompt_tokens", 0)
                check(e.get("completion_tokens") == n and service >= low - 1e-6,
                      "%s: %d tokens: service %.6f s, the plan at least %.6f s (log %s)"
                      % (name, n, service, low, e))
        if not all(got.get((name, n)) for n in (16, 512, 256)):
            continue
        w16 = statistics.median(s for s, _ in got[name, 16])
        w512 = statistics.median(s for s, _ in got[name, 512])
        figures = [496 / (w512 - w16), w16 - 16 * (w512 - w16) / 496, 256 / got[name, 256][0][0]]
        for g, (label, want, tol) in zip(figures, expected(article, cli_cost, side, through_cli)):
            print("%-8s %-22s %9.4f  want %9.4f  %+6.2f%% (within %.1f%%)"
                  % (name, label, g, want, 100 * (g / want - 1), 100 * tol))
            check(abs(g / want - 1) <= tol, "%s %s: %.4f planned, the article's %.4f (bound %.1f%%)"
                  % (name, label, g, want, 100 * tol))
    return finish()


if __name__ == "__main__":
    sys.exit(main())
