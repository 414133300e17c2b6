#!/usr/bin/python3
"""sm-suite --candidates with deploy specs (issue 34), against sm-emulator's control plane.

    test_cand_deploy.py CASE... | all

deploys_measures_deletes  two deploy specs: the quotas and the plan told first, both endpoints
                          deployed with the run's tag, measured as a pair, deleted after it
                          (ListEndpoints empty), deployments.json names them
quota_refused             a quota too small for the pair: one line naming the instance type and
                          the quota, exit 2, nothing created
needs_yes                 without --yes (and no terminal to ask on) nothing is created: exit 2,
                          the plan told first, then one line saying what --yes is for
sigint_resumes            Ctrl-C while the pair is measured: what is left is what the manifest
                          names (tagged with the run); the same command again deploys nothing
                          again, measures, and deletes both
"""
import json
import os
import signal
import subprocess
import sys

import suitelib as sl
from suitelib import check

ROLE = "arn:aws:iam::123456789012:role/sm-suite-test"
BF16, QAT = "google/gemma-4-E2B-it", "google/gemma-4-E2B-it-qat-w4a16-ct"
SCALE = 50
CANDIDATES = {"candidates": [
    {"label": "g6-bf16", "deploy": {"model": BF16, "instance_type": "ml.g6.xlarge",
                                    "environment": {"SM_VLLM_DTYPE": "auto"}},
     "price_per_hour": 1.1267},
    {"label": "g6-qat", "deploy": {"model": QAT, "instance_type": "ml.g6.xlarge"},
     "price_per_hour": 1.1267}]}


def setup(prefix, *emu_args):
    tmp = sl.tempdir(prefix)
    e = sl.env(tmp)
    with open(os.path.join(tmp, "c.json"), "w") as f:
        json.dump(CANDIDATES, f)
    emu = sl.start_emulator(["--no-endpoints", "--time-scale", str(SCALE), "--create-time", "60",
                             "--delete-time", "30"] + list(emu_args), e)
    return tmp, e, emu


def args(url):
    return ["--candidates", "c.json", "--url", url, "--endpoint-url", url, "--region", "us-east-1",
            "--time-scale", str(SCALE), "--role", ROLE, "--yes", "--scenarios", "decode",
            "--repeats", "1", "--lengths", "16,32", "--out", "run"]


def endpoints(url, e):
    """{name: status} of the emulator's endpoints in us-east-1 (sm-endpoint list --json)."""
    p = subprocess.run([os.environ["SM_ENDPOINT"], "--endpoint-url", url, "--region", "us-east-1",
                        "list", "--json"], env=e, capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, "sm-endpoint list: %s" % p.stderr)
    return {x["endpoint"]: x["status"] for x in json.loads(p.stdout)["endpoints"]}


def run_tags(url, e, name):
    """The endpoint's tags, read with the aws CLI."""
    def aws(*a):
        p = subprocess.run(["aws", "--endpoint-url", url, "--region", "us-east-1", "sagemaker"] +
                           list(a) + ["--output", "json"], env=e, capture_output=True, text=True,
                           timeout=60)
        check(p.returncode == 0, "aws %s: %s" % (a[0], p.stderr))
        return json.loads(p.stdout)
    arn = aws("describe-endpoint", "--endpoint-name", name)["EndpointArn"]
    return {t["Key"]: t["Value"] for t in aws("list-tags", "--resource-arn", arn)["Tags"]}


def manifest(tmp):
    return sl.load(os.path.join(tmp, "run", "deployments.json"))


def case_deploys_measures_deletes():
    tmp, e, emu = setup("cand-deploy-")
    try:
        p = sl.suite(args(emu.url), e, tmp)
        err = p.stderr
        check(p.returncode == 0, "exit %d\n%s" % (p.returncode, err))
        m = manifest(tmp)
        run = m["run"]
        names = [d["endpoint"] for d in m["deployments"]]
        check([d["label"] for d in m["deployments"]] == ["g6-bf16", "g6-qat"] and
              all(d["deleted"] for d in m["deployments"]) and m["pairs_done"] == [1],
              "the manifest: %s" % m)
        check('quota "ml.g6.xlarge for endpoint usage": 2, 0 in use by others' in err, err)
        check("plan: step 1 of 1 deploys the endpoints of pair 1 at once" in err, err)
        # the plan is told before the first deploy
        check(err.index("plan: step 1 of 1") < err.index("deploying endpoint"), err)
        for name, model in zip(names, (BF16, QAT)):
            check(" deploy %s --model %s --role %s --instance-type ml.g6.xlarge --count 1" %
                  (name, model, ROLE) in err and "--run %s" % run in err,
                  "deployed with the run's tag: %s" % err)
            check(" delete %s --yes --wait --run %s" % (name, run) in err, "deleted: %s" % err)
        check("--env SM_VLLM_DTYPE=auto" in err, "the environment passed: %s" % err)
        check(endpoints(emu.url, e) == {}, "nothing left: %s" % endpoints(emu.url, e))
        c = sl.load(os.path.join(tmp, "run", "candidates.json"))
        check(len(c["candidates"]) == 2 and all(x["kind"] == "deploy" for x in c["candidates"]),
              "candidates.json: %s" % c)
        res = sl.load(os.path.join(tmp, "run", "g6-qat", "decode.json"))
        check(res["records"] and all(r["ok"] for r in res["records"]), "the QAT side answered")
        sl.check_no_secrets([("stdout", p.stdout), ("stderr", err), os.path.join(tmp, "run")])
    finally:
        emu.stop()


