#!/usr/bin/env python3
"""Issue 33's bar test: the whole autoscaling chain against sm-emulator, its parts as a
user runs them (sm-endpoint deploy and autoscale set, sm-timeline around sm-stream's
ramp.lua, sm-compare's Scaling section), from a clean AWS environment.

  bar   two endpoints of the demo's bf16-l4 model (sm-endpoint deploy through the
        control plane), target tracking on SageMakerVariantInvocationsPerInstance:
        side A 60 invocations a minute per instance, side B 120. The same ramp on both
        at once, 0.2 per second for 120 s then 1.5 per second for 920 s (model time), is
        20% -> 150% of one instance's capacity on A, 10% -> 75% on B. At --time-scale 20
        each side's load is 52 wall seconds; sm-timeline samples every 0.05 s (1 model s).
        A: one scale-out to 2; sm-compare's time to new capacity is within 5% of the
        configured delays (3 datapoints of 60 s + --create-time 594 + load_s 82.75), and
        the decision plus provisioning plus load falls between the sample before and the
        sample that first saw 2 instances;
        its instance-hours are within 1% of the emulator's own account (GET
        /emulator/stats, instance_seconds over the samples' window). B: no scaling.
        The Scaling section has both sides (text and JSON), the HTML report the chart,
        and Debian's aws CLI reads the activity sm-compare used. The checks to the
        millisecond of wall times allow what the host moved its wall clock by over the
        test (measured against the monotonic clock), no more.

usage: test_scaledemo.py bar  (environment: SM_EMULATOR, SM_STREAM, SM_ENDPOINT,
                               SM_TIMELINE_BIN, SM_COMPARE)"""
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "emulator"))
from emutest import aws_cli_setup, check, run_group  # noqa: E402
from testkit import wall_offset  # noqa: E402
import emulator  # noqa: E402  (tests/lib, on the path through emutest)

SCALE = 20           # model seconds per wall second
CREATE = 594         # --create-time: the control plane's provisioning (model s)
LOAD_S = 82.751806   # bf16-l4's load_s (emulator/README.md, profiles)
PERIOD = 60          # InvocationsPerInstance's period (model s)
ALARM = 3            # datapoints above the target before the scale-out alarm
EVERY = 0.05         # sm-timeline --every (wall s): 1 model s at SCALE 20
RAMP = "0.2@120,1.5@920"
COOLDOWN = 900       # > provisioning + load: no second scale-out while the first launches
ROLE = "arn:aws:iam::123456789012:role/sm-test"
BF16 = "google/gemma-4-E2B-it"
SIDES = {"a": 60, "b": 120}  # endpoint demo-X: its target, invocations a minute per instance


def endpoint_cmd(url, *args):
    return [os.environ["SM_ENDPOINT"], "--endpoint-url", url, "--time-scale", str(SCALE),
            "--region", "us-east-1"] + list(args)


def variant(stats, name):
    return stats["endpoints"][name]["variants"]["AllTraffic"]["scaling"]


def iso(text):
    return datetime.datetime.fromisoformat(text).timestamp()


