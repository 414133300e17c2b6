#!/usr/bin/python3
"""sm-stream end to end against a scripted streaming server (tests/lib/streamsrv.py):
what the engine records of each kind of streamed reply (event stream frames split
anywhere, TGI and LMI containers, several tokens in a chunk, the errors SageMaker and
the containers send mid-stream, a corrupt frame, a cut connection, a stall, a refusal),
the OpenAI route signed or with a bearer token, the README's capital.lua run unchanged,
concurrency, Ctrl-C and the -d cap. No secret reaches any output.

usage: test_engine.py CASE... | all     (environment: SM_STREAM, the program)"""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import emulator  # noqa: E402
import secretscan  # noqa: E402
import streamsrv  # noqa: E402
from testkit import check, isolated_env, run_cases, wait_for  # noqa: E402

SECRET = "streamSECRETkey/0123456789+abcdefghijklmno"
TOKEN = "IQoJb3JpZ2luX2VjSTREAM+/sessionTOKEN0123456789abcdef=="
BEARER = "bearer-TOKEN-0123456789abcdefghijkl"
SMOKE = os.path.join(ROOT, "scenarios", "smoke.lua")
SWEEP = os.path.join(ROOT, "scenarios", "sweep.lua")
# sm-stream's account of its own cost, its last line
COST = re.compile(r"^sm-stream: client CPU [\d.]+ s in [\d.]+ s on \d+ thread\(s\) for (\d+) "
                  r"tokens \([\d.]+ us a token\); decoding and recording them ([\d.]+) us a "
                  r"token, making the (\d+) records [\d.]+ us each$", re.M)


def env(**extra):
    return isolated_env(AWS_ACCESS_KEY_ID="AKIDSTREAM", AWS_SECRET_ACCESS_KEY=SECRET,
                        AWS_SESSION_TOKEN=TOKEN, **extra)


def command(srv, scenario, engine_args, scenario_args):
    return ([os.environ["SM_STREAM"]] + list(engine_args) + ["-s", scenario, srv.url, "--",
                                                             "--region", "us-east-1"]
            + list(scenario_args))


def finish(p, stdout, stderr, out):
    """The result files of out by label, after a scan of everything for secrets."""
    found = secretscan.scan([SECRET, TOKEN, BEARER], [("stdout", stdout), ("stderr", stderr), out])
    check(not found, secretscan.describe(found))
    results = {}
    for name in os.listdir(out):
        if name.endswith(".json"):
            with open(os.path.join(out, name)) as f:
                results[name[:-5]] = json.load(f)
    return results


def run(scenario, modes, engine_args=("-t1", "-c1", "-d1m"), args=(), bearer=None,
        want_rc=0):
    """sm-stream with scenario against a fresh server, one side per mode: (server,
    stdout, stderr, {label: result file})."""
    out = tempfile.mkdtemp(prefix="stream-")
    sides = [w for m in modes for w in ("--endpoint", m)]
    with streamsrv.Server(bearer=bearer) as srv:
        p = subprocess.run(command(srv, scenario, engine_args,
                                   sides + ["--out", os.path.join(out, "{label}.json")]
                                   + list(args)),
                           env=env(TOK=BEARER), capture_output=True, text=True, timeout=120)
    check(p.returncode == want_rc, f"exit {p.returncode}, want {want_rc}: {p.stderr}")
    return srv, p.stdout, p.stderr, finish(p, p.stdout, p.stderr, out)


def only(results, label):
    check(label in results, f"no result file for {label}: {list(results)}")
    records = results[label]["records"]
    check(len(records) == 1, f"{label}: {len(records)} records")
    return records[0]


def times_in_order(r):
    check(r["t_start_us"] <= r["t_headers_us"] <= r["t_end_us"], str(r))
    if r["t_first_token_us"] is not None:
        check(r["t_headers_us"] <= r["t_first_token_us"] <= r["t_end_us"], str(r))
    check(len(r["chunk_gaps_us"]) == max(r["chunks"] - 1, 0), str(r))


