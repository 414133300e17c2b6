"""Start, query and stop sm-emulator from Python tests (stdlib only).

    import emulator
    with emulator.Emulator(["--endpoint", "ep=instant", "--time-scale", "20"]) as emu:
        emu.url                      # "http://127.0.0.1:41234" (first stdout line)
        emu.stats()                  # GET /emulator/stats as a dict
    # stopped here (SIGTERM, then wait; SIGKILL after 10 s); a non-zero exit (a crash,
    # a sanitizer report) raises RuntimeError

    url = emu.start(); emu.stop()    # the same without a with-block
    cert, key = emulator.make_cert(tmpdir)   # a self-signed pair for 127.0.0.1 (openssl CLI)

The binary is $SM_EMULATOR, else the first of build*/emulator/sm-emulator under the
project root. --listen 127.0.0.1:0 is added unless the arguments have --listen.
The emulator's stderr goes to this process's stderr unless stderr= is given; in that
default case it is also searched for the secrets the emulator was given (from the
environment, --credential and --bearer-token): a leak makes stop() raise, in every
test that uses this.
CLI: python3 emulator.py ARGS... starts one, prints its URL and waits for Ctrl-C.
"""
import glob
import json
import os
import select
import subprocess
import sys
import tempfile
import urllib.request

import secretscan

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def find_binary():
    """The sm-emulator to run: $SM_EMULATOR or the newest build*/emulator/sm-emulator."""
    if os.environ.get("SM_EMULATOR"):
        return os.environ["SM_EMULATOR"]
    found = glob.glob(os.path.join(ROOT, "build*", "emulator", "sm-emulator"))
    if not found:
        raise RuntimeError("sm-emulator not found: build it or set SM_EMULATOR")
    return max(found, key=os.path.getmtime)


class Emulator:
    """One sm-emulator process; a context manager that stops it on exit."""

    def __init__(self, args=(), binary=None, env=None, stderr=None, timeout=15, preexec_fn=None):
        self.args = list(args)
        self.preexec_fn = preexec_fn  # run in the child before exec (e.g. to lower a limit)
        self.binary = binary or find_binary()
        self.env = env
        self.stderr = stderr
        self.timeout = timeout
        self.proc = None
        self.url = None
        self.captured = None

    def start(self):
        """Starts the process and returns the URL it printed first."""
        args = self.args if "--listen" in self.args else ["--listen", "127.0.0.1:0"] + self.args
        stderr = self.stderr
        if stderr is None:
            self.captured = stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([self.binary] + args, stdout=subprocess.PIPE,
                                     stderr=stderr, env=self.env, preexec_fn=self.preexec_fn)
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
        line = self.proc.stdout.readline().decode().strip() if ready else ""
        if not line.startswith(("http://", "https://")):
            self.stop()
            raise RuntimeError("sm-emulator did not start (exit %s)" % self.proc.returncode)
        self.url = line
        return self.url

    def stop(self):
        """Stops the process (SIGTERM, then SIGKILL after 10 s); returns its exit code."""
        if not self.proc:
            return None
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        self._check_captured()
        return self.proc.returncode

    def _secrets(self):
        """The secret keys and tokens this emulator was given (those long enough to
        search for: a test's short made-up key would match by chance)."""
        env = self.env if self.env is not None else os.environ
        found = [env.get("AWS_SECRET_ACCESS_KEY"), env.get("AWS_SESSION_TOKEN")]
        for flag, value in zip(self.args, self.args[1:]):
            if flag == "--credential":
                found += value.split("@")[0].split(":")[1:3]
            if flag == "--bearer-token":
                found.append(value)
        return [s for s in found if s and len(s) >= secretscan.PREFIX]

    def _check_captured(self):
        """Echoes the captured stderr and raises if it holds a secret."""
        if not self.captured:
            return
        self.captured.seek(0)
        text = self.captured.read().decode("utf-8", "replace")
        self.captured.close()
        self.captured = None
        sys.stderr.write(text)
        found = secretscan.scan(self._secrets(), [("sm-emulator stderr", text)])
        if found:
            raise RuntimeError("sm-emulator leaked a secret: " + secretscan.describe(found))

    def stats(self):
        """GET /emulator/stats as a dict (over TLS without checking the certificate)."""
        import ssl
        ctx = ssl._create_unverified_context() if self.url.startswith("https") else None
        with urllib.request.urlopen(self.url + "/emulator/stats", timeout=60, context=ctx) as r:
            return json.load(r)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc, tb):
        code = self.stop()
        if code != 0 and exc_type is None:
            raise RuntimeError("sm-emulator exited with status %s" % code)


def make_cert(directory):
    """Writes a self-signed cert.pem/key.pem for 127.0.0.1 and localhost into directory."""
    cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj",
                    "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                    "-keyout", key, "-out", cert], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return cert, key


if __name__ == "__main__":
    with Emulator(sys.argv[1:]) as emu:
        print(emu.url, flush=True)
        try:
            emu.proc.wait()
        except KeyboardInterrupt:
            pass
