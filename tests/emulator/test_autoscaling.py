#!/usr/bin/python3
"""sm-emulator's instances and Application Auto Scaling over HTTP, with real clients.

    test_autoscaling.py GROUP

instances  --set NAME.instances=3 and NAME.routing=LEAST_OUTSTANDING_REQUESTS: every call
           served by one of three instances (the stats count each), DescribeEndpoint and
           DescribeEndpointConfig say 3 instances and the routing; a bad count or routing
           is one line, exit 2
           a control-plane config's RoutingConfig accepted, described, a bad one refused
awscli     Debian's aws CLI unchanged: a control-plane endpoint of InitialInstanceCount 2
           hosted as two instances;
           application-autoscaling register-scalable-target, describe-scalable-targets,
           put-scaling-policy (target tracking on SageMakerVariantInvocationsPerInstance,
           step scaling), describe-scaling-policies, describe-scaling-activities,
           delete-scaling-policy, deregister-scalable-target, and the refusals (an unknown
           variant, a policy without a target, a metric of another dimension)
runtime    the policy runs while the emulator serves (time scale 600): a load over the
           target scales the variant out (DescribeEndpoint shows the new count, the new
           instances take calls), DescribeScalingActivities shows it Successful with its
           instances serving exactly provisioning + load_s after the decision, the stats'
           instance-seconds grow by the instances billed; without load it scales in to 1
concurrency  the same on the high-resolution ConcurrentRequestsPerModel metric (calls in
           flight per serving instance at each 10-second datapoint)
step       CloudWatch alarms run step scaling (time scale 60: a 60-second period is one wall
           second): cloudwatch put-metric-alarm on InvocationsPerInstance with
           --alarm-actions naming a StepScaling policy's PolicyARN; a load pushes the metric
           over the threshold, describe-alarms shows ALARM, describe-endpoint more instances,
           the activity's Cause names the alarm and the policy; delete-alarms stops it (no
           activity in the periods after, though the load keeps the metric over the
           threshold); the refusals (a missing Threshold, an unknown alarm deleted)
slewed     runtime with the emulator's wall clock running 25% fast (SKEWCLOCK preloaded,
           SLEW_RATE): the activity's times are still exactly the model's delays apart
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from emutest import (aws_cli_setup, check, control as api, emulator, invoke, chat, run_group,
                     until)

ROLE = "arn:aws:iam::123456789012:role/sm-test"


def aws_runner(aws, env, url):
    """run(*words): the aws CLI against url; (exit status, its JSON output, stderr)."""
    def run(*words):
        p = subprocess.run([aws, "--endpoint-url", url, "--output", "json"] + list(words),
                           capture_output=True, env=env, timeout=60)
        out = p.stdout.decode()
        return p.returncode, (json.loads(out) if out.strip() else {}), p.stderr.decode()
    return run


def test_instances():
    args = ["--endpoint", "e=instant", "--set", "e.instances=3",
            "--set", "e.routing=LEAST_OUTSTANDING_REQUESTS"]
    with emulator.Emulator(args) as emu:
        for i in range(9):
            r = invoke(emu.url, "e", chat("call %d" % i, max_tokens=4))
            check(r.status == 200, "call %d: %s" % (i, r.status))
        v = emu.stats()["endpoints"]["e"]["variants"]["AllTraffic"]
        each = [x["requests"] for x in v.get("instances", [])]
        check(v["requests"] == 9 and len(each) == 3 and sum(each) == 9,
              "three instances share the 9 calls: %s" % v)
        check(v.get("routing") == "LEAST_OUTSTANDING_REQUESTS", "the routing: %s" % v)
        status, d = api(emu.url, "DescribeEndpoint", {"EndpointName": "e"})
        pv = d.get("ProductionVariants", [{}])
        check(status == 200 and len(pv) == 1 and pv[0].get("CurrentInstanceCount") == 3,
              "DescribeEndpoint: one variant of 3 instances: %s" % d)
        status, d = api(emu.url, "DescribeEndpointConfig", {"EndpointConfigName": "e"})
        pv = d.get("ProductionVariants", [{}])
        check(status == 200 and pv[0].get("InitialInstanceCount") == 3 and
              pv[0].get("RoutingConfig") == {"RoutingStrategy": "LEAST_OUTSTANDING_REQUESTS"},
              "DescribeEndpointConfig: %s" % d)
    # a control-plane config's RoutingConfig (botocore: Debian's aws CLI 2.9 predates it)
    with emulator.Emulator(["--no-endpoints", "--time-scale", "1000", "--create-time", "100"]) as emu:
        check(api(emu.url, "CreateModel", {"ModelName": "m", "ExecutionRoleArn": ROLE,
                                           "PrimaryContainer": {"Image": "img:1"}})[0] == 200,
              "CreateModel")
        pv = {"VariantName": "AllTraffic", "ModelName": "m", "InitialInstanceCount": 2,
              "InstanceType": "ml.g6.xlarge"}
        status, d = api(emu.url, "CreateEndpointConfig", {"EndpointConfigName": "c",
                        "ProductionVariants": [dict(pv, RoutingConfig={"RoutingStrategy": "FAST"})]})
        check(status == 400 and "routingConfig.routingStrategy" in d.get("message", ""),
              "an unknown RoutingStrategy: %s" % d)
        status, d = api(emu.url, "CreateEndpointConfig", {"EndpointConfigName": "c",
                        "ProductionVariants": [dict(pv, RoutingConfig={
                            "RoutingStrategy": "LEAST_OUTSTANDING_REQUESTS"})]})
        check(status == 200, "CreateEndpointConfig with RoutingConfig: %s" % d)
        status, d = api(emu.url, "DescribeEndpointConfig", {"EndpointConfigName": "c"})
        check(d.get("ProductionVariants", [{}])[0].get("RoutingConfig") ==
              {"RoutingStrategy": "LEAST_OUTSTANDING_REQUESTS"}, "described: %s" % d)
    for bad, want in ((["--set", "e.instances=0"],
                       "sm-emulator: --set e.instances: '0' is not a whole number from 1 to 64"),
                      (["--set", "e.routing=FASTEST"],
                       "sm-emulator: --set e.routing: 'FASTEST' is not RANDOM or "
                       "LEAST_OUTSTANDING_REQUESTS")):
        p = subprocess.run([emulator.find_binary(), "--endpoint", "e=instant"] + bad,
                           capture_output=True, timeout=30)
        err = p.stderr.decode().strip()
        check(p.returncode == 2 and err == want, "%s: exit %d, %r" % (bad, p.returncode, err))


def test_awscli():
    setup = aws_cli_setup()
    if not setup:
        return 77
    aws, env = setup
    logs = tempfile.mkdtemp()
    args = ["--no-endpoints", "--time-scale", "1000", "--create-time", "100",
            "--log-file", os.path.join(logs, "{endpoint}-{variant}.log")]
    with emulator.Emulator(args) as emu:
        run = aws_runner(aws, env, emu.url)
        rc, out, err = run("sagemaker", "create-model", "--model-name", "m",
                           "--execution-role-arn", ROLE, "--primary-container",
                           json.dumps({"Image": "img:1", "Environment": {
                               "SM_VLLM_MODEL": "google/gemma-4-E2B-it"}}))
        check(rc == 0, "create-model: %s" % err)
        rc, out, err = run("sagemaker", "create-endpoint-config", "--endpoint-config-name", "c",
                           "--production-variants", json.dumps([{
                               "VariantName": "AllTraffic", "ModelName": "m",
                               "InitialInstanceCount": 2, "InstanceType": "ml.g6.xlarge"}]))
        check(rc == 0, "create-endpoint-config: %s" % err)
        rc, out, err = run("sagemaker", "create-endpoint", "--endpoint-name", "e",
                           "--endpoint-config-name", "c")
        check(rc == 0, "create-endpoint: %s" % err)
        rc, out, err = run("sagemaker", "wait", "endpoint-in-service", "--endpoint-name", "e")
        check(rc == 0, "wait endpoint-in-service: %s" % err)
        for i in range(4):
            r = invoke(emu.url, "e", chat("call %d" % i, max_tokens=4))
            check(r.status == 200, "invoke %d: %s" % (i, r.status))
        check(sorted(os.listdir(logs)) == ["e-AllTraffic-2.log", "e-AllTraffic.log"],
              "hosted as two instances, a container log each: %s" % os.listdir(logs))
        rc, out, err = run("sagemaker", "describe-endpoint", "--endpoint-name", "e")
        check(rc == 0 and out["ProductionVariants"][0]["CurrentInstanceCount"] == 2,
              "describe-endpoint: %s" % out)

        aas = ["application-autoscaling"]
        key = ["--service-namespace", "sagemaker", "--resource-id",
               "endpoint/e/variant/AllTraffic", "--scalable-dimension",
               "sagemaker:variant:DesiredInstanceCount"]
        rc, out, err = run(*aas, "register-scalable-target", *key, "--min-capacity", "1",
                           "--max-capacity", "4")
        check(rc == 0, "register-scalable-target: %s %s" % (out, err))
        rc, out, err = run(*aas, "describe-scalable-targets", "--service-namespace", "sagemaker")
        t = out.get("ScalableTargets", [])
        check(rc == 0 and len(t) == 1 and t[0]["MinCapacity"] == 1 and t[0]["MaxCapacity"] == 4
              and t[0]["ResourceId"] == "endpoint/e/variant/AllTraffic",
              "describe-scalable-targets: %s %s" % (out, err))
        tracking = {"TargetValue": 70.0, "PredefinedMetricSpecification": {
            "PredefinedMetricType": "SageMakerVariantInvocationsPerInstance"},
            "ScaleInCooldown": 300, "ScaleOutCooldown": 60}
        rc, out, err = run(*aas, "put-scaling-policy", *key, "--policy-name", "ipi",
                           "--policy-type", "TargetTrackingScaling",
                           "--target-tracking-scaling-policy-configuration", json.dumps(tracking))
        alarms = [a["AlarmName"] for a in out.get("Alarms", [])]
        check(rc == 0 and ":scalingPolicy:" in out.get("PolicyARN", "") and len(alarms) == 2
              and "AlarmHigh" in alarms[0] and "AlarmLow" in alarms[1],
              "put-scaling-policy (target tracking): %s %s" % (out, err))
        step = {"AdjustmentType": "ChangeInCapacity", "Cooldown": 120, "StepAdjustments": [
            {"MetricIntervalLowerBound": 0, "ScalingAdjustment": 1}]}
        rc, out, err = run(*aas, "put-scaling-policy", *key, "--policy-name", "steps",
                           "--policy-type", "StepScaling",
                           "--step-scaling-policy-configuration", json.dumps(step))
        check(rc == 0 and out.get("Alarms") == [], "put-scaling-policy (step): %s %s" % (out, err))
        rc, out, err = run(*aas, "describe-scaling-policies", "--service-namespace", "sagemaker")
        got = {p["PolicyName"]: p for p in out.get("ScalingPolicies", [])}
        check(rc == 0 and sorted(got) == ["ipi", "steps"] and
              got["ipi"]["TargetTrackingScalingPolicyConfiguration"] == tracking and
              got["steps"]["StepScalingPolicyConfiguration"] == step,
              "describe-scaling-policies: %s %s" % (out, err))
        rc, out, err = run(*aas, "describe-scaling-activities", "--service-namespace", "sagemaker",
                           "--resource-id", "endpoint/e/variant/AllTraffic")
        # the policy runs: with no load, 15 periods below the target (0.9 s at time scale
        # 1000) scale the 2 instances in to 1, the only activity there may be by now
        acts = out.get("ScalingActivities")
        check(rc == 0 and isinstance(acts, list) and len(acts) <= 1 and
              all(a["Description"] == "Setting desired instance count to 1." for a in acts),
              "describe-scaling-activities: %s %s" % (out, err))
        # refusals, as the service words them
        bad = ["--service-namespace", "sagemaker", "--resource-id",
               "endpoint/e/variant/Nope", "--scalable-dimension",
               "sagemaker:variant:DesiredInstanceCount"]
        rc, out, err = run(*aas, "register-scalable-target", *bad, "--min-capacity", "1",
                           "--max-capacity", "2")
        check(rc != 0 and "ValidationException" in err and "endpoint/e/variant/Nope" in err,
              "an unknown variant: %s" % err)
        rc, out, err = run(*aas, "put-scaling-policy", *bad, "--policy-name", "x",
                           "--policy-type", "TargetTrackingScaling",
                           "--target-tracking-scaling-policy-configuration", json.dumps(tracking))
        check(rc != 0 and "ObjectNotFoundException" in err, "a policy without a target: %s" % err)
        other = dict(tracking, PredefinedMetricSpecification={
            "PredefinedMetricType": "SageMakerInferenceComponentInvocationsPerCopy"})
        rc, out, err = run(*aas, "put-scaling-policy", *key, "--policy-name", "x",
                           "--policy-type", "TargetTrackingScaling",
                           "--target-tracking-scaling-policy-configuration", json.dumps(other))
        check(rc != 0 and "ValidationException" in err and
              "SageMakerInferenceComponentInvocationsPerCopy" in err,
              "a metric of inference components on a variant: %s" % err)
        rc, out, err = run(*aas, "delete-scaling-policy", *key, "--policy-name", "steps")
        check(rc == 0, "delete-scaling-policy: %s" % err)
        rc, out, err = run(*aas, "delete-scaling-policy", *key, "--policy-name", "steps")
        check(rc != 0 and "ObjectNotFoundException" in err, "deleted twice: %s" % err)
        rc, out, err = run(*aas, "deregister-scalable-target", *key)
        check(rc == 0, "deregister-scalable-target: %s" % err)
        rc, out, err = run(*aas, "describe-scaling-policies", "--service-namespace", "sagemaker")
        check(rc == 0 and out.get("ScalingPolicies") == [],
              "the target's policies went with it: %s" % out)
    shutil.rmtree(logs)
    return None


def iso_seconds(text):
    """Unix seconds of the aws CLI's ISO 8601 time (2026-12-02T12:50:48.623000+00:00)."""
    import datetime
    return datetime.datetime.fromisoformat(text).timestamp()


