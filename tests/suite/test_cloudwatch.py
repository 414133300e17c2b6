#!/usr/bin/python3
"""sm-suite and sm-compare with CloudWatch, against sm-emulator (issue 22).

    test_cloudwatch.py CASE...     (CASE: see CASES at the bottom; "all" runs every one)

fetch     with no flag sm-suite fetches each side's log and metrics per step into
          OUT/LABEL/cloudwatch/; the report has the CloudWatch rows of both sides,
          agreeing with the client, and the container facts from CloudWatch; Debian's
          aws CLI, asked the same windows and queries, prints what sm-suite saved,
          and sm-compare reads the CLI's files as it reads sm-suite's
lose      the emulator loses requests after counting them (fault lose): the
          candidate's rows and a warning say so, the baseline's do not
off       --no-cloudwatch fetches nothing and the report has no CloudWatch rows
denied    CloudWatch refuses both actions: one warning each, naming
          logs:FilterLogEvents and cloudwatch:GetMetricData, and the run succeeds

Environment: see suitelib.py."""
import glob
import json
import os
import shutil
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import suitelib as sl
from suitelib import check

ENDPOINTS = ["--endpoint", "gemma-4-e2b=bf16-l4", "--endpoint", "gemma-4-e2b-qat=qat-l4",
             "--region", "us-east-2", "--time-scale", "20"]
SMALL = ["--region", "us-east-2", "--time-scale", "20", "--baseline", "gemma-4-e2b=bf16",
         "--candidate", "gemma-4-e2b-qat=qat", "--scenarios", "decode,sweep", "--levels", "1,4",
         "--repeats", "2", "--lengths", "16,64", "--sweep-max-tokens", "32", "--batches", "2",
         "--out", "run"]
STEPS = ["decode", "sweep-c1", "sweep-c4"]


def run_suite(tmp, e, emu_args, extra=()):
    emu = sl.start_emulator(ENDPOINTS + list(emu_args), e)
    try:
        p = sl.suite(["--url", emu.url] + SMALL + list(extra), e, tmp)
        return p, emu.url, emu
    except Exception:
        emu.stop()
        raise


def cloudwatch_rows(run):
    return sl.load(os.path.join(run, "report.json")).get("cloudwatch", [])


def aws_cli():
    return "/usr/bin/aws" if os.path.exists("/usr/bin/aws") else shutil.which("aws")


def cli(e, url, *words):
    env = dict(e, AWS_DEFAULT_REGION="us-east-2", AWS_PAGER="")
    p = subprocess.run([aws_cli(), "--endpoint-url", url, "--output", "json"] + list(words),
                       env=env, capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, f"aws {' '.join(words[:2])}: {p.stderr}")
    return json.loads(p.stdout)


def iso(t):
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % int(t * 1000 % 1000)


def window(run, label, step):
    """The step's window as sm-suite asks for it: the result file's started_at to ended_at."""
    import datetime
    res = sl.load(os.path.join(run, label, step + ".json"))
    return [datetime.datetime.fromisoformat(res[k].replace("Z", "+00:00")).timestamp()
            for k in ("started_at", "ended_at")]


