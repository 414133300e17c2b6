#!/usr/bin/python3
"""sm-mcp's autoscaling tools over raw stdio JSON-RPC against sm-emulator (issue 33):
autoscale_set and autoscale_remove without "confirm": true change nothing and list what
they would do; with it they register and remove what autoscale_show then reads;
an endpoint wrk-sagemaker did not create is refused by name; the arguments are
checked (one target, min not above max) before anything is sent.

    test_autoscale.py SM_MCP

Environment: SM_EMULATOR."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import emulator  # noqa: E402
from mcpsession import Session  # noqa: E402
from testkit import expect as check, finish, isolated_env  # noqa: E402

ROLE = "arn:aws:iam::123456789012:role/sm-mcp-test"
SET = {"endpoint_name": "mine", "min_instances": 1, "max_instances": 3,
       "target_invocations": 70, "scale_in_cooldown": 300}
WHY = "it has no tag wrk-sagemaker:created-by=wrk-sagemaker: wrk-sagemaker did not create it"


def text(r):
    return r["content"][0]["text"]


def targets(s, name):
    r = s.tool("autoscale_show", {"endpoint_name": name})
    check(not r.get("isError"), "autoscale_show %s: %s" % (name, r))
    return r.get("structuredContent", {}).get("targets", [])


def test(s):
    r = s.tool("deploy_endpoint", {"endpoint_name": "mine", "model_id": "google/gemma-4-E2B-it",
                                   "role_arn": ROLE, "price_per_hour": 1, "confirm": True})
    check(not r.get("isError"), "deployed mine: %s" % r)
    # without the confirmation: the calls it would send, nothing registered
    r = s.tool("autoscale_set", SET)
    check(r.get("isError") and text(r).startswith(
        'autoscale_set was not run: it needs "confirm": true. The call would set the '
        "autoscaling of SageMaker endpoint mine in us-east-1 (variant its only one, AllTraffic for "
        "a wrk-sagemaker deploy) to 1 to 3 "
        "instance(s), target 70 SageMakerVariantInvocationsPerInstance, if wrk-sagemaker created "
        "the endpoint") and "application-autoscaling RegisterScalableTarget {" in text(r) and
        "application-autoscaling PutScalingPolicy {" in text(r), "set's preview: %s" % r)
    check(targets(s, "mine") == [], "nothing registered without confirm")
    # bad arguments fail before anything, confirmed or not
    for args, want in (
            (dict(SET, target_concurrency=4), "pass one of target_invocations and "
                                              "target_concurrency"),
            ({"endpoint_name": "mine", "min_instances": 1, "max_instances": 3},
             "pass one of target_invocations and target_concurrency"),
            (dict(SET, min_instances=5), "min 5 is above max 3")):
        for confirm in (False, True):
            r = s.tool("autoscale_set", dict(args, confirm=confirm))
            check(r.get("isError") and text(r) == want,
                  "bad arguments (confirm %s): %s" % (confirm, r))
    # confirmed: registered, and autoscale_show reads it
    r = s.tool("autoscale_set", dict(SET, confirm=True))
    sc = r.get("structuredContent", {})
    check(not r.get("isError") and sc.get("variant") == "AllTraffic" and sc.get("min") == 1 and
          sc.get("max") == 3 and sc.get("policy") == "wrk-sagemaker-target-tracking" and
          [c["operation"] for c in sc.get("calls", [])] ==
          ["RegisterScalableTarget", "PutScalingPolicy"], "autoscale_set: %s" % r)
    r = s.tool("autoscale_show", {"endpoint_name": "mine"})
    sc = r.get("structuredContent", {})
    check(len(sc.get("targets", [])) == 1 and sc["targets"][0]["MaxCapacity"] == 3 and
          len(sc.get("policies", [])) == 1 and
          sc["policies"][0]["TargetTrackingScalingPolicyConfiguration"]["ScaleInCooldown"] == 300,
          "autoscale_show: %s" % r)
    # an endpoint wrk-sagemaker did not create
    for name, args in (("autoscale_set", dict(SET, endpoint_name="team-prod", confirm=True)),
                       ("autoscale_remove", {"endpoint_name": "team-prod", "confirm": True})):
        r = s.tool(name, args)
        check(r.get("isError") and text(r) == "refusing to change the autoscaling of endpoint "
              "'team-prod' in us-east-1: " + WHY, "%s refused on team-prod: %s" % (name, r))
    check(targets(s, "team-prod") == [], "team-prod untouched")
    # remove: the preview, then the removal
    r = s.tool("autoscale_remove", {"endpoint_name": "mine"})
    check(r.get("isError") and text(r).startswith(
        'autoscale_remove was not run: it needs "confirm": true. The call would remove the '
        "autoscaling of SageMaker endpoint mine in us-east-1 (every variant)"),
        "remove's preview: %s" % r)
    check(len(targets(s, "mine")) == 1, "nothing removed without confirm")
    r = s.tool("autoscale_remove", {"endpoint_name": "mine", "confirm": True})
    check(not r.get("isError") and r.get("structuredContent", {}).get("variants") ==
          ["AllTraffic"], "autoscale_remove: %s" % r)
    check(targets(s, "mine") == [], "removed")
    tools = {t["name"]: t for t in s.request("tools/list", {})["result"]["tools"]}
    for name in ("autoscale_set", "autoscale_remove"):
        t = tools[name]
        check(t["annotations"]["readOnlyHint"] is False and
              t["inputSchema"]["properties"]["confirm"]["type"] == "boolean" and
              '"confirm": true' in t["description"], "%s needs confirm: %s" % (name, t))
    check(tools["autoscale_show"]["annotations"]["readOnlyHint"] is True, "show is read-only")


def main():
    env = isolated_env(AWS_ACCESS_KEY_ID="AKIDMCPSCALE", AWS_SECRET_ACCESS_KEY="mcp-scale-key",
                       AWS_REGION="eu-west-3", AWS_PROFILE="someone-else")
    emu_args = ["--endpoint", "team-prod=instant", "--time-scale", "1000", "--create-time", "300"]
    with tempfile.TemporaryDirectory(prefix="mcp-autoscale-") as tmp, \
            emulator.Emulator(emu_args, env=env) as emu:
        s = Session(sys.argv[1], ["--region", "us-east-1", "--endpoint-url", emu.url,
                                  "--time-scale", "1000"], env, tmp, stderr=subprocess.DEVNULL)
        test(s)
        s.close()
    return finish()


if __name__ == "__main__":
    sys.exit(main())
