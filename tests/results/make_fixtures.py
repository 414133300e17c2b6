#!/usr/bin/python3
"""Writes the sm-compare test fixtures into OUTDIR (deterministic, no randomness).

    make_fixtures.py OUTDIR QUIZ_JSON

article/   compare.py measure files built from the published numbers
           (tests/data/article-2026-09-25.json): the import must give
           back the article's combine table.
native/    result files of all three scenarios (decode, sweep c1/c4/c16,
           quiz) for a bf16 and a QAT endpoint, plus their vLLM logs.
known/     decode runs with exactly known rates (50 and 100 tokens/s,
           0.5 s per call) over three lengths; scaled/ holds the same runs
           written by a server 10 times faster than real (time_scale 10).
steady/    steady-mode sweeps at c4 with exactly 400 and 800 tokens/s.
rerun/     a second decode run of the bf16 side (for pooling and agreement).
journal/   a decode run that was killed: a journal whose last line is cut,
           then the NUL bytes of the space the run had reserved; no result file.
padded/    a decode run killed between two records: whole lines, then NUL bytes.
jdir/      a run directory with a result file and its journal.
bad/       one file per kind of bad input.
badlevel/  a compare.py measure file whose load level "4x" is not a number.
faults/    two identical endpoints (a, b) whose requests sometimes failed: a whole
           sweep batch, single requests, two quiz questions (what failures do to
           the figures).
precise/   decode and sweep runs whose ratios are about 1.004, with samples
           enough for every interval (what the report's precision shows).
xcheck/    sweep runs at c4 with container logs whose throughput lines agree
           (a) and disagree (b) with the records.
mixed/     files measured differently from native/: another prompt, another
           time scale, another client.
evil/      files whose strings hold control characters, and fields of the wrong
           type or range; markup-decode.json and markup-quiz.json, whose error
           code and message, and a quiz reply, are HTML that would run a script
           (the HTML report's tests).
special/   a FIFO, a directory named like a result file, a file that starts
           with a NUL byte.
stream/    sm-stream's files (format 2, streamed records): a and b (b twice as
           fast, its chunks of one and two tokens) with decode and sweeps of 8
           batches at c1 and c4; itloff, whose c1 inter-token latency is 5%
           slower than its decode rate says; wrk, b's runs by wrk (not
           streamed); bad-*.json, records whose stream fields disagree.
climit/    sm-stream's files of bf16 and qat (as stream/ a and b) whose qat client was
           the limit: its decode run's client_rounds say its CPU was 97% busy, and
           three of every five chunk gaps of its c4 sweep are 0 (read in bursts);
           its c1 sweep ran on a host whose hypervisor took 8% of its CPU.
open/      open-loop runs (rate.lua, constant arrivals at 1, 2 and 4 requests/s
           for 10 s): a and b by sm-stream (a's first token slows with the rate
           and crosses 0.6 s at p90 between 2 and 4; at 4 a few of a's sends
           left late and one request failed), wrk-a and wrk-b the same by wrk,
           seed2 b's run from another arrival seed.
ramp/      ramp.lua runs (2/s for 10 s, then 8/s for 10 s) with sm-timeline's samples
           beside them: a scales out 1 s after the change and serves 4 s after it
           (a sample every 2 s), b 0.5 s and 2 s; until then the first token takes
           1.2 s and every 8th request is refused (429); untimed names a timeline
           that is not there, other one that samples another endpoint; cold is an
           inference component's (its timeline has its copies): 0 copies until 3 s,
           where its calls are refused for no capacity (a cold start of 3 s and 6
           refusals), 1 copy from 3 s to 19 s, 0 again from 19 s, where the last 4
           calls are refused and none is served after them (a cold start not served);
           coldother the same whose calls went to another component than its timeline's.
"""

import copy
import json
import os
import shutil
import re
import sys
from datetime import datetime, timezone

OUT, QUIZ = sys.argv[1], sys.argv[2]
QUESTIONS = json.load(open(QUIZ, encoding="utf-8"))["questions"]
STORY = "Write a long, detailed story about a lighthouse keeper on a remote island."

# The article's replies that differ from the expected answer (the five disagreements).
WRONG = {
    "bf16": {"add-4": "1026", "add-8": "829", "add-14": "918"},
    "qat": {"add-7": "655", "add-9": "-285", "add-14": "1010"},
}
NAMES = {"bf16": "gemma-4-e2b", "qat": "gemma-4-e2b-qat"}
FACTS = {
    "bf16": {"vllm_version": "0.30.0", "weights_gib": "9.75", "load_seconds": "82.751806",
             "kv_cache_tokens": "723,484", "max_concurrency_at_max_len": "88.32",
             "quantization": "None"},
    "qat": {"vllm_version": "0.30.0", "weights_gib": "8.01", "load_seconds": "66.190265",
            "kv_cache_tokens": "867,999", "max_concurrency_at_max_len": "105.96",
            "quantization": "compressed-tensors"},
}
DECODE = {"bf16": (51.3, 0.633, 0.960, 10.632), "qat": (105.1, 0.562, 0.637, 5.356)}
# Two batches per level whose median is the article's figure.
LOAD = {
    "bf16": {"1": (45.5, 45.7), "4": (171.5, 171.7), "16": (619.0, 619.2)},
    "qat": {"1": (85.3, 85.4), "4": (328.6, 328.8), "16": (1077.2, 1077.3)},
}


def write(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, ensure_ascii=False)
        f.write("\n")


def replies(side):
    return {q["id"]: WRONG[side].get(q["id"], q["answer"]) for q in QUESTIONS}


def scored(side):
    ans = replies(side)
    return {q["id"]: re.search(q["pattern"], ans[q["id"]]) is not None for q in QUESTIONS}


def by_kind(side):
    ok = scored(side)
    kinds = {}
    for q in QUESTIONS:
        k = kinds.setdefault(q["kind"], {"correct": 0, "total": 0})
        k["total"] += 1
        k["correct"] += ok[q["id"]]
    return kinds


