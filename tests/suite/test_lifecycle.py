#!/usr/bin/python3
"""sm-suite and the endpoints' life (issue 23), against sm-emulator's control plane.

    test_lifecycle.py CASE... | all

deploy_delete       --deploy creates both endpoints from their SM_VLLM_MODEL (the price and
                    the sm-endpoint commands shown), the run measures them, --delete-after
                    deletes them and waits until they are gone
sigint_measuring    Ctrl-C during a step: wrk stops, and both endpoints are deleted anyway
sigterm_measuring   the same for SIGTERM
sigint_creating     Ctrl-C while the endpoints are Creating: the deletes wait that out (the
                    emulator, as SageMaker, refuses to delete an endpoint in progress)
taken_name          (issue 28, N1) --deploy onto an endpoint name that exists (someone
                    else's): the deploy fails and touches nothing, and --delete-after deletes
                    nothing of it and says so
check               before a run against a control plane, an endpoint that does not exist or
                    lacks a variant stops sm-suite (exit 1) before anything is measured
slow_warning        after decode, a sweep whose replies would pass 60 s at the measured rate
                    is warned of before it runs, with a length that fits
"""
import json
import os
import re
import signal
import subprocess
import sys

import suitelib as sl
from suitelib import check

ROLE = "arn:aws:iam::123456789012:role/sm-suite-test"
BF16, QAT = "google/gemma-4-E2B-it", "google/gemma-4-E2B-it-qat-w4a16-ct"
SMALL = ["--scenarios", "decode", "--repeats", "1", "--lengths", "16,32"]


def endpoints(url, e):
    """{name: status} of the emulator's endpoints in us-east-1 (sm-endpoint list --json)."""
    p = subprocess.run([os.environ["SM_ENDPOINT"], "--endpoint-url", url, "--region", "us-east-1",
                        "list", "--json"], env=e, capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, "sm-endpoint list: %s" % p.stderr)
    return {x["endpoint"]: x["status"] for x in json.loads(p.stdout)["endpoints"]}


def deploy_args(url, scale):
    return ["--url", url, "--endpoint-url", url, "--region", "us-east-1", "--time-scale", str(scale),
            "--baseline", "gemma-4-e2b=bf16", "--candidate", "gemma-4-e2b-qat=qat", "--deploy",
            "--baseline-model", BF16, "--candidate-model", QAT, "--role", ROLE, "--delete-after",
            "--price-per-hour", "1.1267", "--out", "run"]


def emulator(e, scale, *extra):
    return sl.start_emulator(["--no-endpoints", "--time-scale", str(scale), "--create-time", "60",
                              "--delete-time", "30"] + list(extra), e)


def case_deploy_delete():
    tmp = sl.tempdir("suite-deploy-")
    e = sl.env(tmp)
    emu = emulator(e, 50)
    try:
        p = sl.suite(deploy_args(emu.url, 50) + SMALL, e, tmp)
        check(p.returncode == 0, "exit %d\n%s" % (p.returncode, p.stderr))
        err = p.stderr
        check("sm-suite: deploying gemma-4-e2b (%s) and gemma-4-e2b-qat (%s) with sm-endpoint; "
              "they bill from now until they are deleted (--delete-after: at the end of the run)"
              % (BF16, QAT) in err, err)
        m = re.search(r"^sm-suite: run (suite-\d{8}T\d{6}Z-[0-9a-f]+): what its deploys create is "
                      r"tagged wrk-sagemaker:run=\1$", err, re.M)
        check(m, "the run's id is told: %s" % err)
        run = m.group(1) if m else "?"
        check("deploy gemma-4-e2b --model %s --role %s --no-wait --price-per-hour 1.1267 --run %s"
              % (BF16, ROLE, run) in err, "the deploy command is shown: %s" % err)
        check("delete gemma-4-e2b-qat --yes --wait --price-per-hour 1.1267 --run %s" % run in err,
              "the delete acts on the run's: %s" % err)
        check("USD 1.1267 an hour (--price-per-hour)" in err, "the price it was told")
        check("sm-suite: checked: gemma-4-e2b and gemma-4-e2b-qat InService" in err, "the check")
        check("decode_tokens_per_second" in p.stdout, "the table")
        check("sm-suite: deleting the endpoints of the run (--delete-after)" in err and
              "  endpoint gemma-4-e2b-qat: deleted" in err, "the deletes: %s" % err)
        check(endpoints(emu.url, e) == {}, "both gone (delete --wait): %s" % endpoints(emu.url, e))
        res = sl.load(os.path.join(tmp, "run", "qat", "decode.json"))
        check(all(r["ok"] for r in res["records"]), "the QAT endpoint answered")
        sl.check_no_secrets([("stdout", p.stdout), ("stderr", err), os.path.join(tmp, "run")])
    finally:
        emu.stop()


