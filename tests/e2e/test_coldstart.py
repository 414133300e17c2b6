#!/usr/bin/env python3
"""Issue 33's cold start through the whole chain: an inference component scaled from
zero copies as SageMaker's guide sets it up, measured by sm-timeline, sm-stream's ramp and
sm-compare, held to the emulator's own account. From a clean AWS environment.

  from_zero  the component ic (google/gemma-4-E2B-it, bf16-l4: a copy loads in 82.75 model
             s) on endpoint e at 0 copies; Debian's aws CLI registers inference-component/ic
             (0 to 1 copy), puts the guide's StepScaling policy (ChangeInCapacity +1) and
             CloudWatch alarm (NoCapacityInvocationFailures, InferenceComponentName, Sum
             over 60 s, GreaterThanThreshold 1). sm-timeline samples the component around
             sm-stream's ramp.lua (--inference-component ic --refuse-after 0, 0.5 calls a
             model second for 600 s at --time-scale 30). Then:
             - sm-compare's Scaling section shows exactly one cold start, and it ended with
               a served call; its refusals are the records' no_capacity calls, the
               emulator's no_capacity_invocation_failures (/emulator/stats), the metric's
               Sum (get-metric-data) and the refusals in the emulator's request log;
             - the emulator refused every call it received before the scaling activity's
               EndTime and served every one after (its request log), and the one
               activity is the alarm's, 0 -> 1 copy, Successful;
             - the cold start's start is not after the first refusal the emulator logged
               (a call leaves the client before the emulator receives it), and its end,
               the first call served, was answered no earlier than that EndTime;
             - the timeline shows the copies 0, then 1, and nothing else.
             Decided from counts, states and the order of causes: no timing margins; the
             waits are hang guards only.

usage: test_coldstart.py from_zero  (environment: SM_EMULATOR, SM_STREAM, SM_TIMELINE_BIN,
                                     SM_COMPARE)"""
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "emulator"))
from emutest import aws_cli_setup, check, control, run_group, until  # noqa: E402
from testkit import wall_offset  # noqa: E402
import emulator  # noqa: E402  (tests/lib, on the path through emutest)
from test_autoscaling import aws_runner, iso_seconds  # noqa: E402
from test_components import (GUIDE_KEY as KEY, guide_alarm, guide_target_and_policy,  # noqa: E402
                             metric_sum)

SCALE = 30           # model seconds per wall second: the metric's period is 2 s
RAMP = "0.5@600"     # 300 calls over 600 model s (20 wall s)
GEMMA = "google/gemma-4-E2B-it"  # bf16-l4: a copy loads in 82.751806 model s
ROLE = "arn:aws:iam::123456789012:role/sm-test"


def describe(url):
    return control(url, "DescribeInferenceComponent", {"InferenceComponentName": "ic"})[1]


def copies(url):
    return describe(url).get("RuntimeConfig", {}).get("CurrentCopyCount")


def component_at_zero(url):
    """The model m (bf16-l4's) and its component ic on e: one copy once InService (so
    the component exists as a deployed one does), then scaled to 0."""
    status, d = control(url, "CreateModel", {
        "ModelName": "m", "ExecutionRoleArn": ROLE,
        "PrimaryContainer": {"Image": "img:1", "Environment": {"SM_VLLM_MODEL": GEMMA}}})
    check(status == 200, "CreateModel: %s" % d)
    status, d = control(url, "CreateInferenceComponent", {
        "InferenceComponentName": "ic", "EndpointName": "e",
        "Specification": {"ModelName": "m",
                          "ComputeResourceRequirements": {"MinMemoryRequiredInMb": 1024}},
        "RuntimeConfig": {"CopyCount": 1}})
    check(status == 200, "CreateInferenceComponent: %s" % d)
    until("ic InService", lambda: describe(url),
          lambda d: d.get("InferenceComponentStatus") == "InService")
    status, d = control(url, "UpdateInferenceComponentRuntimeConfig", {
        "InferenceComponentName": "ic", "DesiredRuntimeConfig": {"CopyCount": 0}})
    check(status == 200, "UpdateInferenceComponentRuntimeConfig 0: %s" % d)
    until("ic at 0 copies", lambda: copies(url), lambda n: n == 0)