def case_quota_refused():
    tmp, e, emu = setup("cand-quota-", "--quota", "us-east-1/ml.g6.xlarge=1")
    try:
        p = sl.suite(args(emu.url), e, tmp)
        check(p.returncode == 2, "exit %d\n%s" % (p.returncode, p.stderr))
        check(sl.lines(p.stderr) == [
            "sm-suite: --candidates: candidates g6-bf16 and g6-qat, measured together, need 2 "
            "ml.g6.xlarge: the quota \"ml.g6.xlarge for endpoint usage\" in us-east-1 is 1 with "
            "0 in use by others; nothing was created"], "one line: %s" % p.stderr)
        check(endpoints(emu.url, e) == {}, "nothing created: %s" % endpoints(emu.url, e))
        check(not os.path.exists(os.path.join(tmp, "run", "deployments.json")), "no manifest")
    finally:
        emu.stop()


def case_needs_yes():
    tmp, e, emu = setup("cand-yes-")
    try:
        p = sl.suite([a for a in args(emu.url) if a != "--yes"], e, tmp)
        check(p.returncode == 2, "exit %d\n%s" % (p.returncode, p.stderr))
        check(sl.lines(p.stderr)[-1] ==
              "sm-suite: --candidates: 2 deploy spec(s) create endpoints that bill until deleted: "
              "give --yes (without a terminal nothing is asked); nothing was created", p.stderr)
        check("plan: step 1 of 1" in p.stderr, "the plan is told first: %s" % p.stderr)
        check(endpoints(emu.url, e) == {}, "nothing created: %s" % endpoints(emu.url, e))
    finally:
        emu.stop()


def case_sigint_resumes():
    tmp, e, emu = setup("cand-resume-")
    # 16 replies, 8 of 4096 tokens: the decode step is under way (its first progress
    # line) when the signal comes, as in test_lifecycle.py's stop during a step
    cmd = [os.environ["SM_SUITE"]] + args(emu.url)
    cmd[cmd.index("16,32")] = "16,4096"
    cmd[cmd.index("--repeats") + 1] = "4"
    try:
        proc = subprocess.Popen(cmd, env=e, cwd=tmp, text=True, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        seen = []
        for line in proc.stderr:
            seen.append(line)
            if line.startswith("sm-suite: [1/1] decode: ") and "/16 requests" in line:
                break
        proc.send_signal(signal.SIGINT)
        _, rest = proc.communicate(timeout=sl.TIMEOUT)
        err = "".join(seen) + rest
        check(proc.returncode == 130, "exit %d\n%s" % (proc.returncode, err))
        m = manifest(tmp)
        named = {d["endpoint"] for d in m["deployments"] if not d["deleted"]}
        left = endpoints(emu.url, e)
        check(set(left) <= named and len(named) == 2, "left %s, named %s" % (left, named))
        for name in left:
            tags = run_tags(emu.url, e, name)
            check(tags.get("wrk-sagemaker:run") == m["run"], "%s's tags: %s" % (name, tags))
        check("run the same command again (--out run) to go on" in err, err)
        p = sl.suite(cmd[1:], e, tmp)
        err2 = p.stderr
        check(p.returncode == 0, "rerun: exit %d\n%s" % (p.returncode, err2))
        for name in left:
            check("endpoint %s is there (the manifest names it): not deployed again" % name in err2
                  and " deploy %s " % name not in err2, "not deployed again: %s" % err2)
        check(manifest(tmp)["run"] == m["run"], "the same run")
        check(endpoints(emu.url, e) == {}, "nothing left: %s" % endpoints(emu.url, e))
        check(os.path.exists(os.path.join(tmp, "run", "candidates.json")), "the summary")
    finally:
        emu.stop()


CASES = {n[len("case_"):]: f for n, f in globals().items() if n.startswith("case_")}

if __name__ == "__main__":
    sys.exit(sl.run_cases(CASES, sys.argv[1:]))
