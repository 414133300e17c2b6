#!/usr/bin/python3
"""sm-emulator's inference components over HTTP (issue 33), signed by botocore's SigV4.

    test_components.py GROUP

Debian's aws CLI 2.9 and python3-botocore predate inference components (their
sagemaker model has no CreateInferenceComponent), so the calls are AWS JSON 1.1
requests in the shapes of botocore's later sagemaker 2017-07-24 model, signed by
botocore's SigV4Auth.

control  CreateInferenceComponent on a variant (Creating, then InService with its copies
         after the model's load time), DescribeInferenceComponent, ListInferenceComponents
         (filters, paging), UpdateInferenceComponent and
         UpdateInferenceComponentRuntimeConfig (the copy count, more copies after the load
         time, fewer at once, 0 allowed), tags by ARN, DeleteInferenceComponent (Deleting,
         then gone); refusals: copies that do not fit the variant's instances, an unknown
         endpoint, variant or model, a name taken, bad shapes
scaling  Application Auto Scaling on the copies, Debian's aws CLI unchanged: a scalable
         target inference-component/NAME (sagemaker:inference-component:DesiredCopyCount,
         MinCapacity 0 allowed) with target tracking on
         SageMakerInferenceComponentInvocationsPerCopy scales the copies out under load
         (the new copy serves exactly the model's load time after the decision) and in to
         the minimum without it; its two TargetTracking- alarms are listed by
         describe-alarms, and gone with the policy
from_zero  scale out from zero copies as SageMaker's guide does it (Debian's aws CLI): a
         StepScaling policy (ChangeInCapacity +1) on inference-component/NAME and the
         guide's CloudWatch alarm on AWS/SageMaker NoCapacityInvocationFailures
         (InferenceComponentName, Sum over 60 s, GreaterThanThreshold 1) whose action is
         the policy: the refused calls are the metric's Sum in get-metric-data, the alarm
         goes ALARM, the policy sets 1 copy (one activity naming the alarm), the calls are
         refused until the copy serves and served after
invoke   InvokeEndpoint with X-Amzn-SageMaker-Inference-Component routes to a copy of
         the component on its variant, running its model's profile, not to the variant's
         instances; an unknown component is refused; while the component has 0
         copies the call gets the no-capacity ValidationError and the stats count a
         NoCapacityInvocationFailures
concurrency  target tracking on SageMakerInferenceComponentConcurrentRequestsPerCopy-
         HighResolution (Debian's aws CLI): three calls held open on the one copy (3 in
         flight per copy, over the target of 1) scale the copies out to 3 (one activity,
         DescribeInferenceComponent's counts, the stats' copies), and once they are closed
         (0 in flight) the copies scale in to the minimum, 1
copies   each copy is a batching model of its own: with one copy (max_seqs 1) a second
         call waits in its batch behind the first although the variant's two instances
         are idle; with two copies (LEAST_OUTSTANDING_REQUESTS) each runs one call; a
         copy scaled in drains (its call goes on, no new call) and is released once its
         call ended
hosted   the same on an endpoint the control plane made: a component's calls go to its
         copy, which runs its model's profile (bf16-l4) beside the variant's (qat-l4), and
         go with the copies at 0
"""
import http.client
import json
import sys
import threading
import time
import urllib.parse

from emutest import (aws_cli_setup, chat, check, control as api, emulator, invoke, run_group,
                     signed_headers, until)
from test_autoscaling import aws_runner, iso_seconds

GEMMA = "google/gemma-4-E2B-it"  # bf16-l4: load_s 82.751806 model seconds
ROLE = "arn:aws:iam::123456789012:role/sm-test"


def spec(copies, mem=1024, accel=1, model="m"):
    crr = {"MinMemoryRequiredInMb": mem}
    if accel:
        crr["NumberOfAcceleratorDevicesRequired"] = accel
    return {"Specification": {"ModelName": model, "ComputeResourceRequirements": crr},
            "RuntimeConfig": {"CopyCount": copies}}


def create_model(url):
    status, d = api(url, "CreateModel", {
        "ModelName": "m", "ExecutionRoleArn": ROLE,
        "PrimaryContainer": {"Image": "img:1", "Environment": {"SM_VLLM_MODEL": GEMMA}}})
    check(status == 200, "CreateModel: %s" % d)


def create_in_service(url):
    """The model m and a component ic of one copy (CPU only) on e, once InService."""
    create_model(url)
    status, d = api(url, "CreateInferenceComponent",
                    dict(spec(1, mem=1024, accel=0), InferenceComponentName="ic",
                         EndpointName="e"))
    check(status == 200, "CreateInferenceComponent: %s" % d)
    until("ic InService", lambda: describe(url, "ic"),
          lambda d: d.get("InferenceComponentStatus") == "InService")


def describe(url, name):
    return api(url, "DescribeInferenceComponent", {"InferenceComponentName": name})[1]


# Scaling out from zero copies as SageMaker's guide sets it up
# (endpoint-auto-scaling-zero-instances.html) on the component ic: from_zero's, and
# tests/e2e/test_coldstart.py's.
GUIDE_KEY = ["--service-namespace", "sagemaker", "--resource-id", "inference-component/ic",
             "--scalable-dimension", "sagemaker:inference-component:DesiredCopyCount"]


