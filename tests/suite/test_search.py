#!/usr/bin/python3
"""sm-suite --capacity-search end to end against sm-emulator: each side's search ends
with a capacity between its last held and first failed probes (how near the model's
derived capacity, below, is the benchmark's: tests/bench/run, capacity), every probe's
result file stays,
sm-compare's report reads each side's probes as one curve and its capacity from the
bracketing pair, a resume with more probes re-judges the complete probes without
running them; and the search's usage errors and dry run.

    test_search.py CASE...     (CASE: search, usage; "all" runs both)

Environment: see suitelib.py.

The configuration (emulator/model/batch.c's continuous batching on the instant profile: no
overhead, prefill or jitter): steps of S = 0.1 s, at most M = 4 sequences, replies of
T = 8 tokens, so the knee is M / (T S) = 5 requests/s. Below it a request waits for the
next step and takes T steps, (T + 0.5) S on average and at most (T + 1) S = 0.9 s, far
under the SLO's 3 s (2.1 model seconds, 420 ms of real time at the time scale 5, for a
busy host's hiccups: the search's verdicts at LO and HI must not hinge on the host);
above it the queue grows by lambda - mu a second for the D = 15 s of a probe, so the p90
end-to-end latency reaches the bound B near mu (1 + (B - (T + 0.5) S) / (0.9 D)) = 5.80
requests/s, the derived capacity; at HI (6.25) it passes B by about a second."""
import json
import os
import shlex
import sys

import suitelib as sl
from suitelib import check

SEATS, TOKENS, STEP = 4, 8, 0.1
BOUND, QUANTILE, DURATION = 3, 0.9, 15
KNEE = SEATS / (TOKENS * STEP)
DERIVED = KNEE * (1 + (BOUND - (TOKENS + 0.5) * STEP) / (QUANTILE * DURATION))
SIDES = ["--baseline", "cap-a=a", "--candidate", "cap-b=b"]
SEARCH = ["--scenarios", "rate", "--capacity-search", "4:6.25", "--rate-duration", str(DURATION),
          "--slo", "e2e:p90:%g" % BOUND, "--arrivals", "constant", "--max-tokens", str(TOKENS),
          "--prompt", "Count.", "--time-scale", "5", "--no-cloudwatch"]


def probes_of(run, label):
    """The probe result files of a side: {probe number: its one rate}."""
    out = {}
    for name in os.listdir(os.path.join(run, label)):
        if name.startswith("rate-search-") and name.endswith(".json"):
            res = sl.load(os.path.join(run, label, name))
            check(len(res["settings"]["rates"]) == 1 and not res["partial"], name)
            out[int(name[len("rate-search-"):-5])] = res["settings"]["rates"][0]
    return out


