#!/usr/bin/python3
"""sm-suite --candidates with an inference component (issue 34), against sm-emulator.

    test_cand_component.py CASE... | all

endpoint_and_component  two candidates, an endpoint and an inference component of another
                        endpoint, measured as one pair (the quiz and the capacity search):
                        the component is checked InService first, every call to its endpoint
                        reaches the component (the request log's calls to that endpoint are
                        the component's invocations in /emulator/stats), and candidates.json
                        and the table have both, the component priced by its own
                        price_per_hour; both hold every rate, so the brackets do not decide
                        the cheapest, and the table says so; CloudWatch's figures of the
                        component's side are said to be its variant's
missing_component       a component that does not exist, in the last pair: one line naming
                        the candidate, the component, its endpoint and the region, exit 2,
                        before the first pair measures anything

Debian's aws CLI 2.9 and python3-botocore predate inference components, so the component is
made with AWS JSON 1.1 calls in the shapes of botocore's later sagemaker model, signed by
botocore's SigV4Auth (as tests/emulator/test_components.py does).
"""
import datetime
import json
import os
import re
import sys
import urllib.request

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

import suitelib as sl
from suitelib import check

ROLE = "arn:aws:iam::123456789012:role/sm-suite-test"
SCALE = 5


def control(url, op, body):
    """One signed SageMaker control-plane call; (status, JSON reply)."""
    data = json.dumps(body).encode()
    req = AWSRequest(method="POST", url=url + "/", data=data, headers={
        "X-Amz-Target": "SageMaker." + op, "Content-Type": "application/x-amz-json-1.1"})
    req.context["timestamp"] = datetime.datetime.now(
        datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    SigV4Auth(Credentials(sl.AKID, sl.SECRET, sl.TOKEN), "sagemaker", "us-east-1").add_auth(req)
    r = urllib.request.Request(url + "/", data=data, headers=dict(req.headers.items()))
    try:
        with urllib.request.urlopen(r, timeout=60) as reply:
            return reply.status, json.loads(reply.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def make_component(url, name, endpoint):
    """A component of endpoint's AllTraffic, InService at once (its model maps to no
    built-in profile, so it loads in 0)."""
    status, d = control(url, "CreateModel", {
        "ModelName": "m-" + name, "ExecutionRoleArn": ROLE,
        "PrimaryContainer": {"Image": "img:1", "Environment": {"SM_VLLM_MODEL": "test/any"}}})
    check(status == 200, "CreateModel: %s" % d)
    status, d = control(url, "CreateInferenceComponent", {
        "InferenceComponentName": name, "EndpointName": endpoint, "VariantName": "AllTraffic",
        "Specification": {"ModelName": "m-" + name, "ComputeResourceRequirements": {
            "MinMemoryRequiredInMb": 1024, "NumberOfAcceleratorDevicesRequired": 1}},
        "RuntimeConfig": {"CopyCount": 1}})
    check(status == 200, "CreateInferenceComponent: %s" % d)
    status, d = control(url, "DescribeInferenceComponent", {"InferenceComponentName": name})
    check(d.get("InferenceComponentStatus") == "InService", "the component: %s" % d)


def setup(prefix, candidates):
    tmp = sl.tempdir(prefix)
    e = sl.env(tmp)
    with open(os.path.join(tmp, "c.json"), "w") as f:
        json.dump({"candidates": candidates}, f)
    log = os.path.join(tmp, "requests.jsonl")
    emu = sl.start_emulator(["--endpoint", "plain=instant", "--endpoint", "shared=instant",
                             "--region", "us-east-1", "--time-scale", str(SCALE),
                             "--request-log", log], e)
    return tmp, e, emu, log


def args(url):
    return ["--candidates", "c.json", "--url", url, "--endpoint-url", url, "--region", "us-east-1",
            "--time-scale", str(SCALE), "--scenarios", "quiz,rate", "--capacity-search", "2:4",
            "--search-probes", "2", "--rate-duration", "10", "--slo", "e2e:p90:30",
            "--max-tokens", "8", "--out", "run"]


PLAIN = {"label": "plain", "endpoint": "plain", "instance_type": "ml.g6.xlarge",
         "price_per_hour": 1.0}


def case_endpoint_and_component():
    tmp, e, emu, log = setup("cand-ic-", [
        PLAIN, {"label": "ic", "endpoint": "shared", "inference_component": "ic1",
                "instance_type": "ml.g6.xlarge", "price_per_hour": 0.25}])
    try:
        make_component(emu.url, "ic1", "shared")
        p = sl.suite(args(emu.url), e, tmp)
        err = p.stderr
        check(p.returncode == 0, "exit %d\n%s\n%s" % (p.returncode, p.stdout, err))
        check("sm-suite: checked: inference component ic1 of shared InService" in err,
              "the component checked before the run: %s" % err)
        check("note: CloudWatch: ic targets inference component ic1: the metrics and logs are "
              "its variant's, every component's on it together" in err,
              "CloudWatch's figures not said to be the variant's: %s" % err)
        with open(log) as f:
            calls = [json.loads(line) for line in f if line.strip()]
        to = {name: [c for c in calls if c["endpoint"] == name and c["api"] == "invoke"]
              for name in ("plain", "shared")}
        comp = emu.stats()["inference_components"]["ic1"]
        # every call to the component's endpoint was routed to the component, and there
        # were calls of both steps on both sides
        check(len(to["shared"]) > 40 and len(to["plain"]) > 40 and
              comp["invocations"] == len(to["shared"]) and
              all(c["status"] == 200 for c in to["shared"] + to["plain"]),
              "calls: plain %d, shared %d, the component's invocations %s" %
              (len(to["plain"]), len(to["shared"]), comp))
        c = sl.load(os.path.join(tmp, "run", "candidates.json"))
        rows = {x["label"]: x for x in c["candidates"]}
        check(sorted(rows) == ["ic", "plain"], "candidates.json: %s" % c)
        ic = rows["ic"]
        check(ic["kind"] == "inference_component" and ic["inference_component"] == "ic1" and
              ic["endpoint"] == "shared" and rows["plain"]["kind"] == "endpoint",
              "the component's row: %s" % ic)
        check(ic["cost_at_capacity"]["usd_per_hour"] == 0.25 and
              ic["cost_at_capacity"]["price_source"] ==
              "the candidates file (the inference component's share)",
              "the component's price: %s" % ic["cost_at_capacity"])
        for row in rows.values():
            check(row["capacity"]["requests_per_second"] and row["quiz"] and
                  row["quiz"]["total"] > 0 and
                  row["cost_at_capacity"]["usd_per_million_tokens"] is not None,
                  "%s measured: %s" % (row["label"], row))
        for label in ("plain", "ic"):
            check(re.search(r"^" + label + r"\s+ml\.g6\.xlarge\s+>= 4\.00 \[4\.00, nan\]", p.stdout,
                            re.M), "the table's row of %s:\n%s" % (label, p.stdout))
        # both held every rate: the cheaper per hour is cheapest by its reading, but neither
        # bracket has an end that rules the other out, and the run says so
        check(c["cheapest_at_capacity"] == "ic" and c["decided_by_brackets"] is False and
              c["overlapping"] == "plain", "the choice: %s" % c)
        check(re.search(r"^cheapest at capacity at e2e:p90:30: ic, not decided by the brackets: "
                        r"plain's cost range overlaps ic's ", p.stdout, re.M),
              "the table:\n" + p.stdout)
        pair = os.path.join(tmp, "run", "pair-1")
        m = sl.load(os.path.join(pair, "manifest.json"))
        check(m["candidate"]["inference_component"] == "ic1" and
              m["baseline"]["inference_component"] is None, "the manifest's sides: %s" %
              {k: m[k] for k in ("baseline", "candidate")})
        sl.check_no_secrets([("stdout", p.stdout), ("stderr", err), os.path.join(tmp, "run")])
    finally:
        emu.stop()


def case_missing_component():
    # the component is the odd last candidate: its pair would run second
    tmp, e, emu, log = setup("cand-ic-missing-", [
        PLAIN, {"label": "other", "endpoint": "shared", "price_per_hour": 1.0},
        {"label": "ic", "endpoint": "shared", "inference_component": "nope",
         "price_per_hour": 0.25}])
    try:
        p = sl.suite(args(emu.url), e, tmp)
        want = ("sm-suite: --candidates: candidates[2] (ic): inference component nope (of "
                "endpoint shared) does not exist in us-east-1")
        check(p.returncode == 2 and want in sl.lines(p.stderr),
              "exit %d, want the line %r:\n%s" % (p.returncode, want, p.stderr))
        with open(log) as f:
            invoked = [line for line in f if '"api":"invoke"' in line]
        check(not invoked, "nothing measured, yet %d calls" % len(invoked))
        check(not os.path.exists(os.path.join(tmp, "run", "candidates.json")), "no summary")
    finally:
        emu.stop()


CASES = {"endpoint_and_component": case_endpoint_and_component,
         "missing_component": case_missing_component}

if __name__ == "__main__":
    sys.exit(sl.run_cases(CASES, sys.argv[1:]))