def guide_target_and_policy(run):
    """register-scalable-target (0 to 1 copy) and the guide's StepScaling policy
    (ChangeInCapacity +1) through run (aws_runner); the policy's ARN, '' when refused."""
    rc, out, err = run("application-autoscaling", "register-scalable-target", *GUIDE_KEY,
                       "--min-capacity", "0", "--max-capacity", "1")
    check(rc == 0, "register-scalable-target: %s" % err)
    step = {"AdjustmentType": "ChangeInCapacity", "MetricAggregationType": "Maximum",
            "Cooldown": 60,
            "StepAdjustments": [{"MetricIntervalLowerBound": 0, "ScalingAdjustment": 1}]}
    rc, out, err = run("application-autoscaling", "put-scaling-policy", *GUIDE_KEY,
                       "--policy-name", "from-zero", "--policy-type", "StepScaling",
                       "--step-scaling-policy-configuration", json.dumps(step))
    arn = out.get("PolicyARN", "")
    check(rc == 0 and ":scalingPolicy:" in arn, "put-scaling-policy: %s %s" % (out, err))
    return arn if rc == 0 else ""


def guide_alarm(arn):
    """put-metric-alarm's words for the guide's alarm on ic's NoCapacityInvocationFailures
    (Sum over 60 s, GreaterThanThreshold 1), whose action is the policy arn."""
    return ["--alarm-name", "ic-step-scaling-alarm", "--alarm-actions", arn,
            "--comparison-operator", "GreaterThanThreshold", "--datapoints-to-alarm", "1",
            "--dimensions", "Name=InferenceComponentName,Value=ic",
            "--evaluation-periods", "1", "--metric-name", "NoCapacityInvocationFailures",
            "--namespace", "AWS/SageMaker", "--period", "60", "--statistic", "Sum",
            "--threshold", "1"]


def metric_sum(run, metric, since):
    """get-metric-data's Sum of ic's AWS/SageMaker metric, 60 s periods, from an hour
    before since (Unix s) to an hour from now."""
    query = [{"Id": "m", "MetricStat": {"Metric": {
        "Namespace": "AWS/SageMaker", "MetricName": metric,
        "Dimensions": [{"Name": "InferenceComponentName", "Value": "ic"}]},
        "Period": 60, "Stat": "Sum"}}]
    rc, out, err = run("cloudwatch", "get-metric-data", "--metric-data-queries",
                       json.dumps(query), "--start-time", str(int(since - 3600)),
                       "--end-time", str(int(time.time() + 3600)))
    check(rc == 0, "get-metric-data: %s" % err)
    return sum(out.get("MetricDataResults", [{}])[0].get("Values", []))


NAMED = {"X-Amzn-SageMaker-Inference-Component": "ic"}


def hold(url, tag, max_tokens=4000):
    """A call to component ic of endpoint e, in flight until its connection closes (the
    emulator's profile keeps it running longer than the test): the connection."""
    body = json.dumps(chat("call " + tag, max_tokens, ignore_eos=True)).encode()
    path = "/endpoints/e/invocations"
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    conn.request("POST", path, body, signed_headers(url, path, body, extra=NAMED))
    return conn


def copies_of(v):
    """The stats' copies of component ic on variant v."""
    return v.get("components", {}).get("ic", {}).get("copies", [])