def test_bar():
    with tempfile.TemporaryDirectory() as d:
        offset0 = wall_offset()  # before the emulator maps its times to the wall clock
        with emulator.Emulator(["--no-endpoints", "--time-scale", str(SCALE),
                                "--create-time", str(CREATE)]) as emu:
            deploys = [subprocess.Popen(endpoint_cmd(emu.url, "deploy", "demo-" + s, "--model",
                                                     BF16, "--role", ROLE, "--run", "demo"),
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                       for s in SIDES]
            for p in deploys:
                out, err = p.communicate(timeout=180)
                check(p.returncode == 0, "deploy: %d %s" % (p.returncode, err.decode()[-400:]))
            for s, target in SIDES.items():
                p = subprocess.run(endpoint_cmd(emu.url, "autoscale", "set", "demo-" + s,
                                                "--min", "1", "--max", "4",
                                                "--target-invocations", str(target),
                                                "--scale-out-cooldown", str(COOLDOWN), "--yes"),
                                   capture_output=True, text=True, timeout=60)
                check(p.returncode == 0, "autoscale set %s: %s" % (s, p.stderr))
            t0 = time.time()
            s0 = emu.stats()
            loads = {}
            for s in SIDES:
                out = os.path.join(d, s)
                os.makedirs(out)
                timeline = os.path.join(out, "timeline.jsonl")
                cmd = [os.environ["SM_TIMELINE_BIN"], "--endpoint", "demo-" + s, "--every",
                       str(EVERY), "--out", timeline, "--region", "us-east-1",
                       "--endpoint-url", emu.url, "--",
                       os.environ["SM_STREAM"], "-t1", "-c32", "-d10m", "--timeout", "60s",
                       "-s", os.path.join(ROOT, "scenarios", "ramp.lua"), emu.url, "--",
                       "--endpoint", "demo-" + s, "--region", "us-east-1", "--time-scale",
                       str(SCALE), "--max-tokens", "4", "--arrivals", "constant",
                       "--ramp", RAMP, "--out", os.path.join(out, "{label}.json")]
                loads[s] = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for s, p in loads.items():
                out, err = p.communicate(timeout=600)
                check(p.returncode == 0, "%s: exit %d %s" % (s, p.returncode, err.decode()[-600:]))
            s1 = emu.stats()
            t1 = time.time()
            # The activities' times and the samples' are wall-clock times; the model's
            # delays run on the monotonic clock. The checks to the millisecond below allow
            # what the host moved the wall clock by over the run, measured, no more.
            moved = abs(wall_offset() - offset0)
            if any(p.returncode for p in loads.values()):
                return None
            result = {s: os.path.join(d, s, "demo-%s.json" % s) for s in SIDES}
            q = subprocess.run([os.environ["SM_COMPARE"], "-f", "json", result["a"], result["b"]],
                               capture_output=True, text=True, timeout=120)
            check(q.returncode == 0, "sm-compare -f json: %s" % q.stderr)
            scaling = json.loads(q.stdout).get("scaling", {}) if q.returncode == 0 else {}
            sides = {s: scaling.get(k, [{}])[0] for s, k in (("a", "baseline"), ("b", "candidate"))}

            # A: one scale-out, 3 datapoints + provisioning + load after the step
            a = sides["a"]
            steps = a.get("steps", [])
            check(len(steps) == 2, "A's pieces: %s" % a)
            if len(steps) != 2:
                return None
            up = steps[1]
            want = ALARM * PERIOD + CREATE + LOAD_S
            cap, dec = up.get("capacity_s"), up.get("decision_s")
            check(up["instances_before"] == 1 and up["instances_most"] == 2,
                  "A scaled 1 -> 2: %s" % up)
            check(cap is not None and abs(cap - want) <= 0.05 * want,
                  "A's time to new capacity %s s, configured %.2f s (5%%)" % (cap, want))
            # the decision came at a period end, the 3rd above the target after the step:
            # the period the step falls in is above it when about less than 38% of it
            # came before the step (0.2 x 38% + 1.5 x 62% = 1), else the decision waits one
            # more period: the 3rd or the 4th period end after the step
            check(dec is not None and (ALARM - 1) * PERIOD < dec <= (ALARM + 1) * PERIOD,
                  "A's decision %s s after the step" % dec)
            with open(os.path.join(d, "a", "timeline.jsonl")) as fh:
                samples = [json.loads(line) for line in fh]
            if cap is not None and dec is not None:
                # the new instance began serving between the sample before the first that
                # saw it and that one (the samples' own times, to the millisecond)
                k = next(i for i, x in enumerate(samples) if x["current_instances"] == 2)
                before = cap - (samples[k]["t"] - samples[k - 1]["t"]) * SCALE
                served = dec + CREATE + LOAD_S
                slack = (0.002 + moved) * SCALE  # millisecond times, on both sides
                check(before - slack < served <= cap + slack,
                      "capacity between the samples %.3f and %.3f s = decision %.3f + %d + %.2f "
                      "(the wall clock moved %.3f s)" % (before, cap, dec, CREATE, LOAD_S, moved))
            # instance-hours: the emulator's own account over the samples' window
            hosted = all("demo-a" in x.get("endpoints", {}) for x in (s0, s1))
            check(hosted, "the stats list the endpoint the control plane hosts: %s"
                  % list(s0.get("endpoints", {})))
            if not hosted:
                return None
            v0, v1 = variant(s0, "demo-a"), variant(s1, "demo-a")
            check(v0["serving"] == 1 and v0["launching"] == 0 and v1["serving"] == 2
                  and v1["launching"] == 0 and v1["draining"] == 0,
                  "A's instances before and after: %s %s" % (v0, v1))
            own = (v1["instance_seconds"] - v0["instance_seconds"]
                   - 1 * (samples[0]["t"] - t0) * SCALE - 2 * (t1 - samples[-1]["t"]) * SCALE)
            ih = a.get("instance_hours", 0) * 3600
            print("A: decision %s s, capacity %s s (configured %.2f s); instance-seconds %.1f, "
                  "the emulator's %.1f" % (dec, cap, want, ih, own))
            check(own > 0 and abs(ih - own) <= 0.01 * own,
                  "A's instance-seconds %.1f, the emulator's %.1f (1%%)" % (ih, own))
            # B: 75% of its target: no activity, one instance throughout
            b = sides["b"]
            check(b.get("timeline") == "timeline.jsonl" and b.get("activities") == 0
                  and all(st["instances_most"] == 1 and st["capacity_s"] is None
                          for st in b.get("steps", [])) and len(b.get("steps", [])) == 2,
                  "B did not scale: %s" % b)
            check(a.get("timeline") == "timeline.jsonl" and a.get("activities", 0) >= 1,
                  "A's timeline and activity: %s" % {k: a.get(k) for k in ("timeline", "activities")})
            # the text report's Scaling section names both sides
            q = subprocess.run([os.environ["SM_COMPARE"], result["a"], result["b"]],
                               capture_output=True, text=True, timeout=120)
            text = q.stdout
            sec = text[text.find("Scaling"):] if "Scaling" in text else ""
            check(q.returncode == 0 and "demo-a" in sec and "demo-b" in sec,
                  "the text Scaling section has both sides: %s" % text[-3000:])
            # the HTML report has the chart's panel for each side
            q = subprocess.run([os.environ["SM_COMPARE"], "-f", "html", result["a"], result["b"]],
                               capture_output=True, text=True, timeout=120)
            check(q.returncode == 0 and all(
                "Scaling of demo-%s under the ramp (instances from sm-timeline)" % s in q.stdout
                for s in SIDES) and q.stdout.count(">instances serving</text>") == 2,
                  "the HTML report's scaling panels: %d %s" % (q.returncode, q.stderr))
            # Debian's aws CLI reads the scale-out sm-compare timed
            setup = aws_cli_setup()
            if setup:
                aws, env = setup
                p = subprocess.run([aws, "--endpoint-url", emu.url, "--output", "json",
                                    "application-autoscaling", "describe-scaling-activities",
                                    "--service-namespace", "sagemaker", "--resource-id",
                                    "endpoint/demo-a/variant/AllTraffic"],
                                   capture_output=True, text=True, env=env, timeout=60)
                acts = json.loads(p.stdout).get("ScalingActivities", []) if p.returncode == 0 else []
                check(len(acts) == 1 and acts[0]["StatusCode"] == "Successful"
                      and acts[0]["Description"] == "Setting desired instance count to 2."
                      and abs(iso(acts[0]["EndTime"]) - iso(acts[0]["StartTime"])
                              - (CREATE + LOAD_S) / SCALE) < 0.002 + moved,
                      "aws application-autoscaling describe-scaling-activities (the wall clock "
                      "moved %.3f s): %s %s" % (moved, p.stdout[-800:], p.stderr))
    return None


if __name__ == "__main__":
    sys.exit(run_group({"bar": test_bar}, __doc__))