def check_cli_same(run, e, url, label, endpoint, tmp):
    """The aws CLI, asked what sm-suite asked, prints what sm-suite saved; returns a side
    folder made of the CLI's files."""
    side = os.path.join(tmp, "cli-" + label)
    os.makedirs(os.path.join(side, "cloudwatch"))
    for step in STEPS:
        shutil.copy(os.path.join(run, label, step + ".json"), side)
        t0, t1 = window(run, label, step)
        got = cli(e, url, "logs", "filter-log-events", "--log-group-name",
                  "/aws/sagemaker/Endpoints/" + endpoint, "--start-time", str(int(t0 * 1000)),
                  "--end-time", str(int(t1 * 1000) + 1))
        saved = sl.load(os.path.join(run, label, "cloudwatch", step + ".logs.json"))
        check([(x["timestamp"], x["message"], x["eventId"]) for x in got["events"]] ==
              [(x["timestamp"], x["message"], x["eventId"]) for x in saved["events"]] and
              saved["events"], f"{label} {step}: the CLI's log events are sm-suite's")
        with open(os.path.join(side, "cloudwatch", step + ".logs.json"), "w") as f:
            json.dump(got, f)
        got = cli(e, url, "cloudwatch", "get-metric-data", "--metric-data-queries",
                  "file://" + os.path.join(run, label, "cloudwatch", "queries.json"),
                  "--start-time", iso(t0), "--end-time", iso(t1 + 0.001))
        saved = sl.load(os.path.join(run, label, "cloudwatch", step + ".metrics.json"))
        mine = {r["Id"]: sorted(zip(r["Timestamps"], r["Values"]))
                for r in saved["MetricDataResults"]}
        theirs = {r["Id"]: sorted(zip(r["Timestamps"], r["Values"]))
                  for r in got["MetricDataResults"]}
        check(mine == theirs and mine["invocations"], f"{label} {step}: the CLI's metrics are "
              f"sm-suite's:\n{mine}\n{theirs}")
        with open(os.path.join(side, "cloudwatch", step + ".metrics.json"), "w") as f:
            json.dump(got, f)
    return side


def case_fetch():
    tmp = sl.tempdir("suite-cw-")
    e = sl.env(tmp)
    p, url, emu = run_suite(tmp, e, [])
    try:
        check(p.returncode == 0, f"exit {p.returncode}\n{p.stderr}")
        run = os.path.join(tmp, "run")
        for label in ("bf16", "qat"):
            names = sorted(os.listdir(os.path.join(run, label, "cloudwatch")))
            want = sorted([s + ".logs.json" for s in STEPS] + [s + ".metrics.json" for s in STEPS]
                          + ["startup.logs.json", "queries.json"])
            check(names == want, f"{label}/cloudwatch: {names}")
            check(f"sm-suite: CloudWatch: {label} (" in p.stderr, f"{label}: no fetch line")
        rows = cloudwatch_rows(run)
        check(sorted((r["side"], os.path.basename(r["file"])) for r in rows) ==
              sorted((s, f + ".json") for s in ("baseline", "candidate") for f in STEPS),
              f"a row per side and step: {rows}")
        for r in rows:
            check("no_cross_check" not in r and not r["requests_differ"] and
                  not r["answered_differ"], f"{r['side']} {r['file']}: {r}")
            check(r["client_requests"]["low"] <= r["invocations"] <= r["client_requests"]["high"],
                  f"invocations in range: {r}")
            check(r["model_latency_ms"] > 0 and r["overhead_latency_ms"] > 0 and
                  r["client_latency_ms"] >= r["model_latency_ms"] and
                  0 <= r["gpu_utilization"] <= 100, f"latency and GPU: {r}")
        with open(os.path.join(run, "report.txt")) as f:
            text = f.read()
        check("CloudWatch cross-check (server side)" in text and "\nbf16  decode.json" in text and
              "\nqat   sweep-c4.json" in text, "the report's CloudWatch rows")
        check("facts from run/bf16/cloudwatch (CloudWatch Logs" in text, "facts from CloudWatch")
        rep = sl.load(os.path.join(run, "report.json"))
        check(rep["rows"]["weights_gib"][:2] == [9.75, 8.01], "the facts, with no --facts-*")
        check(not [w for w in rep["warnings"] if "CloudWatch" in w], "no CloudWatch warning")
        if aws_cli():
            sides = [check_cli_same(run, e, url, label, ep, tmp)
                     for label, ep in (("bf16", "gemma-4-e2b"), ("qat", "gemma-4-e2b-qat"))]
            out = os.path.join(tmp, "cli.json")
            q = subprocess.run([os.environ["SM_COMPARE"], "--format", "json", "--output", out]
                               + sides, env=e, capture_output=True, text=True)
            check(q.returncode == 0, f"sm-compare on the CLI's files: {q.stderr}")
            theirs = sl.load(out).get("cloudwatch", [])
            keys = ("invocations", "client_requests", "answered", "model_latency_ms",
                    "gpu_utilization")
            check([[r[k] for k in keys] for r in theirs] == [[r[k] for k in keys] for r in rows],
                  "sm-compare reads the CLI's files as sm-suite's")
        else:
            print("note: no aws command: the CLI comparison is skipped")
        sl.check_no_secrets([("stdout", p.stdout), ("stderr", p.stderr), run])
    finally:
        emu.stop()