def test_control():
    # --time-scale 1000: the model's load time (82.75 model s) is 83 ms
    with emulator.Emulator(["--endpoint", "e=instant", "--time-scale", "1000"]) as emu:
        url = emu.url
        create_model(url)
        body = dict(spec(1), InferenceComponentName="ic1", EndpointName="e",
                    VariantName="AllTraffic", Tags=[{"Key": "team", "Value": "ml"}])
        status, d = api(url, "CreateInferenceComponent", body)
        arn = d.get("InferenceComponentArn", "")
        check(status == 200 and arn.endswith(":inference-component/ic1") and
              arn.startswith("arn:aws:sagemaker:us-east-1:"), "CreateInferenceComponent: %s" % d)
        d = describe(url, "ic1")
        check(d.get("InferenceComponentStatus") in ("Creating", "InService"), "described: %s" % d)
        if d.get("InferenceComponentStatus") == "Creating":
            check(d["RuntimeConfig"] == {"DesiredCopyCount": 1, "CurrentCopyCount": 0},
                  "Creating: no copy serves yet: %s" % d)
        d = until("ic1 InService", lambda: describe(url, "ic1"),
                  lambda d: d.get("InferenceComponentStatus") == "InService")
        check(d.get("RuntimeConfig", {}).get("CurrentCopyCount") == 1 and
              d["RuntimeConfig"].get("DesiredCopyCount") == 1 and
              d["RuntimeConfig"].get("PlacementStatus") ==
              [{"InstanceType": "ml.g6.xlarge", "CurrentCopyCount": 1}] and
              d.get("EndpointName") == "e" and d.get("VariantName") == "AllTraffic" and
              d.get("Specification", {}).get("ModelName") == "m" and
              d["Specification"].get("ComputeResourceRequirements") ==
              {"MinMemoryRequiredInMb": 1024, "NumberOfAcceleratorDevicesRequired": 1} and
              d.get("EndpointArn", "").endswith(":endpoint/e") and
              isinstance(d.get("CreationTime"), float), "InService with one copy: %s" % d)

        # the fit: ml.g6.xlarge has 1 accelerator and 16384 MB; ic1's copy holds the GPU
        status, d = api(url, "CreateInferenceComponent",
                        dict(spec(1), InferenceComponentName="ic2", EndpointName="e"))
        check(status == 400 and d.get("__type") == "ValidationException" and
              "ic2" in d.get("message", "") and "variant AllTraffic of endpoint e" in d["message"],
              "a second GPU copy does not fit one ml.g6.xlarge: %s" % d)
        status, d = api(url, "UpdateInferenceComponentRuntimeConfig", {
            "InferenceComponentName": "ic1", "DesiredRuntimeConfig": {"CopyCount": 2}})
        check(status == 400 and "ic1" in d.get("message", ""),
              "two copies of a GPU do not fit one instance: %s" % d)
        # CPU-only copies of 4096 MB: four fit beside nothing else on the GPU
        status, d = api(url, "UpdateInferenceComponentRuntimeConfig", {
            "InferenceComponentName": "ic1", "DesiredRuntimeConfig": {"CopyCount": 0}})
        check(status == 200 and d.get("InferenceComponentArn", "").endswith("/ic1"),
              "scale ic1 to 0: %s" % d)
        d = describe(url, "ic1")
        check(d.get("InferenceComponentStatus") == "InService" and
              d.get("RuntimeConfig") == {"DesiredCopyCount": 0, "CurrentCopyCount": 0},
              "0 copies at once: %s" % d)
        status, d = api(url, "CreateInferenceComponent",
                        dict(spec(5, mem=4096, accel=0), InferenceComponentName="cpu",
                             EndpointName="e"))
        check(status == 400 and "5 copies" in d.get("message", ""),
              "five copies of 4096 MB do not fit 16384 MB: %s" % d)
        status, d = api(url, "CreateInferenceComponent",
                        dict(spec(4, mem=4096, accel=0), InferenceComponentName="cpu",
                             EndpointName="e"))
        check(status == 200, "four copies of 4096 MB fit: %s" % d)

        # UpdateInferenceComponent: more copies come after the load time (Updating)
        until("cpu InService", lambda: describe(url, "cpu"),
              lambda d: d.get("InferenceComponentStatus") == "InService")
        status, d = api(url, "UpdateInferenceComponent", {
            "InferenceComponentName": "cpu", "RuntimeConfig": {"CopyCount": 2}})
        check(status == 200 and describe(url, "cpu").get("RuntimeConfig", {}).get(
            "CurrentCopyCount") == 2, "fewer copies at once: %s" % d)
        status, d = api(url, "UpdateInferenceComponent", {
            "InferenceComponentName": "cpu", "RuntimeConfig": {"CopyCount": 3}})
        d = describe(url, "cpu")
        check(status == 200 and d.get("RuntimeConfig", {}).get("DesiredCopyCount") == 3,
              "three copies asked: %s" % d)
        d = until("the third copy", lambda: describe(url, "cpu"),
                  lambda d: d.get("RuntimeConfig", {}).get("CurrentCopyCount") == 3)
        check(d.get("InferenceComponentStatus") == "InService", "InService again: %s" % d)

        # ListInferenceComponents
        status, d = api(url, "ListInferenceComponents", {"SortBy": "Name",
                                                         "SortOrder": "Ascending"})
        names = [x["InferenceComponentName"] for x in d.get("InferenceComponents", [])]
        check(status == 200 and names == ["cpu", "ic1"] and
              all(x.get("InferenceComponentStatus") == "InService" and
                  x.get("EndpointName") == "e" and x.get("VariantName") == "AllTraffic"
                  for x in d["InferenceComponents"]), "listed: %s" % d)
        status, d = api(url, "ListInferenceComponents", {"SortBy": "Name", "MaxResults": 1})
        check(status == 200 and len(d.get("InferenceComponents", [])) == 1 and
              d["InferenceComponents"][0]["InferenceComponentName"] == "ic1" and "NextToken" in d,
              "a page of one, descending: %s" % d)
        status, d2 = api(url, "ListInferenceComponents", {"SortBy": "Name", "MaxResults": 1,
                                                          "NextToken": d.get("NextToken", "")})
        check([x["InferenceComponentName"] for x in d2.get("InferenceComponents", [])] == ["cpu"]
              and "NextToken" not in d2, "the next page: %s" % d2)
        status, d = api(url, "ListInferenceComponents", {"NameContains": "IC",
                                                         "EndpointNameEquals": "e"})
        check([x["InferenceComponentName"] for x in d.get("InferenceComponents", [])] == ["ic1"],
              "NameContains: %s" % d)
        status, d = api(url, "ListInferenceComponents", {"StatusEquals": "Ready"})
        check(status == 400 and "statusEquals" in d.get("message", ""), "a bad status: %s" % d)

        # tags by ARN, as the other resources
        status, d = api(url, "ListTags", {"ResourceArn": arn})
        check(status == 200 and d.get("Tags") == [{"Key": "team", "Value": "ml"}],
              "ListTags: %s" % d)

        # refusals
        for body, want in (
                (dict(spec(1), InferenceComponentName="x", EndpointName="nope"),
                 'Could not find endpoint "arn:aws:sagemaker:us-east-1:'),
                (dict(spec(1), InferenceComponentName="x", EndpointName="e", VariantName="V2"),
                 "Could not find variant V2 of endpoint e."),
                (dict(spec(1, model="nomodel"), InferenceComponentName="x", EndpointName="e"),
                 'Could not find model "arn:aws:sagemaker:us-east-1:'),
                (dict(spec(1, mem=4096, accel=0), InferenceComponentName="ic1",
                      EndpointName="e"),
                 'Cannot create already existing inference component "arn:aws:sagemaker:'),
                (dict(spec(-1), InferenceComponentName="x", EndpointName="e"),
                 "Value '-1' at 'runtimeConfig.copyCount' failed to satisfy constraint: "
                 "Member must have value greater than or equal to 0"),
                (dict(spec(1, mem=64, accel=0), InferenceComponentName="x", EndpointName="e"),
                 "minMemoryRequiredInMb"),
                ({"InferenceComponentName": "x", "EndpointName": "e",
                  "RuntimeConfig": {"CopyCount": 1}},
                 "Value null at 'specification' failed to satisfy constraint"),
                (dict(spec(1), InferenceComponentName="bad_name", EndpointName="e"),
                 "Value 'bad_name' at 'inferenceComponentName' failed to satisfy constraint")):
            status, d = api(url, "CreateInferenceComponent", body)
            check(status == 400 and d.get("__type") == "ValidationException" and
                  want in d.get("message", ""), "refused (%s): %s" % (want, d))
        status, d = api(url, "CreateInferenceComponent",
                        dict(spec(1), InferenceComponentName="x", EndpointName="e",
                             RuntimeConfig={"CopyCount": "one"}))
        check(status == 400 and d.get("__type") == "SerializationException",
              "a copy count that is not a number: %s" % d)
        status, d = api(url, "DescribeInferenceComponent", {"InferenceComponentName": "nope"})
        check(status == 400 and d.get("message", "").startswith(
            'Could not find inference component "arn:aws:sagemaker:us-east-1:') and
            d["message"].endswith(':inference-component/nope".'), "unknown: %s" % d)

        # DeleteInferenceComponent: Deleting, then gone
        status, d = api(url, "DeleteInferenceComponent", {"InferenceComponentName": "cpu"})
        check(status == 200 and d == {}, "DeleteInferenceComponent: %s" % d)
        until("cpu gone", lambda: api(url, "DescribeInferenceComponent",
                                      {"InferenceComponentName": "cpu"})[0],
              lambda s: s == 400)
        status, d = api(url, "ListInferenceComponents", {})
        check([x["InferenceComponentName"] for x in d.get("InferenceComponents", [])] == ["ic1"],
              "cpu gone from the list: %s" % d)


