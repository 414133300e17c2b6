#!/usr/bin/python3
"""sm-quiz: the plan's numbers (Connor's formula, as test_results_quiz_pair.c checks
by hand), refusals of bad input (one line naming it, exit 2), and quiz files
that are the same for the same seed. Argument: the sm-quiz binary."""
import json
import os
import subprocess
import sys
import tempfile

BIN = sys.argv[1]
failed = 0


def check(cond, what):
    global failed
    if not cond:
        failed += 1
        print("FAIL:", what)


def run(*args):
    p = subprocess.run([BIN] + list(args), capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


rc, out, err = run("plan", "--detect", "3%", "--discordance", "0.079", "--families", "1")
check(rc == 0 and "items per family: 687 " in out, f"plan 3%, 7.9%: {rc} {out} {err}")
rc, out, err = run("plan", "--detect", "3%")
check(rc == 0 and "items per family: 1161 " in out and "Holm's correction across 3 families" in out,
      f"the default plan: {out}")

for args, want in [
    (["plan"], "sm-quiz: --detect: is required"),
    (["plan", "--detect", "30%"], "sm-quiz: --discordance 0.1: the sides must disagree"),
    (["plan", "--detect", "3", "--power", "0.8"], "sm-quiz: --detect 3: not a share"),
    (["plan", "--detect", "3%", "--families", "0"], "sm-quiz: --families 0: must be a whole"),
    (["make", "--items", "100001"], "sm-quiz: --items 100001: must be a whole number from 1"),
    (["make", "--items", "5", "--families", "format,format"], "sm-quiz: --families format,format: a family named twice"),
    (["make", "--items", "5", "--colour"], "sm-quiz: unknown option --colour: sm-quiz make takes"),
    (["mix"], "sm-quiz: unknown command mix"),
]:
    rc, out, err = run(*args)
    check(rc == 2 and err.startswith(want) and err.count("\n") == 1 and not out,
          f"{args}: exit {rc}, {err!r}")

tmp = tempfile.mkdtemp(prefix="sm-quiz-")
a, b = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")
check(run("make", "--items", "50", "--seed", "9", "--out", a)[0] == 0, "make a")
rc, out, err = run("make", "--items", "50", "--seed", "9")
with open(a) as f:
    text = f.read()
check(rc == 0 and out == text, "the same seed, the same file (standard output and --out)")
check(run("make", "--items", "50", "--seed", "10", "--out", b)[0] == 0, "make b")
with open(b) as f:
    check(f.read() != text, "another seed, another quiz")
quiz = json.loads(text)
qs = quiz["questions"]
check(len(qs) == 150 and len({q["id"] for q in qs}) == 150, "150 distinct ids")
check([q["kind"] for q in qs[:3]] == ["arith", "extract", "format"], "interleaved families")
check(all(set(q) == {"id", "kind", "prompt", "answer", "pattern"} for q in qs), "fields")
rc, out, err = run("make", "--items", "4", "--families", "format")
check(rc == 0 and {q["kind"] for q in json.loads(out)["questions"]} == {"format"}, "one family")
sys.exit(1 if failed else 0)
