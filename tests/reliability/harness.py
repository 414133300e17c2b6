"""What every reliability test shares: fresh random credentials, an sm-emulator that
logs every request (--request-log), Debian's wrk running a scenario, the result files,
journals and sm-compare reports of the run, the accounting of records against what
the emulator served, and the secret scan of everything a run wrote.

Environment (set by CMake): WRK, SM_EMULATOR, SM_COMPARE, SM_PLUGIN_PATH, optionally
WRK_PRELOAD (the sanitizer runtime wrk must load first in a sanitized build)."""
import collections
import json
import os
import random
import shutil
import string
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import emulator  # noqa: E402
import secretscan  # noqa: E402
import testkit  # noqa: E402
from testkit import Failure, check, isolated_env, wait_for  # noqa: E402, F401

SCENARIOS = os.path.join(ROOT, "scenarios")
QUIZ = os.path.join(SCENARIOS, "quiz-compare-py-40.json")
TIMEOUT = 120


def _after_case(failed):
    for w in Work.alive:
        if failed:
            print("  kept for a look: %s" % w.root)
        w.kill_processes()
    Work.alive.clear()


def run_cases(cases, argv):
    """Runs the named cases (argv[1:]); exit status 0 when all pass."""
    return testkit.run_cases(cases, argv, _after_case)


def _random(n, alphabet=string.ascii_letters + string.digits + "/+"):
    rng = random.SystemRandom()
    return "".join(rng.choice(alphabet) for _ in range(n))


class Keys:
    """One set of temporary credentials, random per test, so that a hit in a
    scan can only be a leak."""

    def __init__(self, expiration=None):
        self.akid = "ASIA" + _random(16, string.ascii_uppercase + string.digits)
        self.secret = _random(40)
        self.token = "IQo" + _random(77)
        self.expiration = expiration  # Unix seconds the emulator stops accepting them

    def emulator_entry(self):
        e = {"access_key_id": self.akid, "secret_access_key": self.secret,
             "session_token": self.token}
        if self.expiration:
            e["expiration"] = self.expiration
        return e

    def env(self):
        return {"AWS_ACCESS_KEY_ID": self.akid, "AWS_SECRET_ACCESS_KEY": self.secret,
                "AWS_SESSION_TOKEN": self.token}


class Work:
    """A test's folder: inputs/ (credentials the test hands out: never scanned) and
    out/ (everything the programs under test wrote: always scanned). A test that
    passes removes it; one that fails keeps it and says where."""

    alive = []

    def __init__(self, name):
        self.root = tempfile.mkdtemp(prefix="rel-%s-" % name)
        self.inputs = os.path.join(self.root, "inputs")
        self.out = os.path.join(self.root, "out")
        os.makedirs(self.inputs)
        os.makedirs(self.out)
        self.keys = []  # every Keys handed out: their secrets must never show in out/
        self.processes = []  # every program the test started in the background
        Work.alive.append(self)

    def path(self, *parts):
        return os.path.join(self.out, *parts)

    def new_keys(self, expiration=None):
        k = Keys(expiration)
        self.keys.append(k)
        return k

    def secrets(self):
        return [s for k in self.keys for s in (k.secret, k.token)]

    def scan(self, extra=(), headers_ok=()):
        """Fails when any secret, or a request's Authorization, is in out/ or extra;
        the files of out/ named in headers_ok may show request headers."""
        sources = []
        for name in sorted(os.listdir(self.out)):
            path = self.path(name)
            if name in headers_ok:
                sources.append((path, read(path), False))
            else:
                sources.append(path)
        found = secretscan.scan(self.secrets(), sources + list(extra))
        check(not found, "secrets or request headers leaked:\n" + secretscan.describe(found))

    def kill_processes(self):
        """Kills what a failed test left running (by pid, each its own)."""
        for p in self.processes:
            if p.poll() is None:
                p.kill()
                p.wait()

    def clean(self):
        shutil.rmtree(self.root, ignore_errors=True)
        Work.alive.remove(self)


def base_env():
    """The environment with no AWS settings of the caller's."""
    return isolated_env()