def case_eventstream():
    """InvokeEndpointWithResponseStream: frames cut mid-event are reassembled; every chunk
    timed; usage read; the request asked for a stream with usage, signed with SigV4."""
    srv, out, err, res = run(SMOKE, ["ok"])
    r = only(res, "ok")
    check(r["ok"] and r["status"] == 200 and r["chunks"] == 5, str(r))
    check(r["prompt_tokens"] == 7 and r["completion_tokens"] == 5, str(r))
    check("chunk_tokens" not in r, "one token a chunk needs no chunk_tokens")
    times_in_order(r)
    head = res["ok"]
    check(head["client"] == "sm-stream" and head["api"] == "stream" and head["version"] == 2,
          str({k: head[k] for k in ("client", "api", "version")}))
    req = srv.requests[0]
    check(req["path"] == "/endpoints/ok/invocations-response-stream", req["path"])
    body = json.loads(req["body"])
    check(body["stream"] is True and body["stream_options"] == {
        "include_usage": True, "continuous_usage_stats": True}, body)
    check(r["itl_unit"] == "chunk", "no running usage came: ITL per chunk: " + str(r))
    check(re.search(r"(?im)^authorization: AWS4-HMAC-SHA256 Credential=AKIDSTREAM/\d{8}/"
                    r"us-east-1/sagemaker/aws4_request", req["head"]), req["head"])
    check("One two three four five" in out, "the check saw the text: " + out)


def case_service_time():
    """The emulator's x-sm-emulator-service-us (any case) becomes the record's server_us;
    a value that is no whole number of microseconds up to 1e11, or none, leaves it out."""
    res = run(SMOKE, ["timed", "badtimed", "hugetimed", "ok"])[3]
    r = only(res, "timed")
    check(r["ok"] and r.get("server_us") == 4321, str(r))
    for label in ("badtimed", "hugetimed", "ok"):
        r = only(res, label)
        check(r["ok"] and "server_us" not in r, f"{label}: {r}")


def case_containers():
    """TGI's token events and LMI's JSON lines: one chunk a token, counts from details."""
    for mode, fmt, tokens in (("tgi", "tgi", 4), ("lmi", "lmi", 3)):
        srv, out, err, res = run(SMOKE, [mode], args=["--format", fmt])
        r = only(res, mode)
        check(r["ok"] and r["chunks"] == tokens and r["completion_tokens"] == tokens, str(r))
        check(r["finish_reason"] == "length", str(r))
        times_in_order(r)
        check(json.loads(srv.requests[0]["body"]).get("stream") is True, "asked for a stream")


def case_multi_token():
    """A chunk of two tokens (two logprobs entries) is recorded with its count."""
    srv, out, err, res = run(SMOKE, ["multi"])
    r = only(res, "multi")
    check(r["ok"] and r["chunks"] == 3 and r["chunk_tokens"] == [2, 2, 2], str(r))
    check(r["completion_tokens"] == 6, str(r))
    m = COST.search(err)
    check(m and m.group(1) == "6" and m.group(3) == "1", "the cost counts tokens: " + err)


def case_gap():
    """Two tokens the server sent GAP_S apart are two chunks with their gap recorded, and
    the record spans the server's wait (the second token cannot come before it was sent;
    the gap between the client's two reads may be shorter when the first read was late)."""
    srv, out, err, res = run(SMOKE, ["gap"])
    r = only(res, "gap")
    check(r["ok"] and r["chunks"] == 2 and len(r["chunk_gaps_us"]) == 1 and
          r["chunk_gaps_us"][0] > 0, str(r))
    check(r["t_end_us"] - r["t_start_us"] >= streamsrv.GAP_S * 1e6, str(r))


def case_read_burst():
    """Chunks the server wrote at once are recorded as read together: the round's
    client_rounds counts the reads and the chunks that came after another of their read
    (burst_chunks = chunks - reads, whatever TCP did), each such chunk has a gap of 0
    in the record, and fifty small chunks in one write make at least one burst."""
    for api in ("stream", "openai"):
        srv, out, err, res = run(SMOKE, ["burst"], engine_args=("--api", api, "-t1", "-c1", "-d1m"))
        r = only(res, "burst")
        check(r["ok"] and r["chunks"] == streamsrv.BURST, str(r)[:300])
        rounds = res["burst"].get("client_rounds")
        check(isinstance(rounds, list) and len(rounds) == 1, str(rounds))
        c = rounds[0]
        check(c["batch"] == r["batch"] and c["stalls_of"] == "event loop", str(c))
        check(c["chunks"] == streamsrv.BURST and 1 <= c["reads"] <= c["chunks"], str(c))
        check(c["burst_chunks"] == c["chunks"] - c["reads"], str(c))
        check(c["burst_chunks"] >= 1, "one write of fifty chunks is no burst: " + str(c))
        zero = sum(1 for g in r["chunk_gaps_us"] if g == 0)
        check(zero >= c["burst_chunks"], f"{zero} zero gaps for {c}")
        check(c["wall_s"] >= 0 and c["cpu_s"] >= 0 and c["cpus"] >= 1 and c["threads"] == 1,
              str(c))
        steal = c["host_steal_share"]  # null: no tick of /proc/stat passed in the round
        check(steal is None and c["wall_s"] < 0.05
              or steal is not None and 0 <= steal <= 1, str(c))


