#!/usr/bin/python3
"""Runs split over several client processes (--shard K/N, --start-at), simulated on this
machine against sm-emulator: each shard a process of its own, all waiting for one
--start-at; their files merged by sm-compare, pushed to and fetched from the emulator's
S3 with sm-results; the Kubernetes recipe and its image checked offline.

Structure is asserted, never a timing margin (the merged c16's throughput against a
single 16-connection run is measured in tests/bench/shards_vs_single.py, BENCHMARKS.md).

usage: test_shards.py CASE... | all
environment: SM_STREAM, WRK, SM_EMULATOR, SM_COMPARE, SM_RESULTS, WRK_PRELOAD (optional)"""
import datetime
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import emulator  # noqa: E402
import secretscan  # noqa: E402
from testkit import check, isolated_env, run_cases  # noqa: E402

SCENARIOS = os.path.join(ROOT, "scenarios")
KEY, SECRET = "AKIDSHARDS", "shardsSECRETkey/0123456789+abcdefghijklmnop"
TIMEOUT = 180
LEAD_S = 8  # --start-at this far ahead: the clock probe (3 s) and the wait (2 s) fit


def env(**extra):
    return isolated_env(**dict({"AWS_ACCESS_KEY_ID": KEY, "AWS_SECRET_ACCESS_KEY": SECRET},
                               **extra))


def start_emulator(*args):
    emu = emulator.Emulator(list(args), binary=os.environ["SM_EMULATOR"], env=env())
    emu.start()
    return emu