def aws(url, e, *args):
    return subprocess.run(["aws", "--endpoint-url", url, "--region", "us-east-1", "sagemaker"] +
                          list(args), env=e, capture_output=True, text=True, timeout=60)


def case_taken_name():
    tmp = sl.tempdir("suite-deploy-taken-")
    e = sl.env(tmp)
    emu = emulator(e, 50)
    try:
        # someone else's endpoint, config and model, named like the baseline side
        image = "763104351884.dkr.ecr.us-east-1.amazonaws.com/vllm:someone-else"
        steps = [["create-model", "--model-name", "gemma-4-e2b", "--execution-role-arn", ROLE,
                  "--primary-container", json.dumps({"Image": image,
                                                     "Environment": {"SM_VLLM_MODEL": BF16}})],
                 ["create-endpoint-config", "--endpoint-config-name", "gemma-4-e2b",
                  "--production-variants", json.dumps([{
                      "VariantName": "AllTraffic", "ModelName": "gemma-4-e2b",
                      "InitialInstanceCount": 1, "InstanceType": "ml.g6.xlarge"}])],
                 ["create-endpoint", "--endpoint-name", "gemma-4-e2b", "--endpoint-config-name",
                  "gemma-4-e2b"]]
        for step in steps:
            p = aws(emu.url, e, *step)
            check(p.returncode == 0, "%s: %s" % (step[0], p.stderr))
        p = sl.suite(deploy_args(emu.url, 50) + SMALL, e, tmp)
        err = p.stderr
        check(p.returncode == 1, "exit %d\n%s" % (p.returncode, err))
        check("an endpoint named 'gemma-4-e2b' exists in us-east-1: deploy creates its endpoint, "
              "config and model new and touches nothing that exists" in err, "why: %s" % err)
        check("sm-suite: --delete-after: nothing of gemma-4-e2b to delete: its deploy failed and "
              "created nothing; what exists under that name is not this run's and is left as it "
              "is" in err, "says it deletes nothing: %s" % err)
        check("sm-endpoint delete gemma-4-e2b" not in err and " delete gemma-4-e2b " not in err
              and ": deleted" not in err,
              "no delete of it, no advice to: %s" % err)
        check(list(endpoints(emu.url, e)) == ["gemma-4-e2b"],
              "someone else's endpoint is left: %s" % endpoints(emu.url, e))
        for what, flag in (("endpoint-config", "--endpoint-config-name"),
                           ("model", "--model-name")):
            p = aws(emu.url, e, "describe-" + what, flag, "gemma-4-e2b")
            check(p.returncode == 0, "its %s is left: %s" % (what, p.stderr))
    finally:
        emu.stop()