def register_variant(run, most):
    """Registers e's AllTraffic as a target of 1 to most instances; its key options."""
    key = ["--service-namespace", "sagemaker", "--resource-id",
           "endpoint/e/variant/AllTraffic", "--scalable-dimension",
           "sagemaker:variant:DesiredInstanceCount"]
    rc, out, err = run("application-autoscaling", "register-scalable-target", *key,
                       "--min-capacity", "1", "--max-capacity", str(most))
    check(rc == 0, "register-scalable-target: %s" % err)
    return key


class Load:
    """Four clients calling endpoint e of url without a pause while in the with block;
    failures: the statuses other than 200."""

    def __init__(self, url):
        self.url, self.stop, self.failures = url, threading.Event(), []
        self.threads = [threading.Thread(target=self.run) for _ in range(4)]

    def run(self):
        while not self.stop.is_set():
            r = invoke(self.url, "e", chat("load", max_tokens=2))
            if r.status != 200:
                self.failures.append(r.status)

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join()


def test_runtime(metric="SageMakerVariantInvocationsPerInstance", extra=(), emu_env=None):
    setup = aws_cli_setup()
    if not setup:
        return 77
    aws, env = setup
    # provisioning 60 s (--create-time) + load_s 30 s: new instances serve 90 model s
    # (0.15 s) after the decision; a metric period of 60 s is 0.1 s (10 s: 17 ms).
    # --max-duration 0: a busy host's late wake-up, times 600, is no 424 for a call
    args = ["--endpoint", "e=instant", "--time-scale", "600", "--create-time", "60",
            "--max-duration", "0", "--set", "e.load_s=30"] + list(extra)
    with emulator.Emulator(args, env=emu_env) as emu:
        run = aws_runner(aws, env, emu.url)

        def variant():
            return emu.stats()["endpoints"]["e"]["variants"]["AllTraffic"]

        def instances():
            rc, out, err = run("sagemaker", "describe-endpoint", "--endpoint-name", "e")
            pv = out.get("ProductionVariants", [{}])[0]
            return pv.get("CurrentInstanceCount"), out.get("EndpointStatus"), err

        key = register_variant(run, 3)
        tracking = {"TargetValue": 1.0, "PredefinedMetricSpecification": {
            "PredefinedMetricType": metric}}
        rc, out, err = run("application-autoscaling", "put-scaling-policy", *key,
                           "--policy-name", "ipi", "--policy-type", "TargetTrackingScaling",
                           "--target-tracking-scaling-policy-configuration",
                           json.dumps(tracking))
        check(rc == 0, "put-scaling-policy: %s" % err)
        with Load(emu.url) as load:
            n, status, err = until("a scale-out in DescribeEndpoint", instances,
                                   lambda v: v[0] is not None and v[0] >= 2)
            check(status in ("InService", "Updating"), "the status: %s" % status)
            # the new instances take calls once they serve
            until("calls on a launched instance", variant,
                  lambda v: sum(i["requests"] for i in v.get("instances", [])[1:]) > 0)
        check(not load.failures, "every call of the load answered 200: %s" % load.failures[:5])
        rc, out, err = run("application-autoscaling", "describe-scaling-activities",
                           "--service-namespace", "sagemaker", "--resource-id",
                           "endpoint/e/variant/AllTraffic")
        acts = out.get("ScalingActivities", [])
        outs = [a for a in acts if "AlarmHigh" in a.get("Cause", "")]
        check(rc == 0 and outs, "a scale-out activity: %s %s" % (out, err))
        if outs:
            a = outs[-1]  # the first, newest first
            check(a["StatusCode"] == "Successful" and
                  a["Description"] in ("Setting desired instance count to 2.",
                                       "Setting desired instance count to 3.") and
                  a["Cause"].endswith("in state ALARM triggered policy ipi"),
                  "the scale-out: %s" % a)
            took = iso_seconds(a["EndTime"]) - iso_seconds(a["StartTime"])
            # both times are the model's (decision, serving) on the wall clock, to the ms
            check(abs(took - 90 / 600) < 0.0015,
                  "serving 90 model s (0.15 s) after the decision: %.4f s" % took)
        # instance-seconds: billed at the instances serving (and draining) between two reads
        a1, a2 = variant(), variant()
        s1, s2 = a1["scaling"], a2["scaling"]
        if s1["changes"] == s2["changes"]:
            billed = (s1["serving"] + s1["draining"]) * (s2["model_time"] - s1["model_time"])
            check(abs(s2["instance_seconds"] - s1["instance_seconds"] - billed) < 1e-3,
                  "instance-seconds grow by those billed: %s %s" % (s1, s2))
        check(s1["instance_seconds"] > 0 and s1["changes"] >= 2,
              "instance-seconds and changes counted: %s" % s1)
        # no load: 15 periods under 0.9 x the target, then a scale-in to 1
        until("a scale-in in DescribeEndpoint", instances, lambda v: v[0] == 1)
        v = until("the drained instances released", variant,
                  lambda v: v["scaling"]["draining"] == 0)
        check(v["scaling"]["serving"] == 1 and v["scaling"]["launching"] == 0,
              "one instance serving: %s" % v["scaling"])
        rc, out, err = run("application-autoscaling", "describe-scaling-activities",
                           "--service-namespace", "sagemaker", "--resource-id",
                           "endpoint/e/variant/AllTraffic")
        ins = [a for a in out.get("ScalingActivities", []) if "AlarmLow" in a.get("Cause", "")]
        check(ins and ins[0]["Description"] == "Setting desired instance count to 1." and
              ins[0]["StatusCode"] == "Successful" and
              iso_seconds(ins[0]["StartTime"]) <= iso_seconds(ins[0]["EndTime"]),
              "the scale-in: %s" % out)
        n, status, err = instances()
        check(n == 1 and status == "InService", "back to one, InService: %s %s" % (n, status))
    return None


