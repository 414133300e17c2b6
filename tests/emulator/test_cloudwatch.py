#!/usr/bin/python3
"""sm-emulator's CloudWatch Logs and metrics over HTTP, with independent clients.

    test_cloudwatch.py GROUP

sigv4    requests signed by botocore: FilterLogEvents (signing name logs, AWS JSON
         1.1), GetMetricData over AWS JSON 1.0 and over the query protocol (signing
         name monitoring); each refused when signed for another service; the log
         group holds the container's start-up and access lines, the metrics count
         what was served
lose     the lose fault: the client's connection closes with nothing sent, the
         request log says status 0 and fault lose, and CloudWatch counts the
         invocation with no 4xx or 5xx (what the suite's cross-check catches)
latency  ModelLatency is the model's time, not the wall clock's: with no overhead, each
         request's ModelLatency is its x-sm-emulator-service-us exactly (sum, count,
         minimum and maximum), at --time-scale 50, where a timer's late wake-up
         would count 50 times over
awscli   Debian's aws CLI (v2, the query protocol for cloudwatch) unchanged:
         logs filter-log-events (paged by the CLI) and cloudwatch get-metric-data
         give what botocore's JSON requests give
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

from emutest import (AKID, SECRET, amz_now, aws_cli_setup, chat, check, emulator, invoke,
                     request, run_group)

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

GROUP = "/aws/sagemaker/Endpoints/e"
DIMS = [{"Name": "EndpointName", "Value": "e"}, {"Name": "VariantName", "Value": "AllTraffic"}]


def signed(url, body, headers, service):
    req = AWSRequest(method="POST", url=url + "/", data=body, headers=headers)
    req.context["timestamp"] = amz_now()
    SigV4Auth(Credentials(AKID, SECRET), service, "us-east-1").add_auth(req)
    return request(url, "/", body, dict(req.headers.items()))


def logs(url, body, service="logs"):
    r = signed(url, json.dumps(body).encode(), {"X-Amz-Target": "Logs_20140328.FilterLogEvents",
                                                "Content-Type": "application/x-amz-json-1.1"},
               service)
    return r.status, r.json(), r.headers


def query(metric, stat, ns="AWS/SageMaker", qid="q"):
    return {"Id": qid, "MetricStat": {"Metric": {"Namespace": ns, "MetricName": metric,
                                                 "Dimensions": DIMS}, "Period": 60, "Stat": stat}}


def metrics_json(url, queries, start, end, service="monitoring"):
    body = {"MetricDataQueries": queries, "StartTime": start, "EndTime": end}
    r = signed(url, json.dumps(body).encode(),
               {"X-Amz-Target": "GraniteServiceVersion20100801.GetMetricData",
                "Content-Type": "application/x-amz-json-1.0", "x-amzn-query-mode": "true"}, service)
    return r.status, r.json(), r.headers


def total(reply, qid="q"):
    """The sum of a result's values."""
    for res in reply.get("MetricDataResults", []):
        if res["Id"] == qid:
            return sum(res["Values"])
    return None


def window():
    now = time.time()
    return now - 300, now + 120