class Emu:
    """sm-emulator accepting exactly the given keys (--credentials-file, never the
    environment), with its request log, vLLM logs and stderr in out/."""

    def __init__(self, work, args, keys, valgrind=None):
        self.work = work
        creds = os.path.join(work.inputs, "emulator-credentials.json")
        with open(creds, "w") as f:
            json.dump({"credentials": [k.emulator_entry() for k in keys]}, f)
        self.request_log = work.path("emulator-requests.jsonl")
        self.stderr = open(work.path("emulator.stderr"), "w")
        full = ["--no-env-credentials", "--credentials-file", creds, "--request-log",
                self.request_log, "--log-file", work.path("emulator-{endpoint}-{variant}.log")]
        binary = os.environ["SM_EMULATOR"]
        if valgrind:  # valgrind's options, then the emulator's (--listen included)
            full = valgrind[1:] + [binary, "--listen", "127.0.0.1:0"] + full
            binary = valgrind[0]
        self.emu = emulator.Emulator(full + list(args), binary=binary, env=base_env(),
                                     stderr=self.stderr, timeout=60)
        self.url = self.emu.start()
        self.proc = self.emu.proc
        work.processes.append(self.proc)

    def stats(self):
        return self.emu.stats()

    def requests(self):
        """The request log's complete lines, as dicts."""
        with open(self.request_log, errors="replace") as f:
            return [json.loads(line) for line in f if line.endswith("\n")]

    def stop(self):
        code = self.emu.stop()
        self.stderr.close()
        check(code == 0, "sm-emulator exited %s:\n%s" % (code, read(self.stderr.name)))


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


class Wrk:
    """One wrk run of a scenario, in the background; stdout and stderr go to out/."""

    def __init__(self, work, scenario, url, args, threads=1, duration="5m", env=None, tag=None,
                 wrapper=()):
        self.work, self.scenario = work, scenario
        self.tag = tag or scenario
        self.pattern = work.path("%s-{label}.json" % self.tag)
        cmd = list(wrapper) + [os.environ["WRK"], "-t%d" % threads, "-c%d" % threads,
                               "-d" + duration, "--timeout", "60s", "-s",
                               os.path.join(SCENARIOS, scenario + ".lua"), url, "--"]
        cmd += list(args) + ["--region", "us-east-1", "--out", self.pattern]
        e = base_env()
        e.update(env or {})
        e["SM_PLUGIN_PATH"] = os.environ["SM_PLUGIN_PATH"]
        if os.environ.get("WRK_PRELOAD") and not wrapper:
            e["LD_PRELOAD"] = os.environ["WRK_PRELOAD"]
            e["ASAN_OPTIONS"] = "detect_leaks=0"
        self.stdout_path = work.path("%s.stdout" % self.tag)
        self.stderr_path = work.path("%s.stderr" % self.tag)
        with open(self.stdout_path, "w") as out, open(self.stderr_path, "w") as err:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=e)
        work.processes.append(self.proc)
        self.rc = None

    def wait(self, timeout=TIMEOUT):
        try:
            self.rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise Failure("wrk did not finish within %d s:\n%s" % (timeout, self.stderr()))
        return self.rc

    def stderr(self):
        return read(self.stderr_path)

    def result_path(self, label):
        return self.pattern.replace("{label}", label)

    def journal_path(self, label):
        return self.result_path(label)[:-len(".json")] + ".journal.jsonl"

    def result(self, label):
        with open(self.result_path(label)) as f:
            return json.load(f)

    def journal(self, label):
        """(header, complete records) of label's journal."""
        with open(self.journal_path(label)) as f:
            lines = [line for line in f if line.endswith("\n")]
        return json.loads(lines[0]), [json.loads(line) for line in lines[1:]]

    def journal_lines(self, label):
        try:
            with open(self.journal_path(label)) as f:
                return max(0, sum(1 for line in f if line.endswith("\n")) - 1)
        except FileNotFoundError:
            return 0


def wrk_run(work, scenario, url, args, **kw):
    """Runs wrk to its end and returns the Wrk."""
    w = Wrk(work, scenario, url, args, **kw)
    w.wait()
    return w


def compare(work, baseline, candidate, name, expect_rc=0):
    """Runs sm-compare on the paths of each side (JSON and text reports into out/);
    returns (the JSON report, the text report)."""
    reports = {}
    sides = [a for p in baseline for a in ("-b", p)] + [a for p in candidate for a in ("-c", p)]
    for fmt in ("json", "text"):
        out = work.path("%s.%s" % (name, "json" if fmt == "json" else "txt"))
        p = subprocess.run([os.environ["SM_COMPARE"], "-f", fmt, "-o", out] + sides,
                           capture_output=True, text=True, timeout=TIMEOUT)
        with open(work.path("%s.%s.stderr" % (name, fmt)), "w") as f:
            f.write(p.stderr)
        check(p.returncode == expect_rc, "sm-compare %s exited %d, want %d:\n%s"
              % (name, p.returncode, expect_rc, p.stderr))
        reports[fmt] = out
    with open(reports["json"]) as f:
        return json.load(f), read(reports["text"])


# ------------------------------------------------------------ accounting

