#!/usr/bin/python3
"""What CI runs and in which order (scripts/test, tests/README.md "What CI runs").

    test_ci.py costs CTEST BUILD COSTS   every name of tests/costs.txt is a test of BUILD
                                         and carries its figure as its COST (the second
                                         figure in a sanitizer build, when there is one;
                                         there a test it does not register is let be)
    test_ci.py beside ROOT               scripts/test with stand-ins for the builds, the
                                         analysis and ctest: the other builds, the fuzz
                                         targets' build and the static analysis run while
                                         the normal pass runs, two CPU hogs then until it
                                         ends, none left after; the sanitizer pass (one
                                         ctest call) follows it beside what is left of the
                                         work, without hogs; a failed build stops the run,
                                         its log printed and the pass's tests stopped

Each waits on states (files, processes), a guard of GUARD seconds against a hang only."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

GUARD = 120
HOG = ["sh", "-c", "while :; do :; done"]


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def case_costs(ctest, build, costs):
    sanitized = False
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        sanitized = any(line.strip() in ("SM_SANITIZE:BOOL=ON", "SM_SANITIZE:BOOL=TRUE")
                        for line in f)
    out = subprocess.run([ctest, "--test-dir", build, "--show-only=json-v1"], check=True,
                         capture_output=True, text=True).stdout
    have = {}
    for t in json.loads(out)["tests"]:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        have[t["name"]] = props.get("COST")
    want = {}
    with open(costs) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.split()
            if len(fields) not in (2, 3) or not all(x.isdigit() for x in fields[1:]):
                fail(f"{costs}:{n}: not NAME SECONDS [SECONDS]: {line.strip()}")
            want[fields[0]] = float(fields[2] if sanitized and len(fields) == 3 else fields[1])
    if len(want) < 10:
        fail(f"{costs}: {len(want)} tests; the table names the long ones")
    for name, cost in want.items():
        if name not in have and sanitized:
            continue  # not registered under the sanitizers (the install's); the normal build has it
        if name not in have:
            fail(f"{costs}: {name} is no test of {build}")
        if have[name] is None or float(have[name]) != cost:
            fail(f"{name}: COST {have[name]}, {costs} says {cost:g}")
    print(f"{len(want)} tests carry their cost ({'sanitizer' if sanitized else 'normal'} build)")


STUB = r"""#!/bin/sh
# stand-in: records that it ran, as scripts/test calls it
mark="$STUB_MARKS/$(basename "$0")"
"""

SETUP = STUB + r"""[ "$1" = --deps-only ] && exit 0
name=$(basename "$1")
mkdir -p "$1"
echo '[]' >"$1/compile_commands.json"
echo "setup $name: building" >&2
if [ "$name" = "$STUB_FAIL" ]; then
    # fails once the normal pass runs (a guard of 120 s against a hang)
    i=0
    while [ ! -e "$STUB_MARKS/normal-pid" ] && [ $i -lt 2400 ]; do sleep 0.05; i=$((i + 1)); done
    echo "setup $name: stand-in compile error" >&2
    exit 1
fi
touch "$mark-$name"
"""

FUZZ = STUB + r"""touch "$mark-$1"
"""

INSTALL = """# stand-in: records which install case ran, on which build
import os, sys
name = "install-%s-%s" % (sys.argv[1], os.path.basename(sys.argv[2]))
open(os.path.join(os.environ["STUB_MARKS"], name), "w").close()
"""

# In the overlap run the analysis ends only once the sanitizer pass has begun.
LINT = STUB + r"""if [ "$STUB_MODE" = overlap ]; then
    i=0
    while [ ! -e "$STUB_MARKS/asan-pass-started" ] && [ $i -lt 2400 ]; do sleep 0.05; i=$((i + 1)); done
    [ -e "$STUB_MARKS/asan-pass-started" ] || { echo "lint stand-in: no sanitizer pass beside it" >&2; exit 1; }
