#!/usr/bin/python3
"""Faults end to end: sm-emulator injects one fault kind at 20% of requests (or every
kind at 20% each, together) while Debian's wrk runs the quiz (2 threads) and the
sweep (4 threads, batch mode) against two endpoints. Then:

- the request log of the emulator and the records of the runs are equal multisets
  of (endpoint, question, status, error code, tokens): every request the emulator
  saw has exactly one record, and no record is invented or doubled; quiz records
  are matched to their request one by one (the emulator received each between the
  record's start and end);
- the emulator's /emulator/stats agrees with its request log (requests, replies
  by status, dropped, tokens, faults by kind), and each result file's counts with
  its records (sent = ok + failed, failed by error code);
- each fault is recorded as its kind: 429 ThrottlingException, 503
  ServiceUnavailable, 500 InternalFailure, 424 ModelError with original_status
  500, a dropped connection as status 0 "socket", a truncated body as a 200
  "parse" failure, a slow first byte as a success that took that long;
- sm-compare computes the quiz and the load figures from what succeeded (the
  batches without a failed request) and its requests table says how many failed,
  by code, exactly as the files do;
- no secret and no Authorization header in anything the programs wrote.

usage: test_faults.py CASE...   (CASE: a fault kind, "all", or "all" cases)"""
import statistics
import sys

import harness
from harness import check

SCALE = 10  # model seconds per real second
SLOW_S = 2.0  # model seconds the slow fault holds the first byte (0.2 s real)
KINDS = ["throttle", "unavailable", "internal", "model_error", "drop", "truncate", "slow", "lose"]
# What a record of each fault must say: (status, error code).
EXPECT = {
    "throttle": (429, "ThrottlingException"),
    "unavailable": (503, "ServiceUnavailable"),
    "internal": (500, "InternalFailure"),
    "model_error": (424, "ModelError"),
    "drop": (0, "socket"),
    "truncate": (200, "parse"),
    "slow": (200, None),
    "lose": (0, "socket"),
}


def emulator_args(kinds):
    args = ["--endpoint", "a=instant", "--endpoint", "b=instant", "--time-scale", str(SCALE),
            "--set", "*.overhead_s=0.05", "--set", "*.step_ms=1:2,16:3",
            "--set", "*.slow_first_byte_s=%g" % SLOW_S]
    for k in kinds:
        args += ["--set", "*.fault.%s=0.2" % k]
    return args


def run_scenarios(work, url, keys, decode):
    common = ["--endpoint", "a", "--endpoint", "b", "--refuse-after", "0",
              "--time-scale", str(SCALE)]
    runs = [harness.wrk_run(work, "quiz", url, common, threads=2, env=keys.env()),
            harness.wrk_run(work, "sweep", url, common + ["--batches", "3", "--max-tokens", "32"],
                            threads=4, env=keys.env())]
    if decode:
        runs.append(harness.wrk_run(work, "decode", url, common + ["--lengths", "16,256", "--repeats", "8"],
                                    env=keys.env()))
    for w in runs:
        check(w.rc == 0, "%s: wrk exited %s:\n%s" % (w.scenario, w.rc, w.stderr()))
    return runs


def check_fault_records(records, entries, kinds, prompts):
    """Each injected fault is recorded as its kind (quiz: matched by question)."""
    by_question = {(r["endpoint"], r["question"]): r for r in records if r.get("question")}
    seen = {k: 0 for k in kinds}
    for e in entries:
        if not e["fault"] or e["prompt"] not in prompts:
            continue
        r = by_question[(e["endpoint"], prompts[e["prompt"]])]
        status, code = EXPECT[e["fault"]]
        got_code = r["error"]["code"] if r["error"] else None
        check((r["status"], got_code) == (status, code),
              "%s fault recorded as %s %s: %s" % (e["fault"], r["status"], got_code, r))
        if e["fault"] == "model_error":
            check(r["error"].get("original_status") == 500, "ModelError without the "
                  "container's status: %s" % r)
        if e["fault"] == "slow":
            took = (r["t_end_us"] - r["t_start_us"]) / 1e6
            check(took >= SLOW_S / SCALE, "a slow reply took only %.3f s" % took)
        seen[e["fault"]] += 1
    for k in kinds:
        check(seen[k] > 0, "no %s fault in the quiz: the test proved nothing for it" % k)


