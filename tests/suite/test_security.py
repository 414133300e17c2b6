#!/usr/bin/python3
"""sm-suite's run directory against misuse (issue 18): wrk ends when sm-suite is killed,
one sm-suite at a time uses a run directory, and --resume runs neither code nor a target
that manifest.json was changed to name.

    test_security.py CASE...     (CASE: see CASES at the bottom; "all" runs every one)

Environment: see suitelib.py."""
import fcntl
import hashlib
import hmac
import json
import os
import select
import signal
import socket
import subprocess
import sys

import suitelib as sl
from suitelib import check

ARTICLE_ENDPOINTS = ["--endpoint", "gemma-4-e2b=bf16-l4", "--endpoint", "gemma-4-e2b-qat=qat-l4"]
SIDES = ["--baseline", "gemma-4-e2b=bf16", "--candidate", "gemma-4-e2b-qat=qat"]
# One step that would send for an hour: what is left of it when sm-suite dies is never
# done by the time a test looks.
ENDLESS = ["--scenarios", "sweep", "--levels", "1", "--mode", "steady", "--duration", "3600"]
WAIT = 30  # seconds: the most a test waits for a process to end


def children(pid):
    """The pids whose parent is pid."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        if int(stat[stat.rindex(")") + 2:].split()[1]) == pid:
            found.append(int(entry))
    return found


def start_endless(emu, e, tmp):
    """sm-suite on the endless step, once its first reply is in; and its stderr so far."""
    proc = subprocess.Popen([os.environ["SM_SUITE"], "--url", emu.url, "--region", "us-east-1",
                             "--time-scale", "20", "--out", "run"] + ENDLESS + SIDES, env=e,
                            cwd=tmp, text=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.startswith("sm-suite: [1/1] sweep c1: "):
            return proc, seen
    raise sl.Failure("no progress line:\n" + "".join(seen))


def case_kill9():
    """SIGKILL to sm-suite in the middle of a step: its wrk ends too (it would send for an
    hour on its own), and the run directory's lock is free again."""
    tmp = sl.tempdir("suite-kill9-")
    e = sl.env(tmp)
    emu = sl.start_emulator(ARTICLE_ENDPOINTS + ["--time-scale", "20"], e)
    proc = None
    try:
        proc, seen = start_endless(emu, e, tmp)
        wrk = children(proc.pid)
        check(len(wrk) == 1, f"sm-suite's children: {wrk}")
        pidfd = os.pidfd_open(wrk[0])
        proc.kill()
        proc.wait(timeout=WAIT)
        ready, _, _ = select.select([pidfd], [], [], WAIT)  # readable once wrk has ended
        os.close(pidfd)
        if not ready:
            os.kill(wrk[0], signal.SIGKILL)
        check(ready, f"wrk (pid {wrk[0]}) still runs {WAIT} s after sm-suite was killed")
        with open(os.path.join(tmp, "run", ".sm-suite.lock")) as f:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises while anyone holds it
        sl.check_no_secrets([("stderr", "".join(seen)), os.path.join(tmp, "run")])
    finally:
        if proc and proc.poll() is None:
            proc.kill()
        emu.stop()


