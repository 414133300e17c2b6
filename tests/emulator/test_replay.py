#!/usr/bin/python3
"""replay.lua (issue 32): production traces, written here with their real field and
column names, replayed against the emulator on both engines.

  mooncake  sm-stream, one connection (each request after the one before, so the cache
            is filled in trace order): every record's intended start is its timestamp /
            --speed to the microsecond, in trace order; the emulator's cached tokens are
            exactly the 512-token blocks the hash_ids share with an earlier request, its
            prompt tokens the input length and the template's 6; no request reached the
            emulator before its intended time (request log); sm-compare reports it as an
            open-loop round and names the trace, its window and speed
  csv       Azure (sm-stream) and BurstGPT (wrk) with --window and --cap: the requests
            kept, their times from the window's start, their lengths
  capture   wrk replays Data Capture bodies (JSON, CSV and BASE64 encodings) byte for
            byte: the container saw each captured prompt, in trace order
  shards    --print-schedule of --shard 0/3, 1/3 and 2/3: their stripes' union is the
            whole run's schedule, each arrival at its trace time / --speed
  malformed a bad line: one message naming FILE:LINE, exit 2, nothing sent
  memory    a trace of 600 prompts of 4,000 tokens (about 12 MB of prompt text) is
            made once per process, not once per client thread: wrk -t6 peaks at less
            than one copy of the prompts above wrk -t1 (ru_maxrss; each thread made
            them all before, six times the trace); Data Capture bodies that are the
            same, sent by 6 threads at once, all reach the container

usage: test_replay.py GROUP
  (environment: SM_EMULATOR, SM_STREAM, WRK, SM_PLUGIN_PATH, SM_COMPARE)"""
import base64
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from emutest import check, run_group  # noqa: E402
import emulator  # noqa: E402  (tests/lib, on the path through emutest)

SCRIPT = os.path.join(ROOT, "scenarios", "replay.lua")
TEMPLATE = 6  # the chat template's tokens around a prompt (emulator/model/pfx.h)
PROFILE = ["overhead_s=0.002", "prefill_s_per_token=0.00001", "step_ms=1:2", "max_seqs=256",
           "jitter=0"]


def run(engine, url, d, args, conns=1):
    """engine (sm-stream or wrk) runs replay.lua: (process, records by label)."""
    out = os.path.join(d, "out")
    os.makedirs(out, exist_ok=True)
    prog = os.environ["SM_STREAM"] if engine == "sm-stream" else os.environ["WRK"]
    threads = 1 if engine == "sm-stream" else conns  # wrk: one connection a thread
    cmd = [prog, "-t%d" % threads, "-c%d" % conns, "-d5m", "--timeout", "60s", "-s", SCRIPT,
           url, "--",
           "--region", "us-east-1", "--progress", "0", "--out",
           os.path.join(out, "{label}.json")] + args
    if engine == "wrk":
        cmd.remove("--progress")
        cmd.remove("0")
    env = dict(os.environ)
    if engine == "wrk" and env.get("WRK_PRELOAD"):  # a sanitizer build's plugin
        env["LD_PRELOAD"] = env["WRK_PRELOAD"]
        env["ASAN_OPTIONS"] = "detect_leaks=0"
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=env)
    recs = {}
    for name in sorted(os.listdir(out)):
        if not name.endswith(".json") or name.endswith(".journal.json"):
            continue
        with open(os.path.join(out, name)) as f:
            doc = json.load(f)
        recs[doc["label"]] = doc
    return p, recs


def read_log(path):
    """The request log's invocations (not the engine's warm-up pings)."""
    with open(path) as f:
        return [e for e in map(json.loads, f) if e["api"]]


def emu_args(log, names):
    args = ["--request-log", log]
    for ep in names:
        args += ["--endpoint", ep + "=instant"]
        for kv in PROFILE:
            args += ["--set", "%s.%s" % (ep, kv)]
        args += ["--set", ep + ".prefix_cache_tokens=65536"]
    return args


def write_trace(d, name, lines):
    """A trace file in d of lines: its path."""
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write("".join(line + "\n" for line in lines))
    return path


def same(what, got, want):
    check(got == want, "%s: %r, want %r" % (what, got, want))


def check_times(recs, want_us, what):
    """The records' intended starts, from the first, are want_us (in order)."""
    recs = sorted(recs, key=lambda r: (r["t_intended_us"], r["seq"]))
    got = [r["t_intended_us"] - recs[0]["t_intended_us"] for r in recs]
    check(got == want_us, "%s: intended starts %r, want %r" % (what, got, want_us))
    return recs