def case_lose():
    tmp = sl.tempdir("suite-cw-lose-")
    e = sl.env(tmp)
    p, _, emu = run_suite(tmp, e, ["--set", "gemma-4-e2b-qat.fault.lose=every:5"])
    try:
        check(p.returncode == 0, f"exit {p.returncode}\n{p.stderr}")
        run = os.path.join(tmp, "run")
        rows = cloudwatch_rows(run)
        cand = [r for r in rows if r["side"] == "candidate"]
        base = [r for r in rows if r["side"] == "baseline"]
        check(any(r["answered_differ"] for r in cand), f"the candidate's rows: {cand}")
        check(not any(r["answered_differ"] or r["requests_differ"] for r in base),
              f"the baseline's rows: {base}")
        lost = [w for w in sl.load(os.path.join(run, "report.json"))["warnings"]
                if "requests lost between SageMaker and the client" in w]
        check(lost and all(w.startswith("candidate run/qat/") for w in lost), f"warnings: {lost}")
        with open(os.path.join(run, "report.txt")) as f:
            check(" !" in f.read().split("CloudWatch cross-check")[1], "the ! mark")
    finally:
        emu.stop()


def case_off():
    tmp = sl.tempdir("suite-cw-off-")
    e = sl.env(tmp)
    p, _, emu = run_suite(tmp, e, [], ["--no-cloudwatch"])
    try:
        check(p.returncode == 0, f"exit {p.returncode}\n{p.stderr}")
        run = os.path.join(tmp, "run")
        check(not glob.glob(os.path.join(run, "*", "cloudwatch")), "a cloudwatch folder")
        check("cloudwatch" not in sl.load(os.path.join(run, "report.json")), "CloudWatch rows")
        check("CloudWatch" not in p.stderr, "CloudWatch lines")
    finally:
        emu.stop()


class Denied(BaseHTTPRequestHandler):
    """Every AWS JSON call refused as AWS refuses an action the policy lacks."""
    protocol_version = "HTTP/1.1"
    targets = []

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        target = self.headers.get("X-Amz-Target", "")
        Denied.targets.append(target)
        action = {"Logs_20140328": "logs", "SageMaker": "sagemaker"}.get(
            target.partition(".")[0], "cloudwatch") + ":" + target.partition(".")[2]
        body = json.dumps({"__type": "AccessDeniedException", "message": "User: arn:aws:iam::1:"
                           "user/u is not authorized to perform: " + action}).encode()
        self.send_response(400)
        self.send_header("Content-Type", "application/x-amz-json-1.1")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def case_denied():
    tmp = sl.tempdir("suite-cw-denied-")
    e = sl.env(tmp)
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Denied)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    stub = "http://127.0.0.1:%d" % srv.server_address[1]
    p, _, emu = run_suite(tmp, e, [], ["--endpoint-url", stub, "--no-endpoint-check"])
    try:
        check(p.returncode == 0, f"exit {p.returncode}\n{p.stderr}")
        warned = [line for line in p.stderr.splitlines() if line.startswith("sm-suite: warning: "
                                                                             "CloudWatch")]
        check(len(warned) == 2 and "no permission for logs:FilterLogEvents "
              "(AccessDeniedException)" in warned[0] and "no permission for "
              "cloudwatch:GetMetricData (AccessDeniedException)" in warned[1],
              f"one warning per action: {warned}")
        calls = [t for t in Denied.targets if not t.startswith("SageMaker.")]
        check(calls == ["Logs_20140328.FilterLogEvents", "GraniteServiceVersion20100801.GetMetricData"],
              f"nothing asked again once refused: {Denied.targets}")
        check("cloudwatch" not in sl.load(os.path.join(tmp, "run", "report.json")), "no rows")
    finally:
        emu.stop()
        srv.shutdown()


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    sys.exit(sl.run_cases(CASES, sys.argv[1:]))