def test_sigv4():
    with emulator.Emulator(["--endpoint", "e=instant", "--time-scale", "1"]) as emu:
        u = emu.url
        for i in range(3):
            check(invoke(u, "e", chat("hi %d" % i, 4)).status == 200, "invoke %d" % i)
        st, d, h = logs(u, {"logGroupName": GROUP})
        msgs = [e["message"] for e in d.get("events", [])]
        check(st == 200 and h.get("content-type") == "application/x-amz-json-1.1", "logs: %s" % st)
        check(any("Model loading took" in m for m in msgs) and
              sum('"POST /invocations HTTP/1.1" 200' in m for m in msgs) == 3,
              "the start-up lines and three access lines: %s" % msgs)
        check(all(e["logStreamName"] == "AllTraffic/i-emulator" for e in d["events"]), "streams")
        st, d, h = logs(u, {"logGroupName": GROUP}, service="monitoring")
        check(st == 403 and h.get("x-amzn-errortype", "").startswith("InvalidSignatureException"),
              "logs signed for monitoring: %s %s" % (st, d))
        st, d, _ = logs(u, {"logGroupName": "/aws/sagemaker/Endpoints/nope"})
        check(st == 400 and d == {"__type": "ResourceNotFoundException",
                                  "message": "The specified log group does not exist."},
              "no such group: %s" % d)
        start, end = window()
        st, d, h = metrics_json(u, [query("Invocations", "Sum"),
                                    query("ModelLatency", "SampleCount", qid="n")], start, end)
        check(st == 200 and h.get("content-type") == "application/x-amz-json-1.0", "json 1.0: %s" % st)
        check(total(d) == 3 and total(d, "n") == 3, "three invocations, three latencies: %s" % d)
        check(all(isinstance(t, (int, float)) for r in d["MetricDataResults"]
                  for t in r["Timestamps"]), "epoch-second timestamps")
        st, d, _ = metrics_json(u, [query("Invocations", "Sum")], start, end, service="logs")
        check(st == 403, "metrics signed for logs: %s" % st)
        form = urllib.parse.urlencode([
            ("Action", "GetMetricData"), ("Version", "2010-08-01"),
            ("MetricDataQueries.member.1.Id", "q"),
            ("MetricDataQueries.member.1.MetricStat.Metric.Namespace", "AWS/SageMaker"),
            ("MetricDataQueries.member.1.MetricStat.Metric.MetricName", "Invocations"),
            ("MetricDataQueries.member.1.MetricStat.Metric.Dimensions.member.1.Name", "EndpointName"),
            ("MetricDataQueries.member.1.MetricStat.Metric.Dimensions.member.1.Value", "e"),
            ("MetricDataQueries.member.1.MetricStat.Metric.Dimensions.member.2.Name", "VariantName"),
            ("MetricDataQueries.member.1.MetricStat.Metric.Dimensions.member.2.Value", "AllTraffic"),
            ("MetricDataQueries.member.1.MetricStat.Period", "60"),
            ("MetricDataQueries.member.1.MetricStat.Stat", "Sum"),
            ("StartTime", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start))),
            ("EndTime", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(end)))]).encode()
        r = signed(u, form, {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"},
                   "monitoring")
        body = r.body.decode()
        check(r.status == 200 and r.headers.get("content-type") == "text/xml" and
              body.startswith("<GetMetricDataResponse xmlns=") and "<Id>q</Id>" in body,
              "the query protocol: %s %s" % (r.status, body[:300]))
        values = body.split("<Values>")[1].split("</Values>")[0]
        check(sum(float(v) for v in values.replace("<member>", " ").replace("</member>", " ").split())
              == 3, "three invocations in XML: %s" % values)
        r = signed(u, form, {"Content-Type": "application/x-www-form-urlencoded"}, "logs")
        check(r.status == 403, "a form post signed for logs: %s" % r.status)


def test_lose():
    tmp = tempfile.mkdtemp()
    rlog = os.path.join(tmp, "requests.jsonl")
    try:
        args = ["--endpoint", "e=instant", "--set", "e.fault.lose=every:2", "--request-log", rlog]
        with emulator.Emulator(args) as emu:
            u = emu.url
            got = []
            for i in range(4):
                try:
                    got.append(invoke(u, "e", chat("hi %d" % i, 4)).status)
                except (ConnectionError, OSError) as err:  # http.client: closed with nothing
                    got.append(type(err).__name__)
            check(got[0] == 200 and got[2] == 200 and got[1] == got[3] == "RemoteDisconnected",
                  "every second request lost: %s" % got)
            start, end = window()
            st, d, _ = metrics_json(u, [query("Invocations", "Sum"),
                                        query("Invocation4XXErrors", "Sum", qid="e4"),
                                        query("Invocation5XXErrors", "Sum", qid="e5"),
                                        query("ModelLatency", "SampleCount", qid="n")], start, end)
            check(total(d) == 4 and total(d, "e4") == 0 and total(d, "e5") == 0 and
                  total(d, "n") == 2, "four invocations, no errors, two answered: %s" % d)
            st, d, _ = logs(u, {"logGroupName": GROUP, "filterPattern": "POST"})
            check(len(d["events"]) == 2, "the container saw two: %s" % d)
            stats = emu.stats()["endpoints"]["e"]
            check(stats["faults"]["lose"] == 2 and stats["dropped"] == 2, "stats: %s" % stats)
        with open(rlog) as f:
            entries = [json.loads(line) for line in f]
        lost = [e for e in entries if e["fault"] == "lose"]
        check(len(lost) == 2 and all(e["status"] == 0 and e["endpoint"] == "e" for e in lost),
              "the request log: %s" % entries)
    finally:
        shutil.rmtree(tmp)


def test_awscli():
    found = aws_cli_setup()  # None: skipped
    if not found:
        return 77
    aws, env = found
    tmp = tempfile.mkdtemp()
    try:
        # 30-second periods: at most one begins while the CLI runs, so its answer is that of
        # botocore's request just before or just after it
        with emulator.Emulator(["--endpoint", "e=bf16-l4", "--time-scale", "2"]) as emu:
            u = emu.url
            for i in range(3):
                check(invoke(u, "e", chat("hi %d" % i, 8)).status == 200, "invoke %d" % i)

            def run(*words):
                p = subprocess.run([aws, "--endpoint-url", u, "--output", "json"] + list(words),
                                   capture_output=True, env=env, timeout=60)
                return p.returncode, p.stdout.decode(), p.stderr.decode()
            # the CLI pages with --page-size 2 and merges the pages
            rc, out, err = run("logs", "filter-log-events", "--log-group-name", GROUP,
                               "--page-size", "2")
            check(rc == 0, "filter-log-events: %s" % err)
            cli = json.loads(out)["events"] if rc == 0 else []
            st, d, _ = logs(u, {"logGroupName": GROUP})
            # botocore's request comes after the CLI's: the container's periodic lines may
            # have added events since, never changed those the CLI got (they come in order)
            mine = [e["message"] for e in d["events"]]
            check([e["message"] for e in cli] == mine[:len(cli)] and len(cli) >= 11,
                  "the same events as botocore's request: %d %d" % (len(cli), len(mine)))
            start, end = window()
            queries = [query("Invocations", "Sum"), query("ModelLatency", "Average", qid="lat"),
                       query("GPUUtilization", "Average", "/aws/sagemaker/Endpoints", "gpu")]
            qfile = os.path.join(tmp, "queries.json")
            with open(qfile, "w") as f:
                json.dump(queries, f)
            iso = [time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t)) for t in (start, end)]
            before = metrics_json(u, queries, int(start), int(end))[1]
            rc, out, err = run("cloudwatch", "get-metric-data", "--metric-data-queries",
                               "file://" + qfile, "--start-time", iso[0], "--end-time", iso[1])
            check(rc == 0, "get-metric-data: %s" % err)
            cli = json.loads(out) if rc == 0 else {}
            after = metrics_json(u, queries, int(start), int(end))[1]

            def same(qid, d):
                a = [r for r in cli.get("MetricDataResults", []) if r["Id"] == qid]
                b = [r for r in d["MetricDataResults"] if r["Id"] == qid]
                return (len(a) == 1 and len(b) == 1 and a[0]["Values"] == b[0]["Values"] and
                        len(a[0]["Timestamps"]) == len(b[0]["Timestamps"]) and a[0]["Values"])
            for qid in ("q", "lat", "gpu"):
                check(same(qid, before) or same(qid, after),
                      "%s: the CLI's values are botocore's: %s / %s / %s" % (qid, cli, before, after))
            check(total(cli) == 3, "three invocations through the CLI: %s" % cli)
            rc, out, err = run("cloudwatch", "get-metric-data", "--metric-data-queries",
                               json.dumps([dict(queries[0], Id="BAD")]), "--start-time", iso[0],
                               "--end-time", iso[1])
            check(rc != 0 and "InvalidParameterValue" in err, "an error the CLI reads: %s" % err)
    finally:
        shutil.rmtree(tmp)
    return None


