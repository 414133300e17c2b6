#!/usr/bin/python3
"""End to end, quality A/B with power: sm-quiz makes a generated quiz, Debian's
wrk asks it of three emulated endpoints (two of the QAT model, one of bf16:
the emulator's per-family truth hides a 3-point gap in format following), and
sm-compare's paired analysis by family must call the A/A pair equivalent
within 2 points in every family and find the format gap, and only it.

Environment: as test_e2e.py, plus SM_QUIZ (sm-quiz), SM_COMPARE (sm-compare) and
optionally SM_STREAM (sm-stream: it asks one endpoint the same quiz, and every item must
be scored as wrk scored it)."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_e2e as e2e  # noqa: E402
from testkit import Failure, check  # noqa: E402

BF16 = "google/gemma-4-E2B-it"
QAT = "google/gemma-4-E2B-it-qat-w4a16-ct"
ITEMS = 1000  # per family: near the plan for a 3-point gap at the truth's 7.9% discordance


def compare(base, cand):
    p = subprocess.run([os.environ["SM_COMPARE"], "-f", "json", base, cand], capture_output=True,
                       text=True, timeout=60, env=e2e.env())
    check(p.returncode == 0, f"sm-compare exited {p.returncode}: {p.stderr}")
    rep = json.loads(p.stdout)
    fams = rep["mcnemar"]["by_family"]["families"]
    return {f["family"]: f for f in fams}


def stream_scores_as_wrk(url, quiz, run):
    """sm-stream asks endpoint b the same quiz: every item scored as wrk scored it."""
    out = tempfile.mkdtemp(prefix="quality-stream-")
    cmd = [os.environ["SM_STREAM"], "-t1", "-c1", "-d1m", "--timeout", "60s", "-s",
           os.path.join(e2e.SCENARIOS, "quiz.lua"), url, "--", "--endpoint", "b", "--quiz", quiz,
           "--max-tokens", "128", "--region", "us-east-1", "--out",
           os.path.join(out, "{label}.json")]
    p = subprocess.run(cmd, env=e2e.env(), capture_output=True, text=True, timeout=90)
    check(p.returncode == 0, f"sm-stream exited {p.returncode}: {p.stderr[-2000:]}")
    with open(os.path.join(out, "b.json")) as f:
        streamed = {r["question"]: r["correct"] for r in json.load(f)["records"]}
    by_wrk = {r["question"]: r["correct"] for r in run.records("b")}
    check(len(streamed) == 3 * ITEMS and streamed == by_wrk,
          f"sm-stream scored {sum(a != by_wrk.get(q) for q, a in streamed.items())} items "
          f"otherwise than wrk ({len(streamed)} records)")


def main():
    tmp = tempfile.mkdtemp(prefix="quality-")
    quiz = os.path.join(tmp, "quiz.json")
    p = subprocess.run([os.environ["SM_QUIZ"], "make", "--items", str(ITEMS), "--seed", "2",
                        "--out", quiz], capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, f"sm-quiz make: {p.stderr}")
    emu = e2e.start_emulator("--endpoint", "a1=instant", "--endpoint", "a2=instant",
                             "--endpoint", "b=instant", "--set", f"a1.model_id={QAT}",
                             "--set", f"a2.model_id={QAT}", "--set", f"b.model_id={BF16}")
    try:
        run = e2e.run_wrk("quiz", emu.url, ["--endpoint", "a1", "--endpoint", "a2", "--endpoint",
                                            "b", "--quiz", quiz, "--max-tokens", "128"],
                          threads=3)
        e2e.check_ok(run, "quiz")
        e2e.check_against_emulator(run, emu.stats())
        for label in ("a1", "a2", "b"):
            check(len(run.records(label)) == 3 * ITEMS, f"{label}: {len(run.records(label))} records")
        if os.environ.get("SM_STREAM"):
            stream_scores_as_wrk(emu.url, quiz, run)
    finally:
        emu.stop()
    path = {lab: os.path.join(run.outdir, f"quiz-{lab}.json") for lab in ("a1", "a2", "b")}
    aa = compare(path["a1"], path["a2"])
    for fam in ("arith", "extract", "format"):
        check(aa[fam]["verdict"] == "equivalent" and aa[fam]["items"] == ITEMS,
              f"A/A {fam}: {aa[fam]['text']} over {aa[fam]['items']} items")
    ab = compare(path["b"], path["a1"])
    check(ab["format"]["verdict"] == "different" and ab["format"]["difference"] < 0,
          f"the format gap: {ab['format']['text']}, difference {ab['format']['difference']}")
    for fam in ("arith", "extract"):
        check(ab[fam]["verdict"] != "different", f"{fam}: {ab[fam]['text']} (no gap there)")
    p = subprocess.run([os.environ["SM_COMPARE"], path["b"], path["a1"]], capture_output=True,
                       text=True, timeout=60, env=e2e.env())
    check("Paired analysis by family" in p.stdout and "can show only a large gap" not in p.stdout,
          f"the text report of {3 * ITEMS} questions:\n{p.stdout[-3000:]}")
    lo, hi = ab["format"]["difference_lo"], ab["format"]["difference_hi"]
    check(lo < -0.03 < hi or lo < hi < 0, f"the format interval {lo}..{hi}")


if __name__ == "__main__":
    try:
        main()
        print("ok quality")
    except Failure as e:
        print(f"FAIL quality: {e}")
        sys.exit(1)