def test_invoke():
    with emulator.Emulator(["--endpoint", "e=instant", "--time-scale", "1000"]) as emu:
        url = emu.url
        create_model(url)

        def call(component):
            return invoke(url, "e", chat("What is 2 + 2?", max_tokens=4),
                          extra={"X-Amzn-SageMaker-Inference-Component": component})

        status, d = api(url, "CreateInferenceComponent",
                        dict(spec(1), InferenceComponentName="ic", EndpointName="e"))
        check(status == 200, "CreateInferenceComponent: %s" % d)
        r = call("other")
        check(r.status == 400 and (r.header("x-amzn-errortype") or "").startswith("ValidationError") and
              b"Inference Component other" in r.body, "an unknown component: %s %s" %
              (r.status, r.body))
        until("ic InService", lambda: describe(url, "ic"),
              lambda d: d.get("InferenceComponentStatus") == "InService")
        r = call("ic")
        check(r.status == 200 and r.header("x-amzn-invoked-production-variant") == "AllTraffic",
              "served by the component's variant: %s %s" % (r.status, r.body))
        v = emu.stats()["endpoints"]["e"]["variants"]["AllTraffic"]
        ic = v.get("components", {}).get("ic", {})
        check(ic.get("profile") == "bf16-l4" and [c["requests"] for c in ic.get("copies", [])] == [1]
              and v["requests"] == 0,
              "served by the component's copy running its model's profile (bf16-l4 for %s), "
              "not by the variant's instance (instant): %s" % (GEMMA, v))
        # scale to zero: the documented no-capacity error while it has no copy
        status, d = api(url, "UpdateInferenceComponentRuntimeConfig", {
            "InferenceComponentName": "ic", "DesiredRuntimeConfig": {"CopyCount": 0}})
        check(status == 200, "scale to 0: %s" % d)
        for _ in range(2):
            r = call("ic")
            check(r.status == 400 and (r.header("x-amzn-errortype") or "").startswith("ValidationError") and
                  b"Inference Component has no capacity to process this request." in r.body,
                  "no copy: %s %s" % (r.status, r.body))
        comps = emu.stats().get("inference_components", {})
        check(comps.get("ic", {}).get("no_capacity_invocation_failures") == 2,
              "NoCapacityInvocationFailures counted: %s" % comps)
        status, d = api(url, "UpdateInferenceComponentRuntimeConfig", {
            "InferenceComponentName": "ic", "DesiredRuntimeConfig": {"CopyCount": 1}})
        until("a copy again", lambda: describe(url, "ic"),
              lambda d: d.get("RuntimeConfig", {}).get("CurrentCopyCount") == 1)
        r = call("ic")
        check(r.status == 200, "served again once a copy loaded: %s %s" % (r.status, r.body))


