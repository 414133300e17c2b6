#!/usr/bin/python3
"""Connection time apart (issue 30, item 3): sm-stream records how long opening each
request's connection took (connect_us: lookup and TCP; tls_us: the TLS handshake), 0
when a kept connection was reused; sm-compare reports per side how many requests
opened one and the medians of their times, from the records. wrk keeps its
connections and does not say: its records have neither field and sm-compare says
nothing of connections. Counts asserted exactly: one sender over one kept connection
opens it once; the medians are the records' own values.

usage: test_conntime.py CASE   (stream_tls or wrk; environment: WRK, SM_STREAM, SM_EMULATOR,
                                SM_COMPARE, SM_PLUGIN_PATH, optionally WRK_PRELOAD)"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import emulator  # noqa: E402
from testkit import check, isolated_env, wrk_program  # noqa: E402

LENGTHS = (4, 8)
REPEATS = 2
N = REPEATS * len(LENGTHS)  # requests per side


def env():
    return isolated_env(AWS_ACCESS_KEY_ID="AKIDCONNTEST", AWS_SECRET_ACCESS_KEY="conn-secret")


def run(engine, out):
    emu_args = ["--endpoint", "a=instant", "--endpoint", "b=instant"]
    engine_args = []
    if engine == "stream":
        cert, key = emulator.make_cert(out)
        emu_args += ["--tls-cert", cert, "--tls-key", key]
        engine_args = ["--cacert", cert]
    program = wrk_program(out) if engine == "wrk" else os.environ["SM_STREAM"]
    with emulator.Emulator(emu_args, binary=os.environ["SM_EMULATOR"], env=env()) as emu:
        cmd = [program, "-t1", "-c1", "-d2m", "--timeout", "60s"] + engine_args + [
            "-s", os.path.join(ROOT, "scenarios", "decode.lua"), emu.url, "--", "--region",
            "us-east-1", "--endpoint", "a", "--endpoint", "b", "--lengths",
            ",".join(map(str, LENGTHS)), "--repeats", str(REPEATS),
            "--out", os.path.join(out, "{label}.json")]
        p = subprocess.run(cmd, env=env(), capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, "%s: exit %d\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    return {lab: json.load(open(os.path.join(out, lab + ".json")))["records"] for lab in "ab"}


def compare(out, fmt):
    p = subprocess.run([os.environ["SM_COMPARE"], "--format", fmt, os.path.join(out, "a.json"),
                        os.path.join(out, "b.json")],
                       capture_output=True, text=True, env=env(), timeout=60)
    check(p.returncode in (0, 1), "sm-compare: exit %d\n%s" % (p.returncode, p.stderr))
    return p.stdout


def case_stream_tls():
    out = tempfile.mkdtemp(prefix="conntime-")
    recs = run("stream", out)
    every = sorted(recs["a"] + recs["b"], key=lambda r: r["t_start_us"])
    check(all(r["ok"] for r in every), str(every))
    first, rest = every[0], every[1:]
    check(first["connect_us"] > 0 and first["tls_us"] > 0,
          "the first request opened the connection, over TLS: %s" % first)
    check(all(r["connect_us"] == 0 and r["tls_us"] == 0 for r in rest),
          "every later request reused it: %s" % [(r["connect_us"], r["tls_us"]) for r in rest])
    doc = json.loads(compare(out, "json"))
    conn = doc["streaming_seconds"]["connections"]
    for role, lab in (("baseline", "a"), ("candidate", "b")):
        opened = [r for r in recs[lab] if r["connect_us"] > 0]
        want = {"requests_timed": N, "opened": len(opened), "opened_share": len(opened) / N,
                "connect_median_ms": opened[0]["connect_us"] / 1000 if opened else None,
                "tls_median_ms": opened[0]["tls_us"] / 1000 if opened else None}
        check(conn[role] == want, "%s: %s, the records say %s" % (role, conn[role], want))
    text = " ".join(compare(out, "text").split())
    lab = first["endpoint"]
    check("%s: 1 of %d requests opened one (%.1f%%), connect median %.3f ms, TLS median %.3f ms"
          % (lab, N, 100 / N, first["connect_us"] / 1000, first["tls_us"] / 1000) in text, text)


def case_wrk():
    out = tempfile.mkdtemp(prefix="conntime-")
    recs = run("wrk", out)
    every = recs["a"] + recs["b"]
    check(len(every) == 2 * N and all("connect_us" not in r and "tls_us" not in r for r in every),
          str(every))
    doc = json.loads(compare(out, "json"))
    check("connections" not in json.dumps(doc), "sm-compare says nothing of connections")


def main():
    {"stream_tls": case_stream_tls, "wrk": case_wrk}[sys.argv[1]]()
    print("ok")


if __name__ == "__main__":
    main()