SPIN = """-- spin.lua: one request a side whose check holds the loop for 5 ms of CPU.
local dir = debug.getinfo(1, "S").source:match("^@(.-)[^/]*$")
package.path = dir .. "../lua/?.lua;" .. package.path
local run = require "sm.run"

run.scenario({
  name = "spin",
  summary = "a check that holds the client's loop",
  usage = "sm-stream -t1 -c1 -d1m -s spin.lua URL -- --endpoint NAME",
  options = {},
  settings = function(o) return {} end,
  plan = function(o, ctx)
    return { { items = { { side = ctx.sides[1], batch = 0, max_tokens = 5, temperature = 0,
                           prompt = "spin" } } } }
  end,
  check = function(item, reply, rec)
    local t = os.clock()
    while os.clock() - t < 0.005 do end
  end,
})
"""


def case_stall_recorded():
    """A check that holds the engine's loop for 5 ms of CPU (so at least 5 ms of wall
    time, however busy the host) is a stall of the round: counted, its length at least
    that, never more than all of the round's stalls together."""
    top = tempfile.mkdtemp(prefix="stream-spin-")
    os.mkdir(os.path.join(top, "scenarios"))
    os.symlink(os.path.join(ROOT, "lua"), os.path.join(top, "lua"))
    path = os.path.join(top, "scenarios", "spin.lua")
    with open(path, "w") as f:
        f.write(SPIN)
    res = run(path, ["ok"])[3]
    rounds = res["ok"]["client_rounds"]
    check(len(rounds) == 1, str(rounds))
    c = rounds[0]
    check(c["stalls"] >= 1 and c["stall_max_us"] >= 5000 and c["stall_us"] >= c["stall_max_us"],
          str(c))
    check(c["stalls_of"] == "event loop", str(c))


def case_stream_errors():
    """Errors mid-stream keep the tokens received so far, with the error's code."""
    for mode, code, chunks, words in (
            ("modelerror", "ModelStreamError", 2, "ModelInvocationTimeExceeded"),
            ("internal", "InternalStreamFailure", 1, "internal stream failure"),
            ("badcrc", "stream_framing", 1, "CRC"),
            ("cut", "socket", 2, ""),
            ("refuse", "ValidationError", 0, "endpoint refuse refuses")):
        r = only(run(SMOKE, [mode])[3], mode)
        check(not r["ok"] and r["error"]["code"] == code and r["chunks"] == chunks, str(r))
        check(words in r["error"]["message"], str(r["error"]))
        check(r["completion_tokens"] == (chunks or None), f"{mode}: tokens so far: {r}")
        times_in_order(r)
        check((r["t_first_token_us"] is None) == (chunks == 0), str(r))


def case_stall():
    """A stream that stalls is cut at --timeout and recorded as a timeout, its token kept."""
    r = only(run(SMOKE, ["stall"], engine_args=("-t1", "-c1", "-d1m", "--timeout", "1s"))[3],
             "stall")
    check(not r["ok"] and r["error"]["code"] == "timeout" and r["chunks"] == 1, str(r))
    # libcurl's clock starts with the transfer, a little before the request is written
    # (t_start_us): the cut comes no earlier than the timeout less that. The stall never
    # ends, and the run's -d1m drops what is in flight unrecorded, so a record cut as a
    # timeout is the timeout's, however late a busy host ran it; the upper bound only
    # tells a cut from a hang (half the run), no timing margin.
    d = r["t_end_us"] - r["t_start_us"]
    check(0.9e6 <= d < 30e6, "cut at the timeout (1 s), not before: %s" % r)