def test_scaling():
    setup = aws_cli_setup()
    if not setup:
        return 77
    aws, env = setup
    load_s = 82.751806  # bf16-l4's, the model's profile: a new copy serves this long after
    # time scale 600: a metric period of 60 s is 0.1 s, the load 0.138 s
    with emulator.Emulator(["--endpoint", "e=instant", "--time-scale", "600"]) as emu:
        url = emu.url
        run = aws_runner(aws, env, url)
        create_in_service(url)
        stop = threading.Event()

        def load():
            while not stop.is_set():
                invoke(url, "e", chat("What is 2 + 2?", max_tokens=4),
                       extra={"X-Amzn-SageMaker-Inference-Component": "ic"})

        # the load runs before the policy is put: 15 idle periods (1.5 s) while a busy
        # host started the clients would scale the copies in to 0, where no call counts
        clients = [threading.Thread(target=load) for _ in range(4)]
        for c in clients:
            c.start()
        try:
            key = ["--service-namespace", "sagemaker", "--resource-id", "inference-component/ic",
                   "--scalable-dimension", "sagemaker:inference-component:DesiredCopyCount"]
            rc, out, err = run("application-autoscaling", "register-scalable-target", *key,
                               "--min-capacity", "0", "--max-capacity", "3")
            check(rc == 0, "register-scalable-target, MinCapacity 0: %s" % err)
            rc, out, err = run("application-autoscaling", "register-scalable-target",
                               "--service-namespace", "sagemaker", "--resource-id",
                               "inference-component/none", "--scalable-dimension",
                               "sagemaker:inference-component:DesiredCopyCount",
                               "--min-capacity", "0", "--max-capacity", "3")
            check(rc != 0 and "ValidationException" in err and "inference-component/none" in err,
                  "an unknown component refused: %s" % err)
            metric = "SageMakerInferenceComponentInvocationsPerCopy"
            tracking = {"TargetValue": 1.0, "ScaleOutCooldown": 0, "ScaleInCooldown": 0,
                        "PredefinedMetricSpecification": {"PredefinedMetricType": metric}}
            rc, out, err = run("application-autoscaling", "put-scaling-policy", *key,
                               "--policy-name", "ipc", "--policy-type", "TargetTrackingScaling",
                               "--target-tracking-scaling-policy-configuration",
                               json.dumps(tracking))
            check(rc == 0, "put-scaling-policy: %s" % err)
            named = sorted(x["AlarmName"] for x in out.get("Alarms", []))
            policy_arn = out.get("PolicyARN")
            d = until("a scale-out of the copies", lambda: describe(url, "ic"),
                      lambda d: d.get("RuntimeConfig", {}).get("CurrentCopyCount", 0) >= 2)
        finally:
            stop.set()
            for c in clients:
                c.join()
        check(d.get("RuntimeConfig", {}).get("CurrentCopyCount", 0) >= 2,
              "copies scaled out under load: %s" % d)

        def tracking_alarms():
            rc, out, err = run("cloudwatch", "describe-alarms",
                               "--alarm-name-prefix", "TargetTracking-")
            check(rc == 0, "describe-alarms: %s" % err)
            return out.get("MetricAlarms", [])
        # read once the load is over: a slow aws CLI before it would let the copies scale in
        listed = tracking_alarms()
        check(len(named) == 2 and sorted(x["AlarmName"] for x in listed) == named and
              all(x["MetricName"] == "InvocationsPerCopy" and x["Dimensions"] ==
                  [{"Name": "InferenceComponentName", "Value": "ic"}] and
                  x["AlarmActions"] == [policy_arn] for x in listed),
              "target tracking's two alarms listed by describe-alarms: %s %s" % (named, listed))
        rc, out, err = run("application-autoscaling", "describe-scaling-activities", *key[:4])
        acts = out.get("ScalingActivities", [])
        outs = [a for a in acts if "AlarmHigh" in a.get("Cause", "")]
        check(rc == 0 and outs and outs[-1]["Description"].startswith(
            "Setting desired copy count to ") and outs[-1]["StatusCode"] == "Successful",
            "the scale-out activity: %s %s" % (out, err))
        if outs and outs[-1].get("EndTime"):
            took = iso_seconds(outs[-1]["EndTime"]) - iso_seconds(outs[-1]["StartTime"])
            # the two times are milliseconds (as the service writes them), each rounded
            check(abs(took - load_s / 600) <= 0.001 + 1e-9,
                  "the new copy served the load time after the decision: %.4f s" % took)
        # no load: 15 datapoints under 0.9 x the target, then down to the minimum, 0
        d = until("a scale-in to 0 copies", lambda: describe(url, "ic"),
                  lambda d: d.get("RuntimeConfig", {}).get("DesiredCopyCount") == 0)
        check(d.get("RuntimeConfig", {}).get("CurrentCopyCount") == 0,
              "scaled in to zero copies: %s" % d)
        r = invoke(url, "e", chat("What is 2 + 2?", max_tokens=4),
                   extra={"X-Amzn-SageMaker-Inference-Component": "ic"})
        check(r.status == 400 and b"has no capacity" in r.body,
              "at zero copies the call is refused: %s %s" % (r.status, r.body))
        rc, out, err = run("application-autoscaling", "delete-scaling-policy", *key,
                           "--policy-name", "ipc")
        check(rc == 0 and tracking_alarms() == [],
              "the policy's alarms go with it: %s" % err)


