#!/usr/bin/env python3
"""scenarios/ramp.lua against the emulator (issue 33): a ramp's arrivals are drawn
once and sent by the open-loop sender, at the schedule's exact times.

  steps     sm-stream and wrk run --ramp 20@0.5,60@0.5 (constant arrivals) at
            --time-scale 10 on a time-scaled emulator: each engine's records'
            intended starts are the steps' (10 at 5 ms gaps, then 30 at 1/600 s),
            every request is served, and the result's settings hold the schedule
  curve     --ramp-file: a CSV day's curve (a header, a comment, linear pieces)
            gives the exact times of the curve's integral
  bad       a malformed piece or curve line: exit 2, one line naming it, nothing sent
  timeline  sm-timeline runs sm-stream's ramp and samples the endpoint meanwhile (signed
            DescribeEndpoint and DescribeScalingActivities): a sample before the load and
            one after, each with the variant's instance counts (3, as Debian's aws CLI reads
            them); the result's settings name the timeline file, and sm-compare places the
            samples on the schedule's pieces (3 instances at each change, its requests);
            the command's exit status is sm-timeline's
  component sm-timeline --inference-component samples a component scaled to 0 copies
            while sm-stream's ramp calls it, then (the command's last step)
            UpdateInferenceComponentRuntimeConfig gives it 1 copy: the samples name the
            component, its endpoint and variant, its copies from 0 to 1; every call at 0
            copies is recorded as no_capacity by both engines (wrk too), as many as the
            emulator counted; sm-compare reads the copies and one cold start not served;
            a bad component name or --variant beside it exit 2, a component of another
            endpoint than --endpoint leaves the sample out (exit 3), each in one line

usage: test_ramp.py GROUP...   (environment: SM_EMULATOR, SM_STREAM, WRK, SM_PLUGIN_PATH,
                                SM_TIMELINE_BIN, SM_COMPARE)"""
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from emutest import aws_cli_setup, check, control, finish, run_group, until  # noqa: E402
import emulator  # noqa: E402  (tests/lib, on the path through emutest)

SCRIPT = os.path.join(ROOT, "scenarios", "ramp.lua")
SCALE = 10


def run(engine, url, d, args, conns=4, wrap=()):
    """engine (sm-stream or wrk) runs ramp.lua, under the command wrap when given:
    (process, result documents by label)."""
    out = os.path.join(d, "out-" + engine)
    os.makedirs(out, exist_ok=True)
    prog = os.environ["SM_STREAM"] if engine == "sm-stream" else os.environ["WRK"]
    threads = 1 if engine == "sm-stream" else conns  # wrk: one connection a thread
    cmd = [prog, "-t%d" % threads, "-c%d" % conns, "-d5m", "--timeout", "60s", "-s", SCRIPT,
           url, "--", "--region", "us-east-1", "--time-scale", str(SCALE), "--max-tokens", "4",
           "--out", os.path.join(out, "{label}.json")] + args
    env = dict(os.environ)
    if engine == "wrk" and env.get("WRK_PRELOAD"):  # a sanitizer build's plugin
        env["LD_PRELOAD"] = env["WRK_PRELOAD"]
        env["ASAN_OPTIONS"] = "detect_leaks=0"
    p = subprocess.run(list(wrap) + cmd, capture_output=True, text=True, timeout=240, env=env)
    docs = {}
    for name in sorted(os.listdir(out)):
        if name.endswith(".json") and not name.endswith(".journal.json"):
            with open(os.path.join(out, name)) as f:
                doc = json.load(f)
            docs[doc["label"]] = doc
    return p, docs


def starts(doc):
    """The records' intended starts from the first, in order."""
    at = sorted(r["t_intended_us"] for r in doc["records"])
    return [t - at[0] for t in at]


def served(emu):
    return emu.stats()["endpoints"]["ep"]["requests"]


def test_steps():
    # on the scaled clock: 200 per second for 0.05 s, then 600 per second for 0.05 s
    want = [round(k * 1e6 / 200) for k in range(10)] + \
        [50000 + round(k * 1e6 / 600) for k in range(30)]
    with tempfile.TemporaryDirectory() as d:
        with emulator.Emulator(["--endpoint", "ep=instant", "--time-scale", str(SCALE)]) as emu:
            for engine in ("sm-stream", "wrk"):
                before = served(emu)
                p, docs = run(engine, emu.url, d, ["--endpoint", "ep", "--ramp", "20@0.5,60@0.5",
                                                   "--arrivals", "constant"])
                check(p.returncode == 0, "%s: exit %d %s" % (engine, p.returncode, p.stderr[-400:]))
                if p.returncode:
                    continue
                doc = docs["ep"]
                got = starts(doc)
                check(got == want, "%s: intended starts %r, want %r" % (engine, got, want))
                check(all(r["ok"] for r in doc["records"]), engine + ": a request failed")
                check(served(emu) - before == 40, "%s: %d served" % (engine, served(emu) - before))
                s = doc["settings"]
                check(s["schedule"] == [[0.5, 20, 20], [0.5, 60, 60]] and s["rates"] == [40]
                      and s["duration_s"] == 1 and s["ramp"] == "20@0.5,60@0.5"
                      and s["arrivals"] == "constant" and doc["time_scale"] == SCALE,
                      "%s: settings %r" % (engine, s))