# compare.py's peak of vLLM's "Avg generation throughput" lines during the load (not in
# the article's table: made up for the fixtures, one per side so the ratio shows).
SERVER_PEAK = {"bf16": {"lines": 11, "peak_tokens_per_second": 409.6},
               "qat": {"lines": 9, "peak_tokens_per_second": 716.8}}


def measure_file(side):
    rate, fixed, w16, w512 = DECODE[side]
    load = {}
    for c, tps in LOAD[side].items():
        tokens = 256 * int(c)
        batches = [{"wall": round(tokens / t, 3), "tokens": tokens, "tokens_per_second": t}
                   for t in tps]
        load[c] = {"aggregate_tokens_per_second_median": round((tps[0] + tps[1]) / 2, 3),
                   "batch_wall_seconds_median": round(sum(b["wall"] for b in batches) / 2, 3),
                   "batches": batches}
    return {
        "endpoint": {"name": NAMES[side], "region": "us-east-2", "instance_types": ["ml.g6.xlarge"],
                     "image_digest": "vllm@sha256:0"},
        "started": "2026-09-25T18:50:00.000000+00:00",
        "finished": "2026-09-25T19:00:00.000000+00:00",
        "settings": {"short": 16, "long": 512, "decode_repeats": 5, "load_tokens": 256,
                     "concurrency": [1, 4, 16], "load_repeats": 2, "temperature": 0.0},
        "load_facts": FACTS[side],
        "decode": {"wall_16_median": w16, "wall_512_median": w512, "wall_512_min": w512 - 0.05,
                   "wall_512_max": w512 + 0.05, "decode_tokens_per_second": rate,
                   "per_call_fixed_cost_seconds": fixed, "samples_per_length": 5},
        "load": load,
        "server_throughput_during_load": SERVER_PEAK[side],
        "quality": {"correct": sum(scored(side).values()), "total": len(QUESTIONS),
                    "by_kind": by_kind(side), "answers": replies(side)},
    }


def header(side, scenario, settings, scale=1, label=None):
    level = settings.get("concurrency", "")
    return {
        "format": "wrk-sagemaker-result", "version": 1, "tool": "wrk-sagemaker 0.1.0",
        "scenario": scenario, "run_id": "run-%s%s-%s" % (scenario, level, side),
        "label": label or side,
        "endpoint": {"name": NAMES.get(side, side), "variant": None, "format": "vllm-chat"},
        "target": {"url": "http://127.0.0.1:8080", "host": "127.0.0.1:8080",
                   "region": "us-east-2", "service": "sagemaker"},
        "wrk": {"threads": 1, "connections": 1, "duration_s": None, "timeout_s": 120},
        "time_scale": scale, "started_at": "2026-11-30T10:00:00.000000Z",
        "partial": False, "partial_reason": None, "settings": settings,
    }


def record(seq, phase, batch, max_tokens, start, end, thread=0, ok=True, tokens=None, **extra):
    r = {"seq": seq, "thread": thread, "endpoint": "ep", "variant": None, "phase": phase,
         "batch": batch, "question": None, "kind": None, "max_tokens": max_tokens,
         "prompt_tokens": 20, "completion_tokens": max_tokens if tokens is None else tokens,
         "finish_reason": "length", "status": 200, "ok": ok, "error": None,
         "t_start_us": start, "t_end_us": end, "wall_start_us": 1764496800000000 + start}
    r.update(extra)
    return r


def result(head, records):
    ok = sum(r["ok"] for r in records)
    errors = {}
    for r in records:
        if r["error"]:
            errors[r["error"]["code"]] = errors.get(r["error"]["code"], 0) + 1
    doc = dict(head)
    doc["ended_at"] = "2026-11-30T10:05:00.000000Z"
    doc["counts"] = {"sent": len(records), "ok": ok, "failed": len(records) - ok, "errors": errors}
    doc["records"] = records
    return doc


def decode_records(rate, fixed, lengths, repeats, scale=1.0, jitter=True):
    """Walls fixed + n / rate (microseconds), alternating lengths like the scenario."""
    recs, t = [], 1000
    for rep in range(repeats):
        for n in lengths:
            wall = fixed + n / rate + ((rep * 7 % 5) - 2) * 0.004 * jitter
            us = round(wall * 1e6 / scale)
            recs.append(record(len(recs), "decode", rep, n, t, t + us))
            t += us + 1000
    return recs


def sweep_records(c, tps, scale=1.0, fail=None):
    recs, t = [], 5000
    for b, rate in enumerate(tps):
        wall = round(256 * c / rate * 1e6 / scale)
        for k in range(c):
            start = t + k * 50
            end = t + wall - (c - 1 - k) * 30
            failed = fail is not None and (b, k) == fail
            recs.append(record(len(recs), "sweep", b, 256, start, end, thread=k, ok=not failed,
                               tokens=None if failed else 256,
                               status=429 if failed else 200,
                               error={"code": "ThrottlingException", "message": "Rate exceeded"}
                               if failed else None))
        t += wall + 20000
    return recs


def quiz_records(side):
    ans, ok = replies(side), scored(side)
    recs = []
    for i, q in enumerate(QUESTIONS):
        recs.append(record(i, "quiz", 0, 64, 1000 + i * 300000, 1000 + i * 300000 + 250000,
                           tokens=3, question=q["id"], kind=q["kind"], text=ans[q["id"]],
                           answer=q["answer"], correct=ok[q["id"]]))
    return recs


def vllm_log(side):
    f = FACTS[side]
    pre = "(EngineCore_DP0 pid=81) INFO 09-25 18:40:12 [gpu_model_runner.py:2345] "
    lines = [
        "INFO 09-25 18:38:01 [__init__.py:216] Automatically detected platform cuda.",
        "(APIServer pid=1) INFO 09-25 18:38:05 [api_server.py:1839] vLLM API server version 0.30.0",
        "(EngineCore_DP0 pid=81) INFO 09-25 18:38:06 [core.py:77] Initializing a V1 LLM engine "
        "(v0.30.0) with config: model='m', quantization=%s, enforce_eager=False"
        % f["quantization"],
        pre + "Model loading took %s GiB memory and %s seconds" % (f["weights_gib"],
                                                                   f["load_seconds"]),
        "(EngineCore_DP0 pid=81) INFO 09-25 18:41:02 [kv_cache_utils.py:1087] GPU KV cache size: "
        "%s tokens" % f["kv_cache_tokens"],
        "(EngineCore_DP0 pid=81) INFO 09-25 18:41:02 [kv_cache_utils.py:1091] Maximum concurrency "
        "for 8,192 tokens per request: %sx" % f["max_concurrency_at_max_len"],
    ]
    return "\n".join(lines) + "\n"


