#!/usr/bin/python3
"""bench_quick: tests/bench/run --quick must produce every row of its table with
a number (timings neither pass nor fail), keep the client-cost rounds (and take
the quietest of them), refuse bad usage with one line (recv_floor too, which must
also read every message its sender wrote), and merge a run of one
part into the report of all of them, keeping the other parts' rows and sections.

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
    "accuracy": [f"accuracy_{cfg}_{fig}{k}" for cfg in ("small-fast", "flat-slow", "from-file")
                 for fig in ("decode", "per_call", "c1", "c4", "c16") for k in ("", "_k1")],
    "scale": [f"scale_{n}_{what}" for n in (1, 16, 256) for what in ("memory", "cpu", "lost")],
    "compare": ["compare_seconds"],
    "peers": ["peers_curl", "peers_botocore"],
    "stream": [f"stream_{fig}_{cfg}" for cfg in ("stream-set", "stream-file")
               for fig in ("ttft", "itl1", "itl4")]
    + [f"stream_think_{api}_{fig}" for api in ("stream", "openai")
       for fig in ("ttft", "ttfot", "tpot", "itl", "tpot_answer", "itl_answer")]
    + ["stream_share_batch", "stream_share_fleet",
       "stream_share_fleet_busy", "stream_scale_memory", "stream_scale_cpu",
       "stream_scale_cpu_process", "stream_scale_floor", "stream_scale_floor_poll",
       "stream_scale_failed", "stream_codec_c", "stream_codec_streams", "stream_codec_botocore", "stream_codec_ratio",
       "stream_codec_synthetic"],
    "openloop": [f"openloop_{client}_{fig}" for client in ("stream", "wrk")
                 for fig in ("within", "p50", "p99", "rate")],
    "shards": ["shards_c16_ratio", "shards_start_skew"],
    "capacity": ["capacity_error", "capacity_derived", "capacity_rate_error"],
    "profiles": [f"profiles_{side}_{fig}" for side in ("bf16", "qat", "bf16-cli", "qat-cli")
                 for fig in ("decode", "per_call", "c1", "c4", "c16")],
    "replay": [f"replay_s{speed}_{fig}" for speed in (1, 2) for fig in ("within", "arrival")]
    + [f"replay_{fmt}_s{speed}_arrival" for fmt in ("mooncake", "azure", "burstgpt", "capture")
       for speed in (1, 2)],
    "tokenizer": ["tokenizer_sentencepiece", "tokenizer_bpe"],
}


def blocks(text):
    """The report's sections by title, and its result rows by part number."""
    out, rows, title = {}, {}, None
    for line in text.split("\n"):
        if line.startswith("## "):
            title = line[3:]
            out[title] = []
        elif title:
            out[title].append(line)
        if title == "Results" and line[:2] == "| " and line[2:3].isdigit():
            rows.setdefault(int(line[2:].split(".")[0].split(" ")[0]), []).append(line)
    return out, rows


def merge_problems(md, text):
    """run --parts compare into the quick report (its row marked stale first): its row
    replaced, the rest kept."""
    with open(md, "w") as f:
        f.write("\n".join(line + " STALE" if line.startswith("| 5.1 |") else line
                          for line in text.split("\n")))
    p = subprocess.run([os.path.join(HERE, "run"), "--quick", "--build", sys.argv[1],
                        "--parts", "compare", "--out", md], capture_output=True, text=True)
    with open(md) as f:
        merged = f.read()
    (old, old_rows), (new, new_rows) = blocks(text), blocks(merged)
    problems = []
    if p.returncode != 0:
        problems.append(f"run --parts compare exited {p.returncode}: {p.stderr[-500:]}")
    for k in old_rows:
        if k != 5 and old_rows[k] != new_rows.get(k):
            problems.append(f"the merge changed the rows of part {k}")
    if len(new_rows.get(5, [])) != 1 or "STALE" in merged:
        problems.append(f"the merge did not replace the compare row: {new_rows.get(5)}")
    for title in old:
        if title not in ("Machine", "Results") and old[title] != new.get(title):
            problems.append(f"the merge changed the section '{title}'")
    if not any(line.startswith("- Parts compare from a later run") for line in new["Machine"]):
        problems.append("the merged report does not say which parts ran later")
    for msg in problems:
        print(msg)
    return len(problems)


def floor_problems(build):
    """recv_floor (part 7's kernel floor) reads every message its sender wrote, and refuses
    bad arguments with one line naming the argument, exit 2, before it starts a sender."""
    problems = []
    floor = os.path.join(build, "tests", "bench", "recv_floor")
    for poll in ([], ["--poll"]):
        p = subprocess.run([floor] + poll + ["20", "3", "10", "100"], capture_output=True,
                           text=True, timeout=60)
        if p.returncode != 0 or "60 messages of 100 bytes" not in p.stdout:
            problems.append(f"recv_floor {poll} 20 3 10 100: exit {p.returncode}, "
                            f"{p.stdout!r} {p.stderr!r}")
    for args, name in ((["0", "3", "10", "100"], "STREAMS"), (["2", "x", "10", "100"], "STEPS"),
                       (["2", "3", "10", "70000"], "BYTES"),
                       (["--sender-cpu", "-1", "2", "3", "10", "100"], "--sender-cpu"),
                       (["2", "3", "10"], "usage")):
        p = subprocess.run([floor] + args, capture_output=True, text=True, timeout=60)
        if p.returncode != 2 or p.stdout or p.stderr.count("\n") != 1 or name not in p.stderr:
            problems.append(f"recv_floor {args}: exit {p.returncode}, stderr {p.stderr!r}")
    for msg in problems:
        print(msg)
    return len(problems)


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
        failed = merge_problems(md, text)
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
    failed += floor_problems(sys.argv[1])
    for header in ("## Machine", "## Results", "## Client cost per request", "## Accuracy",
                   "## Scale", "## Streaming (sm-stream)", "## Open-loop schedule adherence",
                   "## Shards (one load over several clients)",
                   "## Capacity at an SLO (accuracy)", "load average"):
        if header not in text:
            failed += 1
            print(f"BENCHMARKS.md has no '{header}'")
    print(f"{len(rows)} rows, {failed} problem(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
