#!/usr/bin/python3
"""An installed wrk-sagemaker works with nothing but its prefix: no source tree, no
build tree, no SM_PLUGIN_PATH or LUA_CPATH. One case per invocation:

    test_install.py tree BUILD    cmake --install BUILD --prefix TMP, then run from TMP
    test_install.py deb BUILD     cpack -G DEB from BUILD, dpkg -x into TMP, run from there

Each case runs the installed decode.lua with Debian's wrk against sm-emulator from an
unrelated folder, then reads the result with the installed sm-compare (which must find
the installed quiz). Environment: WRK, SM_EMULATOR."""
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
from tokmodels import write_tokenizer_json  # noqa: E402

SECRET = "install-test-secret"
# What the package must declare (the libraries the programs link, and wrk with its LuaJIT).
DEPENDS = ["wrk", "libluajit-5.1-2", "libcurl4", "libcjson1", "libpcre2-8-0", "libevent-2.1-7",
           "libssl3", "libsentencepiece0"]


def env():
    e = isolated_env(AWS_ACCESS_KEY_ID="AKIDINSTALLTEST", AWS_SECRET_ACCESS_KEY=SECRET)
    for k in ("SM_PLUGIN_PATH", "LUA_CPATH", "LUA_PATH", "SM_COMPARE", "WRK"):
        e.pop(k, None)
    e["PATH"] = "/usr/bin:/bin"
    return e


def run(cmd, cwd, timeout=120):
    p = subprocess.run(cmd, cwd=cwd, env=env(), capture_output=True, text=True, timeout=timeout)
    return p


def check_prefix(prefix, work):
    """decode.lua and sm-compare of the install at prefix, run from an empty folder."""
    share = os.path.join(prefix, "share", "wrk-sagemaker")
    for rel in ("scenarios/decode.lua", "scenarios/ramp.lua", "scenarios/quiz-compare-py-40.json",
                "lua/sm/run.lua", "lua/sm/where.lua"):
        check(os.path.isfile(os.path.join(share, rel)), f"{rel} not installed under {share}")
    for prog in ("sm-compare", "sm-quiz", "sm-suite", "sm-emulator", "sm-invoke", "sm-endpoint",
                 "sm-mcp", "sm-timeline"):
        check(os.access(os.path.join(prefix, "bin", prog), os.X_OK), f"{prog} not installed")
    elsewhere = tempfile.mkdtemp(prefix="elsewhere-", dir=work)
    with emulator.Emulator(["--endpoint", "ep=instant"], binary=os.environ["SM_EMULATOR"],
                           env=env()) as emu:
        p = run([os.environ["WRK"], "-t1", "-c1", "-d1m", "--timeout", "60s", "-s",
                 os.path.join(share, "scenarios", "decode.lua"), emu.url, "--", "--endpoint",
                 "ep", "--region", "us-east-1", "--lengths", "4,8", "--repeats", "2", "--out",
                 "out/{label}.json"], cwd=elsewhere)
        check(p.returncode == 0, f"installed decode.lua exited {p.returncode}:\n{p.stderr}")
        # rate.lua's helpers (sm.workload) and the plugin's tokenizer (libsentencepiece
        # linked): exact prompts by a tokenizer.json written here.
        tok = os.path.join(elsewhere, "tokenizer.json")
        write_tokenizer_json(tok)
        p = run([os.environ["WRK"], "-t1", "-c1", "-d1m", "--timeout", "60s", "-s",
                 os.path.join(share, "scenarios", "rate.lua"), emu.url, "--", "--endpoint", "ep",
                 "--region", "us-east-1", "--rates", "4", "--duration", "1", "--input-tokens",
                 "32", "--tokenizer", tok, "--out", "rate/{label}.json"], cwd=elsewhere)
        check(p.returncode == 0 and "template overhead: 6 tokens" in p.stderr,
              f"installed rate.lua --tokenizer exited {p.returncode}:\n{p.stderr}")
    with open(os.path.join(elsewhere, "out", "ep.json")) as f:
        res = json.load(f)
    check(res["counts"]["ok"] == 4 and not res["partial"],
          f"installed run: {res['counts']} partial={res['partial']}")
    p = run([os.path.join(prefix, "bin", "sm-compare"), "--version"], cwd=elsewhere)
    quiz = os.path.realpath(os.path.join(share, "scenarios", "quiz-compare-py-40.json"))
    named = p.stdout.split("default quiz: ", 1)[-1].strip()
    check(p.returncode == 0 and os.path.realpath(named) == quiz,
          f"sm-compare --version names {named!r}, not the installed quiz {quiz}")
    p = run([os.path.join(prefix, "bin", "sm-compare"), "out/ep.json", "out/ep.json"],
            cwd=elsewhere)
    check(p.returncode == 0 and "decode" in p.stdout,
          f"installed sm-compare exited {p.returncode}:\n{p.stderr}")
    p = run([os.path.join(prefix, "bin", "sm-suite"), "--dry-run", "--url", "http://127.0.0.1:9",
             "--baseline", "a", "--candidate", "b", "--region", "us-east-1", "--out", "suite"],
            cwd=elsewhere)
    decode = os.path.realpath(os.path.join(share, "scenarios", "decode.lua"))
    check(p.returncode == 0 and f"-s {decode} " in p.stdout,
          f"installed sm-suite does not run the installed scenarios:\n{p.stdout}{p.stderr}")
    p = run([os.path.join(prefix, "bin", "sm-endpoint"), "--version"], cwd=elsewhere)
    facts = os.path.realpath(os.path.join(share, "tools", "endpoint-facts.json"))
    named = p.stdout.split("default facts: ", 1)[-1].strip()
    check(p.returncode == 0 and os.path.realpath(named) == facts,
          f"sm-endpoint --version names {named!r}, not the installed facts {facts}")
    p = run([os.path.join(prefix, "bin", "sm-endpoint"), "images", "--region", "us-east-2"],
            cwd=elsewhere)
    check(p.returncode == 0 and p.stdout.startswith("763104351884.dkr.ecr.us-east-2.amazonaws.com/"
                                                    "vllm:"),
          f"installed sm-endpoint images exited {p.returncode}:\n{p.stdout}{p.stderr}")


