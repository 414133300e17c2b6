#!/usr/bin/python3
"""Interruption: Ctrl-C (SIGINT) in the middle of each scenario, and SIGKILL.

SIGINT, for decode, sweep (batch and steady) and quiz, once some requests are
recorded and others are on the wire (the test waits for records in the journals,
then for a quiet moment: every reply the emulator had sent is recorded and every
thread has a request at the emulator):
wrk exits 4 saying "partial result: interrupted"; every result file is valid,
marked partial with reason "interrupted", its counts agree with its records and
its records with its journal; every record is a request the emulator served (equal
multisets; quiz: matched by question and time), and the only served requests left
out are the ones still on the wire at the signal (at most one per thread, each
answered after the quiet moment or dropped, counted per key since keys repeat: by
cause, not by a time margin); sm-compare reads both sides, warns that they are partial and
counts their requests as the files do.

SIGKILL, for quiz (2 threads) and decode, at a quiet moment (every reply the
emulator had sent is in the journals and each thread has its next request at the
emulator): no result file; sm-compare reads the journals directly (a half-written
last line is left out with a warning) and the recovered records are exactly the
requests the emulator had answered before the kill; the requests on the wire are
the ones the emulator saw dropped.

No secret or Authorization header in anything written.

usage: test_interrupt.py CASE...   (CASE: see CASES, or "all")"""
import collections
import os
import shutil
import signal
import sys
import time

import harness
from harness import check

SIDES = ["--endpoint", "a", "--endpoint", "b", "--refuse-after", "0"]


def start(name, emu_args, scenario, args, threads):
    work = harness.Work(name)
    keys = work.new_keys()
    emu = harness.Emu(work, ["--endpoint", "a=instant", "--endpoint", "b=instant"] + emu_args,
                      [keys])
    w = harness.Wrk(work, scenario, emu.url, SIDES + args, threads=threads, env=keys.env())
    return work, emu, w


def recorded(w, label):
    return w.journal_lines(label)


def check_partial_files(w):
    """Both result files: partial, interrupted, consistent; returns their records."""
    records = []
    for label in ("a", "b"):
        res = w.result(label)
        check(res["partial"] is True and res["partial_reason"] == "interrupted",
              "%s: partial %s, reason %r" % (label, res["partial"], res["partial_reason"]))
        harness.check_counts(res)
        check(w.journal(label)[1] == res["records"], "%s: journal and result differ" % label)
        records += res["records"]
    return records


def check_in_flight(records, entries, quiet_at, threads, quiz):
    """Served requests without a record were on the wire after the quiet moment (its
    stats were asked for at quiet_at: the emulator answers them between two replies,
    so a reply it had sent by then was counted, and every counted one was recorded)."""
    prompts = harness.quiz_ids() if quiz else None
    got = collections.Counter(harness.record_key(r, quiz) for r in records)
    want = collections.Counter(harness.served_key(e, prompts) for e in entries)
    check(not got - want, "records of requests the emulator did not serve: %s"
          % dict(got - want))
    left = want - got
    check(sum(left.values()) <= threads, "%d served requests have no record (threads: %d): %s"
          % (sum(left.values()), threads, dict(left)))
    # Keys repeat (every 256-token decode reply of side a has one), so a key left out
    # c times needs c of its requests on the wire after the quiet moment, not all of them.
    for key, count in left.items():
        late = [e for e in entries if harness.served_key(e, prompts) == key
                and (e["status"] == 0 or e["replied"] > quiet_at)]
        check(len(late) >= count,
              "%d of the requests %s are not recorded, but only %d were on the wire after a "
              "moment every reply was recorded: %s"
              % (count, key, len(late), [e for e in entries
                                          if harness.served_key(e, prompts) == key]))


def check_compare(work, paths_a, paths_b, counts, reason):
    report, text = harness.compare(work, paths_a, paths_b, "compare")
    sent = sum(r["sent"] for r in report["requests"])
    failed = sum(r["failed"] for r in report["requests"])
    check(sent == counts[0] and failed == counts[1], "sm-compare counted %d sent, %d failed; "
          "the files hold %d, %d" % (sent, failed, counts[0], counts[1]))
    partial = [x for x in report["warnings"] if "partial run (%s" % reason in x]
    check(len(partial) == len(paths_a) + len(paths_b),
          "sm-compare does not warn that the runs are partial: %s" % report["warnings"])
    return report


def sigint_case(name, emu_args, scenario, args, threads, ready, quiz=False):
    """Interrupts the run once ready(w) is true."""
    work, emu, w = start(name, emu_args, scenario, args, threads)
    try:
        harness.wait_for("records before the interrupt", lambda: ready(w), proc=w.proc)
        mark = {}

        def settled():
            mark["at"] = time.time()  # before the stats are asked for
            return quiet(emu, w, threads, 0)

        harness.wait_for("a quiet moment", settled, proc=w.proc)
        w.proc.send_signal(signal.SIGINT)
        rc = w.wait()
    finally:
        emu.stop()
    check(rc == 4, "wrk exited %s after SIGINT, want 4:\n%s" % (rc, w.stderr()))
    check("%s: partial result: interrupted" % scenario in w.stderr(), w.stderr())
    records = check_partial_files(w)
    entries = harness.served(emu.requests())
    check_in_flight(records, entries, mark["at"], threads, quiz)
    if quiz:
        harness.check_quiz_times(records, [e for e in entries if e["status"]], harness.quiz_ids())
    counts = (len(records), sum(1 for r in records if not r["ok"]))
    check_compare(work, [w.result_path("a")], [w.result_path("b")], counts, "interrupted")
    work.scan()
    work.clean()