def check_no_early_arrival(recs, lines, what):
    """No request reached the emulator before its intended time: each request's
    arrival is after its own intended start, so the sorted arrivals are each at or
    after the sorted intended starts (both on the wall clock)."""
    intended = sorted(r["wall_start_us"] - (r["t_start_us"] - r["t_intended_us"]) for r in recs)
    arrivals = sorted(round(e["arrival"] * 1e6) for e in lines)
    check(len(intended) == len(arrivals), "%s: %d records, %d requests served"
          % (what, len(intended), len(arrivals)))
    early = [(a, i) for a, i in zip(arrivals, intended) if a < i]
    check(not early, "%s: arrivals before their intended start: %r" % (what, early[:3]))


def test_mooncake():
    rows = [  # timestamp ms, input_length, output_length, hash_ids
        (0, 1024, 4, [11, 12]),
        (40, 1024, 3, [11, 13]),
        (81, 1536, 2, [11, 12, 14]),
        (120, 300, 5, [21]),
        (150, 1800, 2, [11, 12, 14, 15]),
        (151, 1024, 1, [31, 32]),
    ]
    speed = 2
    with tempfile.TemporaryDirectory() as d:
        trace = write_trace(d, "mooncake.jsonl", [json.dumps(
            {"timestamp": t, "input_length": i, "output_length": o, "hash_ids": h, "chat_id": 7})
            for t, i, o, h in rows])
        log = os.path.join(d, "requests.jsonl")
        with emulator.Emulator(emu_args(log, ["pc"])) as emu:
            p, recs = run("sm-stream", emu.url, d, ["--endpoint", "pc", "--trace", trace,
                                                    "--speed", str(speed)])
        check(p.returncode == 0, "sm-stream replay.lua: exit %d %s" % (p.returncode,
                                                                        p.stderr[-400:]))
        lines = read_log(log)
        result = os.path.join(d, "out", "pc.json")
        cmp = subprocess.run([os.environ["SM_COMPARE"], result, result], capture_output=True,
                             text=True, timeout=60)
    words = " ".join(cmp.stdout.split())
    check(cmp.returncode == 0 and "Open-loop load" in words and
          "a replay of the trace mooncake.jsonl (mooncake), from 0 s to its end of trace time at "
          "speed 2," in words and "Latency from the intended start" in words,
          "sm-compare reports the replay as an open loop, naming the trace, window and speed: "
          "exit %d %s %s" % (cmp.returncode, cmp.stdout[:1500], cmp.stderr[-300:]))
    recs = recs.get("pc", {})
    check(recs.get("settings", {}).get("trace_format") == "mooncake"
          and recs["settings"]["speed"] == speed, "the head names the trace's format and speed")
    recs = recs.get("records", [])
    check(len(recs) == len(rows) and all(r["ok"] for r in recs), "%d records" % len(recs))
    recs = check_times(recs, [t * 1000 // speed for t, _, _, _ in rows], "mooncake")
    seen, want = set(), []
    for t, i, o, h in rows:
        j = 0
        while j < len(h) and tuple(h[:j + 1]) in seen:
            j += 1
        want.append(512 * j)
        seen.update(tuple(h[:k + 1]) for k in range(len(h)) if 512 * (k + 1) <= i)
    lines.sort(key=lambda e: e["arrival"])
    same("cached tokens (want: what the hash_ids imply)", [e["cached_tokens"] for e in lines],
         want)
    same("prompt tokens", [e["prompt_tokens"] for e in lines],
         [i + TEMPLATE for _, i, _, _ in rows])
    same("reply lengths", [r["completion_tokens"] for r in recs], [o for _, _, o, _ in rows])
    check_no_early_arrival(recs, lines, "mooncake")


def test_csv():
    with tempfile.TemporaryDirectory() as d:
        azure = write_trace(d, "azure.csv", ["TIMESTAMP,ContextTokens,GeneratedTokens"] + [
            "2023-11-16 18:15:%s,%d,%d" % row for row in [
                ("10.000000", 30, 2), ("10.5000000", 40, 3), ("11.2500001", 50, 1),
                ("12.0", 60, 2), ("13", 70, 2)]])
        burst = write_trace(d, "burstgpt.csv", [
            "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type"] + [
            "%s,ChatGPT,%d,%d,%d,Conversation log" % (t, i, o, i + o)
            for t, i, o in [(0, 20, 1), (0.25, 25, 2), (0.5, 30, 3), (0.75, 35, 4), (1, 5, 5)]])
        log = os.path.join(d, "requests.jsonl")
        with emulator.Emulator(emu_args(log, ["az", "bg"])) as emu:
            pa, ra = run("sm-stream", emu.url, os.path.join(d, "a"),
                         ["--endpoint", "az", "--trace", azure, "--window", "0.5:", "--cap", "3",
                          "--speed", "0.5"], conns=4)
            pb, rb = run("wrk", emu.url, os.path.join(d, "b"),
                         ["--endpoint", "bg", "--trace", burst, "--window", "0.25:1"], conns=2)
        lines = read_log(log)
    check(pa.returncode == 0, "sm-stream azure: exit %d %s" % (pa.returncode, pa.stderr[-400:]))
    check(pb.returncode == 0, "wrk burstgpt: exit %d %s" % (pb.returncode, pb.stderr[-400:]))
    a = check_times(ra.get("az", {}).get("records", []), [0, 1500000, 3000000], "azure")
    same("azure: ContextTokens drive the prompts", [r["prompt_tokens"] for r in a],
         [40 + TEMPLATE, 50 + TEMPLATE, 60 + TEMPLATE])
    check(ra.get("az", {}).get("settings", {}).get("window_s") == [0.5],
          "azure: the head's window")
    b = check_times(rb.get("bg", {}).get("records", []), [0, 250000, 500000], "burstgpt")
    same("burstgpt: Response tokens drive the replies", [r["completion_tokens"] for r in b],
         [2, 3, 4])
    check_no_early_arrival(a, [e for e in lines if e["endpoint"] == "az"], "azure")
    check_no_early_arrival(b, [e for e in lines if e["endpoint"] == "bg"], "burstgpt")


def capture_line(when, data, encoding):
    return json.dumps({"captureData": {
        "endpointInput": {"observedContentType": "application/json", "mode": "INPUT",
                          "data": data, "encoding": encoding},
        "endpointOutput": {"observedContentType": "application/json", "mode": "OUTPUT",
                           "data": "{}", "encoding": "JSON"}},
        "eventMetadata": {"eventId": "00000000-0000-0000-0000-000000000000",
                          "inferenceTime": when}, "eventVersion": "0"})


def test_capture():
    bodies = [json.dumps({"messages": [{"role": "user", "content": "Captured prompt %d." % k}],
                          "max_tokens": 2}) for k in range(3)]
    with tempfile.TemporaryDirectory() as d:
        trace = write_trace(d, "capture.jsonl", [
            capture_line("2024-03-01T10:00:00.100Z", bodies[0], "JSON"),
            capture_line("2024-03-01T10:00:00.350Z",
                         base64.b64encode(bodies[1].encode()).decode(), "BASE64"),
            capture_line("2024-03-01T10:00:00.600Z", bodies[2], "CSV")])
        log = os.path.join(d, "requests.jsonl")
        with emulator.Emulator(emu_args(log, ["cap"])) as emu:
            p, recs = run("wrk", emu.url, d, ["--endpoint", "cap", "--trace", trace], conns=1)
        lines = read_log(log)
    check(p.returncode == 0, "wrk capture: exit %d %s" % (p.returncode, p.stderr[-400:]))
    recs = check_times(recs.get("cap", {}).get("records", []), [0, 250000, 500000], "capture")
    check(all(r["ok"] for r in recs) and len(recs) == 3, "capture: 3 records ok")
    lines.sort(key=lambda e: e["arrival"])
    same("the captured bodies, as they were", [e["prompt"] for e in lines],
         ["Captured prompt %d." % k for k in range(3)])
    check_no_early_arrival(recs, lines, "capture")


def test_malformed():
    with tempfile.TemporaryDirectory() as d:
        trace = write_trace(d, "bad.jsonl", [
            '{"timestamp": 0, "input_length": 10, "output_length": 1}', "",
            '{"timestamp": 5, "input_length": "ten", "output_length": 1}'])
        log = os.path.join(d, "requests.jsonl")
        with emulator.Emulator(emu_args(log, ["m"])) as emu:
            for engine in ("sm-stream", "wrk"):
                p, recs = run(engine, emu.url, os.path.join(d, engine),
                              ["--endpoint", "m", "--trace", trace])
                check(p.returncode == 2, "%s: exit %d" % (engine, p.returncode))
                want = "replay: %s:3: \"input_length\" must be a whole number of tokens\n" % trace
                check(p.stderr.endswith(want) and p.stderr.count("\n") == 1,
                      "%s: one line naming the line: %r" % (engine, p.stderr))
                check(not recs, "%s: no result file" % engine)
        check(read_log(log) == [], "nothing sent")


def schedule(trace, shard=None):
    """sm-stream's --print-schedule of a replay of trace at speed 4: (round, index,
    at_us, item) of every arrival the shard (or the whole run) sends."""
    cmd = [os.environ["SM_STREAM"], "-t1", "-c3", "-d1m", "-s", SCRIPT, "http://127.0.0.1:9",
           "--", "--endpoint", "a", "--region", "us-east-1", "--allow-plain-http", "--trace",
           trace, "--speed", "4", "--print-schedule"] + (["--shard", shard] if shard else [])
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, "--print-schedule %s: exit %d %s" % (shard, p.returncode,
                                                                   p.stderr[-300:]))
    rows = [json.loads(line) for line in p.stdout.splitlines()]
    return sorted((r["round"], r["index"], r["at_us"], r["item"]) for r in rows if "at_us" in r)


def test_shards():
    times = [0, 0.1, 0.25, 0.25, 0.4, 0.7, 1.0, 1.3]
    with tempfile.TemporaryDirectory() as d:
        trace = write_trace(d, "burstgpt.csv", ["Timestamp,Model,Request tokens,Response tokens"]
                            + ["%s,ChatGPT,%d,2" % (t, 10 + k) for k, t in enumerate(times)])
        whole = schedule(trace)
        parts = [schedule(trace, "%d/3" % k) for k in range(3)]
    check([at for _, _, at, _ in whole] == [round(t * 1e6 / 4) for t in times],
          "each arrival at its trace time / speed: %r" % whole)
    check(all(parts) and sorted(sum(parts, [])) == whole,
          "the shards' stripes make the whole schedule: %r" % parts)


def peak_kib(cmd, env):
    """Runs cmd: (exit status, its peak resident set in KiB, stderr's tail)."""
    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        return p.returncode, usage.ru_maxrss, err.read()[-400:].decode(errors="replace")


def test_memory():
    n, tokens = 600, 4000
    prompt_kib = n * tokens * 5 // 1024  # about 5 bytes a word with its space
    with tempfile.TemporaryDirectory() as d:
        trace = write_trace(d, "big.jsonl", [json.dumps(
            {"timestamp": k * 2, "input_length": tokens, "output_length": 1, "hash_ids": []})
            for k in range(n)])
        log = os.path.join(d, "requests.jsonl")
        env = dict(os.environ)
        if env.get("WRK_PRELOAD"):
            env["LD_PRELOAD"] = env["WRK_PRELOAD"]
            env["ASAN_OPTIONS"] = "detect_leaks=0"
        peaks = {}
        with emulator.Emulator(["--request-log", log, "--endpoint", "big=instant"]) as emu:
            for t in (1, 6):
                cmd = [os.environ["WRK"], "-t%d" % t, "-c%d" % t, "-d5m", "--timeout", "60s",
                       "-s", SCRIPT, emu.url, "--", "--endpoint", "big", "--region",
                       "us-east-1", "--trace", trace, "--out",
                       os.path.join(d, "t%d-{label}.json" % t)]
                rc, peaks[t], err = peak_kib(cmd, env)
                check(rc == 0, "wrk -t%d: exit %d %s" % (t, rc, err))
                with open(os.path.join(d, "t%d-big.json" % t)) as f:
                    recs = json.load(f)["records"]
                check(len(recs) == n and all(r["ok"] for r in recs),
                      "wrk -t%d: %d records" % (t, len(recs)))
        print("peak resident set: wrk -t1 %d KiB, -t6 %d KiB" % (peaks[1], peaks[6]))
        check(peaks[6] - peaks[1] < prompt_kib,
              "wrk -t6 peaks %d KiB above -t1 (%d KiB), more than one copy of the prompts "
              "(%d KiB): each thread made the trace's prompts" % (peaks[6] - peaks[1], peaks[1],
                                                                  prompt_kib))
        body = json.dumps({"messages": [{"role": "user", "content": "Same again."}],
                           "max_tokens": 1})
        trace = write_trace(d, "same.jsonl", [capture_line(
            "2024-03-01T10:00:00.%03dZ" % k, body, "JSON") for k in range(120)])
        with emulator.Emulator(["--request-log", log + "2", "--endpoint", "cap=instant"]) as emu:
            p, recs = run("wrk", emu.url, d, ["--endpoint", "cap", "--trace", trace], conns=6)
        recs = recs.get("cap", {}).get("records", [])
        check(p.returncode == 0 and len(recs) == 120 and all(r["ok"] for r in recs),
              "120 same bodies over 6 threads: exit %d, %d records ok" %
              (p.returncode, sum(1 for r in recs if r["ok"])))
        check(len(read_log(log + "2")) == 120, "the container saw 120")


GROUPS = {"mooncake": test_mooncake, "csv": test_csv, "capture": test_capture,
          "shards": test_shards, "malformed": test_malformed, "memory": test_memory}

if __name__ == "__main__":
    sys.exit(run_group(GROUPS, __doc__))