def native(side, fail=None):
    d = os.path.join(OUT, "native", side)
    rate, fixed = DECODE[side][:2]
    dec = {"prompt": STORY, "lengths": [16, 512], "repeats": 5, "temperature": 0.0,
           "ignore_eos": True}
    write(os.path.join(d, "decode-%s.json" % side),
          result(header(side, "decode", dec), decode_records(rate, fixed, [16, 512], 5)))
    for c, tps in LOAD[side].items():
        st = {"mode": "batch", "concurrency": int(c), "batches": 2, "max_tokens": 256,
              "prompt": STORY, "temperature": 0.0, "ignore_eos": True}
        write(os.path.join(d, "sweep-c%s-%s.json" % (c, side)),
              result(header(side, "sweep", st), sweep_records(int(c), tps,
                                                              fail=fail if c == "4" else None)))
    qs = {"quiz": "compare-py-40", "quiz_sha256": "ab" * 32, "questions": 40, "max_tokens": 64,
          "temperature": 0.0}
    write(os.path.join(d, "quiz-%s.json" % side), result(header(side, "quiz", qs),
                                                         quiz_records(side)))
    with open(os.path.join(d, "vllm-%s.log" % side), "w") as f:
        f.write(vllm_log(side))


def known(sub, scale):
    for side, rate in (("slow", 50.0), ("fast", 100.0)):
        dec = {"prompt": STORY, "lengths": [16, 128, 512], "repeats": 5, "temperature": 0.0,
               "ignore_eos": True}
        recs = decode_records(rate, 0.5, [16, 128, 512], 5, scale=scale, jitter=False)
        write(os.path.join(OUT, sub, "decode-%s.json" % side),
              result(header(side, "decode", dec, scale=scale), recs))


def rerun():
    """A second decode run of the bf16 side (A-B-A), slightly faster."""
    dec = {"prompt": STORY, "lengths": [16, 512], "repeats": 5, "temperature": 0.0,
           "ignore_eos": True}
    head = header("bf16", "decode", dec)
    head["run_id"] = "run-decode-bf16-again"
    write(os.path.join(OUT, "rerun", "decode-bf16-again.json"),
          result(head, decode_records(51.5, 0.64, [16, 512], 5)))


def steady():
    """Steady-mode sweeps at c4: each of 4 threads sends 10 requests back to back."""
    for side, per_request in (("slow", 2.56), ("fast", 1.28)):
        st = {"mode": "steady", "concurrency": 4, "duration_s": 30, "max_tokens": 256,
              "prompt": STORY, "temperature": 0.0, "ignore_eos": True}
        recs, us = [], round(per_request * 1e6)
        for k in range(4):
            for i in range(10):
                recs.append(record(len(recs), "sweep", 0, 256, i * us, (i + 1) * us, thread=k))
        write(os.path.join(OUT, "steady", "sweep-c4-%s.json" % side),
              result(header(side, "sweep", st), recs))


def journal(folder, cut):
    """A killed decode run's journal: 7 records (one failed), maybe a cut one, and
    the NUL bytes up to the end of the space the run had reserved (plugin/jmap.h)."""
    d = os.path.join(OUT, folder)
    os.makedirs(d, exist_ok=True)
    dec = {"prompt": STORY, "lengths": [16, 512], "repeats": 5, "temperature": 0.0,
           "ignore_eos": True}
    head = header("qat", "decode", dec)
    recs = decode_records(105.1, 0.562, [16, 512], 5)[:7]
    recs[3].update(ok=False, completion_tokens=500,
                   error={"code": "token_mismatch", "message": "asked for 512 tokens, got 500"})
    text = json.dumps(head) + "\n" + "".join(json.dumps(r) + "\n" for r in recs)
    if cut:
        text += json.dumps(record(7, "decode", 3, 512, 1, 2))[:40]
    with open(os.path.join(d, "decode-qat.journal.jsonl"), "wb") as f:
        f.write(text.encode() + bytes(65536 - len(text)))


