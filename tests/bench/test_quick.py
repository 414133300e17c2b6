#!/usr/bin/python3
"""bench_quick: tests/bench/run --quick must produce every row of its table with
a number (timings neither pass nor fail), keep the client-cost rounds (and take
the quietest of them), and refuse bad usage with one line.

    test_quick.py BUILD_DIR

WRK_PRELOAD (a sanitized build: the sanitizer runtime) is passed on to the runs."""
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# The rows every quick run must hold, by part.
EXPECTED = {
    "signer": ["signer_ratio", "signer_c", "signer_botocore"],
    "client": ["client_a", "client_b", "client_r", "client_c", "client_d", "client_b64",
               "client_c_minus_b", "client_d_minus_b", "client_r_minus_b", "client_c_minus_r",
               "client_d_minus_b64", "client_c_minus_b_quiet", "client_d_minus_b_quiet",
               "client_plugin_calls", "client_reply_scan",
               "client_reply_cjson", "client_journal_write"],
    "accuracy": [f"accuracy_{cfg}_{fig}" for cfg in ("small-fast", "flat-slow", "from-file")
                 for fig in ("decode", "per_call", "c1", "c4", "c16")],
    "scale": [f"scale_{n}_{what}" for n in (1, 16, 256) for what in ("memory", "cpu", "lost")],
    "compare": ["compare_seconds"],
    "peers": ["peers_curl", "peers_botocore"],
}


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    with tempfile.TemporaryDirectory(prefix="bench-quick-") as tmp:
        md, rows_path = os.path.join(tmp, "BENCHMARKS.md"), os.path.join(tmp, "rows.json")
        p = subprocess.run([os.path.join(HERE, "run"), "--quick", "--build", sys.argv[1],
                            "--out", md, "--json", rows_path], capture_output=True, text=True)
        if p.returncode != 0:
            print(f"run --quick exited {p.returncode}:\n{p.stderr[-3000:]}")
            return 1
        with open(rows_path) as f:
            rows = {r["id"]: r for r in json.load(f)["rows"]}
        with open(md) as f:
            text = f.read()
    failed = 0
    for part, ids in EXPECTED.items():
        for rid in ids:
            r = rows.get(rid)
            ok = (r is not None and r["part"] == part and isinstance(r["value"], (int, float))
                  and math.isfinite(r["value"]) and f"| {r['figure']} |" in text)
            if not ok:
                failed += 1
                print(f"row {rid} ({part}): {'missing' if r is None else r}")
    # Per round, each client-cost row keeps its runs (two rounds in a quick run).
    for rid in ("client_b", "client_c", "client_c_minus_b"):
        if len((rows.get(rid) or {}).get("runs") or []) != 2:
            failed += 1
            print(f"row {rid} does not keep its two rounds")
    # The quietest-rounds difference is the lowest (c) less the lowest (b).
    quiet, b, c = (rows.get(k) or {} for k in ("client_c_minus_b_quiet", "client_b", "client_c"))
    if b.get("runs") and c.get("runs") and abs(
            quiet.get("value", math.inf) - (min(c["runs"]) - min(b["runs"]))) > 0.01:
        failed += 1
        print(f"row client_c_minus_b_quiet is not min(c) - min(b): {quiet}")
    # Bad usage: one line naming the option, exit 2, nothing run.
    p = subprocess.run([os.path.join(HERE, "run"), "--reps", "41", "--build", sys.argv[1]],
                       capture_output=True, text=True)
    if p.returncode != 2 or p.stderr.count("\n") != 1 or "--reps" not in p.stderr:
        failed += 1
        print(f"run --reps 41: exit {p.returncode}, stderr {p.stderr!r}")
    for header in ("## Machine", "## Results", "## Client cost per request", "## Accuracy",
                   "## Scale", "load average"):
        if header not in text:
            failed += 1
            print(f"BENCHMARKS.md has no '{header}'")
    print(f"{len(rows)} rows, {failed} problem(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