def case_lock():
    """While a run uses its directory, a --resume of it, or a new run in a directory another
    process holds, is refused: one line naming the directory and the holder's pid, exit 2,
    and the running suite is undisturbed."""
    tmp = sl.tempdir("suite-lock-")
    e = sl.env(tmp)
    emu = sl.start_emulator(ARTICLE_ENDPOINTS + ["--time-scale", "20"], e)
    proc = None
    try:
        proc, seen = start_endless(emu, e, tmp)
        try:  # a second sm-suite that ran would run the endless step too
            p = sl.suite(["--resume", "run", "--url", emu.url, "--region", "us-east-1"] + SIDES,
                         e, tmp, timeout=WAIT)
        except subprocess.TimeoutExpired:
            raise sl.Failure("a --resume ran beside the run in its directory")
        want = (f"sm-suite: --resume: the run directory run is in use by another sm-suite "
                f"(pid {proc.pid}); wait for it to end, or stop it\n")
        check(p.returncode == 2 and p.stderr == want and not p.stdout,
              f"exit {p.returncode}\n{p.stderr}\nwant: {want}")
        # a directory another process holds (here this test, as pid 4242 would)
        held = os.path.join(tmp, "held")
        os.makedirs(held)
        with open(os.path.join(held, ".sm-suite.lock"), "w") as f:
            f.write("4242\n")
            f.flush()
            fcntl.flock(f, fcntl.LOCK_EX)
            p = sl.suite(["--out", "held", "--url", emu.url, "--region", "us-east-1"] + SIDES, e,
                         tmp)
        want = ("sm-suite: --out: the run directory held is in use by another sm-suite (pid 4242);"
                " wait for it to end, or stop it\n")
        check(p.returncode == 2 and p.stderr == want, f"exit {p.returncode}\n{p.stderr}")
        check(os.listdir(held) == [".sm-suite.lock"], f"held: {os.listdir(held)}")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=sl.TIMEOUT)
        check(proc.returncode == 130, f"exit {proc.returncode}\n{''.join(seen) + err}")
        m = sl.load(os.path.join(tmp, "run", "manifest.json"))
        check([x["outcome"] for x in m["sessions"]] == ["interrupted"], str(m["sessions"]))
    finally:
        if proc and proc.poll() is None:
            proc.kill()
        emu.stop()


MARKER_SCENARIO = """local f = io.open(%s, "a")
f:write("ran\\n")
f:close()
os.exit(0)
"""


