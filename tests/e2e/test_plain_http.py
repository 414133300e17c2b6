#!/usr/bin/python3
"""Signing for plain http: a scenario under wrk or sm-stream refuses an http://
URL whose host is not loopback (SageMaker's own host included) before it signs
or sends anything, unless --allow-plain-http; http:// to 127.0.0.1, ::1 and
localhost (the emulator) needs no flag.

    test_plain_http.py ENGINE    (ENGINE: wrk or stream)

Environment: WRK, SM_STREAM, SM_PLUGIN_PATH, optionally WRK_PRELOAD."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
from testkit import check, isolated_env  # noqa: E402

WHY = ("plain http shows the signature and session token to the network on the way to a host "
       "that is not loopback (use https://, or --allow-plain-http to send them anyway)")


def run(engine, url, extra):
    binary = os.environ["WRK"] if engine == "wrk" else os.environ["SM_STREAM"]
    out = tempfile.mkdtemp(prefix="plain-http-")
    cmd = [binary, "-t1", "-c1", "-d1m", "--timeout", "60s", "-s",
           os.path.join(ROOT, "scenarios", "smoke.lua"), url, "--", "--endpoint", "e",
           "--region", "us-east-1", "--out", os.path.join(out, "{label}.json")] + extra
    e = isolated_env(AWS_ACCESS_KEY_ID="AKIDPLAINHTTP", AWS_SECRET_ACCESS_KEY="plain-secret",
                     AWS_SESSION_TOKEN="plain-session-token")
    if os.environ.get("WRK_PRELOAD") and engine == "wrk":
        e["LD_PRELOAD"] = os.environ["WRK_PRELOAD"]
        e["ASAN_OPTIONS"] = "detect_leaks=0"
    p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=60)
    return p, os.listdir(out)


def main():
    engine = sys.argv[1]
    for host in ["runtime.sagemaker.us-east-1.amazonaws.com", "192.0.2.7:9"]:
        p, files = run(engine, "http://" + host, [])
        check(p.returncode == 2, f"{host}: exit {p.returncode}, want 2\n{p.stderr}")
        want = f"smoke: refusing to sign requests for http://{host}: {WHY}"
        check(p.stderr.strip() == want, f"got {p.stderr!r}\nwant {want!r}")
        check(files == [], f"{host}: a refused run wrote {files}")
    # Allowed: the run gets as far as printing its schedule (nothing is sent).
    for url, extra in [("http://192.0.2.7:9", ["--allow-plain-http"]), ("http://127.0.0.1:9", []),
                       ("http://localhost:9", []), ("http://[::1]:9", [])]:
        p, _ = run(engine, url, extra + ["--print-schedule"])
        check(p.returncode == 0 and p.stdout.strip(), f"{url} {extra}: exit {p.returncode}\n"
              f"{p.stderr}")
    print("ok")


if __name__ == "__main__":
    main()
