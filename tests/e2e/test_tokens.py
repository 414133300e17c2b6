#!/usr/bin/python3
"""Prefix-cache hits and speculative decoding end to end (issue 30, items 7 and 8).

Prefix-cache hits: sm-emulator with its prefix cache
and vLLM's --enable-prompt-tokens-details (prompt_tokens_details=1) says each reply's
usage.prompt_tokens_details.cached_tokens; sm-stream (both routes) and the wrk plugin
record it as cached_tokens, equal to the emulator's own request log; sm-compare's hit
ratio per side is the records' cached over prompt tokens, in JSON, text, Markdown and
CSV. Without the details (vLLM's default) no record has the field and sm-compare shows
no hit ratio.

Speculative decoding: sm-emulator's spec_tokens=K, spec_accepted=A streams a vLLM answer
A + 1 tokens a chunk (the last chunk what is left) and logs vLLM's "SpecDecoding metrics"
lines; sm-stream records the chunks; sm-compare's tokens per chunk, acceptance rate and
mean acceptance length per side are what the plan implies: for T answer tokens,
ceil(T / (A + 1)) steps (drafts), T - drafts accepted, K * drafts drafted.

Counts are asserted exactly: no timing margin (the log is read again until its lines
hold every step, a bound on waiting, not on the figures).

usage: test_tokens.py CASE   (environment: SM_STREAM, SM_EMULATOR, SM_COMPARE, WRK,
                              optionally WRK_PRELOAD)"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import emulator  # noqa: E402
from testkit import check, isolated_env  # noqa: E402

LENGTHS = (4, 6)
REPEATS = 2


def env():
    return isolated_env(AWS_ACCESS_KEY_ID="AKIDTOKENSTEST", AWS_SECRET_ACCESS_KEY="tokens-secret")


def emulator_for(log, details):
    args = ["--endpoint", "a=instant", "--endpoint", "b=instant", "--request-log", log]
    sets = ["overhead_s=0.002", "step_ms=1:1", "jitter=0", "prefix_cache_tokens=65536"]
    if details:
        sets.append("prompt_tokens_details=1")
    for ep in ("a", "b"):
        for s in sets:
            args += ["--set", "%s.%s" % (ep, s)]
    return emulator.Emulator(args, binary=os.environ["SM_EMULATOR"], env=env())


def read_log(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def stream_run(api, details):
    """decode.lua under sm-stream: (out dir, result files by label, request log)."""
    out = tempfile.mkdtemp(prefix="tokens-")
    log = os.path.join(out, "requests.jsonl")
    with emulator_for(log, details) as emu:
        res = decode(emu, out, api)
    return out, res, read_log(log)


def decode(emu, out, api):
    """decode.lua under sm-stream on api against emu's a and b: the result files by label."""
    cmd = [os.environ["SM_STREAM"], "-t1", "-c1", "-d2m", "--timeout", "60s", "--api", api,
           "-s", os.path.join(ROOT, "scenarios", "decode.lua"), emu.url, "--", "--region",
           "us-east-1", "--out", os.path.join(out, "{label}.json"), "--endpoint", "a",
           "--endpoint", "b", "--lengths", ",".join(map(str, LENGTHS)), "--repeats",
           str(REPEATS)]
    p = subprocess.run(cmd, env=env(), capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, "%s: exit %d\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    return {lab: json.load(open(os.path.join(out, lab + ".json"))) for lab in ("a", "b")}


def sm_compare(out, fmt):
    p = subprocess.run([os.environ["SM_COMPARE"], "--format", fmt, os.path.join(out, "a.json"),
                        os.path.join(out, "b.json")], capture_output=True, text=True, env=env(),
                       timeout=60)
    check(p.returncode in (0, 1), "sm-compare: exit %d\n%s" % (p.returncode, p.stderr))
    return p.stdout


def check_recorded(res, logged):
    """Each side's records say the cached tokens the emulator logged for its requests
    (the same multiset: the records are in completion order), some hits among them."""
    for lab in ("a", "b"):
        recs = res[lab]["records"]
        check(all(r["ok"] for r in recs) and len(recs) == len(LENGTHS) * REPEATS, str(recs))
        got = sorted((r["prompt_tokens"], r["cached_tokens"]) for r in recs)
        want = sorted((e["prompt_tokens"], e["cached_tokens"]) for e in logged
                      if e["endpoint"] == lab and e["status"] == 200)
        check(got == want, "%s: recorded %r, logged %r" % (lab, got, want))
        check(got[0][1] == 0 and any(c > 0 for _, c in got), "a miss, then hits: %r" % got)


def ratio(recs):
    return sum(r["cached_tokens"] for r in recs) / sum(r["prompt_tokens"] for r in recs)


def check_compared(out, res):
    want = {side: ratio(res[lab]["records"]) for side, lab in (("baseline", "a"),
                                                                ("candidate", "b"))}
    doc = json.loads(sm_compare(out, "json"))
    fig = doc.get("server_tokens", {}).get("prefix_cache_hit_ratio")
    check(fig is not None, "no hit ratio in %s" % json.dumps(doc.get("server_tokens")))
    for side in ("baseline", "candidate"):
        check(abs(fig[side]["value"] - want[side]) < 1e-12 and
              fig[side]["n"] == len(LENGTHS) * REPEATS, "%s: %r, want %r" % (side, fig, want))
    rows = {r[0]: r for r in csv.reader(io.StringIO(sm_compare(out, "csv"))) if r}
    row = rows.get("prefix_cache_hit_ratio")
    check(row is not None and abs(float(row[1]) - want["baseline"]) < 1e-12 and
          abs(float(row[2]) - want["candidate"]) < 1e-12 and row[14] == str(len(LENGTHS) * REPEATS),
          "csv row %r" % row)
    for fmt in ("text", "markdown"):
        text = sm_compare(out, fmt)
        shown = [("%.4f" % want[k]).rstrip("0").rstrip(".") for k in ("baseline", "candidate")]
        line = [x.replace("|", " ").split() for x in text.splitlines()
                if x.replace("|", " ").split()[:1] == ["prefix_cache_hit_ratio"]]
        check(len(line) == 1 and line[0][1:3] == shown and line[0][3:] == [str(len(LENGTHS) * REPEATS), "requests"] * 2,
              "%s: want %r in\n%s" % (fmt, shown, text))


def case_cache(api):
    out, res, logged = stream_run(api, details=True)
    check_recorded(res, logged)
    check_compared(out, res)


def case_cache_off():
    """vLLM's default: prompt_tokens_details null; no record says cached_tokens, no hit
    ratio is shown."""
    out, res, logged = stream_run("stream", details=False)
    recs = res["a"]["records"] + res["b"]["records"]
    check(all("cached_tokens" not in r for r in recs), str(recs))
    check(any(e["cached_tokens"] for e in logged), "the cache served some: %r" % logged)
    doc = json.loads(sm_compare(out, "json"))
    check("prefix_cache_hit_ratio" not in doc.get("server_tokens", {}), str(doc))


def case_cache_wrk():
    """The wrk plugin (whole replies): the same records from the reply's usage."""
    out = tempfile.mkdtemp(prefix="tokens-")
    log = os.path.join(out, "requests.jsonl")
    with emulator_for(log, details=True) as emu:
        e = env()
        if os.environ.get("WRK_PRELOAD"):  # the sanitizers' runtime, for the plugin
            e.update(LD_PRELOAD=os.environ["WRK_PRELOAD"], ASAN_OPTIONS="detect_leaks=0")
        p = subprocess.run([os.environ["WRK"], "-t1", "-c1", "-d1m", "--timeout", "60s", "-s",
                            os.path.join(ROOT, "scenarios", "decode.lua"), emu.url, "--",
                            "--endpoint", "a", "--endpoint", "b", "--region", "us-east-1",
                            "--lengths", ",".join(map(str, LENGTHS)), "--repeats",
                            str(REPEATS), "--out", os.path.join(out, "{label}.json")],
                           env=e, capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, p.stderr)
    res = {lab: json.load(open(os.path.join(out, lab + ".json"))) for lab in ("a", "b")}
    check_recorded(res, read_log(log))
    check_compared(out, res)


K, A = 4, 2  # the speculative profile: draft tokens a step, of them accepted


def case_speculation(api):
    out = tempfile.mkdtemp(prefix="tokens-")
    args = ["--endpoint", "a=instant", "--endpoint", "b=instant", "--log-file",
            os.path.join(out, "{endpoint}.log"), "--log-interval", "0.05"]
    for ep in ("a", "b"):
        for x in ("overhead_s=0.002", "step_ms=1:1", "jitter=0"):
            args += ["--set", "%s.%s" % (ep, x)]
    args += ["--set", "b.spec_tokens=%d" % K, "--set", "b.spec_accepted=%d" % A]
    with emulator.Emulator(args, binary=os.environ["SM_EMULATOR"], env=env()) as emu:
        res = decode(emu, out, api)
        recs = res["b"]["records"]
        steps = [-(-r["completion_tokens"] // (A + 1)) for r in recs]
        want_acc = sum(r["completion_tokens"] for r in recs) - sum(steps)
        want_draft = K * sum(steps)
        deadline = time.monotonic() + 60  # the log's interval is 0.05 s: a bound, not a margin
        while True:
            text = open(os.path.join(out, "b.log")).read()
            lines = [x for x in text.splitlines() if "SpecDecoding metrics:" in x]
            drafted = sum(int(x.split("Drafted: ")[1].split()[0]) for x in lines)
            if drafted >= want_draft or time.monotonic() > deadline:
                break
            time.sleep(0.05)
    check(drafted == want_draft, "drafted %d, want %d:\n%s" % (drafted, want_draft, text))
    check("SpecDecoding" not in open(os.path.join(out, "a.log")).read(), "a has no speculation")
    for r, n in zip(recs, steps):
        check(r["ok"] and r["chunks"] == n, "%d chunks, want %d: %r" % (r["chunks"], n, r))
    check(all(r["chunks"] == r["completion_tokens"] for r in res["a"]["records"]),
          "one token a chunk without speculation")
    p = subprocess.run([os.environ["SM_COMPARE"], "--format", "json",
                        os.path.join(out, "a.json"), os.path.join(out, "a.log"), "--",
                        os.path.join(out, "b.json"), os.path.join(out, "b.log")],
                       capture_output=True, text=True, env=env(), timeout=60)
    check(p.returncode in (0, 1), "sm-compare: exit %d\n%s" % (p.returncode, p.stderr))
    fig = json.loads(p.stdout)["server_tokens"]
    tokens = sum(r["completion_tokens"] for r in recs)
    got = {k: (fig[k]["baseline"]["value"], fig[k]["candidate"]["value"])
           for k in ("tokens_per_chunk", "spec_acceptance_rate", "spec_mean_acceptance_length")}
    want_len = sum(float(x.split("Mean acceptance length: ")[1].split(",")[0]) *
                   int(x.split("Drafted: ")[1].split()[0]) for x in lines) / want_draft
    check(got["tokens_per_chunk"][0] == 1 and
          abs(got["tokens_per_chunk"][1] - tokens / sum(steps)) < 1e-12, str(got))
    check(got["spec_acceptance_rate"][0] is None and
          abs(got["spec_acceptance_rate"][1] - want_acc / want_draft) < 1e-12, str(got))
    check(got["spec_mean_acceptance_length"][0] is None and
          abs(got["spec_mean_acceptance_length"][1] - want_len) < 1e-12 and
          abs(want_len - (1 + want_acc / sum(steps))) < 0.005 * len(lines), str(got))
    check(fig["spec_acceptance_rate"]["candidate"]["n"] == len(lines), str(fig))


CASES = {"hits_recorded_and_compared_stream": lambda: case_cache("stream"),
         "hits_recorded_and_compared_openai": lambda: case_cache("openai"),
         "hits_recorded_and_compared_wrk": case_cache_wrk,
         "no_details_no_hit_ratio": case_cache_off,
         "speculation_chunks_and_acceptance_stream": lambda: case_speculation("stream"),
         "speculation_chunks_and_acceptance_openai": lambda: case_speculation("openai")}


def main():
    CASES[sys.argv[1]]()
    print("ok")


if __name__ == "__main__":
    main()
