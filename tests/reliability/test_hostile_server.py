#!/usr/bin/python3
"""Debian's wrk with the plugin against a hostile server (tests/lib/hostile.py): a server
that echoes the request head (the session token with it) in its error message, sends
"100 Continue" before its reply, counts tokens in fractions or below zero, sends a
megabyte of text to a quiz, two Content-Length headers, a redirect, or gzip nobody
asked for. Every run ends, nothing crashes, every record says what happened, and no
secret (raw or URL-encoded) reaches a result file, a journal, stdout or stderr.

usage: test_hostile_server.py CASE... | all"""
import json
import os
import subprocess
import sys
import tempfile
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import harness  # noqa: E402
import hostile  # noqa: E402
import secretscan  # noqa: E402
from testkit import check, isolated_env  # noqa: E402

SECRET = "hostileSECRETkey/0123456789+abcdefghijklmn"
TOKEN = "IQoJb3JpZ2luX2VjHOSTILE+/sessionTOKEN0123456789abcdef=="


def run(scenario, mode, args=()):
    """wrk with scenario against a hostile server in mode: (rc, stdout, stderr, records)."""
    out = tempfile.mkdtemp(prefix="hostile-")
    env = isolated_env(AWS_ACCESS_KEY_ID="AKIDHOSTILE", AWS_SECRET_ACCESS_KEY=SECRET,
                       AWS_SESSION_TOKEN=TOKEN, SM_PLUGIN_PATH=os.environ["SM_PLUGIN_PATH"])
    if os.environ.get("WRK_PRELOAD"):
        env["LD_PRELOAD"] = os.environ["WRK_PRELOAD"]
        env["ASAN_OPTIONS"] = "detect_leaks=0"
    with hostile.Server() as srv:
        p = subprocess.run([os.environ["WRK"], "-t1", "-c1", "-d1m", "--timeout", "10s", "-s",
                            os.path.join(ROOT, "scenarios", scenario + ".lua"), srv.url, "--",
                            "--endpoint", mode, "--region", "us-east-1", "--out",
                            os.path.join(out, "r.json")] + list(args),
                           env=env, capture_output=True, text=True, timeout=120)
    found = secretscan.scan([SECRET, TOKEN, urllib.parse.quote(TOKEN, safe="")],
                            [("stdout", p.stdout), ("stderr", p.stderr), out])
    check(not found, secretscan.describe(found))
    records = []
    if os.path.exists(os.path.join(out, "r.json")):
        with open(os.path.join(out, "r.json")) as f:
            records = json.load(f)["records"]
    return p.returncode, p.stdout, p.stderr, records


def case_echo():
    """A 400 whose message is the request head: stored and printed with <redacted>."""
    rc, out, err, records = run("decode", "echo400", ["--lengths", "4,8", "--repeats", "2"])
    check(rc == 3 and "partial result: refused" in err, f"exit {rc}: {err}")
    check(len(records) == 3 and all(r["error"]["code"] == "ValidationError" for r in records),
          str(records))
    check(all("<redacted>" in r["error"]["message"] for r in records), records[0]["error"])


def case_continue():
    """100 Continue is not the reply: the 200 after it is, and no request is lost."""
    rc, out, err, records = run("decode", "continue", ["--lengths", "4,8", "--repeats", "2",
                                                       "--no-ignore-eos"])
    check(rc == 0, f"exit {rc}: {err}")
    check(len(records) == 4 and all(r["status"] == 200 for r in records),
          [(r["status"], r["error"]) for r in records])
    check(sum(r["ok"] for r in records) == 2, "the 4-token replies are the 4-token lengths'")


def case_counts():
    """A count in fractions or below zero is a parse error naming the field."""
    for mode, value in (("fraction", "4.5"), ("negative", "-3")):
        rc, out, err, records = run("smoke", mode)
        check(len(records) == 1 and not records[0]["ok"], str(records))
        e = records[0]["error"]
        check(e["code"] == "parse" and e["message"] == "usage.completion_tokens is not a "
              f"whole number of tokens ({value})", str(e))
        check(records[0]["completion_tokens"] is None, "a count that is no count is kept")


def case_huge():
    """A megabyte answer to a quiz question is scored whole and kept bounded."""
    quiz = os.path.join(tempfile.mkdtemp(prefix="hostile-quiz-"), "q.json")
    with open(quiz, "w") as f:
        json.dump({"questions": [{"id": "cap-1", "kind": "cap", "prompt": "Capital?",
                                  "answer": "Canberra", "pattern": "Canberra"}]}, f)
    rc, out, err, records = run("quiz", "huge", ["--quiz", quiz])
    check(rc == 0 and len(records) == 1, f"exit {rc}: {err}")
    check(records[0]["correct"] is True and len(records[0]["text"].encode()) <= 16384,
          "text of %d bytes" % len(records[0]["text"]))


def case_odd_replies():
    """Two Content-Length headers, a redirect, gzip: each a failure of its own, no crash."""
    for mode, want in (("twocl", ("socket", "parse")), ("redirect", ("http_307",)),
                       ("gzip", ("parse",))):
        rc, out, err, records = run("smoke", mode)
        check(rc in (0, 3) and len(records) >= 1, f"{mode}: exit {rc}: {err}")
        codes = {r["error"]["code"] for r in records if r["error"]}
        check(codes and codes <= set(want), f"{mode}: {codes}")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    sys.exit(harness.run_cases(CASES, sys.argv))
