#!/usr/bin/python3
"""valgrind memcheck over the C programs, for what AddressSanitizer cannot see:
reads of uninitialised memory (a branch or a system call on a value never
written) and leaks in programs ASan's leak checker is off for (wrk's plugin).
Each run: --error-exitcode, --leak-check=full with definite and indirect leaks
as errors, --track-origins; a failure prints valgrind's report.

invoke_dry_run   sm-invoke --dry-run (canonical request, signing, no network)
invoke_call      sm-invoke signing and sending one call to the emulator
compare          sm-compare on the results fixtures (tests/results/make_fixtures.py):
                 the three scenarios with logs and price in every format and the SVG,
                 compare.py measure files, a killed run's journal, a bad file (exit 2)
emulator         sm-emulator serving the quiz with every fault, a decode run,
                 malformed requests and sm-invoke, then stopped with SIGTERM
wrk_plugin       wrk + the plugin: smoke, decode, and a quiz with every fault (error
                 replies, dropped connections, truncated bodies), with wrk.supp
                 suppressing only wrk's own never-freed allocations (see the file)

Needs valgrind (ctest registers these tests only when it is installed, and not in a
sanitized build). Environment as harness.py, plus SM_INVOKE.

usage: test_valgrind.py CASE...   (CASE: see above, or "all")"""
import os
import socket
import subprocess
import sys

import harness
from harness import check

SUPP = os.path.join(harness.HERE, "wrk.supp")
VG_TIMEOUT = 300


def valgrind(work, name, supp=False):
    """The valgrind command line; its report goes to out/NAME.valgrind."""
    cmd = ["valgrind", "--error-exitcode=99", "--leak-check=full",
           "--show-leak-kinds=definite,indirect", "--errors-for-leak-kinds=definite,indirect",
           "--track-origins=yes", "--num-callers=40", "--log-file=" + work.path(name + ".valgrind")]
    return cmd + (["--suppressions=" + SUPP] if supp else [])


def check_clean(work, name, rc, want=0):
    report = harness.read(work.path(name + ".valgrind"))
    check(rc != 99, "%s: valgrind found errors:\n%s" % (name, report))
    check(rc == want, "%s: exit %s, want %s\n%s" % (name, rc, want, report[-3000:]))
    check("ERROR SUMMARY: 0 errors" in report, "%s: no clean summary:\n%s" % (name, report))


def run(work, name, cmd, env=None, want=0, stdin=None):
    with open(work.path(name + ".stdout"), "w") as out, \
            open(work.path(name + ".stderr"), "w") as err:
        p = subprocess.run(valgrind(work, name) + cmd, stdout=out, stderr=err, env=env,
                           input=stdin, timeout=VG_TIMEOUT)
    check_clean(work, name, p.returncode, want)
    return harness.read(work.path(name + ".stdout"))


def invoke_env(keys):
    e = harness.base_env()
    e.update(keys.env(), AWS_REGION="us-east-1")
    return e


def body_file(work):
    path = os.path.join(work.inputs, "body.json")
    with open(path, "w") as f:
        f.write('{"messages":[{"role":"user","content":"What is 54 * 28?"}],"max_tokens":8}')
    return path


def case_invoke_dry_run():
    work = harness.Work("vg-invoke-dry")
    keys = work.new_keys()
    out = run(work, "invoke-dry", [os.environ["SM_INVOKE"], "--endpoint", "ep", "--body",
                                   body_file(work), "--dry-run", "--amz-date", "20261130T120000Z",
                                   "--target-variant", "v1", "--custom-attributes", "a=b  c"],
              env=invoke_env(keys))
    check("AWS4-HMAC-SHA256" in out, "no signed request in the dry run's output")
    work.scan(headers_ok=["invoke-dry.stdout"])  # a dry run prints its Authorization
    work.clean()


def case_invoke_call():
    work = harness.Work("vg-invoke-call")
    keys = work.new_keys()
    emu = harness.Emu(work, ["--endpoint", "ep=instant"], [keys])
    try:
        out = run(work, "invoke-call", [os.environ["SM_INVOKE"], "--endpoint", "ep", "--body",
                                        body_file(work), "--url", emu.url, "-v"],
                  env=invoke_env(keys))
        check('"completion_tokens"' in out, "no reply body: %s" % out)
        st = emu.stats()
    finally:
        emu.stop()
    check(st["endpoints"]["ep"]["replies"] == {"200": 1}, "the emulator: %s" % st)
    work.scan()
    work.clean()