def test_from_zero():
    setup = aws_cli_setup()
    if not setup:
        return 77
    aws, env = setup
    # time scale 60: a metric period of 60 s is 1 s, the model's load 1.38 s
    with emulator.Emulator(["--endpoint", "e=instant", "--time-scale", "60"]) as emu:
        url = emu.url
        run = aws_runner(aws, env, url)
        create_in_service(url)
        status, d = api(url, "UpdateInferenceComponentRuntimeConfig", {
            "InferenceComponentName": "ic", "DesiredRuntimeConfig": {"CopyCount": 0}})
        check(status == 200 and describe(url, "ic").get("RuntimeConfig", {}).get(
            "CurrentCopyCount") == 0, "scaled to 0 copies: %s" % d)
        key = GUIDE_KEY
        # MaxCapacity 1: the alarm fires each period it stays in ALARM while the copy loads,
        # and the count it may reach is pinned whatever the Cooldown lets through
        arn = guide_target_and_policy(run)
        if not arn:
            return None
        alarm = guide_alarm(arn)
        both = [w if w != "Name=InferenceComponentName,Value=ic" else
                "Name=InferenceComponentName,Value=ic Name=EndpointName,Value=e" for w in alarm]
        rc, out, err = run("cloudwatch", "put-metric-alarm", *" ".join(both).split(" "))
        check(rc != 0 and "InvalidParameterValue" in err and "EndpointName" in err,
              "InferenceComponentName with EndpointName refused, naming it: %s" % err)
        # first without its action: the alarm's state can be read while nothing scales
        rc, out, err = run("cloudwatch", "put-metric-alarm", *alarm, "--no-actions-enabled")
        check(rc == 0, "put-metric-alarm: %s" % err)
        if rc != 0:
            return None

        def alarms():
            rc, out, err = run("cloudwatch", "describe-alarms",
                               "--alarm-names", "ic-step-scaling-alarm")
            check(rc == 0, "describe-alarms: %s" % err)
            return out.get("MetricAlarms", [])

        def failures(metric):
            return metric_sum(run, metric, started)

        started = time.time()
        stop = threading.Event()
        replies = [[], []]  # each client's statuses, in order

        def client(mine):
            while not stop.is_set():
                r = invoke(url, "e", chat("What is 2 + 2?", max_tokens=4),
                           extra={"X-Amzn-SageMaker-Inference-Component": "ic"})
                refused = r.status == 400 and b"has no capacity" in r.body
                mine.append(200 if r.status == 200 else "refused" if refused else r.status)

        clients = [threading.Thread(target=client, args=(mine,)) for mine in replies]
        for c in clients:
            c.start()
        try:
            a = until("the alarm in ALARM", alarms, lambda v: v and v[0]["StateValue"] == "ALARM")
            check(a and a[0]["Dimensions"] == [{"Name": "InferenceComponentName", "Value": "ic"}]
                  and a[0]["StateReason"].startswith("Threshold Crossed"),
                  "ALARM on the component's metric: %s" % a)
            check(failures("NoCapacityInvocationFailures") >= 2,
                  "get-metric-data: the refusals counted as NoCapacityInvocationFailures")
            check(describe(url, "ic").get("RuntimeConfig", {}).get("DesiredCopyCount") == 0,
                  "actions disabled: nothing scaled")
            rc, out, err = run("cloudwatch", "put-metric-alarm", *alarm)  # the action enabled
            check(rc == 0, "put-metric-alarm with its action: %s" % err)
            d = until("a copy serving", lambda: describe(url, "ic"),
                      lambda d: d.get("RuntimeConfig", {}).get("CurrentCopyCount") == 1)
            n = [len(mine) for mine in replies]
            until("calls served after the copy", lambda: replies,
                  lambda v: all(len(mine) > k and 200 in mine[k:] for mine, k in zip(v, n)))
        finally:
            stop.set()
            for c in clients:
                c.join()
        rtc = d.get("RuntimeConfig", {})
        check(rtc.get("DesiredCopyCount") == 1 and rtc.get("CurrentCopyCount") == 1 and
              d.get("InferenceComponentStatus") == "InService",
              "the step policy set 1 copy: %s" % d)
        for mine in replies:
            first = mine.index(200) if 200 in mine else len(mine)
            check(first > 0 and set(mine[:first]) == {"refused"} and set(mine[first:]) == {200},
                  "refused until the copy served, then served: %s" % mine)
        refused = sum(mine.count("refused") for mine in replies)
        served = sum(mine.count(200) for mine in replies)
        check(failures("NoCapacityInvocationFailures") == refused,
              "NoCapacityInvocationFailures' Sum is the refusals: %d" % refused)
        check(failures("Invocations") == served,
              "the component's Invocations are the calls served: %d" % served)
        rc, out, err = run("application-autoscaling", "describe-scaling-activities", *key[:4])
        acts = out.get("ScalingActivities", [])
        check(rc == 0 and len(acts) == 1 and
              acts[0]["Description"] == "Setting desired copy count to 1." and
              acts[0]["Cause"] == "monitor alarm ic-step-scaling-alarm in state ALARM "
              "triggered policy from-zero" and acts[0]["StatusCode"] == "Successful",
              "one activity, from 0 to 1 copy, naming the alarm: %s %s" % (out, err))