def case_openai_signed():
    """The OpenAI-compatible route: SSE in the body, signed with SigV4."""
    srv, out, err, res = run(SMOKE, ["ok"], engine_args=("--api", "openai", "-t1", "-c1", "-d1m"))
    r = only(res, "ok")
    check(r["ok"] and r["chunks"] == 5 and r["completion_tokens"] == 5, str(r))
    check(res["ok"]["api"] == "openai", res["ok"]["api"])
    req = srv.requests[0]
    check(req["path"] == "/endpoints/ok/openai/v1/chat/completions", req["path"])
    check("authorization: aws4-hmac-sha256" in req["head"].lower(), req["head"])


def case_openai_bearer():
    """With --bearer-token-env the token is sent as is, nothing is signed, and it is
    never written; a wrong one is a 401 like any refusal."""
    engine = ("--api", "openai", "--bearer-token-env", "TOK", "-t1", "-c1", "-d1m")
    srv, out, err, res = run(SMOKE, ["ok"], engine_args=engine, bearer=BEARER)
    check(only(res, "ok")["ok"], str(res["ok"]["records"]))
    head = srv.requests[0]["head"]
    check(f"Authorization: Bearer {BEARER}\r\n" in head, head)
    check("x-amz-security-token" not in head.lower() and "aws4-hmac" not in head.lower(), head)
    srv, out, err, res = run(SMOKE, ["ok"], engine_args=engine, bearer="another")
    r = only(res, "ok")
    check(r["status"] == 401 and r["error"]["code"] == "UnauthorizedException", str(r))


def case_echo_scrubbed():
    """A hostile server that echoes the request in every string of a stream (each
    content chunk, finish_reason, the exception's type, code and message) and in a
    refusal's body, on both routes and with a bearer token: the session token, the
    Authorization value and the bearer token never reach the result files, the journals,
    stdout (smoke.lua prints each reply) or stderr (finish() scans all of them)."""
    for engine, bearer in ((("-t1", "-c1", "-d1m"), None),
                           (("--api", "openai", "-t1", "-c1", "-d1m"), None),
                           (("--api", "openai", "--bearer-token-env", "TOK", "-t1", "-c1",
                             "-d1m"), BEARER)):
        srv, out, err, res = run(SMOKE, ["echo", "echorefuse"], engine_args=engine,
                                 bearer=bearer)
        head = srv.requests[0]["head"]
        check((BEARER if bearer else TOKEN) in head, "the server was sent the secret")
        r = only(res, "echo")
        check(not r["ok"] and r["chunks"] > 5, f"{engine}: the echo streamed: {r}")
        check("<redacted>" in r["error"]["code"] and "<redacted>" in r["error"]["message"],
              f"{engine}: {r['error']}")
        check("<redacted>" in out and "Host: 127.0.0.1" in out, f"{engine}: smoke printed "
              "the echo, scrubbed: " + out)
        r = only(res, "echorefuse")
        check(r["status"] == 400 and "<redacted>" in r["error"]["message"], str(r))


CHUNKS_MAX = 32768  # stream/slot.h's SLOT_CHUNKS_MAX
TEXT_MAX = 64 * 1024  # its SLOT_TEXT_MAX