def ms(t):
    """t (Unix seconds) as the emulator prints an activity's times (%.3f): rounding keeps
    the order, so a time at or after an EndTime stays at or after it."""
    return float("%.3f" % t)


def wall(r, field):
    """The wall clock (Unix s) of a record's t_*_us field: wall_start_us is t_start_us's."""
    return (r["wall_start_us"] + r[field] - r["t_start_us"]) / 1e6


def test_from_zero():
    setup = aws_cli_setup()
    if not setup:
        return 77
    aws, env = setup
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "requests.jsonl")
        offset0 = wall_offset()
        with emulator.Emulator(["--endpoint", "e=instant", "--time-scale", str(SCALE),
                                "--request-log", log]) as emu:
            url = emu.url
            run = aws_runner(aws, env, url)
            component_at_zero(url)
            arn = guide_target_and_policy(run)
            rc, out, err = run("cloudwatch", "put-metric-alarm", *guide_alarm(arn))
            check(arn and rc == 0, "put-metric-alarm: %s" % err)
            if not arn or rc != 0:
                return None
            started = time.time()
            timeline = os.path.join(d, "ic.timeline.jsonl")
            cmd = [os.environ["SM_TIMELINE_BIN"], "--inference-component", "ic", "--every",
                   "0.05", "--out", timeline, "--region", "us-east-1", "--endpoint-url", url,
                   "--", os.environ["SM_STREAM"], "-t1", "-c32", "-d10m", "--timeout", "60s",
                   "-s", os.path.join(ROOT, "scenarios", "ramp.lua"), url, "--",
                   "--endpoint", "e", "--inference-component", "ic", "--refuse-after", "0",
                   "--region", "us-east-1", "--time-scale", str(SCALE), "--max-tokens", "4",
                   "--arrivals", "constant", "--ramp", RAMP,
                   "--out", os.path.join(d, "{label}.json")]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            check(p.returncode == 0, "the load: exit %d %s" % (p.returncode, p.stderr[-800:]))
            if p.returncode:
                return None
            # The emulator's and the client's times map their monotonic clocks to the wall
            # clock once each (at their start) and the request log reads the wall clock:
            # the comparisons across them below allow what the host moved the wall clock
            # by over the test, measured, no more.
            moved = abs(wall_offset() - offset0)
            stats = emu.stats()["inference_components"]["ic"]
            failures = stats["no_capacity_invocation_failures"]
            summed = metric_sum(run, "NoCapacityInvocationFailures", started)
            rc, out, err = run("application-autoscaling", "describe-scaling-activities", *KEY[:4])
            acts = out.get("ScalingActivities", [])
        with open(log) as fh:
            lines = [json.loads(x) for x in fh]
        result = os.path.join(d, "e.json")
        with open(result) as fh:
            records = json.load(fh)["records"]
        q = subprocess.run([os.environ["SM_COMPARE"], "-f", "json", result, result],
                           capture_output=True, text=True, timeout=120)
        check(q.returncode == 0, "sm-compare -f json: %s" % q.stderr)
        x = json.loads(q.stdout)["scaling"]["baseline"][0] if q.returncode == 0 else {}
        with open(timeline) as fh:
            samples = [json.loads(line) for line in fh]

    # the one activity: the alarm's, 0 -> 1 copy, ended
    check(rc == 0 and len(acts) == 1 and acts[0]["StatusCode"] == "Successful"
          and acts[0]["Description"] == "Setting desired copy count to 1."
          and acts[0]["Cause"] == "monitor alarm ic-step-scaling-alarm in state ALARM "
          "triggered policy from-zero" and "EndTime" in acts[0],
          "one activity from the alarm, 0 -> 1 copy: %s %s" % (acts, err))
    if len(acts) != 1 or "EndTime" not in acts[0]:
        return None
    end = iso_seconds(acts[0]["EndTime"])

    # the counts: records, the emulator's stats, its metric, its request log, the report
    refused = [r for r in records if not r["ok"] and r["status"] == 400
               and (r["error"] or {}).get("code") == "no_capacity"]
    served = [r for r in records if r["ok"]]
    calls = [ln for ln in lines if ln.get("api") == "stream" and ln.get("endpoint") == "e"]
    logged_refused = [ln for ln in calls if ln["status"] == 400]
    logged_served = [ln for ln in calls if ln["status"] == 200]
    check(len(refused) + len(served) == len(records) == len(calls) == 300,
          "300 calls, each refused for no capacity or served: %d refused, %d served, %d "
          "records, %d logged (%s)" % (len(refused), len(served), len(records), len(calls),
                                        lines[-1:]))
    cold = x.get("cold_starts", [])
    check(len(cold) == 1 and cold[0].get("seconds") is not None,
          "exactly one cold start, ended by a served call: %s" % cold)
    n = cold[0].get("refused") if len(cold) == 1 else None
    print("cold start: %s; refused: report %s, records %d, stats %d, metric %s, log %d; "
          "served %d" % (cold, n, len(refused), failures, summed, len(logged_refused),
                         len(served)))
    check(n == x.get("no_capacity") == len(refused) == failures == summed
          == len(logged_refused) and n > 0,
          "the cold start's refusals %s = the report's no_capacity %s = the records' %d = "
          "the emulator's %d = the metric's Sum %s = the request log's %d"
          % (n, x.get("no_capacity"), len(refused), failures, summed, len(logged_refused)))
    check(stats["invocations"] == len(served) == len(logged_served) > 0,
          "the calls served: the emulator's %d, the records' %d, the log's %d"
          % (stats["invocations"], len(served), len(logged_served)))

    # the emulator's order: every refusal received before the copy served, every call
    # served received at or after it
    check(all(ms(ln["received"]) <= end + moved for ln in logged_refused)
          and all(ms(ln["received"]) >= end - moved for ln in logged_served),
          "refused before the EndTime %.3f, served after: last refused %.6f, first served %.6f "
          "(the wall clock moved %.3f s)" % (end, max(ln["received"] for ln in logged_refused),
                                            min(ln["received"] for ln in logged_served), moved))

    # the records' order: the refusals came first, by intended start, then only calls served
    order = sorted(records, key=lambda r: r["t_intended_us"])
    k = next((i for i, r in enumerate(order) if r["ok"]), len(order))
    check(0 < k < len(order) and all(not r["ok"] for r in order[:k])
          and all(r["ok"] for r in order[k:]),
          "refused until the first call served, then served: %d of %d" % (k, len(order)))
    if not 0 < k < len(order) or len(cold) != 1:
        return None
    first, ender = order[0], order[k]
    # the report's cold start is the records': from the first refusal to the first call
    # served, by intended start, in the schedule's (model) seconds; the report prints
    # them to the microsecond
    def at(r):
        return (r["t_intended_us"] - first["t_intended_us"]) / 1e6 * SCALE

    check(cold[0]["start_s"] == 0 and abs(cold[0]["seconds"] - at(ender)) < 1e-5 * SCALE,
          "the cold start runs from the first refusal to the first call served (%.6f s): %s"
          % (at(ender), cold[0]))
    # its start is not after the first refusal the emulator logged: a call is meant, then
    # sent, then received
    check(wall(first, "t_intended_us") <= min(ln["arrival"] for ln in logged_refused) + moved,
          "the cold start's start %.6f, the emulator's first refusal %.6f (the wall clock "
          "moved %.3f s)" % (wall(first, "t_intended_us"),
                             min(ln["arrival"] for ln in logged_refused), moved))
    # its end, the first call served, was answered after the copy served
    check(ms(wall(ender, "t_headers_us")) >= end - moved,
          "the call that ended the cold start answered at %.6f, the copy served at %.3f "
          "(the wall clock moved %.3f s)" % (wall(ender, "t_headers_us"), end, moved))

    print("the copy served at %.3f; the cold start's end meant at %+.6f s of it, sent at "
          "%+.6f, answered at %+.6f; the last refusal sent at %+.6f" % (
              end, wall(ender, "t_intended_us") - end, wall(ender, "t_start_us") - end,
              wall(ender, "t_headers_us") - end, wall(order[k - 1], "t_start_us") - end))
    # the timeline: the copies 0, then 1
    seen = [s.get("current_copies") for s in samples]
    check(len(seen) >= 2 and seen[0] == 0 and seen[-1] == 1 and seen == sorted(seen)
          and set(seen) == {0, 1} and all(s.get("inference_component") == "ic" for s in samples),
          "the timeline's copies: %s" % seen)
    return None


if __name__ == "__main__":
    sys.exit(run_group({"from_zero": test_from_zero}, __doc__))
