#!/usr/bin/python3
"""wrk on SageMaker's OpenAI-compatible route (issue 30, item 9): a scenario's --api
openai sends wrk's requests to /endpoints/NAME/openai/v1/chat/completions with
"stream": false (wrk cannot stream) and reads the one chat completion
(choices[0].message.content, usage): against sm-emulator every request arrives on
that route unstreamed, every record has the asked tokens, the result says its api.
A body format without chat, a bad value, or --api after sm-stream's -- is refused in
one line (exit 2).

usage: test_openai_wrk.py   (environment: WRK, SM_STREAM, SM_EMULATOR, SM_PLUGIN_PATH,
                             optionally WRK_PRELOAD)"""
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


def env():
    return isolated_env(AWS_ACCESS_KEY_ID="AKIDOPENAIWRK", AWS_SECRET_ACCESS_KEY="openai-secret")


def scenario_cmd(program, url, out, extra, scenario="decode.lua"):
    return [program, "-t1", "-c1", "-d2m", "--timeout", "60s", "-s",
            os.path.join(ROOT, "scenarios", scenario), url, "--", "--region", "us-east-1",
            "--endpoint", "a", "--out", os.path.join(out, "{label}.json")] + extra


def main():
    out = tempfile.mkdtemp(prefix="openai-wrk-")
    log = os.path.join(out, "requests.jsonl")
    wrk = wrk_program(out)
    with emulator.Emulator(["--endpoint", "a=instant", "--request-log", log],
                           binary=os.environ["SM_EMULATOR"], env=env()) as emu:
        cmd = scenario_cmd(wrk, emu.url, out, ["--api", "openai", "--lengths",
                                               ",".join(map(str, LENGTHS)), "--repeats",
                                               str(REPEATS)])
        p = subprocess.run(cmd, env=env(), capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, "%s: exit %d\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    with open(log) as f:
        logged = [json.loads(line) for line in f if line.strip()]
    logged = [e for e in logged if e.get("endpoint")]  # not wrk's GET /ping fillers
    check(len(logged) == REPEATS * len(LENGTHS), "%d requests" % len(logged))
    check(all(e["api"] == "openai" and e["status"] == 200 and e["first_token"] is None
              for e in logged), "every request on the OpenAI route, unstreamed: %s" % logged)
    res = json.load(open(os.path.join(out, "a.json")))
    check(res["api"] == "openai" and res["client"] == "wrk", str({k: res.get(k) for k in
                                                                    ("api", "client")}))
    recs = res["records"]
    check(len(recs) == REPEATS * len(LENGTHS) and all(
        r["ok"] and r["status"] == 200 and r["completion_tokens"] == r["max_tokens"]
        and "t_headers_us" not in r for r in recs), str(recs))
    check(sorted(r["max_tokens"] for r in recs) == sorted(LENGTHS * REPEATS), str(recs))

    refusals = (
        (wrk, ["--api", "openai", "--format", "tgi"],
         "--api openai takes chat bodies only (--format vllm-chat), not tgi"),
        (wrk, ["--api", "grpc"], "--api must be invoke or openai, got 'grpc'"),
        (os.environ["SM_STREAM"], ["--api", "openai"],
         "--api openai after the -- is wrk's: sm-stream takes --api stream|openai before the --"),
    )
    for program, extra, want in refusals:
        cmd = scenario_cmd(program, "http://127.0.0.1:9", out, extra, "smoke.lua")
        p = subprocess.run(cmd, env=env(), capture_output=True, text=True, timeout=60)
        check(p.returncode == 2 and want in p.stderr and len(p.stderr.splitlines()) == 1,
              "%s: exit %d %r" % (extra, p.returncode, p.stderr))
    print("ok")


if __name__ == "__main__":
    main()