def test_curve():
    # real time: 2 per second for 2 s, then from 2 to 0 over 4 s: 4 + 4 arrivals, the
    # k-th of the second piece where 2 t - t^2 / 4 = k (scaled: 10 times sooner)
    want = [0, 50000, 100000, 150000] + \
        [200000 + round((4 - 2 * math.sqrt(4 - k)) * 1e5) for k in range(4)]
    with tempfile.TemporaryDirectory() as d:
        curve = os.path.join(d, "day.csv")
        with open(curve, "w") as f:
            f.write("seconds,rate\n# the morning\n3600,2\n3602,2\n3606,0\n")
        with emulator.Emulator(["--endpoint", "ep=instant", "--time-scale", str(SCALE)]) as emu:
            p, docs = run("sm-stream", emu.url, d, ["--endpoint", "ep", "--ramp-file", curve,
                                                    "--arrivals", "constant"])
            check(p.returncode == 0, "exit %d %s" % (p.returncode, p.stderr[-400:]))
            if p.returncode:
                return
            got = starts(docs["ep"])
            check(got == want, "intended starts %r, want %r" % (got, want))
            s = docs["ep"]["settings"]
            check(s["ramp_file"] == "day.csv" and s.get("ramp") is None
                  and s["schedule"] == [[2, 2, 2], [4, 2, 0]], "settings %r" % s)
            check(served(emu) == 8, "%d served" % served(emu))


def test_bad():
    with tempfile.TemporaryDirectory() as d:
        curve = os.path.join(d, "bad.csv")
        with open(curve, "w") as f:
            f.write("0,1\n5,2\n4,3\n")
        cases = [(["--ramp", "10@60,40@x"],
                  "--ramp: ramp piece 2 '40@x': wants RATE@SECONDS or FROM..TO@SECONDS"),
                 (["--ramp-file", curve],
                  "bad.csv line 3 '4,3': the seconds must grow from line to line"),
                 (["--ramp", "1@1", "--ramp-file", curve],
                  "give one of --ramp PIECES or --ramp-file FILE")]
        with emulator.Emulator(["--endpoint", "ep=instant"]) as emu:
            for args, why in cases:
                p, docs = run("sm-stream", emu.url, d, ["--endpoint", "ep"] + args)
                lines = p.stderr.strip().splitlines()
                check(p.returncode == 2 and len(lines) == 1 and why in lines[0],
                      "%r: exit %d, %r" % (args, p.returncode, p.stderr))
            check(served(emu) == 0, "%d requests served" % served(emu))