def run_until(args, e, cwd, marker):
    """Starts sm-suite and reads its stderr until a line holds marker; returns (proc, seen)."""
    proc = subprocess.Popen([os.environ["SM_SUITE"]] + args, env=e, cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if marker in line:
            break
    return proc, seen


def stop_measuring(sig):
    tmp = sl.tempdir("suite-deploy-int-")
    e = sl.env(tmp)
    emu = emulator(e, 5)
    try:
        args = deploy_args(emu.url, 5) + ["--scenarios", "decode,sweep", "--levels", "1",
                                          "--repeats", "1", "--lengths", "16,64"]
        proc, seen = run_until(args, e, tmp, "[2/2] sweep c1: 1/")
        proc.send_signal(sig)
        out, rest = proc.communicate(timeout=sl.TIMEOUT)
        err = "".join(seen) + rest
        check(proc.returncode == 130, "exit %d\n%s" % (proc.returncode, err))
        check("sm-suite: deleting the endpoints of the run (--delete-after); stopping does not "
              "stop this" in err, err)
        check(endpoints(emu.url, e) == {}, "both gone after %s: %s" % (sig.name,
                                                                       endpoints(emu.url, e)))
    finally:
        emu.stop()


def case_sigint_measuring():
    stop_measuring(signal.SIGINT)


def case_sigterm_measuring():
    stop_measuring(signal.SIGTERM)


def case_sigint_creating():
    tmp = sl.tempdir("suite-deploy-create-")
    e = sl.env(tmp)
    emu = sl.start_emulator(["--no-endpoints", "--time-scale", "100", "--create-time", "300",
                             "--delete-time", "30"], e)
    try:
        proc, seen = run_until(deploy_args(emu.url, 100) + SMALL, e, tmp, "Creating, ")
        proc.send_signal(signal.SIGINT)
        out, rest = proc.communicate(timeout=sl.TIMEOUT)
        err = "".join(seen) + rest
        check(proc.returncode == 130, "exit %d\n%s" % (proc.returncode, err))
        check("SageMaker deletes an endpoint once it is InService or Failed; waiting" in err,
              "the delete waits out Creating: %s" % err)
        check(endpoints(emu.url, e) == {}, "both gone: %s" % endpoints(emu.url, e))
        check(not os.path.exists(os.path.join(tmp, "run", "bf16", "decode.json")), "nothing measured")
    finally:
        emu.stop()


def case_check():
    tmp = sl.tempdir("suite-check-")
    e = sl.env(tmp)
    emu = sl.start_emulator(["--endpoint", "one=instant", "--endpoint", "ab/bf16=instant",
                             "--endpoint", "ab/qat=instant"], e)
    try:
        base = ["--url", emu.url, "--endpoint-url", emu.url, "--region", "us-east-1", "--out", "run"]
        p = sl.suite(base + ["--baseline", "one", "--candidate", "two"] + SMALL, e, tmp)
        check(p.returncode == 2 and "sm-suite: endpoint two does not exist in us-east-1 (sm-endpoint: "
              "sagemaker DescribeEndpoint: ValidationException: Could not find endpoint" in p.stderr,
              "a missing endpoint: %d %s" % (p.returncode, p.stderr))
        check(not os.path.exists(os.path.join(tmp, "run", "manifest.json")), "nothing ran")
        p = sl.suite(base + ["--endpoint", "ab", "--baseline-variant", "bf16", "--candidate-variant",
                             "int8"] + SMALL, e, tmp)
        check(p.returncode == 2 and "sm-suite: endpoint ab has no production variant int8" in p.stderr,
              "a missing variant: %s" % p.stderr)
        p = sl.suite(base[:-1] + ["run2", "--endpoint", "ab", "--baseline-variant", "bf16",
                                  "--candidate-variant", "qat"] + SMALL, e, tmp)
        check(p.returncode == 0 and "sm-suite: checked: ab InService with both variants" in p.stderr,
              "both variants there: %s" % p.stderr)
        p = sl.suite(base[:-1] + ["run3", "--baseline", "one", "--candidate", "two",
                                  "--no-endpoint-check", "--dry-run"], e, tmp)
        check(p.returncode == 0, "--no-endpoint-check: %s" % p.stderr)
    finally:
        emu.stop()


def case_slow_warning():
    tmp = sl.tempdir("suite-slow-")
    e = sl.env(tmp)
    emu = sl.start_emulator(["--endpoint", "slow=instant", "--endpoint", "fast=instant",
                             "--set", "slow.step_ms=1:300", "--time-scale", "50"], e)
    try:
        args = ["--url", emu.url, "--region", "us-east-1", "--time-scale", "50", "--baseline",
                "slow", "--candidate", "fast", "--scenarios", "decode,sweep", "--levels", "1",
                "--repeats", "1", "--lengths", "16,64", "--sweep-max-tokens", "256",
                "--batches", "1", "--out", "run"]
        p = sl.suite(args, e, tmp)
        lines = p.stderr.splitlines()
        warn = [i for i, l in enumerate(lines) if l.startswith("sm-suite: warning: at slow's measured")]
        sweep = [i for i, l in enumerate(lines) if l.startswith("sm-suite: [2/2] sweep c1")]
        check(len(warn) == 1 and sweep and warn[0] < sweep[0], "one warning before the sweep: %s"
              % p.stderr)
        if warn:  # the profile decodes 1 token / 300 ms: 256 tokens take about 77 s
            w = lines[warn[0]]
            m = re.search(r"measured ([0-9.]+) tokens/s and [0-9.]+ s a call, a sweep reply of 256 "
                          r"tokens takes about ([0-9]+) s, past SageMaker's 60 s: it will fail as "
                          r"424 ModelError; --sweep-max-tokens ([0-9]+) fits$", w)
            check(m and 3.0 < float(m.group(1)) < 3.7 and 70 <= int(m.group(2)) <= 85 and
                  170 <= int(m.group(3)) <= 220, "its text: %s" % w)
        check(not any("at fast's measured" in l for l in lines), "no warning for the fast side")
    finally:
        emu.stop()


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    sys.exit(sl.run_cases(CASES, sys.argv[1:]))