def stat_values(reply, qid):
    for res in reply.get("MetricDataResults", []):
        if res["Id"] == qid:
            return res["Values"]
    return []


def test_latency():
    args = ["--endpoint", "e=bf16-l4", "--set", "e.overhead_s=0", "--set", "e.jitter=0",
            "--time-scale", "50"]
    with emulator.Emulator(args) as emu:
        served = []
        for i in range(8):
            r = invoke(emu.url, "e", chat("question %d" % i, 4 + 3 * i))
            check(r.status == 200 and r.header("x-sm-emulator-service-us"),
                  "invoke %d: %s %s" % (i, r.status, r.headers))
            served.append(int(r.header("x-sm-emulator-service-us") or -1))
        start, end = window()
        stats = ("Sum", "SampleCount", "Minimum", "Maximum")
        st, d, _ = metrics_json(emu.url, [query("ModelLatency", s, qid=s.lower()) for s in stats],
                                start, end)
        got = {"sum": sum(stat_values(d, "sum")), "count": sum(stat_values(d, "samplecount")),
               "min": min(stat_values(d, "minimum") or [None]),
               "max": max(stat_values(d, "maximum") or [None])}
        want = {"sum": sum(served), "count": len(served), "min": min(served), "max": max(served)}
        check(st == 200 and got == want,
              "ModelLatency %s, the replies' service times %s (%s)" % (got, want, served))


if __name__ == "__main__":
    sys.exit(run_group({"latency": test_latency, "sigv4": test_sigv4, "lose": test_lose, "awscli": test_awscli}, __doc__))
