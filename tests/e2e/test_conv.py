#!/usr/bin/python3
"""Multi-turn conversations (issue 21: chat.lua with --turns, --think-time and
--sessions) end to end against sm-emulator, on both engines: wrk with the
plugin (InvokeEndpoint) and sm-stream (InvokeEndpointWithResponseStream).

  sessions  N conversations x T turns on an endpoint of two weighted variants
            with a prefix cache: N*T records, turns 1..T each; every turn of a
            conversation carries one session id (a valid one), which the
            emulator's log shows on one variant only (sticky); turn k's
            prompt_tokens grow with the history; turns 2..T hit the prefix cache;
            CLOSE leaves no session open; the think time spaces the turns
  refused   sessions off in the container (session_ttl_s=0): every NEW_SESSION is
            refused, each conversation fails visibly (session_not_created), no
            turn is sent
  history   no sessions, --turns 3: no session header, the records have turns
            but no session, prompt_tokens grow
  open      --rate 20 --arrivals constant --sessions: turn 1's intended start is
            its conversation's arrival (50 ms apart; the session's making counts
            in its latency), a later turn's is the reply before it plus the think
            time, and no turn leaves before its intended start

usage: test_conv.py wrk|stream GROUP   (environment: WRK, SM_EMULATOR,
SM_PLUGIN_PATH, SM_STREAM, optionally WRK_PRELOAD)"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import emulator  # noqa: E402
from testkit import Failure, check, isolated_env  # noqa: E402

ID_OK = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
N, T = 4, 3


def env():
    e = isolated_env(AWS_ACCESS_KEY_ID="AKIDCONVTEST", AWS_SECRET_ACCESS_KEY="conv-test-secret")
    if os.environ.get("WRK_PRELOAD"):
        e["LD_PRELOAD"] = os.environ["WRK_PRELOAD"]
        e["ASAN_OPTIONS"] = "detect_leaks=0"
    return e


def run(engine, emu, outdir, args, threads=2):
    binary = os.environ["WRK"] if engine == "wrk" else os.environ["SM_STREAM"]
    cmd = [binary, "-t%d" % threads, "-c%d" % threads, "-d2m", "--timeout", "60s", "-s",
           os.path.join(ROOT, "scenarios", "chat.lua"), emu.url, "--", "--endpoint", "ep",
           "--region", "us-east-1", "--progress", "0", "--max-tokens", "8",
           "--input-tokens", "40", "--out", os.path.join(outdir, "{label}.json")] + args
    p = subprocess.run(cmd, env=env(), capture_output=True, text=True, timeout=120)
    path = os.path.join(outdir, "ep.json")
    result = json.load(open(path)) if os.path.exists(path) else {"records": []}
    return p, result


def emulator_for(log, *sets):
    args = ["--endpoint", "ep/A=instant", "--endpoint", "ep/B=instant", "--request-log", log]
    for s in ("ep.overhead_s=0.002", "ep.prefill_s_per_token=0.0001", "ep.step_ms=1:1",
              "ep.jitter=0") + sets:
        args += ["--set", s]
    e = env()
    return emulator.Emulator(args, binary=os.environ["SM_EMULATOR"], env=e)


def log_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def by_conversation(recs):
    convs = {}
    for r in recs:
        convs.setdefault(r.get("session"), []).append(r)
    return convs


def test_sessions(engine):
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "requests.jsonl")
        with emulator_for(log, "ep.prefix_cache_tokens=65536",
                          "ep/B.weight=1") as emu:
            p, result = run(engine, emu, d, ["--conversations", str(N), "--turns", str(T),
                                             "--think-time", "0.05", "--sessions"])
            check(p.returncode == 0, "%s: exit %d %s" % (engine, p.returncode, p.stderr[-600:]))
            stats = emu.stats()["endpoints"]["ep"]["variants"]
        lines = log_lines(log)
    recs = result["records"]
    check(len(recs) == N * T and all(r["ok"] for r in recs),
          "%d records (want %d), failures: %r" % (len(recs), N * T,
                                                  [r for r in recs if not r["ok"]][:2]))
    convs = by_conversation(recs)
    check(None not in convs and len(convs) == N, "one session id per conversation: %r"
          % sorted(convs, key=str))
    for sid, rs in convs.items():
        check(sid and len(sid) <= 256 and set(sid) <= ID_OK, "a valid id: %r" % sid)
        rs.sort(key=lambda r: r["turn"])
        check([r["turn"] for r in rs] == list(range(1, T + 1)), "turns 1..T: %r"
              % [r["turn"] for r in rs])
        pt = [r["prompt_tokens"] for r in rs]
        check(all(b > a + 8 for a, b in zip(pt, pt[1:])),
              "prompt_tokens grow with the history (prompt + reply each turn): %r" % pt)
        for a, b in zip(rs, rs[1:]):
            check(b["t_start_us"] - a["t_end_us"] >= 50000, "think time between turns")
        mine = [e for e in lines if e.get("session") == sid]
        calls = [e for e in mine if e["status"] == 200]
        check(len({e["variant"] for e in mine}) == 1, "sticky: one variant for %s: %r"
              % (sid, sorted({e["variant"] for e in mine})))
        turns = [e for e in mine if e.get("prompt_tokens")]
        cached = [e.get("cached_tokens") or 0 for e in turns]
        check(len(turns) == T and cached[0] == 0 and all(c > 0 for c in cached[1:]),
              "turns 2..T hit the prefix cache: %r (%d calls)" % (cached, len(calls)))
    opened = sum(v["sessions"]["created"] for v in stats.values())
    still = sum(v["sessions"]["open"] for v in stats.values())
    closed = sum(v["sessions"]["closed"] for v in stats.values())
    check(opened == N and closed == N and still == 0,
          "made %d, closed %d, open %d (want %d, %d, 0)" % (opened, closed, still, N, N))
    check(result["counts"]["failed"] == 0, "no failure: %r" % result["counts"])


def test_refused(engine):
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "requests.jsonl")
        with emulator_for(log, "ep.session_ttl_s=0") as emu:
            p, result = run(engine, emu, d, ["--conversations", str(N), "--turns", str(T),
                                             "--sessions", "--refuse-after", "0"])
    recs = result["records"]
    check(len(recs) == N and all(not r["ok"] and r["error"]["code"] == "session_not_created"
                                 and "turn" not in r for r in recs),
          "%s: each conversation one failed record, no turn sent: %r" % (engine, recs[:2]))
    check(result.get("counts", {}).get("failed") == N, "counted: %r" % result.get("counts"))
    check(p.returncode == 0, "%s: the run itself completes: exit %d" % (engine, p.returncode))


def test_history(engine):
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "requests.jsonl")
        with emulator_for(log) as emu:
            p, result = run(engine, emu, d, ["--conversations", "2", "--turns", "3"], threads=1)
            check(p.returncode == 0, "%s: exit %d %s" % (engine, p.returncode, p.stderr[-600:]))
        lines = log_lines(log)
    recs = sorted(result["records"], key=lambda r: r["seq"])
    check([r.get("turn") for r in recs] == [1, 2, 3, 1, 2, 3] and
          all("session" not in r and r["ok"] for r in recs), "turns without a session: %r" % recs)
    pt = [r["prompt_tokens"] for r in recs]
    check(pt[0] < pt[1] < pt[2] and pt[3] < pt[4] < pt[5], "prompt_tokens grow: %r" % pt)
    check(all(not e.get("session") for e in lines), "no session header")


def test_open(engine):
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "requests.jsonl")
        with emulator_for(log) as emu:
            p, result = run(engine, emu, d, ["--conversations", str(N), "--turns", str(T),
                                             "--think-time", "0.02", "--sessions", "--rate",
                                             "20", "--arrivals", "constant"], threads=N)
            check(p.returncode == 0, "%s: exit %d %s" % (engine, p.returncode, p.stderr[-600:]))
    recs = result["records"]
    check(len(recs) == N * T and all(r["ok"] for r in recs), "%d records: %r"
          % (len(recs), [r for r in recs if not r["ok"]][:2]))
    firsts = sorted((r for r in recs if r["turn"] == 1), key=lambda r: r["t_intended_us"])
    check(len(firsts) == N, "one first turn per conversation")
    gaps = [b["t_intended_us"] - a["t_intended_us"] for a, b in zip(firsts, firsts[1:])]
    check(gaps == [50000] * (N - 1), "starts 50 ms apart at 20/s: %r" % gaps)
    for sid, rs in by_conversation(recs).items():
        rs.sort(key=lambda r: r["turn"])
        check([r["turn"] for r in rs] == list(range(1, T + 1)), "turns 1..T in %s" % sid)
        check(all(r["t_start_us"] >= r["t_intended_us"] for r in rs), "none before its time")
        for a, b in zip(rs, rs[1:]):
            check(b["t_intended_us"] - a["t_end_us"] >= 20000,
                  "turn %d is due after the reply and the think time" % b["turn"])


GROUPS = {"sessions": test_sessions, "refused": test_refused, "history": test_history,
          "open": test_open}

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("wrk", "stream") or sys.argv[2] not in GROUPS:
        sys.exit("usage: test_conv.py wrk|stream %s" % "|".join(GROUPS))
    try:
        GROUPS[sys.argv[2]](sys.argv[1])
    except Failure as e:
        print(e)
        sys.exit(1)
    from testkit import finish
    sys.exit(finish())