def utc(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


def start_at(ahead=LEAD_S):
    return utc(int(time.time()) + ahead)


def at_us(text):
    return int(datetime.datetime.strptime(text[:19], "%Y-%m-%dT%H:%M:%S").replace(
        tzinfo=datetime.timezone.utc).timestamp()) * 1000000 + (
            int((text[20:-1] + "000000")[:6]) if "." in text else 0)


def client(engine, senders, scenario, url, args, out):
    """The command of one client process: sm-stream (-t1 -cN) or wrk (-tN -cN)."""
    prog = os.environ["SM_STREAM"] if engine == "stream" else os.environ["WRK"]
    threads = "-t1" if engine == "stream" else f"-t{senders}"
    return [prog, threads, f"-c{senders}", "-d2m", "--timeout", "70s", "-s",
            os.path.join(SCENARIOS, scenario + ".lua"), url, "--", "--region", "us-east-1",
            "--out", out] + list(args)


def client_env():
    e = env()
    if os.environ.get("WRK_PRELOAD"):
        e["LD_PRELOAD"] = os.environ["WRK_PRELOAD"]
        e["ASAN_OPTIONS"] = "detect_leaks=0"
    return e


def run_clients(cmds, want=0):
    """Runs the commands at once (each a process), waits for all; their outputs."""
    procs = [subprocess.Popen(c, env=client_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for c in cmds]
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=TIMEOUT)
        found = secretscan.scan([SECRET], [("stdout", out), ("stderr", err)])
        check(not found, secretscan.describe(found))
        check(want is None or p.returncode == want,
              f"{' '.join(p.args[:8])}... exited {p.returncode}, want {want}:\n{err}")
        outs.append((p.returncode, out, err))
    return outs


def load(path):
    with open(path) as f:
        return json.load(f)


def compare(*args, want=0):
    p = subprocess.run([os.environ["SM_COMPARE"]] + list(args), capture_output=True, text=True,
                       timeout=TIMEOUT)
    check(want is None or p.returncode == want,
          f"sm-compare {' '.join(args)} exited {p.returncode}, want {want}:\n{p.stderr}")
    return p


def schedule(engine, senders, scenario, args, shard=None):
    """--print-schedule's lines: (head, set of (round, index, at_us, item, side))."""
    extra = ["--print-schedule"] + (["--shard", shard] if shard else [])
    p = subprocess.run(client(engine, senders, scenario, "http://127.0.0.1:9", args + extra,
                              "/nonexistent/{label}.json"),
                       env=client_env(), capture_output=True, text=True, timeout=TIMEOUT)
    check(p.returncode == 0, f"--print-schedule exited {p.returncode}: {p.stderr}")
    lines = [json.loads(line) for line in p.stdout.splitlines()]
    items = [(x["round"], x["index"], x.get("at_us"), x.get("item"), x.get("side"),
              x.get("duration_s")) for x in lines[1:]]
    check(len(items) == len(set(items)), "an item twice in one schedule")
    return lines[0], set(items)


# ---- the schedules --------------------------------------------------------------------------

def case_schedule_union():
    """Every scenario's schedule split over N shards: each shard keeps request i of a round
    when i mod N is its index, and sender t when t mod N is; the shards' schedules are
    disjoint and their union is the one-process schedule (open-loop times included), for
    both engines. A shard without a sender (decode, one at a time) is refused."""
    plans = [("stream", 16, "sweep", ["--endpoint", "a", "--endpoint", "b", "--batches", "3"], 4),
             ("wrk", 16, "sweep", ["--endpoint", "a", "--batches", "2"], 4),
             ("stream", 8, "rate", ["--endpoint", "a", "--endpoint", "b", "--rates", "5,20",
                                    "--duration", "3", "--arrival-seed", "11"], 4),
             ("stream", 6, "rate", ["--endpoint", "a", "--rates", "7", "--duration", "2",
                                    "--arrivals", "gamma", "--burstiness", "0.5",
                                    "--input-tokens", "uniform:10:50", "--workload-seed", "3"], 3),
             ("stream", 4, "quiz", ["--endpoint", "a"], 2),
             ("wrk", 4, "quiz", ["--endpoint", "a", "--endpoint", "b"], 3),
             ("stream", 4, "sweep", ["--endpoint", "a", "--mode", "steady", "--duration", "5",
                                    "--batches", "3"], 2)]
    for engine, senders, scenario, args, n in plans:
        head, whole = schedule(engine, senders, scenario, args)
        check(head["senders"] == list(range(senders)), f"{scenario}: one process sends on all")
        union, senders_seen = set(), []
        for k in range(n):
            h, part = schedule(engine, senders, scenario, args, f"{k}/{n}")
            check(h["senders"] == [t for t in range(senders) if t % n == k],
                  f"{scenario} shard {k}/{n}: senders {h['senders']}")
            check(all(i is None or i % n == k for _, i, _, _, _, _ in part),
                  f"{scenario} shard {k}/{n} keeps another shard's request")
            steady = {x for x in part if x[1] is None}
            check(not (union - steady) & (part - steady),
                  f"{scenario}: shards {k} and another both send one request")
            union |= part
            senders_seen += h["senders"]
        check(union == whole, f"{engine} {scenario} over {n} shards: the union is not the "
              f"one-process schedule ({len(union)} against {len(whole)} items)")
        check(sorted(senders_seen) == list(range(senders)), f"{scenario}: every sender once")
        check(len(whole) > n, f"{scenario}: a schedule worth splitting ({len(whole)})")
    # JOB_COMPLETION_INDEX and SM_SHARDS name the shard when --shard is not given.
    e = client_env()
    e.update(JOB_COMPLETION_INDEX="2", SM_SHARDS="4")
    p = subprocess.run(client("stream", 8, "sweep", "http://127.0.0.1:9",
                              ["--endpoint", "a", "--print-schedule"], "/nonexistent/x.json"),
                       env=e, capture_output=True, text=True, timeout=TIMEOUT)
    check(p.returncode == 0 and json.loads(p.stdout.splitlines()[0])["senders"] == [2, 6],
          f"the shard from the environment: {p.stdout[:200]} {p.stderr}")
    for bad_env, shard_args, want in (({}, ["--shard", "1/2"], "needs at least 2 senders"),
                                      ({"SM_SHARDS": "4", "JOB_COMPLETION_INDEX": "4"}, [],
                                       "JOB_COMPLETION_INDEX/SM_SHARDS wants K/N"),
                                      ({}, ["--shard", "2/2"], "--shard wants K/N")):
        e = client_env()
        e.update(bad_env)
        p = subprocess.run(client("stream", 1, "decode", "http://127.0.0.1:9",
                                  ["--endpoint", "a", "--print-schedule"] + shard_args,
                                  "/nonexistent/x.json"),
                           env=e, capture_output=True, text=True, timeout=TIMEOUT)
        check(p.returncode == 2 and want in p.stderr, f"refused with '{want}': {p.stderr}")


def case_open_loop_union():
    """rate.lua run as 4 shard processes with one --start-at, and as one process with the
    same seed and another --start-at: the arrivals the shards sent, as offsets from their
    --start-at, are the one process's; each shard sent its stripe only."""
    emu = start_emulator("--endpoint", "a=instant")
    try:
        out = tempfile.mkdtemp(prefix="shards-rate-")
        args = ["--endpoint", "a", "--rates", "40", "--duration", "1.5", "--arrival-seed", "9",
                "--max-tokens", "4"]
        when = start_at()
        run_clients([client("stream", 8, "rate", emu.url,
                             args + ["--shard", f"{k}/4", "--start-at", when],
                             os.path.join(out, f"rate.{k}.json")) for k in range(4)])
        run_clients([client("stream", 8, "rate", emu.url, args + ["--start-at", start_at()],
                            os.path.join(out, "whole", "rate.json"))])

        def offsets(path):
            r = load(path)
            base = at_us(r["start_at"])
            return sorted(rec["wall_start_us"] - rec["t_start_us"] + rec["t_intended_us"] - base
                          for rec in r["records"]), r

        whole, _ = offsets(os.path.join(out, "whole", "rate.json"))
        union = []
        for k in range(4):
            got, r = offsets(os.path.join(out, f"rate.{k}.json"))
            check(r["shard"] == {"index": k, "count": 4} and r["seed"] == 9, str(r["shard"]))
            check(set(rec["thread"] % 4 for rec in r["records"]) == {k},
                  f"shard {k} sent on another shard's senders")
            union += got
        union.sort()
        check(len(whole) == 60 and len(union) == len(whole),
              f"{len(union)} arrivals over the shards, {len(whole)} in one process")
        # The same arrival times, to the clocks' reading (wall minus run clock, +- a few us).
        worst = max(abs(a - b) for a, b in zip(union, whole))
        check(worst < 200, f"an arrival moved {worst} us between the shards and one process")
    finally:
        emu.stop()


# ---- a merged level ---------------------------------------------------------------------------

def sharded_sweep(emu, out, n, senders, args, run_id=None, engine="stream", when=None):
    when = when or start_at()
    # a busy host may wake a shard late; refusing late starts is case_late_start's
    extra = ["--start-tolerance", "30"] + (["--run-id", run_id] if run_id else [])
    return run_clients([client(engine, senders, "sweep", emu.url,
                               args + ["--shard", f"{k}/{n}", "--start-at", when] + extra,
                               os.path.join(out, f"sweep.{k}.json")) for k in range(n)])


def case_merged_c16():
    """A sweep level of 16 connections as 4 shard processes of 4 (sm-stream -c16 --shard K/4)
    with one --start-at, against a single 16-connection run: the shards' files carry one run
    id, one settings hash, their shard, the start and the measured clock; sm-compare merges
    them into one c16 run (each batch the 16 requests of the 4 shards, threads 0 to 15), with
    a Shards section (start skew, requests, rates, clocks, the common window), and compares
    it with the single run as a level, never as repeats."""
    emu = start_emulator("--endpoint", "ep=bf16-l4", "--time-scale", "20")
    try:
        root = tempfile.mkdtemp(prefix="shards-c16-")
        shards, single = os.path.join(root, "shards"), os.path.join(root, "single")
        args = ["--endpoint", "ep", "--time-scale", "20", "--batches", "3", "--max-tokens", "64"]
        sharded_sweep(emu, shards, 4, 16, args)
        run_clients([client("stream", 16, "sweep", emu.url, args,
                            os.path.join(single, "sweep.json"))])
        files = [load(os.path.join(shards, f"sweep.{k}.json")) for k in range(4)]
        check(len({f["run_id"] for f in files}) == 1 and files[0]["run_id"].startswith("run-"),
              "one run id, from --start-at")
        check(len({f["settings_sha256"] for f in files}) == 1, "one settings hash")
        threads = set()
        for k, f in enumerate(files):
            check(f["shard"] == {"index": k, "count": 4}, f"shard {k}: {f.get('shard')}")
            check(f["settings"]["concurrency"] == 16 and f["counts"]["sent"] == 12,
                  f"shard {k}: {f['settings']['concurrency']}, {f['counts']}")
            check(f["start_at"] and 0 <= f["start_late_us"] < 30000000 and
                  f["start_tolerance_s"] == 30, f"{f['start_late_us']}")
            clk = f["clock"]
            check(abs(clk["offset_us"]) <= clk["uncertainty_us"] + 10000,
                  f"shard {k}: this host measured {clk} against itself")
            threads |= {r["thread"] for r in f["records"]}
        check(threads == set(range(16)), f"the shards sent on senders {sorted(threads)}")
        report = json.loads(compare("-f", "json", shards, single).stdout)
        row = report["rows"].get("load_c16_tokens_per_second")
        check(row and row[0] and row[1] and row[2], f"the c16 row: {row}")
        counts = report["requests_per_figure"]["load_c16_tokens_per_second"]
        check(counts == {"baseline": {"ok": 48, "sent": 48}, "candidate": {"ok": 48, "sent": 48}},
              f"48 requests a side: {counts}")
        sh = report.get("shards")
        check(sh and len(sh) == 1 and sh[0]["count"] == 4 and len(sh[0]["shards"]) == 4,
              f"the JSON's shards: {sh}")
        check(all(s["sent"] == 12 and s["requests_per_second"] for s in sh[0]["shards"]), str(sh))
        check(sh[0]["window_s"] and sh[0]["window_tokens_per_second"], str(sh[0]))
        text = compare(shards, single).stdout
        check("Shards (one run each, merged)" in text and "4 shards" in text, text[-2000:])
        check("runs agree" not in text.split("Shards")[0][-400:], "shards read as repeats")
    finally:
        emu.stop()


def case_refusals():
    """A run's shard files refused by sm-compare with one line each: a shard missing, a shard
    twice, a shard of other settings under the same run id, a shard that did not run; files
    of two run ids are two runs, each missing shards."""
    emu = start_emulator("--endpoint", "ep=instant")
    try:
        root = tempfile.mkdtemp(prefix="shards-refused-")
        args = ["--endpoint", "ep", "--batches", "1", "--max-tokens", "8"]
        good = os.path.join(root, "good")
        sharded_sweep(emu, good, 3, 6, args, run_id="r-good")
        compare(good, good)

        def variant(name, change):
            d = os.path.join(root, name)
            shutil.copytree(good, d)
            change(d)
            p = compare(d, good, want=2)
            return p.stderr

        err = variant("missing", lambda d: [os.remove(os.path.join(d, f)) for f in (
            "sweep.1.json", "sweep.1.journal.jsonl")])
        check("shard 1 of 3 is missing" in err, err)
        err = variant("twice", lambda d: shutil.copy(os.path.join(d, "sweep.2.json"),
                                                     os.path.join(d, "sweep.2-again.json")))
        shutil.copytree(good, os.path.join(root, "journal"))
        os.remove(os.path.join(root, "journal", "sweep.1.json"))
        warned = json.loads(compare("-f", "json", os.path.join(root, "journal"), good).stdout)
        check(any("shard 1 of run r-good is partial (shard 1: recovered from its journal)" in w
                  for w in warned["warnings"]), f"a shard's journal is its file: {warned}")
        check("both are shard 2 of run r-good" in err, err)
        other = os.path.join(root, "other")
        sharded_sweep(emu, other, 3, 6, args[:-1] + ["16"], run_id="r-good")
        err = variant("mismatch", lambda d: shutil.copy(os.path.join(other, "sweep.0.json"),
                                                        os.path.join(d, "sweep.0.json")))
        check("different settings" in err, err)
        runs = os.path.join(root, "runs")
        sharded_sweep(emu, runs, 3, 6, args, run_id="r-two")
        err = variant("two-runs", lambda d: shutil.copy(os.path.join(runs, "sweep.1.json"),
                                                        os.path.join(d, "sweep.1.json")))
        check("is missing" in err, err)
        # Without --run-id or --start-at the shards cannot share a run id: refused at once.
        p = run_clients([client("stream", 6, "sweep", emu.url, args + ["--shard", "0/3"],
                                os.path.join(root, "x.json"))], want=2)
        check("needs --run-id" in p[0][2], p[0][2])
    finally:
        emu.stop()


def case_late_start():
    """A shard that would start later than --start-at allows measures nothing: one whose
    --start-at has passed by more than the tolerance fails at once (exit 5, no file), for
    both engines; one within the tolerance runs and records how late it left. A run whose
    shard did not run (its file partial with "late start") is refused by sm-compare."""
    emu = start_emulator("--endpoint", "ep=instant")
    try:
        root = tempfile.mkdtemp(prefix="shards-late-")
        args = ["--endpoint", "ep", "--batches", "1", "--max-tokens", "8", "--run-id", "r-late"]
        past = utc(int(time.time()) - 30)
        for engine in ("stream", "wrk"):
            (rc, _, err), = run_clients([client(engine, 4, "sweep", emu.url,
                                                args + ["--shard", "0/2", "--start-at", past],
                                                os.path.join(root, "a.json"))], want=5)
            check("late start: --start-at " in err and "passed" in err, err)
            check(not os.listdir(root), f"files written: {os.listdir(root)}")
        good = os.path.join(root, "good")
        when = utc(int(time.time()) - 1)  # passed, within a 30 s tolerance
        run_clients([client("wrk", 4, "sweep", emu.url,
                            args + ["--shard", f"{k}/2", "--start-at", when, "--start-tolerance",
                                    "30"], os.path.join(good, f"s.{k}.json")) for k in range(2)])
        for k in range(2):
            r = load(os.path.join(good, f"s.{k}.json"))
            check(1000000 <= r["start_late_us"] < 30000000 and "clock" not in r,
                  f"shard {k} left {r['start_late_us']} us late")
        compare(good, good)
        late = load(os.path.join(good, "s.1.json"))
        late.update(partial=True, records=[], partial_reason="late start: the first round "
                    "started 1.500 s after --start-at (tolerance 1.000 s)")
        with open(os.path.join(good, "s.1.json"), "w") as f:
            json.dump(late, f)
        err = compare(good, good, want=2).stderr
        check("shard 1 of run r-late did not run" in err, err)
    finally:
        emu.stop()


# ---- S3 --------------------------------------------------------------------------------------

def results_cmd(emu, *args, region="us-east-1"):
    return [os.environ["SM_RESULTS"], "--endpoint-url", emu.url, "--region", region] + list(args)


def run_results(emu, *args, want=0, **env_extra):
    p = subprocess.run(results_cmd(emu, *args), env=env(**env_extra), capture_output=True,
                       text=True, timeout=TIMEOUT)
    found = secretscan.scan([SECRET], [("stdout", p.stdout), ("stderr", p.stderr)])
    check(not found, secretscan.describe(found))
    check(want is None or p.returncode == want,
          f"sm-results {' '.join(args)} exited {p.returncode}, want {want}:\n{p.stderr}")
    return p


def case_s3_push_fetch():
    """Two "hosts" push their shard files (and one journal) with sm-results to the emulator's
    S3; list names the run; fetch downloads every shard to DIR/LABEL/, where sm-compare
    merges them; a second fetch does not overwrite; a bad secret and an unknown key are S3's
    errors (exit 1); a path that holds no result file is refused (exit 2)."""
    emu = start_emulator("--endpoint", "ep=instant")
    try:
        root = tempfile.mkdtemp(prefix="shards-s3-")
        args = ["--endpoint", "ep", "--batches", "2", "--max-tokens", "8"]
        out = os.path.join(root, "out")
        sharded_sweep(emu, out, 2, 4, args, run_id="r-s3")
        for k in range(2):  # each host its own folder, the same file name
            host = os.path.join(root, f"host{k}", "ep")
            os.makedirs(host)
            shutil.copy(os.path.join(out, f"sweep.{k}.json"), os.path.join(host, "sweep.json"))
        p = run_results(emu, "push", "s3://bench/runs/", os.path.join(root, "host0"))
        check("s3://bench/runs/r-s3/ep/sweep.shard-0-of-2.json" in p.stdout, p.stdout)
        run_results(emu, "push", "s3://bench/runs", os.path.join(root, "host1", "ep",
                                                                  "sweep.json"))
        listed = run_results(emu, "list", "s3://bench/runs").stdout
        check(re.search(r"^r-s3\t2 file\(s\)", listed, re.M), listed)
        got = os.path.join(root, "fetched")
        p = run_results(emu, "fetch", "s3://bench/runs", "r-s3", got)
        check(sorted(os.listdir(os.path.join(got, "ep"))) ==
              ["sweep.shard-0-of-2.json", "sweep.shard-1-of-2.json"], str(os.listdir(got)))
        check(f"sm-compare {got}/ep" in p.stderr, p.stderr)
        for k in range(2):
            with open(os.path.join(out, f"sweep.{k}.json"), "rb") as a, \
                    open(os.path.join(got, "ep", f"sweep.shard-{k}-of-2.json"), "rb") as b:
                check(a.read() == b.read(), f"shard {k} came back changed")
        text = compare(os.path.join(got, "ep"), os.path.join(got, "ep")).stdout
        check("2 shards" in text, text[-1500:])
        p = run_results(emu, "fetch", "s3://bench/runs", "r-s3", got, want=2)
        check("fetch --force replaces it" in p.stderr, p.stderr)
        run_results(emu, "--force", "fetch", "s3://bench/runs", "r-s3", got)
        p = run_results(emu, "list", "s3://bench/runs", want=1,
                        AWS_SECRET_ACCESS_KEY=SECRET + "x")
        check("SignatureDoesNotMatch" in p.stderr, p.stderr)
        p = run_results(emu, "list", "s3://bench/runs", want=1, AWS_ACCESS_KEY_ID="AKIDOTHER")
        check("InvalidAccessKeyId" in p.stderr, p.stderr)
        notes = os.path.join(root, "notes")
        os.makedirs(notes)
        with open(os.path.join(notes, "x.txt"), "w") as f:
            f.write("no result\n")
        p = run_results(emu, "push", "s3://bench/runs", notes, want=2)
        check("no result files" in p.stderr, p.stderr)
        p = run_results(emu, "fetch", "s3://bench/runs", "r-none", got, want=2)
        check("no files under s3://bench/runs/r-none/" in p.stderr, p.stderr)
    finally:
        emu.stop()


# A botocore S3 client c of the emulator at argv[1] (path-style, one try), and body: a
# result file of the run named by %s.
BOTO_S3 = r"""
import json, sys
import botocore.session
from botocore.config import Config
s = botocore.session.get_session()
c = s.create_client("s3", region_name="us-east-1", endpoint_url=sys.argv[1],
                    config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}))
body = json.dumps({"format": "wrk-sagemaker-result", "version": 2, "tool": "t",
                   "scenario": "s", "run_id": "%s", "label": "ep",
                   "endpoint": {"name": "ep"}, "time_scale": 1, "settings": {},
                   "records": []}).encode()
"""


def case_no_link_followed():
    """No writer follows a symbolic link planted on the way (one line naming the path and
    the link, exit 2, nothing written where it points): sm-results fetch with DIR/LABEL a
    link; a run's result file with DIR/LABEL a link, under wrk (--out DIR/{label}/x.json) and
    sm-stream (--out DIR/{label}/sub/x.json); sm-compare -o and --svg with a link at the
    report's name."""
    emu = start_emulator("--endpoint", "ep=instant")
    try:
        root = tempfile.mkdtemp(prefix="shards-links-")
        elsewhere = os.path.join(root, "elsewhere")
        os.makedirs(elsewhere)
        # a result file, pushed for fetch and compared below
        good = os.path.join(root, "good", "{label}.json")
        run_clients([client("wrk", 1, "smoke", emu.url, ["--endpoint", "ep", "--run-id", "r-ln"],
                            good)])
        result = os.path.join(root, "good", "ep.json")
        run_results(emu, "push", "s3://bench/links", result)
        got = os.path.join(root, "fetched")
        os.makedirs(got)
        os.symlink(elsewhere, os.path.join(got, "ep"))
        p = run_results(emu, "fetch", "s3://bench/links", "r-ln", got, want=2)
        check(f"{got}/ep is a symbolic link, refusing to follow it" in p.stderr
              and f"cannot write {got}/ep/" in p.stderr, p.stderr)
        check(os.listdir(elsewhere) == [], f"fetch wrote {os.listdir(elsewhere)} through the link")
        # the result file and journal of a run, on both engines
        for engine in ("wrk", "stream"):
            runs = os.path.join(root, "runs-" + engine)
            os.makedirs(runs)
            os.symlink(elsewhere, os.path.join(runs, "ep"))
            below = ["x.json"] if engine == "wrk" else ["sub", "x.json"]  # DIR/LABEL/sub too
            (_, _, err), = run_clients([client(engine, 1, "smoke", emu.url, ["--endpoint", "ep"],
                                               os.path.join(runs, "{label}", *below))], want=2)
            check(f"{runs}/ep is a symbolic link, refusing to follow it" in err
                  and len(err.strip().splitlines()) == 1, f"{engine}: {err}")
            check(os.listdir(elsewhere) == [], f"{engine} wrote {os.listdir(elsewhere)}")
        # sm-compare's report and chart
        victim = os.path.join(elsewhere, "victim")
        with open(victim, "w") as f:
            f.write("precious\n")
        for flag in ("-o", "--svg"):
            link = os.path.join(root, "report" + flag.strip("-"))
            os.symlink(victim, link)
            p = compare(result, result, flag, link, want=2)
            check(p.stderr.strip() == f"sm-compare: cannot write {link}: {link} is a symbolic "
                  "link, refusing to follow it (remove it, or choose another path)", p.stderr)
            with open(victim) as f:
                check(f.read() == "precious\n", f"sm-compare {flag} wrote through the link")
    finally:
        emu.stop()


def case_s3_botocore():
    """The emulator's S3 serves botocore (Debian's python3-botocore, path-style) as S3
    does: PutObject, GetObject, ListObjectsV2 paged by continuation tokens with a prefix
    and a delimiter; NoSuchKey for a missing key; a body other than the one signed refused
    (XAmzContentSHA256Mismatch); and sm-results fetches what botocore put."""
    emu = start_emulator("--endpoint", "ep=instant")
    try:
        code = BOTO_S3 % "r-boto" + r"""
from botocore.exceptions import ClientError
for i in range(5):
    c.put_object(Bucket="bench", Key="p/r-boto/ep/f%d.json" % i, Body=body,
                 ContentType="application/json")
c.put_object(Bucket="bench", Key="p/other/x y+z.json", Body=b"{}")
keys, token = [], None
while True:
    kw = {"Bucket": "bench", "Prefix": "p/r-boto/", "MaxKeys": 2}
    if token:
        kw["ContinuationToken"] = token
    page = c.list_objects_v2(**kw)
    keys += [o["Key"] for o in page.get("Contents", [])]
    if not page["IsTruncated"]:
        break
    token = page["NextContinuationToken"]
top = c.list_objects_v2(Bucket="bench", Prefix="p/", Delimiter="/")
got = c.get_object(Bucket="bench", Key="p/other/x y+z.json")["Body"].read()
try:
    c.get_object(Bucket="bench", Key="p/none")
    missing = "found"
except ClientError as e:
    missing = e.response["Error"]["Code"]
# A body that is not the one signed: S3 checks the payload's hash.
import http.client, urllib.parse
from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
req = AWSRequest(method="PUT", url=sys.argv[1] + "/bench/p/tampered.json", data=b"{}")
S3SigV4Auth(s.get_credentials(), "s3", "us-east-1").add_auth(req)
u = urllib.parse.urlsplit(sys.argv[1])
conn = http.client.HTTPConnection(u.hostname, u.port)
conn.request("PUT", "/bench/p/tampered.json", body=b"[]", headers=dict(req.headers.items()))
reply = conn.getresponse()
tampered = (reply.status, reply.read().decode())
print(json.dumps({"keys": keys, "prefixes": [p["Prefix"] for p in top.get("CommonPrefixes", [])],
                  "got": got.decode(), "missing": missing, "tampered": tampered}))
"""
        p = subprocess.run(["/usr/bin/python3", "-c", code, emu.url], env=env(), text=True,
                           capture_output=True, timeout=TIMEOUT)
        check(p.returncode == 0, p.stderr[-3000:])
        r = json.loads(p.stdout)
        check(r["keys"] == [f"p/r-boto/ep/f{i}.json" for i in range(5)], str(r["keys"]))
        check(r["prefixes"] == ["p/other/", "p/r-boto/"], str(r["prefixes"]))
        check(r["got"] == "{}" and r["missing"] == "NoSuchKey", str(r))
        check(r["tampered"][0] == 400 and
              "<Code>XAmzContentSHA256Mismatch</Code>" in r["tampered"][1], str(r["tampered"]))
        got = tempfile.mkdtemp(prefix="shards-boto-")
        run_results(emu, "fetch", "s3://bench/p", "r-boto", got)
        check(sorted(os.listdir(os.path.join(got, "ep"))) == [f"f{i}.json" for i in range(5)],
              str(os.listdir(got)))
    finally:
        emu.stop()


def terminal_controls(text):
    """The characters of text a terminal obeys: C0 but newline and tab, DEL, C1."""
    return [c for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f]


def case_s3_keys_escaped():
    """S3 keys are text from outside: keys that hold escape sequences (the C1 CSI U+009B,
    OSC U+009D and ST U+009C) reach the terminal escaped in sm-results list (a run id),
    fetch (a key, a label, the path from them) and a refusal naming a key."""
    emu = start_emulator("--endpoint", "ep=instant")
    # C1 controls only: the emulator's S3 refuses a key with C0 controls or DEL as
    # botocore signs it (SignatureDoesNotMatch); tests/common/test_tty.c covers those
    evil = "\u009b2J\u009b31m\u009d8;;x\u009c"
    try:
        code = BOTO_S3 % "r-evil" + r"""
for key in json.loads(sys.argv[2]):
    c.put_object(Bucket="bench", Key=key, Body=body, ContentType="application/json")
"""
        keys = ["p/r-evil/ep/f%s.json" % evil, "p/r-evil/ep%s/f.json" % evil,
                "p/run%s/ep/f.json" % evil]
        p = subprocess.run(["/usr/bin/python3", "-c", code, emu.url, json.dumps(keys)],
                           env=env(), text=True, capture_output=True, timeout=TIMEOUT)
        check(p.returncode == 0, p.stderr[-3000:])
        for args in (("list", "s3://bench/p"),
                     ("fetch", "s3://bench/p", "r-evil", tempfile.mkdtemp(prefix="shards-evil-"))):
            r = run_results(emu, *args, want=None)
            shown = r.stdout + r.stderr
            check(not terminal_controls(shown), f"{args[0]}: controls reach the terminal: "
                  f"{shown!r}")
            check("\\u009b2J\\u009b31m" in shown, f"{args[0]}: shown escaped: {shown!r}")
    finally:
        emu.stop()


# ---- the recipe ------------------------------------------------------------------------------

MANIFEST = os.path.join(ROOT, "deploy", "k8s", "indexed-job.yaml")
DOCKERFILE = os.path.join(ROOT, "deploy", "Dockerfile")
README = os.path.join(ROOT, "README.md")


def readme_section():
    with open(README) as f:
        text = f.read()
    m = re.search(r"^## More than one client machine\n(.*?)(?=^## )", text, re.M | re.S)
    check(m, "README.md has no section 'More than one client machine'")
    return m.group(1)


def manifest_docs():
    with open(MANIFEST) as f:
        text = f.read()
    try:
        import yaml
    except ImportError:  # without python3-yaml: the structure, line by line
        return text, None
    return text, list(yaml.safe_load_all(text))


def case_manifest():
    """The Indexed Job parses as YAML (python3-yaml, else a structural check): completions =
    parallelism = SM_SHARDS, backoffLimit 0, pod anti-affinity by host, the index from the
    Job, one command for every pod (sm-stream with --start-at, then sm-results push), the
    credentials from a service account (no key in the file); and every field the README's
    section tells a user to edit is in it, marked."""
    text, docs = manifest_docs()
    section = readme_section()
    edits = re.findall(r"^\| `([A-Za-z_.]+)` \| (?:once|per run) \|", section, re.M)
    check({"START_AT", "completions", "SM_SHARDS"} <= set(edits),
          f"the README's table of edits names START_AT and N: {edits}")
    for field in edits:
        check(re.search(rf"^\s*(- name: )?{re.escape(field.split('.')[-1])}\b.*$", text, re.M),
              f"the README tells to edit {field}, which the manifest lacks")
    for line in text.splitlines():
        if re.match(r"^\s*(completions:|- name: START_AT|- name: SM_SHARDS)", line):
            check("EDIT per run" in line or "EDIT per run" in text.split(line, 1)[1][:200],
                  f"not marked as an edit: {line}")
    check("AWS_SECRET_ACCESS_KEY" not in text and "aws_secret" not in text.lower(),
          "credentials in the manifest")
    if docs is None:
        for want in ("completionMode: Indexed", "backoffLimit: 0", "podAntiAffinity:",
                     "topologyKey: kubernetes.io/hostname", "serviceAccountName: wrk-sagemaker",
                     "restartPolicy: Never", "completions: &shards", "parallelism: *shards"):
            check(want in text, f"the manifest lacks {want!r}")
        return
    job = [d for d in docs if d and d.get("kind") == "Job"]
    sa = [d for d in docs if d and d.get("kind") == "ServiceAccount"]
    check(len(job) == 1 and len(sa) == 1, f"one Job and one ServiceAccount: {len(docs)} docs")
    spec = job[0]["spec"]
    pod = spec["template"]["spec"]
    c = pod["containers"][0]
    envs = {e["name"]: e.get("value") for e in c["env"]}
    check(spec["completionMode"] == "Indexed" and spec["backoffLimit"] == 0, str(spec))
    check(spec["completions"] == spec["parallelism"] == int(envs["SM_SHARDS"]) >= 2,
          f"completions {spec['completions']}, parallelism {spec['parallelism']}, "
          f"SM_SHARDS {envs['SM_SHARDS']}")
    check(pod["restartPolicy"] == "Never", pod["restartPolicy"])
    check(pod["serviceAccountName"] == sa[0]["metadata"]["name"], "the pods' service account")
    anti = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    check(anti["topologyKey"] == "kubernetes.io/hostname" and
          anti["labelSelector"]["matchLabels"] == spec["template"]["metadata"]["labels"],
          f"anti-affinity: {anti}")
    datetime.datetime.strptime(envs["START_AT"], "%Y-%m-%dT%H:%M:%SZ")
    script = " ".join(c["command"] + c["args"])
    check(re.search(r"sm-stream .*--start-at \"\$START_AT\"", script, re.S) and
          "sm-results push \"$RESULTS\" /out" in script, script)
    check("--shard" not in script, "every pod runs the same command (the shard from the Job)")
    check(envs["RESULTS"].startswith("s3://"), envs["RESULTS"])
    mounts = {m["mountPath"] for m in c["volumeMounts"]}
    check("/out" in mounts, str(mounts))


def dockerfile_base():
    """The image the Dockerfile's FROM names, its ARG's default put in."""
    with open(DOCKERFILE) as f:
        lines = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    args = dict(re.fullmatch(r"ARG (\w+)=(\S+)", line).groups() for line in lines
                if line.startswith("ARG ") and "=" in line)
    froms = [line.split()[1] for line in lines if line.startswith("FROM ")]
    check(len(froms) == 1, f"one FROM: {froms}")
    return re.sub(r"\$\{?(\w+)\}?", lambda m: args.get(m.group(1), m.group(0)), froms[0])


def case_locked_down():
    """The recipe runs with no more than it needs (python3-yaml parses the manifest): the
    image's base pinned by digest; every pod as nobody (runAsNonRoot, runAsUser 65534),
    the runtime's seccomp profile, a read-only root file system, every capability dropped,
    no privilege escalation; no Kubernetes API token mounted (EKS Pod Identity brings its
    own: the ServiceAccount and the pod both say automountServiceAccountToken: false); every
    volume an emptyDir with a sizeLimit, /tmp among them (the root is read-only)."""
    base = dockerfile_base()
    check(re.fullmatch(r"debian:bookworm-slim@sha256:[0-9a-f]{64}", base),
          f"the Dockerfile's base is not pinned by digest: {base}")
    with open(DOCKERFILE) as f:
        check("docker buildx imagetools inspect debian:bookworm-slim" in f.read(),
              "the Dockerfile says how to update its digest")
    import yaml  # python3-yaml (scripts/setup installs it)
    with open(MANIFEST) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    sa = [d for d in docs if d["kind"] == "ServiceAccount"]
    job = [d for d in docs if d["kind"] == "Job"]
    check(len(sa) == 1 and len(job) == 1, str([d["kind"] for d in docs]))
    check(sa[0].get("automountServiceAccountToken") is False, "the ServiceAccount mounts a token")
    pod = job[0]["spec"]["template"]["spec"]
    check(pod.get("automountServiceAccountToken") is False, "the pod mounts a token")
    psc = pod.get("securityContext", {})
    check(psc.get("runAsNonRoot") is True and psc.get("runAsUser") == 65534 and
          psc.get("seccompProfile") == {"type": "RuntimeDefault"}, f"pod securityContext {psc}")
    check(len(pod["containers"]) == 1 and not pod.get("initContainers"), "one container")
    for c in pod["containers"]:
        csc = c.get("securityContext", {})
        check(csc.get("allowPrivilegeEscalation") is False, f"{c['name']}: escalation allowed")
        check(csc.get("readOnlyRootFilesystem") is True, f"{c['name']}: root writable")
        check(csc.get("capabilities") == {"drop": ["ALL"]}, f"{c['name']}: capabilities {csc}")
        check(csc.get("privileged") in (None, False), f"{c['name']}: privileged")
        check(csc.get("runAsUser", 65534) == 65534, f"{c['name']}: runs as {csc.get('runAsUser')}")
        mounts = {m["mountPath"] for m in c["volumeMounts"]}
        check({"/out", "/tmp"} <= mounts, f"{c['name']}: mounts {mounts}")
    for v in pod["volumes"]:
        check(set(v) == {"name", "emptyDir"}, f"volume {v['name']} is not an emptyDir: {v}")
        check(re.fullmatch(r"\d+(Mi|Gi)", str((v["emptyDir"] or {}).get("sizeLimit", ""))),
              f"volume {v['name']} has no sizeLimit: {v}")


def case_dockerfile():
    """The Dockerfile builds on Debian 12 and installs the .deb this build makes (the name
    CPack gives it: wrk-sagemaker_VERSION_ARCH.deb), with apt-get so its declared
    dependencies come along; the pods' commands are in the package; it runs as no root."""
    with open(DOCKERFILE) as f:
        lines = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    text = "\n".join(lines).replace("\\\n", " ")
    check(re.fullmatch(r"debian:(12|bookworm)(-slim)?@sha256:[0-9a-f]{64}", dockerfile_base()),
          dockerfile_base())
    copy = [line for line in lines if line.startswith("COPY ")]
    check(copy and "wrk-sagemaker_*.deb" in copy[0], str(copy))
    check(re.search(r"apt-get install [^\n]*/tmp/wrk-sagemaker_\*\.deb", text), text)
    check("USER 65534" in text, "runs as root")
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        cm = f.read()
    check("set(CPACK_PACKAGE_NAME wrk-sagemaker)" in cm and
          "set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)" in cm,
          "the package's name is no longer wrk-sagemaker_VERSION_ARCH.deb")
    for prog in ("sm-stream", "sm-results"):
        check(re.search(rf"install\(TARGETS {prog} RUNTIME", open(
            os.path.join(ROOT, "stream" if prog == "sm-stream" else "tools",
                         "CMakeLists.txt")).read()), f"{prog} is not installed by the package")
    with open(MANIFEST) as f:
        check("/usr/share/wrk-sagemaker/scenarios/sweep.lua" in f.read(),
              "the manifest runs a scenario where the package installs it")
    section = readme_section()
    check("docker build -f deploy/Dockerfile" in section and "cpack -G DEB" in section,
          "the README builds the image the way the Dockerfile says")


def main():
    cases = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}
    return run_cases(cases, sys.argv)


if __name__ == "__main__":
    sys.exit(main())