def case_compare():
    work = harness.Work("vg-compare")
    fx = work.inputs
    subprocess.run([sys.executable, os.path.join(harness.ROOT, "tests", "results",
                                                 "make_fixtures.py"), fx,
                    os.path.join(harness.ROOT, "scenarios", "quiz-compare-py-40.json")], check=True, timeout=60)
    sm = os.environ["SM_COMPARE"]
    runs = [
        ("native-text", ["native/bf16", "native/qat", "--price-per-hour", "1.1267",
                         "--svg", work.path("native.svg")], 0),
        ("native-json", ["-f", "json", "native/bf16", "native/qat"], 0),
        ("native-markdown", ["-f", "markdown", "native/bf16", "native/qat"], 0),
        ("native-csv", ["-f", "csv", "-o", work.path("native.csv"), "native/bf16",
                        "native/qat"], 0),
        ("native-html", ["-f", "html", "-o", work.path("native.html"), "native/bf16",
                         "native/qat"], 0),
        ("open-html", ["-f", "html", "--slo", "ttft:p90:0.6", "open/a", "open/b"], 0),
        ("article", ["article/measure-gemma-4-e2b.json",
                     "article/measure-gemma-4-e2b-qat.json"], 0),
        ("journal", ["journal", "native/qat"], 0),
        ("bad", ["bad/truncated.json", "native/qat"], 2),
    ]
    for name, args, want in runs:
        with open(work.path(name + ".stdout"), "w") as out, \
                open(work.path(name + ".stderr"), "w") as err:
            p = subprocess.run(valgrind(work, name) + [sm] + args, cwd=fx, stdout=out,
                               stderr=err, timeout=VG_TIMEOUT)
        check_clean(work, name, p.returncode, want)
    check(os.path.getsize(work.path("native.svg")) > 0, "no SVG written")
    check(os.path.getsize(work.path("native.html")) > 0, "no HTML written")
    work.clean()


def send_raw(url, data):
    """Sends bytes to the emulator and reads until it closes."""
    host, port = url.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=60) as s:
        s.sendall(data)
        while s.recv(65536):
            pass


def case_emulator():
    work = harness.Work("vg-emulator")
    keys = work.new_keys()
    faults = []
    for k in ("throttle", "unavailable", "internal", "model_error", "drop", "truncate", "slow"):
        faults += ["--set", "a.fault.%s=0.1" % k]
    emu = harness.Emu(work, ["--endpoint", "a=instant", "--endpoint", "b=bf16-l4",
                             "--set", "a.slow_first_byte_s=0.01", "--time-scale", "50"] + faults,
                      [keys], valgrind=valgrind(work, "emulator"))
    try:
        q = harness.wrk_run(work, "quiz", emu.url, ["--endpoint", "a", "--refuse-after", "0"],
                            threads=2, env=keys.env())
        d = harness.wrk_run(work, "decode", emu.url, ["--endpoint", "b", "--repeats", "1",
                                                      "--lengths", "16,64"], env=keys.env())
        for raw in (b"GET / HTTP/1.1\r\nX: " + b"y" * 70000 + b"\r\n\r\n",
                    b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
                    b"BAD\r\n\r\n"):
            send_raw(emu.url, raw)
        p = subprocess.run([os.environ["SM_INVOKE"], "--endpoint", "a", "--body",
                            body_file(work), "--url", emu.url], env=invoke_env(keys),
                           capture_output=True, timeout=VG_TIMEOUT)
        st = emu.stats()
    finally:
        code = emu.emu.stop()
        emu.stderr.close()
    check(q.rc == 0 and d.rc == 0, "wrk exited %s, %s:\n%s%s" % (q.rc, d.rc, q.stderr(),
                                                                d.stderr()))
    check(p.returncode in (0, 1), "sm-invoke exited %d" % p.returncode)
    check(st["bad_requests"] == 3, "bad requests: %s" % st["bad_requests"])
    check(sum(st["endpoints"]["a"]["faults"].values()) > 0, "no fault was injected")
    check_clean(work, "emulator", code)
    work.scan()
    work.clean()


def case_wrk_plugin():
    work = harness.Work("vg-wrk")
    keys = work.new_keys()
    faults = []
    for k in ("throttle", "unavailable", "internal", "model_error", "drop", "truncate"):
        faults += ["--set", "q.fault.%s=0.1" % k]
    emu = harness.Emu(work, ["--endpoint", "a=instant", "--endpoint", "b=instant",
                             "--endpoint", "q=instant"] + faults, [keys])
    try:
        runs = [("smoke", ["--endpoint", "a", "--endpoint", "b"], 1),
                ("decode", ["--endpoint", "a", "--endpoint", "b", "--repeats", "2"], 1),
                ("quiz", ["--endpoint", "q", "--refuse-after", "0"], 2)]
        for scenario, args, threads in runs:
            w = harness.wrk_run(work, scenario, emu.url, args, threads=threads, env=keys.env(),
                                wrapper=valgrind(work, "wrk-" + scenario, supp=True))
            check_clean(work, "wrk-" + scenario, w.rc)
    finally:
        emu.stop()
    work.scan()
    work.clean()


CASES = {
    "invoke_dry_run": case_invoke_dry_run,
    "invoke_call": case_invoke_call,
    "compare": case_compare,
    "emulator": case_emulator,
    "wrk_plugin": case_wrk_plugin,
}

if __name__ == "__main__":
    sys.exit(harness.run_cases(CASES, sys.argv))