def check_report(report, text, results):
    """sm-compare's requests table says what the files say; figures still computed."""
    rows = {(r["side"], r["measurement"]): r for r in report["requests"]}
    for side, label in (("baseline", "a"), ("candidate", "b")):
        for scenario, res in results[label].items():
            c = res["counts"]
            if scenario == "sweep":
                scenario = "load c%d" % res["settings"]["concurrency"]
            r = rows.get((side, scenario))
            check(r is not None, "the report has no requests row for %s %s" % (side, scenario))
            check((r["sent"], r["ok"], r["failed"]) == (c["sent"], c["ok"], c["failed"]),
                  "%s %s: report %s, file %s" % (side, scenario, r, c))
            check({k: v["count"] for k, v in r["errors"].items()} == c["errors"],
                  "%s %s: report errors %s, file %s" % (side, scenario, r["errors"], c["errors"]))
        quiz_ok = sum(1 for x in results[label]["quiz"]["records"] if x["ok"])
        col = 0 if side == "baseline" else 1
        check(report["rows"]["quality_correct"][col] == quiz_ok,
              "%s: quality_correct %s, %d successful replies (all right on 'instant')"
              % (side, report["rows"]["quality_correct"][col], quiz_ok))
        figures = [("load_c4_tokens_per_second", load_rate(results[label]["sweep"]))]
        if "decode" in results[label]:
            figures.append(("decode_tokens_per_second", decode_rate(results[label]["decode"])))
        for row, want in figures:
            got = report["rows"][row][col]
            check(want is None and got is None or want is not None and got is not None
                  and abs(got - want) <= 0.01 + 1e-4 * want,
                  "%s %s: sm-compare says %s, the successful records give %s"
                  % (side, row, got, want))
    check("failed" in text and "Requests" in text, "the text report does not show failures")


def real_us(r):
    """A whole reply's end-to-end time in real microseconds (docs/compare.md, Time-scaled
    runs): the emulator's service time (server_us, model microseconds) plus the client's
    share as measured; without server_us, the measured time times the time scale."""
    took = r["t_end_us"] - r["t_start_us"]
    if "server_us" not in r:
        return took * SCALE
    return r["server_us"] + max(0, took - r["server_us"] / SCALE)


def load_rate(res):
    """Median over full batches without a failed request (docs/compare.md) of (tokens /
    batch wall time), real units: from the batch's first start to its latest real end."""
    batches = {}
    for r in res["records"]:
        batches.setdefault(r["batch"], []).append(r)
    rates = []
    for recs in batches.values():
        if len(recs) < res["settings"]["concurrency"] or not all(r["ok"] for r in recs):
            continue
        first = min(r["t_start_us"] for r in recs)
        span = max(r["t_start_us"] - first + real_us(r) for r in recs)
        rates.append(sum(r["completion_tokens"] for r in recs if r["ok"]) / (span / 1e6))
    return statistics.median(rates) if rates else None


def decode_rate(res):
    """(L - S) / (median wall L - median wall S) of the successful replies, real units."""
    walls = {}
    for r in res["records"]:
        if r["ok"]:
            walls.setdefault(r["max_tokens"], []).append(real_us(r))
    lo, hi = min(res["settings"]["lengths"]), max(res["settings"]["lengths"])
    if lo not in walls or hi not in walls:
        return None
    gap = statistics.median(walls[hi]) - statistics.median(walls[lo])
    return (hi - lo) / (gap / 1e6) if gap > 0 else None


def case(kinds, decode=False):
    work = harness.Work("faults-" + "-".join(kinds) if len(kinds) == 1 else "faults-all")
    keys = work.new_keys()
    emu = harness.Emu(work, emulator_args(kinds), [keys])
    try:
        runs = run_scenarios(work, emu.url, keys, decode)
        st = emu.stats()
    finally:
        emu.stop()
    entries = harness.served(emu.requests())
    results, records = {"a": {}, "b": {}}, []
    for w in runs:
        for label in ("a", "b"):
            res = w.result(label)
            check(not res["partial"], "%s %s is partial: %s" % (w.scenario, label,
                                                                res["partial_reason"]))
            harness.check_counts(res)
            check(w.journal(label)[1] == res["records"], "%s %s: journal and result differ"
                  % (w.scenario, label))
            results[label][w.scenario] = res
            records += res["records"]
    harness.check_stats(records, entries, st)
    harness.check_one_to_one([r for r in records if r.get("question")],
                             [e for e in entries if e["prompt"] in harness.quiz_ids()], quiz=True)
    harness.check_one_to_one(records, entries)
    check_fault_records(records, entries, kinds, harness.quiz_ids())
    failed = sum(1 for r in records if not r["ok"])
    check(failed > 0 or kinds == ["slow"], "no request failed: the faults were not injected")
    report, text = harness.compare(
        work, [w.result_path("a") for w in runs], [w.result_path("b") for w in runs], "compare")
    check_report(report, text, results)
    work.scan()
    work.clean()


CASES = {k: (lambda k=k: case([k])) for k in KINDS}
CASES["together"] = lambda: case(KINDS, decode=True)

if __name__ == "__main__":
    sys.exit(harness.run_cases(CASES, sys.argv))