def case_endless_bounded():
    """A valid stream far longer than any reply (ENDLESS chunks, four times the cap,
    then held open): the record keeps at most CHUNKS_MAX chunks (merged in pairs, their
    gaps summed) and 64 KiB of text, while every token is still counted and timed to
    the end: chunks_received and the tokens are ENDLESS, the gaps add up to the time
    from the first chunk to the last."""
    for engine in (("-t1", "-c1", "-d1m"), ("--api", "openai", "-t1", "-c1", "-d1m")):
        out = tempfile.mkdtemp(prefix="stream-endless-")
        with streamsrv.Server() as srv:
            proc = subprocess.Popen(command(srv, SMOKE, engine, [
                "--endpoint", "endless", "--out", os.path.join(out, "{label}.json")]),
                env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            wait_for("every chunk sent", lambda: srv.requests and srv.requests[0].get("held"),
                     proc=proc)
            with open("/proc/%d/status" % proc.pid) as f:
                hwm = re.search(r"VmHWM:\s+(\d+) kB", f.read()).group(1)
            srv.release.set()
            stdout, stderr = proc.communicate(timeout=60)
        check(proc.returncode == 0, f"exit {proc.returncode}: {stderr}")
        r = only(finish(proc, stdout, stderr, out), "endless")
        size = os.path.getsize(os.path.join(out, "endless.json"))
        note = f"{engine}: VmHWM {hwm} kB, record file {size} bytes"
        check(r["error"]["code"] == "socket" and r["completion_tokens"] == streamsrv.ENDLESS,
              f"{note}: {r['error']}, {r['completion_tokens']}")
        check(r["chunks"] <= CHUNKS_MAX and r["chunks_received"] == streamsrv.ENDLESS,
              f"{note}: {r['chunks']} chunks kept, {r.get('chunks_received')} received")
        check(sum(r["chunk_tokens"]) == streamsrv.ENDLESS, f"{note}: every token in a chunk")
        times_in_order(r)
        check(r["t_first_token_us"] + sum(r["chunk_gaps_us"]) <= r["t_end_us"], note)
        check(size < 2 * CHUNKS_MAX * 24 + 2 * TEXT_MAX, note)
        check(stdout.count("x") <= TEXT_MAX + 64, f"{note}: smoke printed the text capped")


def case_smoke_escaped():
    """smoke.lua prints each reply's text through the C module (sagemaker.tty_text):
    escape sequences a server streams (ESC's CSI and OSC, the C1 CSI U+009B and OSC
    U+009D, DEL) reach the terminal escaped, on both routes."""
    for engine in (("-t1", "-c1", "-d1m"), ("--api", "openai", "-t1", "-c1", "-d1m")):
        out = run(SMOKE, ["ansi"], engine_args=engine)[1]
        bad = [c for c in out if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f]
        check(not bad, f"{engine}: controls reach the terminal: {out!r}")
        check("\\x1b[2J\\x1b]0;pwned\\x07\\u009b31m\\u009d8;;x\\u009c\\x7f" in out,
              f"{engine}: shown escaped: {out!r}")


def case_bad_usage():
    """Bad usage is one line and exit 2, before anything is sent."""
    out = tempfile.mkdtemp(prefix="stream-usage-")
    with streamsrv.Server() as srv:
        for engine, scenario, scenario_args, want in (
                (["--api", "openai", "--bearer-token-env", "NOT_SET_ANYWHERE"], SMOKE, [],
                 "--bearer-token-env NOT_SET_ANYWHERE: the variable is not set"),
                (["--api", "grpc"], SMOKE, [], "--api wants stream or openai, got 'grpc'"),
                (["-t2", "-c1"], SMOKE, [], "-t 2 is more threads than -c 1 connections"),
                ([], SMOKE, ["--format", "nope"], "--format must be"),
                ([], os.path.join(HERE, "test_engine.py"), [], "test_engine.py")):
            p = subprocess.run(command(srv, scenario, engine, [
                "--endpoint", "ok", "--out", os.path.join(out, "{label}.json")] + scenario_args),
                env=env(), capture_output=True, text=True, timeout=60)
            check(p.returncode == 2 and want in p.stderr, f"{engine}: exit {p.returncode}: "
                  f"{p.stderr}")
            check(len(p.stderr.strip().splitlines()) == 1, "one line: " + p.stderr)
        check(srv.requests == [] and os.listdir(out) == [], "nothing sent, nothing written")


def case_unreachable():
    """A request that never reaches a server (nothing listens) is still recorded once,
    as a socket failure, its start the moment it was handed to libcurl."""
    out = tempfile.mkdtemp(prefix="stream-unreach-")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))  # a port of ours that nothing listens on
    port = sock.getsockname()[1]
    try:
        p = subprocess.run([os.environ["SM_STREAM"], "-t1", "-c1", "-d1m", "-s", SMOKE,
                            "http://127.0.0.1:%d" % port, "--", "--region", "us-east-1",
                            "--endpoint", "ok", "--out", os.path.join(out, "{label}.json")],
                           env=env(), capture_output=True, text=True, timeout=60)
    finally:
        sock.close()
    r = only(finish(p, p.stdout, p.stderr, out), "ok")
    check(r["status"] == 0 and r["error"]["code"] == "socket" and "chunks" not in r, str(r))
    check(0 < r["t_start_us"] <= r["t_end_us"], str(r))


def readme_scenario(name):
    """The README's block written to scenarios/NAME.lua, in a copy of the scenarios'
    layout (the block finds lua/ beside its folder)."""
    with open(os.path.join(ROOT, "README.md")) as f:
        m = re.search(r"<!-- readme-test: file scenarios/%s\.lua -->\n```lua\n(.*?)```" % name,
                      f.read(), re.S)
    check(m, f"the README has no scenarios/{name}.lua")
    top = tempfile.mkdtemp(prefix="stream-readme-")
    os.mkdir(os.path.join(top, "scenarios"))
    os.symlink(os.path.join(ROOT, "lua"), os.path.join(top, "lua"))
    path = os.path.join(top, "scenarios", name + ".lua")
    with open(path, "w") as f:
        f.write(m.group(1))
    return path