def seal(tmp, data):
    """What an attacker who could read this user's key would write as the seal."""
    with open(os.path.join(tmp, "config", "wrk-sagemaker", "suite-seal.key"), "rb") as f:
        key = f.read()
    return ("wrk-sagemaker-seal 1\nhmac-sha256 %s\n"
            % hmac.new(key, data, hashlib.sha256).hexdigest()).encode()


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def case_resume_guard():
    """--resume runs what the command line names: a manifest changed to name other
    scenarios or another URL is refused (its seal does not match); one sealed anyway (by
    someone with the key) cannot choose them either: the scenario folder, URL, region and
    sides come from the command line and must match what the run used; and the target
    must be given again. Nothing of the attacker's runs or is reached."""
    tmp = sl.tempdir("suite-guard-")
    e = sl.env(tmp)
    emu = sl.start_emulator(ARTICLE_ENDPOINTS + ["--time-scale", "50"], e)
    evil_sock = socket.socket()
    evil_sock.bind(("127.0.0.1", 0))
    evil_sock.listen(8)
    evil_sock.setblocking(False)
    evil_url = "http://127.0.0.1:%d" % evil_sock.getsockname()[1]
    evil, marker = os.path.join(tmp, "evil"), os.path.join(tmp, "evil-ran")
    os.makedirs(evil)
    for name in ("decode", "sweep", "quiz"):
        with open(os.path.join(evil, name + ".lua"), "w") as f:
            f.write(MARKER_SCENARIO % json.dumps(marker))
    real_dir = os.path.realpath(os.path.join(sl.ROOT, "scenarios"))
    target = ["--url", emu.url, "--region", "us-east-1"] + SIDES
    resume = ["--resume", "run"] + target
    try:
        p = sl.suite(target + ["--scenarios", "decode", "--lengths", "16,32", "--repeats", "1",
                               "--time-scale", "50", "--out", "run"], e, tmp)
        check(p.returncode == 0, f"exit {p.returncode}\n{p.stderr}")
        path = os.path.join(tmp, "run", "manifest.json")
        orig, orig_seal = read(path), read(path + ".seal")
        m = json.loads(orig)
        check(m["scenario_dir"] == real_dir and m["url"] == emu.url and
              m["wrk"] == os.path.realpath(e["WRK"]), f"what the manifest records: {m}")

        def attempt(change, sealed, args, want):
            """Changes the manifest, resumes with args: refused with the line want."""
            data = orig
            if change:
                bad = json.loads(orig)
                change(bad)
                data = json.dumps(bad, indent=1).encode()
            write(path, data)
            write(path + ".seal", seal(tmp, data) if sealed else orig_seal)
            p = sl.suite(args, e, tmp)
            check(p.returncode == 2 and p.stderr == "sm-suite: " + want + "\n" and not p.stdout,
                  f"exit {p.returncode}\n{p.stderr}\nwant: sm-suite: {want}")

        def other_dir(bad):
            bad["options"] += ["--scenario-dir", evil]
            bad["scenario_dir"] = evil

        def other_url(bad):
            bad["options"][bad["options"].index("--url") + 1] = evil_url
            bad["url"] = evil_url

        changed = ("--resume: run/manifest.json was changed since sm-suite wrote it, or written "
                   "by another user or on another machine (its seal does not match, "
                   "run/manifest.json.seal): refusing to run what it says")
        attempt(other_dir, False, resume, changed)
        attempt(other_url, False, resume, changed)
        again = ("sm-suite --resume run --url %s --region us-east-1 --baseline gemma-4-e2b=bf16 "
                 "--candidate gemma-4-e2b-qat=qat" % emu.url)
        attempt(other_dir, True, resume,
                f"--resume run: the run used the scenarios of --scenario-dir {evil}, this command "
                f"{real_dir} (run/manifest.json): resume with the run's own, {again} "
                f"--scenario-dir {evil}, or start a new run with --out")
        attempt(other_url, True, resume,
                f"--resume run: the run used --url {evil_url}, this command {emu.url} "
                f"(run/manifest.json): resume with the run's own, {again.replace(emu.url, evil_url)}"
                ", or start a new run with --out")
        # unchanged, but this command names another target, or none
        attempt(None, False, ["--resume", "run", "--url", evil_url, "--region",
                                           "us-east-1"] + SIDES,
                f"--resume run: the run used --url {emu.url}, this command {evil_url} "
                f"(run/manifest.json): resume with the run's own, {again}, or start a new run "
                "with --out")
        attempt(None, False, ["--resume", "run", "--url", emu.url, "--region",
                                           "us-east-1", "--baseline", "gemma-4-e2b",
                                           "--candidate", "gemma-4-e2b-qat=qat"],
                f"--resume run: the run measured the baseline gemma-4-e2b labelled bf16, this "
                f"command gemma-4-e2b (run/manifest.json): resume with the run's own, {again}, "
                "or start a new run with --out")
        for given in ([], ["--region", "us-east-1", "--url", emu.url]):
            attempt(None, False, ["--resume", "run"] + given,
                    f"--resume run: give the run's target again, as run/manifest.json says: "
                    f"{again}")
        check(not os.path.exists(marker), "the attacker's scenario ran")
        try:
            evil_sock.accept()[0].close()
            raise sl.Failure("a request went to the attacker's URL")
        except BlockingIOError:
            pass
        # a sealed manifest whose saved options name another folder: the option is not taken
        def dir_option(bad):
            bad["options"] += ["--scenario-dir", evil]
        bad = json.loads(orig)
        dir_option(bad)
        data = json.dumps(bad, indent=1).encode()
        write(path, data)
        write(path + ".seal", seal(tmp, data))
        p = sl.suite(resume, e, tmp)
        check(p.returncode == 0 and "1 step, 1 complete already" in p.stderr,
              f"exit {p.returncode}\n{p.stderr}")
        check(not os.path.exists(marker), "the attacker's scenario ran")
        m = sl.load(path)
        check("--scenario-dir" not in m["options"] and m["scenario_dir"] == real_dir,
              str(m["options"]))
        sl.check_no_secrets([("stderr", p.stderr), os.path.join(tmp, "run")])
    finally:
        evil_sock.close()
        emu.stop()


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    sys.exit(sl.run_cases(CASES, sys.argv[1:]))