fi
touch "$mark"
"""

# The passes' ctest (python3 test_ci.py normal-pass or sanitizer-pass) writes what it
# saw; the other calls only record their arguments.
CTEST = STUB + r"""echo "$*" >>"$STUB_MARKS/ctest-calls"
case "$*" in
*"--test-dir $STUB_TOP/build "*)
    echo $$ >"$STUB_MARKS/normal-pid"
    exec python3 "$STUB_SELF" normal-pass "$STUB_MARKS" ;;
*"--test-dir $STUB_TOP/build-asan "*)
    exec python3 "$STUB_SELF" sanitizer-pass "$STUB_MARKS" ;;
esac
"""


def script_pid():
    """scripts/test's process: the parent of the shell that runs the passes."""
    with open(f"/proc/{os.getppid()}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def sanitizer_pass(marks):
    """The stand-in sanitizer pass: in the overlap run, it begins before the analysis
    ends (which waits for it) and runs beside no hog."""
    seen = {"hogs": hogs_of(script_pid())}
    open(os.path.join(marks, "asan-pass-started"), "w").close()
    if os.environ["STUB_MODE"] == "overlap":
        end = time.monotonic() + GUARD
        while not os.path.exists(os.path.join(marks, "lint")) and time.monotonic() < end:
            time.sleep(0.05)
    seen["lint_before_end"] = os.path.exists(os.path.join(marks, "lint"))
    with open(os.path.join(marks, "sanitizer-saw"), "w") as f:
        json.dump(seen, f)


def normal_pass(marks):
    """The stand-in normal pass: the state of the work beside it, as it sees it (in the
    overlap run it ends at once)."""
    if os.environ["STUB_MODE"] == "overlap":
        return
    parent = script_pid()
    seen = {}
    end = time.monotonic() + GUARD
    while not os.path.exists(os.path.join(marks, "lint")) and time.monotonic() < end:
        time.sleep(0.05)
    seen["beside"] = sorted(n for n in os.listdir(marks) if n.startswith(("setup-", "fuzz-", "lint")))
    seen["hogs"] = []
    while len(seen["hogs"]) < 2 and time.monotonic() < end:
        time.sleep(0.05)
        seen["hogs"] = hogs_of(parent)
    with open(os.path.join(marks, "normal-saw"), "w") as f:
        json.dump(seen, f)
    if os.environ.get("STUB_FAIL"):
        time.sleep(GUARD)  # a pass still running when a build fails: stopped by the script


def hogs_of(parent):
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")[:-1]
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
        if ppid == parent and [c.decode() for c in cmd] == HOG:
            found.append(int(pid))
    return sorted(found)


def tree(root, tmp, fail_build="", mode="hogs"):
    top = os.path.join(tmp, "top")
    marks = os.path.join(tmp, "marks")
    bindir = os.path.join(tmp, "bin")
    for d in (os.path.join(top, "scripts"), os.path.join(top, "tests", "install"), marks, bindir):
        os.makedirs(d)
    shutil.copy(os.path.join(root, "scripts", "test"), os.path.join(top, "scripts", "test"))
    for path, text in ((os.path.join(top, "scripts", "setup"), SETUP),
                       (os.path.join(top, "scripts", "fuzz"), FUZZ),
                       (os.path.join(top, "scripts", "lint"), LINT),
                       (os.path.join(top, "tests", "install", "test_install.py"), INSTALL),
                       (os.path.join(bindir, "ctest"), CTEST)):
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"], STUB_MARKS=marks,
               STUB_TOP=top, STUB_SELF=os.path.abspath(__file__), STUB_FAIL=fail_build,
               STUB_MODE=mode)
    return top, marks, env


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def run_script(root, tmp, **how):
    """scripts/test in a tree of stand-ins: (its process, the marks folder)."""
    top, marks, env = tree(root, tmp, **how)
    p = subprocess.run([os.path.join(top, "scripts", "test")], env=env, cwd=top,
                       capture_output=True, text=True, timeout=2 * GUARD)
    return p, marks