def quiz_ids():
    """The quiz's prompt -> question id."""
    with open(QUIZ) as f:
        return {q["prompt"]: q["id"] for q in json.load(f)["questions"]}


def record_key(r, quiz):
    """What a record says about the request it recorded."""
    code = r["error"]["code"] if isinstance(r.get("error"), dict) else r.get("error")
    tokens = r["completion_tokens"] if r["status"] // 100 == 2 and code != "parse" else None
    return (r["endpoint"], r.get("question") if quiz else None, r["status"], code, tokens)


def served_key(e, prompts):
    """What a request-log line says the record of that request must say."""
    if e["status"] == 0:
        code = "socket"
    elif e["fault"] == "truncate":
        code = "parse"
    elif e["status"] // 100 == 2:
        code = None
    else:
        code = e["error_type"]
    return (e["endpoint"], prompts.get(e["prompt"]) if prompts else None, e["status"], code,
            e["completion_tokens"] if code is None else None)


def served(entries):
    """The log's lines of requests to an endpoint."""
    return [e for e in entries if e["endpoint"] is not None]


def check_one_to_one(records, entries, quiz=False, ignore_codes=("token_mismatch",)):
    """Every record is one request the emulator served and every served request has
    exactly one record: equal multisets of (endpoint, question, status, error code,
    tokens). A record of a successful reply that the scenario rejected itself
    (token_mismatch) keeps the reply's status and tokens, so its code is not compared."""
    prompts = quiz_ids() if quiz else None

    def norm(k):
        return k[:3] + ((None,) + k[4:] if k[3] in ignore_codes else k[3:])

    got = collections.Counter(norm(record_key(r, quiz)) for r in records)
    want = collections.Counter(norm(served_key(e, prompts)) for e in entries)
    extra, missing = got - want, want - got
    check(not extra and not missing,
          "records and served requests differ:\n  recorded, not served: %s\n  served, not "
          "recorded: %s" % (dict(extra), dict(missing)))
    if quiz:
        check_quiz_times(records, entries, prompts)


def check_quiz_times(records, entries, prompts, slack_us=2000):
    """Quiz: each (endpoint, question) is one request; the emulator received it
    between the record's start and end (the same wall clock)."""
    by_question = {(e["endpoint"], prompts[e["prompt"]]): e for e in entries}
    check(len(by_question) == len(entries), "a question was asked twice")
    for r in records:
        e = by_question[(r["endpoint"], r["question"])]
        start = r["wall_start_us"]
        end = start + r["t_end_us"] - r["t_start_us"]
        got = e["received"] * 1e6
        check(start - slack_us <= got <= end + slack_us,
              "%s/%s: received at %.0f, outside the record's %d..%d"
              % (r["endpoint"], r["question"], got, start, end))


def check_counts(result):
    """The result file's counts agree with its records."""
    c, recs = result["counts"], result["records"]
    check(c["sent"] == len(recs) == c["ok"] + c["failed"], "%s: counts %s, %d records"
          % (result["label"], c, len(recs)))
    check(c["ok"] == sum(1 for r in recs if r["ok"]), "%s: counts.ok" % result["label"])
    errors = collections.Counter(r["error"]["code"] for r in recs if not r["ok"])
    check(dict(errors) == c["errors"], "%s: counts.errors %s, records say %s"
          % (result["label"], c["errors"], dict(errors)))
    for r in recs:
        check((r["error"] is None) == r["ok"], "ok and error disagree: %s" % r)


def check_stats(records, entries, st):
    """The emulator's own counts agree with its request log and with the records."""
    eps = st["endpoints"]
    for name, e in eps.items():
        mine = [x for x in entries if x["endpoint"] == name]
        check(len(mine) == e["requests"], "%s: %d log lines, the stats say %d requests"
              % (name, len(mine), e["requests"]))
        by_status = collections.Counter(str(x["status"]) for x in mine if x["status"])
        check(dict(by_status) == e["replies"], "%s: log %s, stats %s"
              % (name, dict(by_status), e["replies"]))
        check(sum(1 for x in mine if x["status"] == 0) == e["dropped"], "%s: dropped" % name)
        check(sum(x["completion_tokens"] or 0 for x in mine) == e["completion_tokens"],
              "%s: completion tokens" % name)
        for kind, n in e["faults"].items():
            check(sum(1 for x in mine if x["fault"] == kind) == n, "%s: %s faults" % (name, kind))
    got = sum(r["completion_tokens"] or 0 for r in records)
    want = sum(e["completion_tokens"] for e in eps.values())
    check(got == want, "records hold %d completion tokens, the emulator sent %d" % (got, want))