def test_timeline():
    with tempfile.TemporaryDirectory() as d:
        timeline = os.path.join(d, "out-sm-stream", "ep.timeline.jsonl")  # beside the result
        with emulator.Emulator(["--endpoint", "ep=instant", "--time-scale", str(SCALE),
                                "--set", "ep.instances=3"]) as emu:
            wrap = [os.environ["SM_TIMELINE_BIN"], "--endpoint", "ep", "--every", "0.05",
                    "--out", timeline, "--region", "us-east-1", "--endpoint-url", emu.url, "--"]
            p, docs = run("sm-stream", emu.url, d, ["--endpoint", "ep", "--ramp", "20@0.5,60@0.5",
                                                    "--arrivals", "constant"], wrap=wrap)
            check(p.returncode == 0, "exit %d %s" % (p.returncode, p.stderr[-400:]))
            if p.returncode:
                return
            check(docs["ep"]["settings"]["timeline"] == timeline,
                  "settings.timeline %r" % docs["ep"]["settings"].get("timeline"))
            with open(timeline) as f:
                samples = [json.loads(line) for line in f]
            check(len(samples) >= 2, "%d samples" % len(samples))
            check(all(s["endpoint"] == "ep" and s["variant"] == "AllTraffic"
                      and s["current_instances"] == 3 and s["desired_instances"] == 3
                      and s["status"] == "InService" and s["activities"] == [] for s in samples),
                  "samples %r" % samples)
            check(all(a["t"] <= b["t"] for a, b in zip(samples, samples[1:])), "time order")
            aws = aws_cli_setup()
            if aws:  # the same counts as Debian's aws CLI reads
                p = subprocess.run([aws[0], "sagemaker", "describe-endpoint", "--endpoint-name", "ep",
                                    "--endpoint-url", emu.url, "--output", "json"], env=aws[1],
                                   capture_output=True, text=True, timeout=120)
                pv = json.loads(p.stdout)["ProductionVariants"][0] if p.returncode == 0 else {}
                check(pv.get("CurrentInstanceCount") == samples[-1]["current_instances"]
                      and pv.get("DesiredInstanceCount") == samples[-1]["desired_instances"],
                      "aws sagemaker describe-endpoint: %s %s" % (p.stdout, p.stderr))
            # sm-compare places the samples on the schedule (real seconds, time-scaled run)
            result = os.path.join(d, "out-sm-stream", "ep.json")
            q = subprocess.run([os.environ["SM_COMPARE"], "-f", "json", result, result],
                               capture_output=True, text=True, timeout=120)
            x = json.loads(q.stdout)["scaling"]["baseline"][0] if q.returncode == 0 else {}
            steps = x.get("steps", [])
            check(x.get("timeline") == "ep.timeline.jsonl" and x.get("samples") == len(samples)
                  and x.get("instance_hours", 0) > 0 and len(steps) == 2
                  and [st["start_s"] for st in steps] == [0, 0.5]
                  and all(st["instances_before"] == 3 and st["capacity_s"] is None
                          and st["transition"]["sent"] == 0 for st in steps)
                  and [st["steady"]["sent"] for st in steps] == [10, 30],
                  "sm-compare's scaling: %s %s" % (q.stdout[-1500:], q.stderr))
            # the command's status is sm-timeline's; bad usage is one line and exit 2
            q = subprocess.run(wrap + ["sh", "-c", "exit 7"], capture_output=True, text=True,
                               timeout=120)
            check(q.returncode == 7, "sm-timeline -- sh: exit %d %s" % (q.returncode, q.stderr))
            q = subprocess.run([os.environ["SM_TIMELINE_BIN"], "--out", timeline],
                               capture_output=True, text=True, timeout=60)
            check(q.returncode == 2 and q.stderr.count("\n") == 1
                  and "--endpoint NAME (or --inference-component NAME) is required" in q.stderr,
                  "no endpoint: %d %r"
                  % (q.returncode, q.stderr))


def set_copies(url, name, copies):
    """UpdateInferenceComponentRuntimeConfig, then until DescribeInferenceComponent says so."""
    status, d = control(url, "UpdateInferenceComponentRuntimeConfig", {
        "InferenceComponentName": name, "DesiredRuntimeConfig": {"CopyCount": copies}})
    check(status == 200, "UpdateInferenceComponentRuntimeConfig %d: %s" % (copies, d))
    until("%d copies of %s" % (copies, name),
          lambda: control(url, "DescribeInferenceComponent", {"InferenceComponentName": name})[1],
          lambda d: d.get("RuntimeConfig", {}).get("CurrentCopyCount") == copies)


def no_capacity_records(doc):
    return [r for r in doc["records"] if not r["ok"] and r["status"] == 400
            and (r["error"] or {}).get("code") == "no_capacity"]