def case_readme_capital():
    """The README's capital.lua, written for wrk, runs unchanged: its plan, its order of
    sides and its check (the answer reassembled from the chunks it came in)."""
    srv, out, err, res = run(readme_scenario("capital"), ["capital", "ok"], args=["--count", "3"],
                             want_rc=3)
    good, bad = res["capital"]["records"], res["ok"]["records"]
    check(len(good) == 3 and all(r["ok"] and r["chunks"] == 2 for r in good), str(good))
    check(len(bad) == 3 and all(r["error"]["code"] == "wrong_answer" for r in bad), str(bad))
    order = [req["path"].split("/")[2] for req in srv.requests]
    check(order == ["capital", "ok", "ok", "capital", "capital", "ok"], str(order))


def case_concurrency():
    """-t2 -c50: fifty senders over two threads, each its own connection; every batch
    of the sweep complete on both sides."""
    srv, out, err, res = run(SWEEP, ["ok", "multi"], engine_args=("-t2", "-c50", "-d1m"),
                             args=["--batches", "2"])
    for label in ("ok", "multi"):
        records = res[label]["records"]
        check(len(records) == 100 and all(r["ok"] for r in records), f"{label}: {len(records)}")
        check({r["thread"] for r in records} == set(range(50)), "one record per sender a batch")
        check(res[label]["wrk"]["connections"] == 50, str(res[label]["wrk"]))
    check(len(srv.requests) == 200, str(len(srv.requests)))


def case_many_streams():
    """-t1 -c300: one thread's streams on five libcurl multi handles (64 a handle), two
    batches on kept-alive connections; the client's account of its own cost counts every
    token and record."""
    srv, out, err, res = run(SWEEP, ["ok"], engine_args=("-t1", "-c300", "-d1m"),
                             args=["--batches", "2"])
    records = res["ok"]["records"]
    check(len(records) == 600 and all(r["ok"] for r in records), f"{len(records)} records")
    check({r["thread"] for r in records} == set(range(300)), "one record per sender a batch")
    check(len(srv.requests) == 600, str(len(srv.requests)))
    m = COST.search(err)
    tokens = sum(sum(r.get("chunk_tokens") or [1] * r["chunks"]) for r in records)
    check(m and int(m.group(1)) == tokens == 3000 and int(m.group(3)) == 600,
          f"want {tokens} tokens and 600 records: {err}")
    check(float(m.group(2)) > 0, err)


def epoll_reported(path):
    """The events every epoll_wait of an strace -f log returned, added up."""
    total = 0
    with open(path) as f:
        for line in f:
            m = re.search(r"epoll_wait\(.*\)\s+=\s+(\d+)", line)
            total += int(m.group(1)) if m else 0
    return total


def case_epoll_once_per_arrival():
    """Issue 29's CPU per token: a step of 400 streams' tokens leaves sm-emulator at once,
    more sockets than one turn of the loop reads (it stops after 200 us to look for due
    arrivals); epoll reports each socket once per arrival, not again at every turn until
    libcurl has read it. Counted, not timed: the events epoll_wait returned (strace) are
    at most the tokens plus four a stream (its connection, headers and end), where
    level-triggered watching returned several times the tokens."""
    n, tokens = 400, 6
    tmp = tempfile.mkdtemp(prefix="stream-epoll-")
    log, out = os.path.join(tmp, "strace.log"), os.path.join(tmp, "{label}.json")
    with emulator.Emulator(["--max-connections", str(n + 50), "--endpoint", "ep=instant",
                            "--set", "ep.overhead_s=0.2", "--set", "ep.step_ms=1:100",
                            "--set", f"ep.max_seqs={n + 8}"], env=env()) as emu:
        cmd = (["strace", "-f", "-qq", "--seccomp-bpf", "-e", "trace=epoll_wait", "-o", log,
                os.environ["SM_STREAM"], "-t1", f"-c{n}", "-d1m", "-s", SWEEP, emu.url, "--",
                "--region", "us-east-1", "--endpoint", "ep", "--batches", "1",
                "--max-tokens", str(tokens), "--progress", "0", "--out", out])
        # LeakSanitizer cannot run under ptrace (a sanitized build): the other cases check
        # for leaks
        asan = ":".join(filter(None, [os.environ.get("ASAN_OPTIONS"), "detect_leaks=0"]))
        try:
            p = subprocess.run(cmd, env=env(ASAN_OPTIONS=asan), capture_output=True, text=True,
                               timeout=100)
        except FileNotFoundError:
            check(False, "this test counts epoll's reports with strace: install strace")
    check(p.returncode == 0, f"exit {p.returncode}: {p.stderr[-400:]}")
    with open(os.path.join(tmp, "ep.json")) as f:
        records = json.load(f)["records"]
    got = sum(sum(r.get("chunk_tokens") or [1] * r["chunks"]) for r in records)
    check(len(records) == n and all(r["ok"] for r in records) and got == n * tokens,
          f"{len(records)} records, {got} tokens")
    reported = epoll_reported(log)
    check(0 < reported <= got + 4 * n,
          f"epoll reported {reported} events for {got} tokens on {n} streams: a socket "
          "is reported again before it is read (level-triggered)")


