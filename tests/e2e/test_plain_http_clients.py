#!/usr/bin/python3
"""Signing for plain http in the programs that take an endpoint URL: sm-endpoint
--endpoint-url, sm-results --endpoint-url, sm-mcp --endpoint-url, sm-timeline
--endpoint-url and sm-suite --url and --endpoint-url refuse an http:// URL whose host is not loopback, with
one line and exit 2, before anything is signed or sent, unless
--allow-plain-http. No connection is tried: the hosts are a TEST-NET address
(a connection would hang until a time-out and end in a network error, exit 1)
and a name under .invalid (it would end in a DNS error, exit 1); the refusal is
the message below, and sm-suite starts no step (its run directory is not made).
Loopback http is the emulator tests' daily bread.

Environment: SM_ENDPOINT, SM_RESULTS, SM_MCP, SM_SUITE, SM_TIMELINE_BIN."""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
from testkit import check, isolated_env, wrk_program  # noqa: E402

WHY = ("plain http shows the signature and session token to the network on the way to a host "
       "that is not loopback (use https://, or --allow-plain-http to send them anyway)")
HOSTS = ["203.0.113.1:1", "sagemaker.invalid"]
ROLE = "arn:aws:iam::111122223333:role/r"


WRK_DIR = tempfile.mkdtemp(prefix="plain-http-wrk-")  # sm-suite asks the scenarios through wrk


def run(argv):
    e = isolated_env(AWS_ACCESS_KEY_ID="AKIDPLAINHTTP", AWS_SECRET_ACCESS_KEY="plain-secret",
                     AWS_SESSION_TOKEN="plain-session-token", AWS_REGION="us-east-1",
                     WRK=wrk_program(WRK_DIR))
    return subprocess.run(argv, env=e, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120)


def refused(name, argv, prog, flag, host):
    p = run(argv)
    want = f"{prog}: {flag}: refusing to sign requests for http://{host}: {WHY}\n"
    check(p.returncode == 2, f"{name}: exit {p.returncode}, want 2\n{p.stderr}")
    check(p.stderr == want, f"{name}: got {p.stderr!r}\nwant {want!r}")
    check(p.stdout == "", f"{name}: wrote {p.stdout!r}")


def allowed(name, argv, rc, err_has=None):
    """With --allow-plain-http the program gets past the check (to a step that sends nothing)."""
    p = run(argv)
    check(p.returncode == rc, f"{name}: exit {p.returncode}, want {rc}\n{p.stderr}")
    check("refusing" not in p.stderr, f"{name}: refused with the flag\n{p.stderr}")
    if err_has:
        check(err_has in p.stderr, f"{name}: {err_has!r} not in {p.stderr!r}")
    return p


def main():
    ep, res, mcp, suite, tl = (os.environ[k] for k in ("SM_ENDPOINT", "SM_RESULTS", "SM_MCP",
                                                       "SM_SUITE", "SM_TIMELINE_BIN"))
    with tempfile.TemporaryDirectory() as d:
        for host in HOSTS:
            url = "http://" + host
            for words in (["status", "e"], ["list"], ["verify", "e"],
                          ["delete", "e", "--run", "r1", "--yes"]):
                refused(f"sm-endpoint {words[0]} {host}", [ep, "--endpoint-url", url] + words,
                        "sm-endpoint", "--endpoint-url", host)
            for words in (["list", "s3://bucket/p"], ["fetch", "s3://bucket/p", "r1", d + "/f"]):
                refused(f"sm-results {words[0]} {host}",
                        [res, "--endpoint-url", url] + words, "sm-results", "--endpoint-url",
                        host)
            refused(f"sm-mcp {host}", [mcp, "--endpoint-url", url], "sm-mcp", "--endpoint-url",
                    host)
            samples = os.path.join(d, "samples.jsonl")
            refused(f"sm-timeline {host}", [tl, "--endpoint", "e", "--out", samples,
                                            "--endpoint-url", url], "sm-timeline",
                    "--endpoint-url", host)
            check(not os.path.exists(samples), f"sm-timeline made {samples} before refusing")
            out = os.path.join(d, "run")
            sides = ["--baseline", "a", "--candidate", "b", "--out", out]
            refused(f"sm-suite --url {host}", [suite, "--url", url] + sides, "sm-suite", "--url",
                    host)
            refused(f"sm-suite --endpoint-url {host}",
                    [suite, "--url", "https://runtime.example", "--endpoint-url", url,
                     "--deploy", "--role", ROLE, "--baseline-model", "m/a", "--candidate-model",
                     "m/b"] + sides, "sm-suite", "--endpoint-url", host)
            check(not os.path.exists(out), f"sm-suite made {out} before refusing")

        # The flag lets each one past the check, to a step that sends nothing.
        url, flag = "http://" + HOSTS[0], "--allow-plain-http"
        p = allowed("sm-endpoint config", [ep, "--endpoint-url", url, flag, "config", "e",
                                           "--model", "m/a", "--role", ROLE], 0)
        allowed("sm-results push --dry-run", [res, "--endpoint-url", url, flag, "--dry-run",
                                               "push", "s3://bucket/p", d], 2,
                "no result files in what was given")
        allowed("sm-mcp", [mcp, "--endpoint-url", url, flag], 0)
        p = allowed("sm-suite --dry-run", [suite, "--url", url, "--endpoint-url", url, flag,
                                           "--dry-run", "--deploy", "--role", ROLE,
                                           "--baseline-model", "m/a", "--candidate-model", "m/b",
                                           "--scenarios", "decode"] + sides, 0)
        check(f"sm-endpoint --endpoint-url {url} {flag} " in p.stdout,
              f"sm-suite passes no {flag} to sm-endpoint:\n{p.stdout}")
        check(f" {url} -- " in p.stdout and f" {flag} --out " in p.stdout,
              f"sm-suite passes no {flag} to the scenario:\n{p.stdout}")
    print("ok")


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(WRK_DIR, ignore_errors=True)