def test_concurrency():
    """Target tracking on the copies' high-resolution concurrency metric: the datapoint
    is the component's calls in flight / its copies serving, each 10 model seconds. The
    three calls are held open before the policy is put, so every datapoint reads 3 in
    flight on 1 copy (desired ceil(1 x 3 / 1) = 3, the maximum), then 3 on 3 (1: neither
    over the target nor under 0.9 x it); closed, 0 (the scale-in to the minimum). Every
    wait is on a state: the stats' in_flight, DescribeInferenceComponent's counts."""
    setup = aws_cli_setup()
    if not setup:
        return 77
    # time scale 600: a datapoint each 17 ms, the model's load (82.75 s) 0.138 s; a call's
    # overhead of 10^6 model s (28 minutes) keeps it in flight until the test closes it
    with emulator.Emulator(["--endpoint", "e=instant", "--time-scale", "600",
                            "--max-duration", "0", "--set", "e.overhead_s=1000000"]) as emu:
        url = emu.url
        run = aws_runner(*setup, url)
        create_in_service(url)

        def variant():
            return emu.stats()["endpoints"]["e"]["variants"]["AllTraffic"]

        def counts():
            rtc = describe(url, "ic").get("RuntimeConfig", {})
            return rtc.get("CurrentCopyCount"), rtc.get("DesiredCopyCount")

        def activities(alarm):
            rc, out, err = run("application-autoscaling", "describe-scaling-activities",
                               *key[:4])
            check(rc == 0, "describe-scaling-activities: %s" % err)
            return [(a["Description"], a["StatusCode"]) for a in
                    out.get("ScalingActivities", []) if alarm in a.get("Cause", "")]

        held = [hold(url, tag, max_tokens=4) for tag in "abc"]
        v = until("3 calls in flight on the copy", variant,
                  lambda v: [c["in_flight"] for c in copies_of(v)] == [3])
        check(v["in_flight"] == 0, "the calls are the copy's, not the instances': %s" % v)
        key = ["--service-namespace", "sagemaker", "--resource-id", "inference-component/ic",
               "--scalable-dimension", "sagemaker:inference-component:DesiredCopyCount"]
        rc, out, err = run("application-autoscaling", "register-scalable-target", *key,
                           "--min-capacity", "1", "--max-capacity", "3")
        check(rc == 0, "register-scalable-target: %s" % err)
        tracking = {"TargetValue": 1.0, "ScaleOutCooldown": 0, "ScaleInCooldown": 0,
                    "PredefinedMetricSpecification": {"PredefinedMetricType":
                    "SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution"}}
        rc, out, err = run("application-autoscaling", "put-scaling-policy", *key,
                           "--policy-name", "cpc", "--policy-type", "TargetTrackingScaling",
                           "--target-tracking-scaling-policy-configuration",
                           json.dumps(tracking))
        check(rc == 0, "put-scaling-policy: %s" % err)
        try:
            n = until("3 copies serving", counts, lambda n: n == (3, 3))
            check(n == (3, 3), "3 calls in flight on 1 copy scale out to 3 copies: %s" % (n,))
            check(activities("AlarmHigh") == [("Setting desired copy count to 3.",
                                               "Successful")],
                  "one scale-out activity, to 3 copies: %s" % activities("AlarmHigh"))
            check(activities("AlarmLow") == [],
                  "no scale-in while the calls are held: %s" % activities("AlarmLow"))
        finally:
            for conn in held:
                conn.close()
        until("the calls closed", variant,
              lambda v: sum(c["in_flight"] for c in copies_of(v)) == 0)
        n = until("a scale-in to 1 copy", counts, lambda n: n == (1, 1))
        check(n == (1, 1), "without calls in flight the copies scale in to 1: %s" % (n,))
        check(activities("AlarmLow") == [("Setting desired copy count to 1.", "Successful")],
              "one scale-in activity, to 1 copy: %s" % activities("AlarmLow"))
        check(len(activities("AlarmHigh")) == 1, "no other scale-out")


def test_copies():
    """Each copy a batching model of its own: one copy of max_seqs 1 keeps a second call
    waiting in its batch behind the first although the variant has two idle instances;
    two copies run one call each at once; a copy removed drains (its call goes on, no
    new call goes to it) and is released once its call ended. Decided from
    /emulator/stats' per-copy in_flight, running and waiting counts and states. The long
    calls (4000 tokens, 1000 s) end only when the test closes their connection: every
    wait is on a state."""
    args = ["--endpoint", "e=instant", "--set", "e.instances=2",
            "--set", "e.routing=LEAST_OUTSTANDING_REQUESTS", "--set", "e.max_seqs=1",
            "--set", "e.step_ms=1:250", "--max-duration", "0"]
    with emulator.Emulator(args) as emu:
        url = emu.url
        # a model no built-in profile serves: its copies load in 0
        status, d = api(url, "CreateModel", {
            "ModelName": "m", "ExecutionRoleArn": ROLE, "PrimaryContainer": {"Image": "img:1"}})
        check(status == 200, "CreateModel: %s" % d)
        status, d = api(url, "CreateInferenceComponent",
                        dict(spec(1), InferenceComponentName="ic", EndpointName="e"))
        check(status == 200, "CreateInferenceComponent: %s" % d)
        until("ic InService", lambda: describe(url, "ic"),
              lambda d: d.get("InferenceComponentStatus") == "InService")
        replies = {}

        def start(tag):  # a short call (4 tokens), answered in a thread
            def run():
                replies[tag] = invoke(url, "e", chat("call " + tag, 4), extra=NAMED)
            t = threading.Thread(target=run)
            t.start()
            return t

        def variant():
            return emu.stats()["endpoints"]["e"]["variants"]["AllTraffic"]

        copies = copies_of

        def batches(want):  # until the copies' (running, waiting) are want; the instances'
            # calls end the wait too (the old emulator ran them there), failing the check after
            return until("copies' batches %s" % (want,), variant, lambda v: v["in_flight"] > 0
                         or [(c["running"], c["waiting"]) for c in copies(v)] == want)

        def set_copies(n):
            status, d = api(url, "UpdateInferenceComponentRuntimeConfig", {
                "InferenceComponentName": "ic", "DesiredRuntimeConfig": {"CopyCount": n}})
            check(status == 200, "%d copies: %s" % (n, d))
            until("%d copies" % n, lambda: describe(url, "ic"),
                  lambda d: d.get("RuntimeConfig", {}).get("CurrentCopyCount") == n)

        # one copy: the second call waits in that copy's batch, not on an instance
        a = hold(url, "a")
        batches([(1, 0)])
        b = start("b")
        v = batches([(1, 1)])
        check([c["in_flight"] for c in copies(v)] == [2] and
              [i["in_flight"] for i in v.get("instances", [])] == [0, 0],
              "one copy holds both calls, one waiting; the instances none: %s" % v)
        a.close()  # its client gives up: b, waiting behind it, runs and is answered
        b.join()
        # two copies: least outstanding requests sends the second call to the idle one
        set_copies(2)
        c = hold(url, "c")
        v = until("c running", variant, lambda v: sum(x["running"] for x in copies(v)) == 1
                  or v["in_flight"] > 0)
        first = [x["running"] for x in copies(v)].index(1) if copies(v) else 0
        dd = hold(url, "d")
        v = batches([(1, 0), (1, 0)])
        check(v["components"]["ic"]["serving"] == 2 and v["in_flight"] == 0,
              "two copies, one call running on each: %s" % v)
        on = {first: c, 1 - first: dd}  # the call each copy holds
        # back to one copy: the highest drains; its call goes on, no new one comes
        set_copies(1)
        v = variant()
        check([x["state"] for x in copies(v)] == ["serving", "draining"] and
              v["components"]["ic"]["draining"] == 1, "copy 2 drains: %s" % v)
        e = start("e")
        v = batches([(1, 1), (1, 0)])
        check([x["state"] for x in copies(v)] == ["serving", "draining"],
              "the new call waits on the serving copy, none on the draining one: %s" % v)
        on[0].close()  # e, waiting behind it on copy 1, runs and is answered
        e.join()
        v = variant()
        check([x["state"] for x in copies(v)] == ["serving", "draining"] and
              (copies(v)[1]["running"], copies(v)[1]["in_flight"]) == (1, 1),
              "the draining copy's call goes on: %s" % v)
        before = copies(v)[1]["requests"]
        on[1].close()
        v = until("copy 2 released", variant,
                  lambda v: [x["state"] for x in copies(v)] == ["serving", "released"])
        check(copies(v)[1]["requests"] == before and copies(v)[1]["in_flight"] == 0,
              "released once its call ended, no other call came: %s" % v)
    check(all(r.status == 200 and r.header("x-amzn-invoked-production-variant") == "AllTraffic"
              for r in replies.values()) and sorted(replies) == ["b", "e"],
          "the short calls answered by the component's variant: %s" %
          {k: (r.status, r.body[:200]) for k, r in replies.items()})