def case_busy_poll():
    """--busy-poll: the threads poll without sleeping, and the run still ends by itself
    (its loops see the end) with every stream recorded, as without it."""
    srv, out, err, res = run(SWEEP, ["ok"], engine_args=("-t2", "-c4", "-d1m", "--busy-poll"),
                             args=["--batches", "2"])
    records = res["ok"]["records"]
    check(len(records) == 8 and all(r["ok"] and r["chunks"] == 5 for r in records),
          f"{len(records)} records")
    m = COST.search(err)
    check(m and m.group(1) == "40", "the cost line: " + err)


RATE = os.path.join(ROOT, "scenarios", "rate.lua")


def check_warmed(requests, slots):
    """An open loop's connections were opened and warmed before its first send (issue
    29): first one GET /ping per slot, each on a connection of its own, then no
    request of the run on a connection it opened (no TCP or TLS handshake on the send
    path), and no warm-up after the first send."""
    pings = [r for r in requests if r["path"] == "/ping"]
    check(len(pings) == slots and requests[:slots] == pings, "not one warm-up per slot first: "
          + str([(r["path"], r["conn"]) for r in requests[:slots + 2]]))
    check(sorted(r["conn"] for r in pings) == list(range(slots)), "a warm-up per connection")
    check(all(r["nth"] == 0 and "authorization" not in r["head"].lower() for r in pings),
          "warm-ups unsigned, each its connection's first")
    cold = [r["conn"] for r in requests[slots:] if r["nth"] == 0]
    check(cold == [], f"requests of the run on connections they opened: {cold}")


def case_open_loop_warm():
    """The open loop's connections are warm before its first send with one thread (with
    two: case_open_loop), a shard's only for its own senders, and a closed-loop run
    warms none (its first request opens its connection, as before)."""
    srv, out, err, res = run(RATE, ["ok"], engine_args=("-t1", "-c3", "-d1m"), args=[
        "--rates", "100", "--duration", "0.1", "--arrivals", "constant"])
    check(len(res["ok"]["records"]) == 10, f"{len(res['ok']['records'])} records")
    check_warmed(srv.requests, 3)
    # a shard warms its own senders only: 2 of the 4 connections -c4 names
    srv, out, err, res = run(RATE, ["ok"], engine_args=("-t1", "-c4", "-d1m"), args=[
        "--rates", "100", "--duration", "0.1", "--arrivals", "constant", "--shard", "1/2",
        "--run-id", "warm"])
    check(len(res["ok"]["records"]) == 5, f"{len(res['ok']['records'])} records")
    check_warmed(srv.requests, 2)
    srv, out, err, res = run(SWEEP, ["ok"], engine_args=("-t1", "-c2", "-d1m"),
                             args=["--batches", "1"])
    check(all(r["path"] != "/ping" for r in srv.requests), "a closed loop warmed")


