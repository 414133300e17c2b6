"""What the sm-suite tests share (stdlib only): the programs of the build under test,
an environment with throw-away credentials, sm-emulator, and the check that no secret
reaches any output or file.

Environment (set by tests/suite/CMakeLists.txt): SM_SUITE, SM_EMULATOR, SM_COMPARE,
SM_PLUGIN_PATH, WRK, SUITE_BUILD (the build directory), and in a
sanitized build WRK_PRELOAD (the sanitizer runtime wrk must load for the plugin)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import emulator  # noqa: E402
import secretscan  # noqa: E402
from testkit import Failure, check, isolated_env, wrk_program  # noqa: E402, F401

AKID = "AKIDSUITETEST"
SECRET = "sUiTeSeCrEt9/K7MDENG+bPxRfiCYSUITEKEY"
TOKEN = "IQoJb3JpZ2luX2VjSUITESESSIONTOKEN+/=="
TIMEOUT = 240


_made = []  # the folders tempdir() made for the case running


def tempdir(prefix):
    """A new folder for the case, removed when it passes (kept when it fails)."""
    path = tempfile.mkdtemp(prefix=prefix)
    _made.append(path)
    return path


def env(tmp, token=True, **extra):
    """The environment of sm-suite and the emulator: the same throw-away credentials
    (with a session token), nothing of the machine's AWS setup, and the key that seals
    manifests under tmp (XDG_CONFIG_HOME), not in the user's home."""
    e = isolated_env(AWS_ACCESS_KEY_ID=AKID, AWS_SECRET_ACCESS_KEY=SECRET, WRK=wrk_program(tmp),
                     XDG_CONFIG_HOME=os.path.join(tmp, "config"))
    if token:
        e["AWS_SESSION_TOKEN"] = TOKEN
    e.update(extra)
    return e


def start_emulator(args, environ):
    emu = emulator.Emulator(list(args), binary=os.environ["SM_EMULATOR"], env=environ)
    emu.start()
    return emu



def suite(args, environ, cwd, timeout=TIMEOUT):
    """Runs sm-suite to its end; returns the CompletedProcess (text)."""
    return subprocess.run([os.environ["SM_SUITE"]] + list(args), env=environ, cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def load(path):
    with open(path) as f:
        return json.load(f)


def check_no_secrets(sources, signatures=True):
    """No secret key or session token (in any form, or their first 12 characters), and
    unless signatures is False no request header or signature, in any (name, text) or
    under any folder given."""
    found = secretscan.scan([SECRET, TOKEN], sources, headers=signatures)
    check(not found, secretscan.describe(found))


def lines(text):
    return [line for line in text.splitlines() if line.strip()]


def run_cases(cases, argv):
    """Runs the cases named in argv ("all": every one); returns the exit status."""
    names = list(cases) if argv == ["all"] else argv
    if not names or any(n not in cases for n in names):
        print(f"usage: CASE... | all   (cases: {', '.join(cases)})")
        return 2
    failed = 0
    for name in names:
        del _made[:]
        try:
            cases[name]()
            print(f"ok {name}")
            for path in _made:
                shutil.rmtree(path, ignore_errors=True)
        except Failure as err:
            failed += 1
            print(f"FAIL {name}: {err}\n(its files: {', '.join(_made)})")
    return 1 if failed else 0
