"""What the Python end-to-end tests share (stdlib only).

    from testkit import Failure, check, isolated_env, run_cases, wait_for
    check(rc == 0, "wrk exited %d" % rc)          # raises Failure(what) when false
    expect(rc == 0, "wrk exited %d" % rc)         # counts it in FAILED and goes on
    sys.exit(finish())                            # 1 when an expectation failed
    env = isolated_env(AWS_ACCESS_KEY_ID="AKIDTEST", AWS_SECRET_ACCESS_KEY=secret)
    wait_for("the server's log", lambda: os.path.exists(log), proc=server)
    sys.exit(run_cases({"name": fn, ...}, sys.argv))   # a script of named cases

isolated_env() is this process's environment without any AWS_ variable of the
caller's (region, profile, endpoint URLs, CA bundle, keys, AWS_CLI_*, whatever the
name), with the shared files pointed nowhere and instance metadata off, so a test
sees only what it sets. It is the one place the Python tests build an AWS
environment; isolate_process() makes it this process's own (what its children inherit).
"""
import os
import sys
import time

POLL_S = 0.02  # between two looks at a condition being waited for (never a wait for time)


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


FAILED = []  # what expect() found false, in order


def expect(cond, what):
    """A soft check: records a false expectation (the test goes on) and returns cond."""
    if not cond:
        FAILED.append(what)
        print("FAIL:", what, file=sys.stderr)
    return cond


def finish():
    """Says how many expectations failed; the exit status: 1 when any did."""
    print("%d failed checks" % len(FAILED))
    return 1 if FAILED else 0


def isolated_env(**extra):
    e = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    e.update(AWS_EC2_METADATA_DISABLED="true", AWS_CONFIG_FILE="/nonexistent",
             AWS_SHARED_CREDENTIALS_FILE="/nonexistent")
    e.update(extra)
    return e


def wrk_program(tmp):
    """$WRK (else wrk), or in a sanitized build ($WRK_PRELOAD set) a wrapper in folder tmp
    that preloads the sanitizer runtime, which wrk must load before the plugin."""
    wrk = os.environ.get("WRK", "wrk")
    if not os.environ.get("WRK_PRELOAD"):
        return wrk
    path = os.path.join(tmp, "wrk-preload")
    with open(path, "w") as f:
        f.write('#!/bin/sh\nLD_PRELOAD="%s${LD_PRELOAD:+ $LD_PRELOAD}" ASAN_OPTIONS=detect_leaks=0 '
                'exec "%s" "$@"\n' % (os.environ["WRK_PRELOAD"], wrk))
    os.chmod(path, 0o755)
    return path


def isolate_process(**extra):
    """Makes isolated_env(**extra) this process's environment (os.environ), so that
    every child started without env= inherits a clean one."""
    clean = isolated_env(**extra)
    os.environ.clear()
    os.environ.update(clean)


def wall_offset():
    """The wall clock less the monotonic one (seconds): it changes when the host steps or
    slews its wall clock, which tests that compare wall times across processes allow."""
    return time.clock_gettime(time.CLOCK_REALTIME) - time.clock_gettime(time.CLOCK_MONOTONIC)


def wait_for(what, cond, timeout=60, proc=None):
    """Polls cond() until it returns a true value, which is returned. Fails after
    timeout seconds, or at once when proc (a Popen) has exited."""
    deadline = time.monotonic() + timeout
    while True:
        got = cond()
        if got:
            return got
        check(proc is None or proc.poll() is None,
              "gave up waiting for %s: the process exited %s" % (what, proc and proc.returncode))
        check(time.monotonic() < deadline, "gave up waiting for %s after %g s" % (what, timeout))
        time.sleep(POLL_S)


def run_cases(cases, argv, after=None):
    """Runs the named cases (argv[1:], or "all"); after(failed), when given, runs
    after each. Returns the exit status: 0 when all pass, 1 when one failed, 2 on
    bad usage."""
    names = list(cases) if argv[1:] == ["all"] else argv[1:]
    if not names or any(n not in cases for n in names):
        print("usage: %s CASE... | all   (cases: %s)" % (argv[0], ", ".join(cases)))
        return 2
    failed = 0
    for name in names:
        started = time.monotonic()
        ok = False
        try:
            cases[name]()
            ok = True
            print("ok %s (%.1f s)" % (name, time.monotonic() - started))
        except Failure as e:
            failed += 1
            print("FAIL %s: %s" % (name, e))
        finally:
            if after:
                after(not ok)
    return 1 if failed else 0