def case_open_loop():
    """rate.lua on the engine: constant arrivals leave at their times, never early, each
    on a free connection; with one connection and slow replies the arrivals queue and
    each record shows how late it left (latency counts from the intended start)."""
    srv, out, err, res = run(RATE, ["ok"], engine_args=("-t2", "-c8", "-d1m"), args=[
        "--rates", "200", "--duration", "0.25", "--arrivals", "constant"])
    recs = sorted(res["ok"]["records"], key=lambda r: r["t_intended_us"])
    at = [r["t_intended_us"] for r in recs]
    check(len(recs) == 50 and all(r["ok"] for r in recs), f"{len(recs)} records")
    check(all(b - a == 5000 for a, b in zip(at, at[1:])), "constant gaps of 5 ms")
    check(all(r["t_start_us"] >= r["t_intended_us"] for r in recs), "sent early")
    invocations = [r for r in srv.requests if r["path"] != "/ping"]
    check(len(invocations) == 50, str(len(invocations)))
    check_warmed(srv.requests, 8)
    srv, out, err, res = run(RATE, ["gap"], engine_args=("-t1", "-c1", "-d1m"), args=[
        "--rates", "100", "--duration", "0.1", "--arrivals", "constant"])
    recs = sorted(res["gap"]["records"], key=lambda r: r["t_intended_us"])
    late = [r["t_start_us"] - r["t_intended_us"] for r in recs]
    check(len(recs) == 10, f"{len(recs)} records")
    # Each reply takes at least GAP_S; the k-th arrival cannot leave before k of them.
    check(all(late[k] >= k * (streamsrv.GAP_S * 1e6 - 10000) for k in range(10)), str(late))


# sm-stream's account of its open loop's sends (engine_sends), after its cost
SENDS = re.compile(r"^sm-stream: open loop: (\d+) sends, (\d+) left more than 1 ms after their "
                   r"time \((\d+) of them handed to libcurl that late: the thread got to them "
                   r"late\); (\d+) left on a later turn of the loop than the one that handed "
                   r"them$", re.M)


def case_open_loop_behind_starts_at_once():
    """Issue 32: an open loop that fell behind (one connection, replies slower than the
    gaps, so each arrival is due already when its connection frees) hands each request
    to libcurl in the callback that read the last reply, and libcurl starts it there,
    not on the loop's next turn after that turn's reads. Counted by sm-stream's account
    of its sends (which a closed loop does not print), not timed."""
    srv, out, err, res = run(RATE, ["gap"], engine_args=("-t1", "-c1", "-d1m"), args=[
        "--rates", "100", "--duration", "0.1", "--arrivals", "constant"])
    check(len(res["gap"]["records"]) == 10, f"{len(res['gap']['records'])} records")
    m = SENDS.search(err)
    check(m, f"no account of the open loop's sends: {err}")
    sends, late, late_handed, deferred = (int(x) for x in m.groups())
    # each reply takes GAP_S (50 ms against gaps of 10), so from the second on every
    # arrival is handed late; whether the first left within 1 ms of its time is up to the
    # host's scheduler, so only the turns are held to: none left on a later one
    check(sends == 10 and late_handed >= 9 and late >= late_handed, m.group(0))
    check(deferred == 0, f"{deferred} of 10 requests left on a later turn than their handing")
    srv, out, err, res = run(SWEEP, ["ok"], engine_args=("-t1", "-c2", "-d1m"),
                             args=["--batches", "1"])
    check(not SENDS.search(err), f"a closed loop accounted for open-loop sends: {err}")


def interrupted(engine_args, stop):
    """A sweep over streams that stall, ended by stop(proc): (exit, stderr, result)."""
    out = tempfile.mkdtemp(prefix="stream-int-")
    with streamsrv.Server() as srv:
        proc = subprocess.Popen(command(srv, SWEEP, engine_args, [
            "--endpoint", "stall", "--out", os.path.join(out, "{label}.json")]), env=env(),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for("four streams", lambda: len(srv.requests) == 4, proc=proc)
        stop(proc)
        stdout, stderr = proc.communicate(timeout=60)
    return proc.returncode, stderr, finish(proc, stdout, stderr, out)["stall"]


def case_ctrl_c():
    """Ctrl-C ends the run at once: a valid result file marked partial, exit 4."""
    rc, err, res = interrupted(("-t2", "-c4", "-d1h"), lambda p: p.send_signal(signal.SIGINT))
    check(rc == 4 and res["partial"] is True and res["partial_reason"] == "interrupted",
          f"exit {rc}: {err}")


def case_duration_cap():
    """-d caps the run: what is in flight is dropped, the result says so, exit 4."""
    rc, err, res = interrupted(("-t1", "-c4", "-d2s"), lambda p: None)
    check(rc == 4 and res["partial_reason"] == "duration cap", f"exit {rc}: {err}")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    sys.exit(run_cases(CASES, sys.argv))