def case_tree(build, work):
    prefix = os.path.join(work, "prefix")
    p = subprocess.run(["cmake", "--install", build, "--prefix", prefix], capture_output=True,
                       text=True, timeout=120)
    check(p.returncode == 0, f"cmake --install failed:\n{p.stderr}")
    check_prefix(prefix, work)


def case_deb(build, work):
    out = os.path.join(work, "deb")
    p = subprocess.run(["cpack", "-G", "DEB", "--config", os.path.join(build, "CPackConfig.cmake"),
                        "-B", out], capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, f"cpack -G DEB failed:\n{p.stdout}\n{p.stderr}")
    debs = [f for f in os.listdir(out) if f.endswith(".deb")]
    check(len(debs) == 1, f"cpack made {debs}")
    deb = os.path.join(out, debs[0])
    depends = subprocess.run(["dpkg-deb", "-f", deb, "Depends"], capture_output=True, text=True,
                             check=True).stdout
    names = {d.strip().split(" ")[0] for d in depends.replace("|", ",").split(",")}
    missing = [d for d in DEPENDS if d not in names]
    check(not missing, f"the package does not depend on {missing}: Depends: {depends}")
    root = os.path.join(work, "root")
    subprocess.run(["dpkg", "-x", deb, root], check=True, timeout=60)
    check_prefix(os.path.join(root, "usr"), work)


CASES = {"tree": case_tree, "deb": case_deb}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in CASES:
        print("usage: test_install.py tree|deb BUILD", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="install-") as work:
        try:
            CASES[sys.argv[1]](os.path.abspath(sys.argv[2]), work)
        except Failure as f:
            print("FAIL:", f, file=sys.stderr)
            return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