def case_search():
    tmp = sl.tempdir("suite-search-")
    e = sl.env(tmp)
    emu = sl.start_emulator(["--endpoint", "cap-a=instant", "--endpoint", "cap-b=instant",
                             "--set", "*.step_ms=1:%g" % (STEP * 1000), "--set",
                             "*.max_seqs=%d" % SEATS, "--region", "us-east-1", "--time-scale",
                             "5"], e)
    run = os.path.join(tmp, "run")
    try:
        # 4 probes a side first: LO, HI and two bisections
        p = sl.suite(["--url", emu.url, "--region", "us-east-1", "--search-probes", "4",
                      "--out", "run"] + SEARCH + SIDES, e, tmp)
        check(p.returncode == 0, f"exit {p.returncode}\n{p.stderr}")
        first = {label: probes_of(run, label) for label in ("a", "b")}
        for label in ("a", "b"):
            check(sorted(first[label]) == [1, 2, 3, 4], f"{label}: probes {first[label]}")
            check(first[label][1] == 4 and first[label][2] == 6.25, str(first[label]))
        # then 6: the complete probes are judged again, not run; two more run
        p = sl.suite(["--resume", "run", "--url", emu.url, "--region", "us-east-1",
                      "--search-probes", "6"] + SIDES, e, tmp)
        check(p.returncode == 0, f"resume: exit {p.returncode}\n{p.stderr}")
        check(p.stderr.count("(measured before)") == 8, "resume re-ran a probe:\n" + p.stderr)
        m = sl.load(os.path.join(run, "manifest.json"))
        steps = m["steps"]
        check([s["id"] for s in steps] == ["rate-search-%d" % (k // 2 + 1) for k in range(12)],
              str([s["id"] for s in steps]))
        for s in steps:
            check(s["state"] in ("done", "skipped"), f"{s['id']}: {s['state']}")
            if s["state"] == "done":
                cmd = s["command"]
                check(cmd[cmd.index("--rates") + 1] == "%.10g" % s["probe"]["rate"], str(cmd))
        with open(os.path.join(run, "commands.sh")) as f:
            verdicts = [shlex.split(l) for l in f
                        if "--format json --slo" in l and "rate-search-" in l]
        check(len(verdicts) >= 12 and all(v[-1] == v[-2] and "rate-search-" in v[-1]
                                          for v in verdicts), "verdict commands")
        report = sl.load(os.path.join(run, "report.json"))["open_loop"]["sides"]
        with open(os.path.join(run, "report.txt")) as f:
            text = f.read()
        for key, label in (("baseline", "a"), ("candidate", "b")):
            probes = probes_of(run, label)
            check(len(probes) >= 5 and all(first[label][k] == probes[k] for k in first[label]),
                  f"{label}: {probes}")
            done = {s["probe"]["rate"]: s["probe"]["held"] for s in steps
                    if s["state"] == "done" and s["title"].startswith("capacity search " + label)}
            held = [r for r, h in done.items() if h]
            failed = [r for r, h in done.items() if not h]
            check(held and failed and max(held) < min(failed), f"{label}: {done}")
            side = report[key]
            # the report's curve is every probe of the side, its verdicts the search's
            curve = {pt["rate"]: pt["slos"]["held"] for pt in side["rates"]}
            check(curve == done, f"{label}: report {curve}, search {done}")
            cap = side["capacity"]
            check(cap["relation"] == "=" and cap["last_held"] == max(held) and
                  cap["first_failed"] == min(failed), f"{label}: {cap}")
            found = cap["requests_per_second"]
            # within its bracket; how near the derived capacity it lands is the
            # benchmark's (tests/bench/run, capacity: found vs derived)
            check(max(held) <= found <= min(failed),
                  f"{label}: capacity {found}, bracket {max(held)}:{min(failed)}, derived "
                  f"{DERIVED:.3f}")
            check(f"held at {max(held):g}, failed at {min(failed):g}" in text,
                  f"{label}: the report's capacity line:\n{text}")
        sl.check_no_secrets([("stdout", p.stdout), ("stderr", p.stderr), run])
    finally:
        emu.stop()


USAGE = [
    (["--capacity-search", "4:2"],
     "sm-suite: --capacity-search wants LO:HI, two rates (requests per second) with 0 < LO < "
     "HI, e.g. 1:16; got '4:2'"),
    (["--capacity-search", "1:4", "--slo", "e2e:p90:1"],
     "sm-suite: --capacity-search searches the rate step: add rate to --scenarios"),
    (["--capacity-search", "1:4", "--scenarios", "rate", "--rate-duration", "5"],
     "sm-suite: --capacity-search needs at least one --slo METRIC:pQ:SECONDS to hold"),
    (["--capacity-search", "1:4", "--scenarios", "rate", "--slo", "e2e:p90:1", "--rates", "1,2"],
     "sm-suite: --capacity-search chooses the rates itself: drop --rates"),
    (["--capacity-search", "1:4", "--scenarios", "rate", "--slo", "e2e:p90:1", "--order", "aba"],
     "sm-suite: --capacity-search and --order aba do not go together: each side is searched "
     "on its own already"),
    (["--search-probes", "3", "--scenarios", "rate"],
     "sm-suite: --search-probes goes with --capacity-search LO:HI"),
    (["--capacity-search", "1:4", "--search-probes", "1"],
     "sm-suite: --search-probes wants a whole number from 2 to 20, got '1'"),
]


def case_usage():
    """Bad usage of the search: one line, exit 2; --dry-run prints the first probes of
    each side (LO, HI) with their verdict's command, and says the later ones depend on
    the verdicts."""
    tmp = sl.tempdir("suite-search-usage-")
    e = sl.env(tmp)
    base = ["--region", "r", "--baseline", "a", "--candidate", "b", "--out", "run"]
    for args, want in USAGE:
        p = sl.suite(base + args, e, tmp)
        check(p.returncode == 2 and p.stderr == want + "\n", f"{args}: exit {p.returncode}\n"
              f"{p.stderr}\nwant: {want}")
    p = sl.suite(base + ["--dry-run", "--scenarios", "rate", "--capacity-search", "0.5:8",
                         "--search-probes", "3", "--rate-duration", "30", "--slo", "ttft:p90:1"],
                 e, tmp)
    check(p.returncode == 0, f"exit {p.returncode}\n{p.stderr}")
    check(not os.path.exists(os.path.join(tmp, "run")), "--dry-run created the run directory")
    lines = p.stdout.splitlines()
    cmds = [shlex.split(l) for l in lines if not l.startswith("#")]
    wrk = [c for c in cmds if any(w.endswith("rate.lua") for w in c)]
    check([(c[c.index("--label") + 1], c[c.index("--rates") + 1]) for c in wrk] ==
          [("a", "0.5"), ("b", "0.5"), ("a", "8"), ("b", "8")], str(wrk))
    verdicts = [c for c in cmds if c[1:3] == ["--format", "json"] and c[-1].endswith(".json")]
    check([c[-1] for c in verdicts] == ["run/a/rate-search-1.json", "run/b/rate-search-1.json",
                                        "run/a/rate-search-2.json", "run/b/rate-search-2.json"]
          and all(c[-2] == c[-1] and "ttft:p90:1" in c for c in verdicts), str(verdicts))
    later = [l for l in lines if "probe 3: bisection" in l]
    check(len(later) == 2, "\n".join(lines))
    p = sl.suite(["--help"], e, tmp)
    check("--capacity-search LO:HI" in p.stdout and "--search-probes N" in p.stdout, "--help")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    sys.exit(sl.run_cases(CASES, sys.argv[1:]))