def quiet(emu, w, threads, least):
    """True when at least `least` records are in the journals, every reply the emulator
    sent is among them and every thread has a request at the emulator."""
    n = recorded(w, "a") + recorded(w, "b")
    if n < least:
        return False
    st = emu.stats()["endpoints"]
    replies = sum(sum(e["replies"].values()) + e["dropped"] for e in st.values())
    in_flight = sum(e["in_flight"] for e in st.values())
    return replies == n and in_flight == threads and recorded(w, "a") + recorded(w, "b") == n


def sigkill_case(name, emu_args, scenario, args, threads, least, quiz=False):
    work, emu, w = start(name, emu_args, scenario, args, threads)
    try:
        harness.wait_for("a quiet moment", lambda: quiet(emu, w, threads, least), proc=w.proc)
        quiet_at = time.time()
        w.proc.kill()
        killed_at = time.time()
        w.wait()
        harness.wait_for("the emulator to see the connections close",
                         lambda: sum(e["in_flight"] for e in emu.stats()["endpoints"].values())
                         == 0)
    finally:
        emu.stop()
    for label in ("a", "b"):
        check(not os.path.exists(w.result_path(label)), "a result file after SIGKILL")
    records = w.journal("a")[1] + w.journal("b")[1]
    entries = harness.served(emu.requests())
    answered = [e for e in entries if e["status"] and e["replied"] <= killed_at]
    raced = [e for e in answered if e["replied"] > quiet_at]  # in the instant before the kill
    prompts = harness.quiz_ids() if quiz else None
    got = collections.Counter(harness.record_key(r, quiz) for r in records)
    want = collections.Counter(harness.served_key(e, prompts) for e in answered)
    may_miss = collections.Counter(harness.served_key(e, prompts) for e in raced)
    check(not got - want and not (want - got) - may_miss,
          "recovered records differ from the requests answered before the kill:\n  recorded, "
          "not answered: %s\n  answered, not recorded: %s" % (dict(got - want), dict(want - got)))
    dropped = [e for e in entries if e["status"] == 0]
    check(threads - len(raced) <= len(dropped) <= threads,
          "%d requests dropped by the kill, want %d" % (len(dropped), threads))
    if quiz:
        harness.check_quiz_times(records, answered, prompts)
    # A journal cut in the middle of a line (a kill during a write) reads the same:
    # half a line where the reserved NUL bytes begin.
    for label in ("a", "b"):
        path = w.journal_path(label)
        with open(path, "rb") as f:
            data = f.read()
        end = len(data.rstrip(b"\0"))
        check(end < len(data), "%s: the killed run's journal has no reserved space" % label)
        last = data[:end].splitlines(keepends=True)[-1]
        shutil.copy(path, path + ".orig")
        with open(path, "r+b") as f:
            f.seek(end)
            f.write(last[:len(last) // 2])
    counts = (len(records), sum(1 for r in records if not r["ok"]))
    report = check_compare(work, [w.journal_path("a")], [w.journal_path("b")], counts,
                           "recovered from the journal")
    cut = [x for x in report["warnings"] if "incomplete" in x or "last line" in x]
    check(len(cut) == 2, "no warning about the half-written last lines: %s" % report["warnings"])
    work.scan()
    work.clean()
    return report


def both(w, n):
    return recorded(w, "a") >= n and recorded(w, "b") >= n


# Replies take a while (a fixed cost per call and per token), so a signal finds
# requests on the wire.
SLOW = ["--set", "*.overhead_s=0.05", "--set", "*.step_ms=1:1,16:1.5", "--time-scale", "2"]


def sigkill_decode():
    report = sigkill_case("sigkill-decode", ["--set", "*.overhead_s=0.3", "--set",
                                             "*.step_ms=1:1"], "decode",
                          ["--lengths", "16,256", "--repeats", "5"], 1, 8)
    check(all(report["rows"]["decode_tokens_per_second"][:2]),
          "no decode figure from the recovered journals: %s" % report["rows"])


CASES = {
    "sigint_decode": lambda: sigint_case(
        "sigint-decode", SLOW, "decode", ["--lengths", "16,256", "--repeats", "5"], 1,
        lambda w: both(w, 4)),
    "sigint_sweep_batch": lambda: sigint_case(
        "sigint-batch", SLOW, "sweep", ["--batches", "4", "--max-tokens", "64"], 4,
        lambda w: both(w, 4) and recorded(w, "a") + recorded(w, "b") >= 10),
    "sigint_sweep_steady": lambda: sigint_case(
        "sigint-steady", SLOW, "sweep", ["--mode", "steady", "--duration", "3",
                                         "--max-tokens", "64"], 4, lambda w: both(w, 8)),
    "sigint_quiz": lambda: sigint_case(
        "sigint-quiz", SLOW, "quiz", [], 2, lambda w: both(w, 8), quiz=True),
    "sigkill_quiz": lambda: sigkill_case(
        "sigkill-quiz", ["--set", "*.overhead_s=0.4"], "quiz", [], 2, 6, quiz=True),
    "sigkill_decode": sigkill_decode,
}

if __name__ == "__main__":
    sys.exit(harness.run_cases(CASES, sys.argv))