def test_hosted():
    """A component on an endpoint the control plane made (not --endpoint's): its calls
    go to its copies, which run its model's profile, not the variant's."""
    qat = "google/gemma-4-E2B-it-qat-w4a16-ct"  # the variant's model: qat-l4
    with emulator.Emulator(["--no-endpoints", "--time-scale", "1000",
                            "--create-time", "100"]) as emu:
        url = emu.url
        create_model(url)  # the component's model: bf16-l4
        status, d = api(url, "CreateModel", {
            "ModelName": "host", "ExecutionRoleArn": ROLE,
            "PrimaryContainer": {"Image": "img:1", "Environment": {"SM_VLLM_MODEL": qat}}})
        check(status == 200, "CreateModel host: %s" % d)
        status, d = api(url, "CreateEndpointConfig", {
            "EndpointConfigName": "h", "ProductionVariants": [{
                "VariantName": "AllTraffic", "ModelName": "host", "InitialInstanceCount": 1,
                "InstanceType": "ml.g6.xlarge"}]})
        check(status == 200, "CreateEndpointConfig: %s" % d)
        status, d = api(url, "CreateEndpoint", {"EndpointName": "h", "EndpointConfigName": "h"})
        check(status == 200, "CreateEndpoint: %s" % d)
        until("h InService", lambda: api(url, "DescribeEndpoint", {"EndpointName": "h"})[1],
              lambda d: d.get("EndpointStatus") == "InService")
        status, d = api(url, "CreateInferenceComponent",
                        dict(spec(1), InferenceComponentName="ic", EndpointName="h"))
        check(status == 200, "CreateInferenceComponent: %s" % d)
        until("ic InService", lambda: describe(url, "ic"),
              lambda d: d.get("InferenceComponentStatus") == "InService")
        for i in range(3):
            r = invoke(url, "h", chat("call %d" % i, max_tokens=4),
                       extra={"X-Amzn-SageMaker-Inference-Component": "ic"})
            check(r.status == 200 and r.header("x-amzn-invoked-production-variant") == "AllTraffic",
                  "call %d: %s %s" % (i, r.status, r.body))
        v = emu.stats()["endpoints"].get("h", {}).get("variants", {}).get("AllTraffic", {})
        ic = v.get("components", {}).get("ic", {})
        check(v.get("profile") == "qat-l4" and v.get("requests") == 0 and
              ic.get("profile") == "bf16-l4" and ic.get("serving") == 1 and
              [c["requests"] for c in ic.get("copies", [])] == [3],
              "the hosted variant's component served by its copy: %s" % v)
        # scaled to zero: the copy drains and, idle, is released
        status, d = api(url, "UpdateInferenceComponentRuntimeConfig", {
            "InferenceComponentName": "ic", "DesiredRuntimeConfig": {"CopyCount": 0}})
        check(status == 200, "scale to 0: %s" % d)
        v = emu.stats()["endpoints"]["h"]["variants"]["AllTraffic"]
        check([c["state"] for c in v.get("components", {}).get("ic", {}).get("copies", [])] ==
              ["released"], "no copy left: %s" % v)


if __name__ == "__main__":
    sys.exit(run_group({"control": test_control, "invoke": test_invoke,
                        "scaling": test_scaling, "concurrency": test_concurrency,
                        "copies": test_copies,
                        "hosted": test_hosted, "from_zero": test_from_zero}, __doc__))