def test_concurrency():
    # calls of 50 model s (83 ms): the four clients keep about 4 calls in flight, over
    # the target of 1 a serving instance at every 10-second datapoint
    return test_runtime("SageMakerVariantConcurrentRequestsPerModelHighResolution",
                        ["--set", "e.overhead_s=50"])


def test_step():
    setup = aws_cli_setup()
    if not setup:
        return 77
    aws, env = setup
    # provisioning 60 s + load_s 30 s: new instances serve 1.5 s after the decision
    args = ["--endpoint", "e=instant", "--time-scale", "60", "--create-time", "60",
            "--set", "e.load_s=30"]
    with emulator.Emulator(args) as emu:
        run = aws_runner(aws, env, emu.url)

        key = register_variant(run, 20)
        step = {"AdjustmentType": "ChangeInCapacity", "Cooldown": 0, "StepAdjustments": [
            {"MetricIntervalLowerBound": 0, "ScalingAdjustment": 1}]}
        rc, out, err = run("application-autoscaling", "put-scaling-policy", *key,
                           "--policy-name", "steps", "--policy-type", "StepScaling",
                           "--step-scaling-policy-configuration", json.dumps(step))
        arn = out.get("PolicyARN", "")
        check(rc == 0 and ":scalingPolicy:" in arn, "put-scaling-policy: %s %s" % (out, err))
        if rc != 0:
            return None
        alarm = ["--alarm-name", "ipi-high", "--namespace", "AWS/SageMaker",
                 "--metric-name", "InvocationsPerInstance", "--statistic", "Sum",
                 "--period", "60", "--evaluation-periods", "2", "--datapoints-to-alarm", "2",
                 "--comparison-operator", "GreaterThanThreshold",
                 "--dimensions", "Name=EndpointName,Value=e", "Name=VariantName,Value=AllTraffic",
                 "--treat-missing-data", "notBreaching", "--alarm-actions", arn]
        rc, out, err = run("cloudwatch", "put-metric-alarm", *alarm)
        check(rc != 0 and "MissingParameter" in err and "Threshold" in err,
              "an alarm without a Threshold: %s" % err)
        rc, out, err = run("cloudwatch", "put-metric-alarm", *alarm, "--threshold", "1")
        check(rc == 0, "put-metric-alarm: %s" % err)
        if rc != 0:
            return None  # no alarm: nothing below can come

        def alarms():
            rc, out, err = run("cloudwatch", "describe-alarms", "--alarm-names", "ipi-high")
            check(rc == 0, "describe-alarms: %s" % err)
            return out.get("MetricAlarms", [])
        a = alarms()
        check(len(a) == 1 and a[0]["AlarmActions"] == [arn] and a[0]["Threshold"] == 1.0 and
              a[0]["EvaluationPeriods"] == 2 and a[0]["Period"] == 60 and
              a[0]["Dimensions"] == [{"Name": "EndpointName", "Value": "e"},
                                     {"Name": "VariantName", "Value": "AllTraffic"}] and
              a[0]["StateValue"] in ("OK", "INSUFFICIENT_DATA") and
              a[0]["AlarmArn"].endswith(":alarm:ipi-high"),
              "described as put: %s" % a)

        def instances():
            rc, out, err = run("sagemaker", "describe-endpoint", "--endpoint-name", "e")
            return out.get("ProductionVariants", [{}])[0].get("CurrentInstanceCount")

        def activities():
            rc, out, err = run("application-autoscaling", "describe-scaling-activities",
                               "--service-namespace", "sagemaker", "--resource-id",
                               "endpoint/e/variant/AllTraffic")
            check(rc == 0, "describe-scaling-activities: %s" % err)
            return out.get("ScalingActivities", [])
        with Load(emu.url) as load:
            a = until("the alarm in ALARM", alarms,
                      lambda v: v and v[0]["StateValue"] == "ALARM")
            check(a and a[0]["StateReason"].startswith("Threshold Crossed"),
                  "the reason: %s" % a)
            until("a scale-out in DescribeEndpoint", instances, lambda n: n is not None and n >= 2)
            acts = activities()
            ours = [x for x in acts if x.get("Cause") ==
                    "monitor alarm ipi-high in state ALARM triggered policy steps"]
            check(ours and ours[-1]["Description"] == "Setting desired instance count to 2.",
                  "the first step's activity names the alarm: %s" % acts)
            rc, out, err = run("cloudwatch", "delete-alarms", "--alarm-names", "ipi-high")
            check(rc == 0, "delete-alarms: %s" % err)
            deleted = time.time()  # after the reply: an activity started later is the alarm's
            check(alarms() == [], "deleted: no alarm described")
            rc, out, err = run("cloudwatch", "delete-alarms", "--alarm-names", "ipi-high")
            check(rc != 0 and "ResourceNotFound" in err and "ipi-high" in err,
                  "deleting an unknown alarm: %s" % err)

            def after():
                q = [{"Id": "ipi", "MetricStat": {"Metric": {
                    "Namespace": "AWS/SageMaker", "MetricName": "InvocationsPerInstance",
                    "Dimensions": [{"Name": "EndpointName", "Value": "e"},
                                   {"Name": "VariantName", "Value": "AllTraffic"}]},
                    "Period": 60, "Stat": "Sum"}}]
                rc, out, err = run("cloudwatch", "get-metric-data", "--metric-data-queries",
                                   json.dumps(q), "--start-time", str(int(deleted)),
                                   "--end-time", str(int(deleted) + 3600),
                                   "--scan-by", "TimestampAscending")
                r = out.get("MetricDataResults", [{}])[0]
                return [v for t, v in zip(r.get("Timestamps", []), r.get("Values", []))
                        if iso_seconds(t) >= deleted]
            # four whole periods after the deletion, the first two over the threshold: a
            # live alarm would have been in ALARM at the end of the second and stepped
            pts = until("four periods after the deletion", after, lambda v: len(v) >= 4)
            check(all(v > 1 for v in pts[:2]), "the load kept the metric over 1: %s" % pts)
        check(not load.failures, "every call of the load answered 200: %s" % load.failures[:5])
        late = [x for x in activities() if iso_seconds(x["StartTime"]) > deleted]
        check(not late, "no step after delete-alarms: %s" % late)
    return None


def test_slewed():
    """runtime with the emulator's wall clock running 25% fast (as a host's that slews
    or steps it): the activity's StartTime and EndTime are still the model's 90 s apart,
    to the millisecond, since the emulator maps model times to wall times one way."""
    return test_runtime(emu_env=dict(os.environ, LD_PRELOAD=os.environ["SKEWCLOCK"],
                                     SLEW_RATE="0.25"))


if __name__ == "__main__":
    sys.exit(run_group({"instances": test_instances, "awscli": test_awscli,
                        "runtime": test_runtime, "concurrency": test_concurrency,
                        "step": test_step, "slewed": test_slewed}, __doc__))