def case_beside(root):
    with tempfile.TemporaryDirectory(prefix="ci-beside-") as tmp:
        p, marks = run_script(root, tmp)
        if p.returncode != 0:
            fail(f"scripts/test with stand-ins: exit {p.returncode}\n{p.stderr}")
        with open(os.path.join(marks, "normal-saw")) as f:
            saw = json.load(f)
        want = ["fuzz---build-only", "lint", "setup-build", "setup-build-asan",
                "setup-build-release"]
        if saw["beside"] != want:
            fail(f"the normal pass saw {saw['beside']} done beside it, not {want}")
        if len(saw["hogs"]) != 2:
            fail(f"after the work beside it the normal pass ran beside {saw['hogs']}, not two hogs")
        left = [pid for pid in saw["hogs"] if alive(pid)]
        if left:
            fail(f"hogs {left} still run after scripts/test")
        with open(os.path.join(marks, "ctest-calls")) as f:
            calls = f.read().splitlines()
        asan = [c for c in calls if "/build-asan " in c + " "]
        if len(asan) != 1 or "-L unit|integration|fuzz|e2e -LE slow" not in asan[0]:
            fail(f"the sanitizer build's ctest calls: {asan}")
        if not os.path.exists(os.path.join(marks, "fuzz-4")):
            fail("the fuzz targets did not run (scripts/fuzz 4)")
        for case in ("tree", "deb"):
            if not os.path.exists(os.path.join(marks, f"install-{case}-build-release")):
                fail(f"the install test '{case}' did not run on the Release build")
        for piece in ("the AddressSanitizer + UndefinedBehaviorSanitizer build",
                      "gcc at Release, the programs alone",
                      "the fuzz targets' build", "the static analysis"):
            if f"test: beside the normal pass: {piece} took " not in p.stderr:
                fail(f"no time for {piece}:\n{p.stderr}")
    print("the builds and the analysis ran beside the normal pass, then two hogs, none left")


def case_overlap(root):
    with tempfile.TemporaryDirectory(prefix="ci-overlap-") as tmp:
        p, marks = run_script(root, tmp, mode="overlap")
        if p.returncode != 0:
            fail(f"scripts/test with stand-ins (a short normal pass): exit {p.returncode}\n{p.stderr}")
        with open(os.path.join(marks, "sanitizer-saw")) as f:
            saw = json.load(f)
        if not saw["lint_before_end"]:
            fail("the sanitizer pass did not run beside the static analysis")
        if saw["hogs"]:
            fail(f"the sanitizer pass ran beside hogs {saw['hogs']}")
    print("the sanitizer pass runs beside what is left of the work, without hogs")


def case_failed_build(root):
    with tempfile.TemporaryDirectory(prefix="ci-beside-fail-") as tmp:
        p, marks = run_script(root, tmp, fail_build="build-release")
        if p.returncode == 0:
            fail("scripts/test passed with a failed Release build")
        for text in ("setup build-release: stand-in compile error",
                     "the builds or the static analysis beside the normal pass did not finish"):
            if text not in p.stderr:
                fail(f"no '{text}' in:\n{p.stderr}")
        with open(os.path.join(marks, "normal-pid")) as f:
            pid = int(f.read())
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
            fail("the normal pass still runs after the failed build stopped scripts/test")
    print("a failed build beside the normal pass stops the run, its log printed")


def main(argv):
    if argv[:1] == ["normal-pass"]:
        normal_pass(argv[1])
        return 0
    if argv[:1] == ["sanitizer-pass"]:
        sanitizer_pass(argv[1])
        return 0
    if argv[:1] == ["costs"] and len(argv) == 4:
        case_costs(*argv[1:])
        return 0
    if argv[:1] == ["beside"] and len(argv) == 2:
        case_beside(argv[1])
        case_overlap(argv[1])
        case_failed_build(argv[1])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