def bad():
    d = os.path.join(OUT, "bad")
    dec = {"prompt": STORY, "lengths": [16, 512], "repeats": 5, "temperature": 0.0,
           "ignore_eos": True}
    good = result(header("x", "decode", dec), decode_records(60.0, 0.5, [16, 512], 5))
    text = json.dumps(good)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "truncated.json"), "w") as f:
        f.write(text[: len(text) // 2])
    v3 = copy.deepcopy(good)
    v3["version"] = 3
    write(os.path.join(d, "version3.json"), v3)
    write(os.path.join(d, "other.json"), {"hello": "world", "records": []})
    # vllm bench serve --save-detailed: another tool's figures, only for --view
    write(os.path.join(d, "vllm-serve.json"),
          {"completed": 2, "failed": 0, "ttfts": [0.1, 0.3], "itls": [[0.02, 0.04], [0.05]],
           "output_lens": [5, 3], "input_lens": [10, 10], "errors": ["", ""],
           "latencies": [0.17, 0.4], "start_times": [0, 1]})
    other = copy.deepcopy(good)
    other["settings"]["lengths"] = [16, 256]
    for r in other["records"]:
        r["max_tokens"] = 256 if r["max_tokens"] == 512 else r["max_tokens"]
    write(os.path.join(d, "lengths-16-256.json"), other)
    nostop = copy.deepcopy(good)
    del nostop["records"][4]["t_end_us"]
    write(os.path.join(d, "no-end.json"), nostop)
    wrongfmt = copy.deepcopy(good)
    wrongfmt["format"] = "something-else"
    write(os.path.join(d, "format.json"), wrongfmt)
    wrongfmt["format"] = "two\nlines"
    write(os.path.join(d, "format-newline.json"), wrongfmt)
    quiz = result(header("qat", "quiz", {"quiz": "another-quiz", "questions": 40,
                                         "max_tokens": 64}), quiz_records("qat"))
    write(os.path.join(d, "quiz-other.json"), quiz)
    sweep = {"mode": "batch", "concurrency": 4, "batches": 2, "max_tokens": 128,
             "temperature": 0.0, "ignore_eos": True}
    write(os.path.join(d, "sweep-c4-128.json"),
          result(header("qat", "sweep", sweep), sweep_records(4, (300.0, 310.0))))
    os.makedirs(os.path.join(d, "empty"), exist_ok=True)
    write(os.path.join(d, "quiz-empty.json"), {"questions": []})
    level = measure_file("qat")
    level["load"]["4x"] = level["load"].pop("4")
    write(os.path.join(OUT, "badlevel", "measure-qat.json"), level)


def journal_beside_result():
    """A run directory holding a result file and its journal: the journal is not read."""
    d = os.path.join(OUT, "jdir")
    os.makedirs(d, exist_ok=True)
    dec = {"prompt": STORY, "lengths": [16, 512], "repeats": 5, "temperature": 0.0,
           "ignore_eos": True}
    head = header("qat", "decode", dec)
    recs = decode_records(105.1, 0.562, [16, 512], 5)
    write(os.path.join(d, "decode-qat.json"), result(head, recs))
    with open(os.path.join(d, "decode-qat.journal.jsonl"), "w") as f:
        f.write(json.dumps(head) + "\n")
        for r in recs:
            f.write(json.dumps(r) + "\n")


def sweep_batches(c, tps, start=5000, gap=20000, tokens=256, failed=()):
    """Records of batches at c: batch b's walls give tps[b] (failed: (batch, k) pairs)."""
    recs, t = [], start
    for b, rate in enumerate(tps):
        wall = round(tokens * c / rate * 1e6)
        for k in range(c):
            bad = (b, k) in failed or (b, "all") in failed
            recs.append(record(len(recs), "sweep", b, tokens, t, t + wall, thread=k, ok=not bad,
                               tokens=None if bad else tokens, status=503 if bad else 200,
                               error={"code": "ServiceUnavailable", "message": "try again"}
                               if bad else None))
        t += wall + gap
    return recs


def sweep_file(side, c, recs, batches, scale=1, label=None):
    st = {"mode": "batch", "concurrency": c, "batches": batches, "max_tokens": 256,
          "prompt": STORY, "temperature": 0.0, "ignore_eos": True}
    return result(header(side, "sweep", st, scale=scale, label=label), recs)


def faults():
    """Two identical endpoints; a's batch 1 at c1 failed whole, b lost single requests."""
    d = os.path.join(OUT, "faults")
    tps = [40.0, 40.2, 39.8, 40.1, 39.9, 40.3, 39.7, 40.0]
    fails = {"a": {1: [(1, "all")], 4: [(3, 2)]}, "b": {1: [], 4: [(5, 0), (6, 1)]}}
    for side in ("a", "b"):
        for c in (1, 4):
            write(os.path.join(d, side, "sweep-c%d.json" % c),
                  sweep_file(side, c, sweep_batches(c, [x * c for x in tps],
                                                    failed=fails[side][c]), 8))
        dec = {"prompt": STORY, "lengths": [16, 512], "repeats": 5, "temperature": 0.0,
               "ignore_eos": True}
        recs = decode_records(50.0, 0.5, [16, 512], 5)
        if side == "a":
            recs[3].update(ok=False, completion_tokens=None, status=429,
                           error={"code": "ThrottlingException", "message": "Rate exceeded"})
        write(os.path.join(d, side, "decode.json"), result(header(side, "decode", dec), recs))
        qs = {"quiz": "compare-py-40", "quiz_sha256": "ab" * 32, "questions": 40,
              "max_tokens": 64, "temperature": 0.0}
        recs = quiz_records("bf16")
        if side == "a":
            for i in (1, 2):
                recs[i].update(ok=False, text=None, correct=None, status=500,
                               error={"code": "InternalFailure", "message": "oops"})
        write(os.path.join(d, side, "quiz.json"), result(header(side, "quiz", qs), recs))


def jittered(rate, n, spread):
    """n batch throughputs around rate, symmetric, deterministic."""
    return [rate * (1 + spread * ((i * 5 % n) - (n - 1) / 2) / n) for i in range(n)]


def precise():
    """Ratios of about 1.004 with 8 batches and 5 replies per length: intervals exclude 1."""
    d = os.path.join(OUT, "precise")
    for side, f in (("slow", 1.0), ("fast", 1.004)):
        dec = {"prompt": STORY, "lengths": [16, 512], "repeats": 5, "temperature": 0.0,
               "ignore_eos": True}
        write(os.path.join(d, side, "decode.json"),
              result(header(side, "decode", dec), decode_records(50.0 * f, 0.5, [16, 512], 5)))
        for c in (1, 4):
            write(os.path.join(d, side, "sweep-c%d.json" % c),
                  sweep_file(side, c, sweep_batches(c, jittered(40.0 * c * f, 8, 0.001)), 8))


WALL0 = 1764496800000000  # the wall clock of a record's t_start_us 0 (record())


def log_lines(recs, scale, every_us, factor, stamp):
    """vLLM throughput lines over the records' span: what they generated, times factor."""
    first = min(r["wall_start_us"] for r in recs)
    last = max(r["wall_start_us"] + r["t_end_us"] - r["t_start_us"] for r in recs)
    lines, t = [], first - first % every_us + every_us
    while t <= last + every_us:
        tok = 0.0
        for r in recs:
            if not r["ok"]:
                continue
            s0 = r["wall_start_us"]
            s1 = s0 + r["t_end_us"] - r["t_start_us"]
            ov = max(0, min(s1, t) - max(s0, t - every_us))
            tok += r["completion_tokens"] * ov / (s1 - s0)
        rate = tok / (every_us / 1e6) / scale * factor
        lines.append("%s(APIServer pid=1) INFO %s [loggers.py:123] Engine 000: Avg prompt "
                     "throughput: 0.0 tokens/s, Avg generation throughput: %.1f tokens/s, "
                     "Running: 4 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.0%%, Prefix cache "
                     "hit rate: 0.0%%" % (stamp(t), stamp_vllm(t), rate))
        t += every_us
    return "\n".join(lines) + "\n"


def stamp_vllm(us):
    return datetime.fromtimestamp(us // 1000000, timezone.utc).strftime("%m-%d %H:%M:%S")


def stamp_iso(us):
    t = datetime.fromtimestamp(us // 1000000, timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + ".%06d+00:00 AllTraffic/i-0 " % (us % 1000000)


def xcheck():
    """c4 sweeps of 8 batches whose logs say what the records generated (a) or 1.3 times
    as much (b)."""
    d = os.path.join(OUT, "xcheck")
    for side, factor in (("a", 1.0), ("b", 1.3)):
        recs = sweep_batches(4, jittered(160.0, 8, 0.002), gap=200000)
        for r in recs:
            r["wall_start_us"] = WALL0 + r["t_start_us"]
        write(os.path.join(d, side, "sweep-c4.json"), sweep_file(side, 4, recs, 8))
        with open(os.path.join(d, side, "container.log"), "w") as f:
            f.write(log_lines(recs, 1, 2000000, factor, stamp_iso))


def mixed():
    d = os.path.join(OUT, "mixed")
    dec = {"prompt": "Another prompt.", "lengths": [16, 512], "repeats": 5, "temperature": 0.0,
           "ignore_eos": True}
    write(os.path.join(d, "decode-other-prompt.json"),
          result(header("qat", "decode", dec), decode_records(105.1, 0.562, [16, 512], 5)))
    dec["prompt"] = STORY
    write(os.path.join(d, "decode-scaled.json"),
          result(header("qat", "decode", dec, scale=10),
                 decode_records(105.1, 0.562, [16, 512], 5, scale=10)))
    other = result(header("qat", "decode", dec), decode_records(105.1, 0.562, [16, 512], 5))
    other["tool"] = "another-client 2.0"
    other["run_id"] = "run-other-client"
    write(os.path.join(d, "decode-other-client.json"), other)


ESC = "\x1b[31m"


def evil():
    d = os.path.join(OUT, "evil")
    dec = {"prompt": STORY, "lengths": [16, 512], "repeats": 5, "temperature": 0.0,
           "ignore_eos": True}
    recs = decode_records(60.0, 0.5, [16, 512], 5)
    recs[2].update(ok=False, status=500,
                   error={"code": "Boom" + ESC + "red", "message": "line one\nline two" + ESC})
    write(os.path.join(d, "decode-escapes.json"), result(header("x", "decode", dec), recs))
    qs = {"quiz": "compare-py-40", "quiz_sha256": "ab" * 32, "questions": 40, "max_tokens": 64,
          "temperature": 0.0}
    recs = quiz_records("qat")
    recs[4].update(text="12" + ESC + "34|<b>*x*</b>", correct=False)
    recs[5].update(question="add-" + ESC)
    write(os.path.join(d, "quiz-escapes.json"), result(header("x", "quiz", qs), recs))
    bad_label = result(header("x", "decode", dec), decode_records(60.0, 0.5, [16, 512], 5))
    bad_label["label"] = "x" + ESC
    write(os.path.join(d, "label-escape.json"), bad_label)
    for name, value in (("fast", "fast"), ("tiny", 1e-300), ("null", None)):
        doc = result(header("x", "decode", dec), decode_records(60.0, 0.5, [16, 512], 5))
        doc["time_scale"] = value
        write(os.path.join(d, "scale-%s.json" % name), doc)
    markup = ("</script><script>document.title='pwned'</script>"
              "<svg onload=\"document.title='pwned'\">'&")
    recs = decode_records(60.0, 0.5, [16, 512], 5)
    recs[3].update(ok=False, status=500,
                   error={"code": "<img src=x onerror=\"document.title='pwned'\">",
                          "message": markup})
    write(os.path.join(d, "markup-decode.json"), result(header("x", "decode", dec), recs))
    recs = quiz_records("qat")
    recs[4].update(text=markup, correct=False)
    write(os.path.join(d, "markup-quiz.json"), result(header("x", "quiz", qs), recs))
    doc = result(header("x", "decode", dec), decode_records(60.0, 0.5, [16, 512], 5))
    doc["settings"]["lengths"] = [16, 0]
    write(os.path.join(d, "length-zero.json"), doc)


def special():
    d = os.path.join(OUT, "special")
    os.makedirs(os.path.join(d, "dir.json"), exist_ok=True)
    fifo = os.path.join(d, "fifo.json")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    with open(os.path.join(d, "nul.json"), "wb") as f:
        f.write(b"\0{\"format\": \"wrk-sagemaker-result\"}")


def stream_head(side, scenario, settings, streamed=True):
    head = header(side, scenario, settings)
    if streamed:
        head.update(version=2, client="sm-stream", api="stream")
    return head


def stream_gaps(tokens, step, seed, multi):
    """The gaps (microseconds) after the first chunk, and each chunk's tokens (multi: chunks
    of 1 and 2 tokens in turn; the gap before a chunk of k tokens spans k steps)."""
    sizes, left = [1], tokens - 1
    while left > 0:
        k = min(left, 2 if multi and len(sizes) % 2 == 0 else 1)
        sizes.append(k)
        left -= k
    gaps = [round(k * step * 1e6 * (1 + 0.02 * (((j * 37 + seed * 53) % 101) / 100 - 0.5)))
            for j, k in enumerate(sizes[1:], 1)]
    return gaps, sizes


def stream_rec(seq, phase, batch, tokens, start, ttft, step, seed, multi=False, thread=0,
               streamed=True):
    gaps, sizes = stream_gaps(tokens, step, seed, multi)
    first = start + round(ttft * 1e6)
    end = first + sum(gaps) + 200
    r = record(seq, phase, batch, tokens, start, end, thread=thread)
    if streamed:
        r.update(t_headers_us=start + 1000, t_first_token_us=first, chunks=len(sizes),
                 chunk_gaps_us=gaps)
        if multi:
            r["chunk_tokens"] = sizes
    return r


def stream_side(d, side, step, multi, c1_step=None, streamed=True, salt=0):
    dec = {"prompt": STORY, "lengths": [16, 64], "repeats": 5, "temperature": 0.0,
           "ignore_eos": True}
    recs, t = [], 1000
    for rep in range(5):
        for n in (16, 64):
            r = stream_rec(len(recs), "decode", rep, n, t, 0.2 + 0.001 * (rep % 3), step,
                           rep + n + salt, multi, streamed=streamed)
            recs.append(r)
            t = r["t_end_us"] + 1000
    write(os.path.join(d, "decode.json"), result(stream_head(side, "decode", dec, streamed), recs))
    for c in (1, 4):
        recs, t = [], 5000
        for b in range(8):
            for k in range(c):
                recs.append(stream_rec(len(recs), "sweep", b, 32, t + 50 * k,
                                       0.25 + 0.004 * k + 0.002 * (b % 3),
                                       (c1_step if c == 1 and c1_step else step) * (1 + 0.1 * (c > 1)),
                                       b + salt, multi, thread=k, streamed=streamed))
            t = max(r["t_end_us"] for r in recs) + 20000
        st = {"mode": "batch", "concurrency": c, "batches": 8, "max_tokens": 32, "prompt": STORY,
              "temperature": 0.0, "ignore_eos": True}
        write(os.path.join(d, "sweep-c%d.json" % c),
              result(stream_head(side, "sweep", st, streamed), recs))


def stream():
    d = os.path.join(OUT, "stream")
    stream_side(os.path.join(d, "a"), "a", 0.02, False)
    stream_side(os.path.join(d, "b"), "b", 0.01, True, salt=1)
    stream_side(os.path.join(d, "itloff"), "itloff", 0.02, False, c1_step=0.021)
    stream_side(os.path.join(d, "wrk"), "b", 0.01, True, streamed=False, salt=1)
    st = {"mode": "batch", "concurrency": 1, "batches": 1, "max_tokens": 32, "prompt": STORY,
          "temperature": 0.0, "ignore_eos": True}
    good = stream_rec(0, "sweep", 0, 32, 5000, 0.25, 0.02, 0, multi=True)
    for name, change in (("gaps-count", {"chunk_gaps_us": good["chunk_gaps_us"][1:]}),
                         ("gap-negative", {"chunk_gaps_us": [-5] + good["chunk_gaps_us"][1:]}),
                         ("first-before-start", {"t_first_token_us": 4000}),
                         ("tokens-count", {"chunk_tokens": good["chunk_tokens"][1:]})):
        r = dict(good, **change)
        write(os.path.join(d, "bad-%s.json" % name),
              result(stream_head("x", "sweep", st), [dict(good, seq=1), r]))


def client_round(wall, cpu, reads=0, chunks=0, burst=0, steal=0.0):
    """One round of client_rounds (docs/result-format.md): sm-stream on 2 CPUs, 1 thread."""
    return {"round": 0, "batch": 0, "wall_s": wall, "cpu_s": cpu, "cpus": 2, "threads": 1,
            "busy_poll": False, "stalls_of": "event loop", "stalls": 0, "stall_max_us": 0,
            "stall_us": 0, "reads": reads, "chunks": chunks, "burst_chunks": burst,
            "host_steal_share": steal}


def climit():
    d = os.path.join(OUT, "climit")
    stream_side(os.path.join(d, "bf16"), "bf16", 0.02, False)
    stream_side(os.path.join(d, "qat"), "qat", 0.01, True, salt=1)
    path = os.path.join(d, "qat", "decode.json")
    with open(path) as f:
        doc = json.load(f)
    doc["client_rounds"] = [client_round(2.0, 1.94)]
    write(path, doc)
    path = os.path.join(d, "qat", "sweep-c4.json")
    with open(path) as f:
        doc = json.load(f)
    chunks = burst = 0
    for r in doc["records"]:
        r["chunk_gaps_us"] = [0 if j % 5 < 3 else g for j, g in enumerate(r["chunk_gaps_us"])]
        chunks += r["chunks"]
        burst += sum(1 for g in r["chunk_gaps_us"] if g == 0)
    doc["client_rounds"] = [client_round(0.5, 0.1, chunks - burst, chunks, burst)]
    write(path, doc)
    path = os.path.join(d, "qat", "sweep-c1.json")
    with open(path) as f:
        doc = json.load(f)
    doc["client_rounds"] = [client_round(1.5, 0.2, steal=0.08)]
    write(path, doc)


OPEN_RATES = (1, 2, 4)
OPEN = {  # per rate: first-token base (s), decode step (s)
    "a": {1: (0.30, 0.020), 2: (0.45, 0.022), 4: (0.90, 0.026)},
    "b": {1: (0.25, 0.010), 2: (0.30, 0.011), 4: (0.40, 0.013)},
}


def open_records(side, streamed):
    """Constant arrivals for 10 s at each rate; TTFT and steps of OPEN with a small,
    deterministic spread; a's rate 4 has every 10th send 2 ms late and its 7th failed."""
    recs, t0 = [], 1000000
    for b, rate in enumerate(OPEN_RATES):
        ttft0, step = OPEN[side][rate]
        for j in range(10 * rate):
            at = t0 + j * 1000000 // rate
            late = 2000 if side == "a" and rate == 4 and j % 10 == 3 else 150
            ttft = ttft0 + 0.04 * ((j * 7) % 5) / 4
            gaps = [round(step * 1e6 * (1 + 0.05 * (((i * 13 + j) % 7) - 3) / 3))
                    for i in range(15)]
            first = at + round(ttft * 1e6)
            end = first + sum(gaps) + 200
            failed = (side == "a" and rate == 4 and j == 7) or (side == "f" and j % 2 == 0)
            r = record(len(recs), "rate", b, 16, at + late, end, thread=j % 8, ok=not failed,
                       tokens=None if failed else 16, status=424 if failed else 200,
                       error={"code": "ModelError", "message": "container answered 500"}
                       if failed else None)
            r["t_intended_us"] = at
            if streamed:
                r.update(t_headers_us=at + late + 1000, t_first_token_us=first, chunks=16,
                         chunk_gaps_us=gaps)
            recs.append(r)
        t0 = max(r["t_end_us"] for r in recs) + 500000
    return recs


def open_loop():
    d = os.path.join(OUT, "open")
    st = {"arrivals": "constant", "rates": list(OPEN_RATES), "duration_s": 10,
          "burstiness": None, "arrival_seed": 1, "max_concurrency": 16, "max_tokens": 16,
          "prompt": STORY, "temperature": 0.0, "ignore_eos": True}
    for side in ("a", "b"):
        for streamed in (True, False):
            head = stream_head(side, "rate", st, streamed)
            if not streamed:
                head.update(version=2, client="wrk", api="invoke")
            write(os.path.join(d, side if streamed else "wrk-" + side, "rate.json"),
                  result(head, open_records(side, streamed)))
    other = dict(st, arrival_seed=2)
    write(os.path.join(d, "seed2", "rate.json"),
          result(stream_head("b", "rate", other), open_records("b", True)))


CANDS = {  # label: pair folder, price (USD/hour, None: none), per rate (first token, step)
    "a": ("pair-1", 1.0, OPEN["a"]),
    "b": ("pair-1", 2.0, OPEN["b"]),
    "c": ("pair-2", 0.9, {1: (0.20, 0.010), 2: (0.50, 0.012), 4: (0.80, 0.020)}),
    "d": ("pair-2", 0.5, {1: (0.90, 0.010), 2: (1.00, 0.012), 4: (1.20, 0.020)}),
    "e": ("pair-3", 0.4, None),
    "f": ("pair-3", 0.3, OPEN["b"]),
}


def candidates_dir(name, labels, slo="ttft:p90:0.6", price=None):
    """An sm-suite --candidates folder: candidates.json, each candidate's records in
    pair-K/LABEL and the link LABEL -> pair-K/LABEL. "d" meets the SLO at no rate (its
    search failed); "e"'s pair never ran (no folder); half of "f"'s requests fail."""
    d = os.path.join(OUT, name)
    st = {"arrivals": "constant", "rates": list(OPEN_RATES), "duration_s": 10,
          "burstiness": None, "arrival_seed": 1, "max_concurrency": 16, "max_tokens": 16,
          "prompt": STORY, "temperature": 0.0, "ignore_eos": True}
    cands = []
    for label in labels:
        pair, own, table = CANDS[label]
        own = price or own
        if table is not None:
            OPEN[label] = table
            write(os.path.join(d, pair, label, "rate.json"),
                  result(stream_head(label, "rate", st), open_records(label, True)))
        link = os.path.join(d, label)
        if not os.path.lexists(link):
            os.symlink(os.path.join(pair, label), link)
        cands.append({"label": label, "kind": "endpoint", "endpoint": "ep-" + label,
                      "variant": None, "inference_component": None, "model": None,
                      "instance_type": "ml.g6.xlarge", "instance_count": 1, "folder": label,
                      "capacity": None,
                      "cost_at_capacity": {"usd_per_hour": own, "price_source": "given",
                                           "usd_per_million_tokens": None},
                      "quiz": None})
    write(os.path.join(d, "candidates.json"),
          {"format": "wrk-sagemaker-candidates", "version": 1, "slo": slo, "candidates": cands,
           "cheapest_at_capacity": None})


def candidates_with_quiz():
    """cands-quiz: native's bf16 and qat folders (decode, sweep, quiz) with open-loop runs
    (a's and b's timing), so the ratios carry the reference rows and their intervals."""
    d = os.path.join(OUT, "cands-quiz")
    st = {"arrivals": "constant", "rates": list(OPEN_RATES), "duration_s": 10,
          "burstiness": None, "arrival_seed": 1, "max_concurrency": 16, "max_tokens": 16,
          "prompt": STORY, "temperature": 0.0, "ignore_eos": True}
    cands = []
    for label, timing in (("bf16", "b"), ("qat", "c")):
        folder = os.path.join(d, label)
        os.makedirs(folder, exist_ok=True)
        for name in os.listdir(os.path.join(OUT, "native", label)):
            if name.endswith(".json"):
                shutil.copy(os.path.join(OUT, "native", label, name), folder)
        OPEN[label] = CANDS[timing][2]
        write(os.path.join(folder, "rate.json"),
              result(stream_head(label, "rate", st), open_records(label, True)))
        cands.append({"label": label, "folder": label, "instance_type": "ml.g6.xlarge",
                      "instance_count": 1, "cost_at_capacity": {"usd_per_hour": 1.1267}})
    write(os.path.join(d, "candidates.json"),
          {"format": "wrk-sagemaker-candidates", "version": 1, "slo": "ttft:p90:0.6",
           "candidates": cands})
RAMP_SCHEDULE = [[10, 2, 2], [10, 8, 8]]  # real seconds, from, to
RAMP = {  # per side: scaling activity start, new capacity (s from the schedule's start)
    "a": (11.0, 14.0),
    "b": (10.5, 12.0),
}
RAMP_BASE = 1764496800  # records' wall_start_us are this (s) plus their t_start_us


def ramp_run(refused_at, ttft_at, refusal):
    """Constant arrivals: 2/s for 10 s, then 8/s for 10 s; refused_at(j, rel) says whether
    the j-th (rel: its intended start from the first, us) was refused, with refusal
    (status, error), ttft_at(rel) the first token's seconds of one served."""
    recs, t0 = [], 1000000
    ats = [j * 500000 for j in range(20)] + [10000000 + j * 125000 for j in range(80)]
    for j, rel in enumerate(ats):
        at = t0 + rel
        refused = refused_at(j, rel)
        gaps = [20000] * 7
        first = at + 150 + round(ttft_at(rel) * 1e6)
        end = at + 150 + 2000 if refused else first + sum(gaps) + 200
        r = record(j, "ramp", 0, 8, at + 150, end, thread=j % 4, ok=not refused,
                   tokens=None if refused else 8, status=refusal[0] if refused else 200,
                   error=refusal[1] if refused else None)
        r["t_intended_us"] = at
        if not refused:
            r.update(t_headers_us=at + 1150, t_first_token_us=first, chunks=8,
                     chunk_gaps_us=gaps)
        recs.append(r)
    return recs


def ramp_records(side):
    """TTFT 0.3 s, but 1.2 s from the change at 10 s to the side's new capacity, where
    every 8th request is refused (429, ThrottlingException)."""
    _, up = RAMP[side]
    busy = lambda rel: 10000000 <= rel < up * 1e6  # noqa: E731
    return ramp_run(lambda j, rel: busy(rel) and j % 8 == 0,
                    lambda rel: 1.2 if busy(rel) else 0.3,
                    (429, {"code": "ThrottlingException", "message": "Rate exceeded"}))


def ramp_timeline(side, endpoint=None):
    """sm-timeline's samples every 2 s from 1 s before the schedule to 1 s after: one
    instance, two from the side's capacity on; its activity starts at the decision."""
    decision, up = RAMP[side]
    w0 = RAMP_BASE + 1.0  # the first intended start on the wall clock
    lines = []
    for k in range(12):
        t = -1 + 2 * k
        act = [] if t < decision else [{
            "id": "act-%s" % side, "status": "Successful" if t >= up else "InProgress",
            "start": w0 + decision, "end": w0 + up if t >= up else None,
            "description": "Setting desired instance count to 2."}]
        lines.append({"t": w0 + t, "endpoint": endpoint or side, "variant": "AllTraffic",
                      "status": "InService", "current_instances": 2 if t >= up else 1,
                      "desired_instances": 2 if t >= decision else 1, "activities": act})
    return "".join(json.dumps(x) + "\n" for x in lines)


NO_CAPACITY = ("Inference Component has no capacity to process this request. "
               "ApplicationAutoScaling may be in-progress (if configured) or try to increase "
               "the capacity by invoking UpdateInferenceComponentRuntimeConfig API.")


def ramp_cold_records():
    """As ramp_records' arrivals, TTFT 0.3 s; the calls before 3 s and from 19.5 s on are
    refused for no capacity (400 ValidationError, recorded as no_capacity)."""
    return ramp_run(lambda j, rel: rel < 3000000 or rel >= 19500000, lambda rel: 0.3,
                    (400, {"code": "no_capacity", "message": NO_CAPACITY}))


def ramp_cold_timeline():
    """sm-timeline --inference-component's samples every 2 s from 1 s before the schedule
    to 1 s after: one instance throughout; 0 copies, 1 from 3 s, 0 from 19 s; the
    scale-out from zero an activity from 0.5 s to 3 s."""
    w0 = RAMP_BASE + 1.0
    lines = []
    for k in range(12):
        t = -1 + 2 * k
        copies = 1 if 3 <= t < 19 else 0
        act = [] if t < 0.5 else [{
            "id": "act-cold", "status": "Successful" if t >= 3 else "InProgress",
            "start": w0 + 0.5, "end": w0 + 3 if t >= 3 else None,
            "description": "Setting desired copy count to 1."}]
        lines.append({"t": w0 + t, "endpoint": "cold", "variant": "AllTraffic",
                      "status": "InService", "current_instances": 1, "desired_instances": 1,
                      "inference_component": "cold-ic", "component_status": "InService",
                      "current_copies": copies, "desired_copies": 1 if t >= 0.5 else 0,
                      "activities": act})
    return "".join(json.dumps(x) + "\n" for x in lines)


def ramp():
    d = os.path.join(OUT, "ramp")
    for side in ("a", "b"):
        st = {"arrivals": "constant", "rates": [5], "duration_s": 20, "ramp": "2@10,8@10",
              "ramp_file": None, "schedule": RAMP_SCHEDULE,
              "timeline": "runs/ramp/%s.timeline.jsonl" % side, "burstiness": None,
              "arrival_seed": 1, "max_concurrency": 16, "max_tokens": 8, "prompt": STORY,
              "temperature": 0.0, "ignore_eos": True}
        write(os.path.join(d, side, "ramp.json"),
              result(stream_head(side, "ramp", st), ramp_records(side)))
        with open(os.path.join(d, side, "%s.timeline.jsonl" % side), "w") as f:
            f.write(ramp_timeline(side))
    # without its timeline file: the section says so, the rest stands
    st = dict(st, timeline="gone.jsonl")
    write(os.path.join(d, "untimed", "ramp.json"),
          result(stream_head("b", "ramp", st), ramp_records("b")))
    # a timeline of another endpoint beside it: left out the same way
    st = dict(st, timeline="/elsewhere/other.timeline.jsonl")
    write(os.path.join(d, "other", "ramp.json"),
          result(stream_head("b", "ramp", st), ramp_records("b")))
    with open(os.path.join(d, "other", "other.timeline.jsonl"), "w") as f:
        f.write(ramp_timeline("b", "not-b"))
    # an inference component's: refused for no capacity at 0 copies, two cold starts
    st = dict(st, timeline="runs/ramp/cold.timeline.jsonl")
    for folder, component in (("cold", "cold-ic"), ("coldother", "other-ic")):
        head = stream_head("cold", "ramp", st)
        head["endpoint"]["inference_component"] = component
        write(os.path.join(d, folder, "ramp.json"), result(head, ramp_cold_records()))
        with open(os.path.join(d, folder, "cold.timeline.jsonl"), "w") as f:
            f.write(ramp_cold_timeline())


for s in ("bf16", "qat"):
    write(os.path.join(OUT, "article", "measure-%s.json" % NAMES[s]), measure_file(s))
native("bf16")
native("qat", fail=(1, 2))
known("known", 1.0)
known("scaled", 10.0)
rerun()
steady()
journal("journal", cut=True)
journal("padded", cut=False)
journal_beside_result()
bad()
faults()
precise()
xcheck()
mixed()
evil()
special()
stream()
climit()
open_loop()
candidates_dir("cands", ["a", "b", "c", "d", "e", "f"])
candidates_dir("cands2", ["a", "b"], price=1.1267)
candidates_dir("cands1", ["c"])
candidates_with_quiz()
ramp()