def test_component():
    with tempfile.TemporaryDirectory() as d:
        timeline = os.path.join(d, "out-sm-stream", "ic.timeline.jsonl")  # beside the result
        with emulator.Emulator(["--endpoint", "ep=instant", "--time-scale", str(SCALE)]) as emu:
            # a model without SM_VLLM_MODEL loads in no time: its copies serve at once
            status, r = control(emu.url, "CreateModel", {
                "ModelName": "m", "ExecutionRoleArn": "arn:aws:iam::123456789012:role/sm-test",
                "PrimaryContainer": {"Image": "img:1"}})
            check(status == 200, "CreateModel: %s" % r)
            status, r = control(emu.url, "CreateInferenceComponent", {
                "InferenceComponentName": "ic", "EndpointName": "ep",
                "Specification": {"ModelName": "m", "ComputeResourceRequirements": {
                    "MinMemoryRequiredInMb": 1024, "NumberOfAcceleratorDevicesRequired": 1}},
                "RuntimeConfig": {"CopyCount": 1}})
            check(status == 200, "CreateInferenceComponent: %s" % r)
            set_copies(emu.url, "ic", 0)
            load = ["--endpoint", "ep", "--inference-component", "ic", "--refuse-after", "0",
                    "--ramp", "20@0.5", "--arrivals", "constant"]
            # the load, then a copy: the last sample (after the command) sees it
            then = "%s %s set-copies %s ic 1" % (sys.executable, os.path.abspath(__file__),
                                                 emu.url)
            wrap = [os.environ["SM_TIMELINE_BIN"], "--inference-component", "ic", "--every",
                    "0.05", "--out", timeline, "--region", "us-east-1", "--endpoint-url",
                    emu.url, "--", "sh", "-c", '"$@" && ' + then, "sh"]
            p, docs = run("sm-stream", emu.url, d, load, wrap=wrap)
            check(p.returncode == 0, "exit %d %s" % (p.returncode, p.stderr[-600:]))
            if p.returncode:
                return
            refused = no_capacity_records(docs["ep"])
            check(len(refused) == len(docs["ep"]["records"]) == 10,
                  "sm-stream at 0 copies: %r" % docs["ep"]["records"][:2])
            with open(timeline) as f:
                samples = [json.loads(line) for line in f]
            copies = [s.get("current_copies") for s in samples]
            check(len(samples) >= 2 and copies[0] == 0 and copies[-1] == 1
                  and copies == sorted(copies) and samples[0]["desired_copies"] == 0
                  and samples[-1]["desired_copies"] == 1, "copies %r" % copies)
            check(all(s["inference_component"] == "ic" and s["endpoint"] == "ep"
                      and s["variant"] == "AllTraffic" and s["component_status"] == "InService"
                      and s["current_instances"] == 1 and s["activities"] == []
                      for s in samples), "samples %r" % samples[:2])
            # wrk's plugin classifies the same reply the same way
            set_copies(emu.url, "ic", 0)
            q, wdocs = run("wrk", emu.url, d, load)
            check(q.returncode == 0 and len(no_capacity_records(wdocs["ep"])) ==
                  len(wdocs["ep"]["records"]) == 10, "wrk at 0 copies: %d %s %r" % (
                      q.returncode, q.stderr[-400:], wdocs.get("ep", {}).get("records", [])[:2]))
            failures = emu.stats()["inference_components"]["ic"]["no_capacity_invocation_failures"]
            check(failures == 20, "the emulator refused %d, the records say 20" % failures)
            # refusals: a bad name or a --variant beside it is bad usage (one line, exit 2);
            # a component on another endpoint than --endpoint is a sample left out (exit 3)
            tl = [os.environ["SM_TIMELINE_BIN"], "--out", os.path.join(d, "x.jsonl"),
                  "--region", "us-east-1", "--endpoint-url", emu.url]
            for args, code, want in (
                    (["--inference-component", "no such"], 2,
                     "sm-timeline: --inference-component 'no such' is not an inference "
                     "component name (see --help)\n"),
                    (["--inference-component", "ic", "--variant", "AllTraffic"], 2,
                     "sm-timeline: --variant is not for --inference-component: the component "
                     "names its variant (see --help)\n"),
                    (["--inference-component", "ic", "--endpoint", "other"], 3,
                     "sm-timeline: a sample left out: inference component ic is on endpoint ep, "
                     "not on other\n")):
                q = subprocess.run(tl + args, capture_output=True, text=True, timeout=60)
                check(q.returncode == code and q.stderr == want,
                      "%s: exit %d %r" % (args, q.returncode, q.stderr))
            # sm-compare: the component's copies and one cold start, never served
            result = os.path.join(d, "out-sm-stream", "ep.json")
            q = subprocess.run([os.environ["SM_COMPARE"], "-f", "json", result, result],
                               capture_output=True, text=True, timeout=120)
            x = json.loads(q.stdout)["scaling"]["baseline"][0] if q.returncode == 0 else {}
            check(x.get("inference_component") == "ic" and x.get("no_capacity") == 10
                  and x.get("cold_starts") == [{"piece": 1, "start_s": 0, "seconds": None,
                                                "refused": 10}]
                  and x.get("steps", [{}])[0].get("instances_before") == 0,
                  "sm-compare's scaling: %s %s" % (q.stdout[-1500:], q.stderr))


GROUPS = {"steps": test_steps, "curve": test_curve, "bad": test_bad, "timeline": test_timeline,
          "component": test_component}

if __name__ == "__main__":
    if sys.argv[1:2] == ["set-copies"]:  # the component test's command, after its load
        set_copies(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        sys.exit(finish())
    sys.exit(run_group(GROUPS, __doc__))
