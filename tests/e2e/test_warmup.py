#!/usr/bin/python3
"""Warm-up requests (issue 30, item 4): a scenario's --warmup N sends N copies of the
plan's first request to each side before the first measured one, on both engines;
the records carry phase "warmup"; sm-compare leaves them out of every figure (its
document equals the one of the same files with the warm-up records cut out) and
says how many it left out, in the comparison and in a peer view. Counts and
orders are asserted exactly: no timing margin.

usage: test_warmup.py ENGINE   (wrk or stream; environment: WRK, SM_STREAM, SM_EMULATOR,
                                SM_COMPARE, SM_PLUGIN_PATH, optionally WRK_PRELOAD)"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import emulator  # noqa: E402
from testkit import check, isolated_env, wrk_program  # noqa: E402

N = 3  # warm-up requests per side
LENGTHS = (4, 8)
REPEATS = 2


def env():
    return isolated_env(AWS_ACCESS_KEY_ID="AKIDWARMUPTEST", AWS_SECRET_ACCESS_KEY="warmup-secret")


def run(engine, out, args):
    log = os.path.join(out, "requests.jsonl")
    emu_args = ["--endpoint", "a=instant", "--endpoint", "b=instant", "--request-log", log]
    for ep in ("a", "b"):
        for s in ("overhead_s=0.002", "step_ms=1:1", "jitter=0"):
            emu_args += ["--set", "%s.%s" % (ep, s)]
    program = wrk_program(out) if engine == "wrk" else os.environ["SM_STREAM"]
    with emulator.Emulator(emu_args, binary=os.environ["SM_EMULATOR"], env=env()) as emu:
        cmd = [program, "-t1", "-c1", "-d2m", "--timeout", "60s", "-s",
               os.path.join(ROOT, "scenarios", "decode.lua"), emu.url, "--", "--region",
               "us-east-1", "--endpoint", "a", "--endpoint", "b", "--lengths",
               ",".join(map(str, LENGTHS)), "--repeats", str(REPEATS),
               "--out", os.path.join(out, "{label}.json")] + args
        p = subprocess.run(cmd, env=env(), capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, "%s: exit %d\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    with open(log) as f:
        logged = [json.loads(line) for line in f if line.strip()]
    logged = [e for e in logged if e.get("endpoint")]  # not wrk's GET /ping fillers
    return {lab: json.load(open(os.path.join(out, lab + ".json"))) for lab in ("a", "b")}, logged


def compare(out, *extra):
    p = subprocess.run([os.environ["SM_COMPARE"], "--format", "json"] + list(extra)
                       + [os.path.join(out, "a.json"), os.path.join(out, "b.json")],
                       capture_output=True, text=True, env=env(), timeout=60)
    check(p.returncode in (0, 1), "sm-compare: exit %d\n%s" % (p.returncode, p.stderr))
    return json.loads(p.stdout.replace(out, "OUT"))


def main():
    engine = sys.argv[1]
    out = tempfile.mkdtemp(prefix="warmup-")
    res, logged = run(engine, out, ["--warmup", str(N)])
    measured = REPEATS * len(LENGTHS)
    check(len(logged) == 2 * (N + measured), "the emulator served %d requests" % len(logged))
    for lab in ("a", "b"):
        recs = res[lab]["records"]
        warm = [r for r in recs if r["phase"] == "warmup"]
        rest = [r for r in recs if r["phase"] != "warmup"]
        check(len(warm) == N and len(rest) == measured and all(r["phase"] == "decode" for r in rest),
              "%s: %s" % (lab, [r["phase"] for r in recs]))
        check(all(r["ok"] and r["max_tokens"] == LENGTHS[0] for r in warm), str(warm))
        check(max(r["t_end_us"] for r in warm) <= min(r["t_start_us"] for r in rest),
              "every warm-up request ended before the first measured one started")
    doc = compare(out)
    want = "OUT/%s.json: %d warm-up requests left out of every figure"
    for lab in ("a", "b"):
        check(want % (lab, N) in doc["warnings"], str(doc["warnings"]))

    # The same files without their warm-up records: the same figures.
    cut = tempfile.mkdtemp(prefix="warmup-cut-")
    for lab in ("a", "b"):
        r = dict(res[lab])
        r["records"] = [x for x in r["records"] if x["phase"] != "warmup"]
        with open(os.path.join(cut, lab + ".json"), "w") as f:
            json.dump(r, f)
    bare = compare(cut)
    check(not any("warm-up" in x for x in bare["warnings"]), str(bare["warnings"]))
    doc.pop("warnings")
    bare.pop("warnings")
    check(json.dumps(doc, sort_keys=True) == json.dumps(bare, sort_keys=True),
          "the figures differ:\n%s\n%s" % (json.dumps(doc, sort_keys=True),
                                           json.dumps(bare, sort_keys=True)))

    if engine == "stream":  # a peer view needs streamed records
        view = compare(out, "--view", "vllm")
        sides = json.dumps(view)
        check(sides.count('"warmup_left_out": %d' % N) == 2
              and sides.count('"requests": %d' % measured) == 2, sides)
    print("ok")


if __name__ == "__main__":
    main()
