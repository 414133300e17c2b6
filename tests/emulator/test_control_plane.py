#!/usr/bin/python3
"""sm-emulator's control plane over HTTP, with independent clients.

    test_control_plane.py GROUP

sigv4    requests signed by botocore for each service: the scope's service must be
         the service's signing name, its region one the control plane serves;
         unsigned, wrongly scoped and unknown operations answered as AWS does
serve    an endpoint created over the API serves InvokeEndpoint with the profile of
         its SM_VLLM_MODEL once InService (not before), writes its vLLM start-up
         log then, answers with the other checkpoint after UpdateEndpoint, and
         stops once deleted; the command line's endpoints are described too
awscli   Debian's aws CLI (awscli, v2) unchanged against the emulator: create-model,
         create-endpoint-config, create-endpoint, describe-endpoint, list-endpoints,
         service-quotas list-service-quotas and get-service-quota, delete-endpoint
stats    /emulator/stats lists an endpoint the control plane created once it serves
         (its calls, its variant's instances and instance-seconds), with the command
         line's, and no longer once it is deleted
seed     the seed's clients unchanged (compare.py and sm.py through Debian's aws CLI
         with --endpoint-url): sts get-caller-identity, iam get-role, ecr
         describe-images of tools/endpoint-facts.json's image, then create-model,
         create-endpoint-config, create-endpoint, describe-endpoint, invoke-endpoint
         (sagemaker-runtime) and the deletes
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from emutest import (AKID, SECRET, amz_now, aws_cli_setup, check, emulator, request,
                     invoke, chat, run_group)

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

ROLE = "arn:aws:iam::123456789012:role/sm-test"
QAT = "google/gemma-4-E2B-it-qat-w4a16-ct"


def api(url, op, body, region="us-east-1", service="sagemaker", prefix="SageMaker", sign=True):
    """One AWS JSON 1.1 call signed by botocore; returns (status, JSON body, headers)."""
    data = json.dumps(body).encode()
    req = AWSRequest(method="POST", url=url + "/", data=data, headers={
        "X-Amz-Target": "%s.%s" % (prefix, op), "Content-Type": "application/x-amz-json-1.1"})
    if sign:
        req.context["timestamp"] = amz_now()
        SigV4Auth(Credentials(AKID, SECRET), service, region).add_auth(req)
    r = request(url, "/", data, dict(req.headers.items()))
    return r.status, (json.loads(r.body) if r.body else {}), r.headers


def create(url, name, model_id, region="us-east-1", types=("ml.g6.xlarge",)):
    """A model, a config and an endpoint named name."""
    check(api(url, "CreateModel", {"ModelName": name, "ExecutionRoleArn": ROLE, "PrimaryContainer": {
        "Image": "img:1", "Environment": {"SM_VLLM_MODEL": model_id}}}, region)[0] == 200,
        "CreateModel %s" % name)
    pools = [{"InstanceType": t, "Priority": i + 1} for i, t in enumerate(types)]
    check(api(url, "CreateEndpointConfig", {"EndpointConfigName": name, "ProductionVariants": [
        {"VariantName": "AllTraffic", "ModelName": name, "InstancePools": pools}]}, region)[0] == 200,
        "CreateEndpointConfig %s" % name)
    return api(url, "CreateEndpoint", {"EndpointName": name, "EndpointConfigName": name}, region)


def status_until(url, name, want, region="us-east-1", limit=20.0):
    """Polls DescribeEndpoint until its status is want (or limit seconds pass)."""
    end = time.monotonic() + limit
    while True:
        st, d, _ = api(url, "DescribeEndpoint", {"EndpointName": name}, region)
        if d.get("EndpointStatus") == want or time.monotonic() > end:
            return d
        time.sleep(0.02)


def test_sigv4():
    args = ["--no-endpoints", "--control-region", "us-west-2"]
    with emulator.Emulator(args) as emu:
        u = emu.url
        st, d, h = api(u, "ListEndpoints", {})
        check(st == 200 and d == {"Endpoints": []}, "a signed ListEndpoints: %s %s" % (st, d))
        check(h.get("content-type") == "application/x-amz-json-1.1", "the reply's type: %s" % h)
        check(h.get("x-amzn-requestid"), "a request id")
        st, d, h = api(u, "ListServiceQuotas", {"ServiceCode": "sagemaker"}, service="servicequotas",
                       prefix="ServiceQuotasV20190624")
        check(st == 200 and len(d.get("Quotas", [])) == 20, "quotas: %s" % st)
        # the scope must name each service's own signing name
        st, d, h = api(u, "ListServiceQuotas", {"ServiceCode": "sagemaker"}, service="sagemaker",
                       prefix="ServiceQuotasV20190624")
        check(st == 403 and d.get("message") == "Credential should be scoped to correct service: "
              "'servicequotas'. ", "wrong service for Service Quotas: %s %s" % (st, d))
        check(h.get("x-amzn-errortype", "").startswith("InvalidSignatureException:"), "its type")
        st, d, _ = api(u, "ListEndpoints", {}, service="servicequotas")
        check(st == 403 and "'sagemaker'" in d.get("message", ""), "wrong service for SageMaker")
        st, d, _ = api(u, "ListEndpoints", {}, region="eu-west-1")
        check(st == 403 and d.get("message") == "Credential should be scoped to a valid region, "
              "not 'eu-west-1'. ", "a region not served: %s" % d)
        st, d, h = api(u, "ListEndpoints", {}, sign=False)
        check(st == 403 and h.get("x-amzn-errortype", "").startswith(
            "MissingAuthenticationTokenException"), "unsigned: %s" % st)
        st, d, _ = api(u, "DescribeAlgorithm", {})
        check(st == 400 and d.get("__type") == "UnknownOperationException", "unknown op: %s" % d)
        st, d, _ = api(u, "X", {}, prefix="Unknown_20990101")
        check(st == 400 and d == {"__type": "UnknownOperationException", "message":
                                  "sm-emulator serves no X-Amz-Target Unknown_20990101.X (its "
                                  "README, \"Control plane\", lists what it serves)"},
              "unknown service: %s" % d)
        # each served region has its own endpoints
        create(u, "west", "google/gemma-4-E2B-it", region="us-west-2")
        st, d, _ = api(u, "DescribeEndpoint", {"EndpointName": "west"}, region="us-west-2")
        check(st == 200 and d["EndpointStatus"] == "Creating", "us-west-2's endpoint: %s" % d)
        st, d, _ = api(u, "DescribeEndpoint", {"EndpointName": "west"})
        check(st == 400 and d.get("message") == 'Could not find endpoint "arn:aws:sagemaker:'
              'us-east-1:123456789012:endpoint/west".', "not in us-east-1: %s" % d)


def test_serve():
    tmp = tempfile.mkdtemp()
    log = os.path.join(tmp, "{endpoint}.log")
    args = ["--time-scale", "1000", "--create-time", "300", "--endpoint", "static=instant",
            "--quota", "us-east-1/*=3",  # an update holds its new instances too (blue/green)
            "--log-file", log]
    try:
        with emulator.Emulator(args) as emu:
            u = emu.url
            st, d, _ = api(u, "DescribeEndpoint", {"EndpointName": "static"})
            check(st == 200 and d["EndpointStatus"] == "InService", "the command line's endpoint")
            st, d, _ = api(u, "DeleteEndpoint", {"EndpointName": "static"})
            check(st == 400 and "command line" in d.get("message", ""), "not deletable: %s" % d)
            st, d, _ = create(u, "made", "google/gemma-4-E2B-it")
            check(st == 200, "CreateEndpoint: %s" % d)
            r = invoke(u, "made", chat("What is 54 * 28?"))
            check(r.status == 400 and b"Endpoint made of account" in r.body,
                  "no answer while Creating: %s %s" % (r.status, r.body[:200]))
            check(not os.path.exists(os.path.join(tmp, "made.log")), "no log before InService")
            d = status_until(u, "made", "InService")
            check(d.get("EndpointStatus") == "InService", "InService: %s" % d)
            r = invoke(u, "made", chat("What is 54 * 28?"))
            check(r.status == 200 and r.json()["model"] == "google/gemma-4-E2B-it" and
                  r.json()["choices"][0]["message"]["content"] == "1512",
                  "the bf16 profile answers: %s" % r.body[:300])
            with open(os.path.join(tmp, "made.log")) as f:
                text = f.read()
            check("Model loading took 9.75 GiB memory" in text and "723,484 tokens" in text,
                  "the start-up log of bf16-l4: %r" % text[:300])
            # the swap: a config of the QAT checkpoint and UpdateEndpoint
            check(api(u, "CreateModel", {"ModelName": "qat", "ExecutionRoleArn": ROLE,
                      "PrimaryContainer": {"Image": "img:1", "Environment": {
                          "SM_VLLM_MODEL": QAT}}})[0] == 200, "the QAT model")
            check(api(u, "CreateEndpointConfig", {"EndpointConfigName": "qat", "ProductionVariants": [
                {"VariantName": "AllTraffic", "ModelName": "qat",
                 "InstanceType": "ml.g6.xlarge"}]})[0] == 200, "the QAT config")
            st, d, _ = api(u, "UpdateEndpoint", {"EndpointName": "made", "EndpointConfigName": "qat"})
            check(st == 200, "UpdateEndpoint: %s" % d)
            r = invoke(u, "made", chat("What is 54 * 28?"))
            check(r.status == 200 and r.json()["model"] == "google/gemma-4-E2B-it",
                  "the old checkpoint serves while Updating")
            end = time.monotonic() + 20
            while time.monotonic() < end and invoke(u, "made", chat("hi", 4)).json()["model"] != QAT:
                time.sleep(0.02)
            check(invoke(u, "made", chat("hi", 4)).json()["model"] == QAT, "then the QAT one")
            check(api(u, "DeleteEndpoint", {"EndpointName": "made"})[0] == 200, "DeleteEndpoint")
            r = invoke(u, "made", chat("hi", 4))
            check(r.status == 400, "nothing served once deleted: %s" % r.status)
            stats = emu.stats()
            check("static" in stats["endpoints"], "the stats still count the runtime's endpoints")
    finally:
        shutil.rmtree(tmp)


def test_stats():
    with emulator.Emulator(["--time-scale", "1000", "--create-time", "300",
                            "--endpoint", "static=instant"]) as emu:
        u = emu.url
        st, d, _ = create(u, "made", "google/gemma-4-E2B-it")
        check(st == 200, "CreateEndpoint: %s" % d)
        check("made" not in emu.stats()["endpoints"], "not listed while Creating")
        check(status_until(u, "made", "InService").get("EndpointStatus") == "InService",
              "InService")
        check(invoke(u, "made", chat("hi", 4)).status == 200, "a call to made")
        eps = emu.stats()["endpoints"]
        v = eps.get("made", {}).get("variants", {}).get("AllTraffic", {})
        check("static" in eps and eps.get("made", {}).get("requests") == 1
              and v.get("profile") == "bf16-l4" and v.get("scaling", {}).get("serving") == 1
              and v["scaling"]["instance_seconds"] > 0,
              "the stats list the hosted endpoint with the command line's: %s" % eps)
        check(api(u, "DeleteEndpoint", {"EndpointName": "made"})[0] == 200, "DeleteEndpoint")
        check(list(emu.stats()["endpoints"]) == ["static"], "not listed once deleted")


def cli_deploy(run, role, image):
    """create-model m (image, role), create-endpoint-config c and create-endpoint e
    through run (the aws CLI); create-endpoint's (rc, out, err)."""
    rc, out, err = run("sagemaker", "create-model", "--model-name", "m",
                       "--execution-role-arn", role, "--primary-container",
                       json.dumps({"Image": image, "Environment": {
                           "SM_VLLM_MODEL": "google/gemma-4-E2B-it"}}))
    check(rc == 0 and ":model/m" in str(out), "create-model: %s" % err)
    rc, out, err = run("sagemaker", "create-endpoint-config", "--endpoint-config-name", "c",
                       "--production-variants", json.dumps([{
                           "VariantName": "AllTraffic", "ModelName": "m",
                           "InitialInstanceCount": 1, "InstanceType": "ml.g6.xlarge"}]))
    check(rc == 0, "create-endpoint-config: %s" % err)
    return run("sagemaker", "create-endpoint", "--endpoint-name", "e",
               "--endpoint-config-name", "c")


def test_awscli():
    setup = aws_cli_setup()
    if not setup:
        return 77
    aws, env = setup
    args = ["--no-endpoints", "--time-scale", "1000", "--create-time", "100",
            "--quota", "us-east-1/ml.g6.xlarge=3"]
    with emulator.Emulator(args) as emu:
        def run(*words):
            p = subprocess.run([aws, "--endpoint-url", emu.url, "--output", "json"] + list(words),
                               capture_output=True, env=env, timeout=60)
            return p.returncode, p.stdout.decode(), p.stderr.decode()
        rc, out, err = run("--version")
        print("aws --version:", out.strip() or err.strip())
        rc, out, err = cli_deploy(run, ROLE, "img:1")
        check(rc == 0 and "endpoint/e" in out, "create-endpoint: %s" % err)
        rc, out, err = run("sagemaker", "describe-endpoint", "--endpoint-name", "e")
        check(rc == 0 and json.loads(out)["EndpointStatus"] in ("Creating", "InService"),
              "describe-endpoint: %s %s" % (out, err))
        rc, out, err = run("sagemaker", "wait", "endpoint-in-service", "--endpoint-name", "e")
        check(rc == 0, "wait endpoint-in-service: %s" % err)
        rc, out, err = run("sagemaker", "list-endpoints")
        check(rc == 0 and [e["EndpointName"] for e in json.loads(out)["Endpoints"]] == ["e"],
              "list-endpoints: %s" % out)
        rc, out, err = run("sagemaker", "describe-endpoint", "--endpoint-name", "nope")
        check(rc != 0 and "ValidationException" in err and "Could not find endpoint" in err,
              "a missing endpoint: %s" % err)
        rc, out, err = run("service-quotas", "list-service-quotas", "--service-code", "sagemaker")
        quotas = json.loads(out)["Quotas"] if rc == 0 else []
        g6 = [q for q in quotas if q["QuotaName"] == "ml.g6.xlarge for endpoint usage"]
        check(rc == 0 and len(quotas) == 20 and g6 and g6[0]["Value"] == 3.0,
              "list-service-quotas (paged by the CLI): %s %s" % (len(quotas), err))
        if g6:
            rc, out, err = run("service-quotas", "get-service-quota", "--service-code", "sagemaker",
                               "--quota-code", g6[0]["QuotaCode"])
            check(rc == 0 and json.loads(out)["Quota"]["Value"] == 3.0, "get-service-quota: %s" % err)
        rc, out, err = run("sagemaker", "delete-endpoint", "--endpoint-name", "e")
        check(rc == 0, "delete-endpoint: %s" % err)
    return None


def facts_image():
    """The repository and tag tools/endpoint-facts.json names (what sm-endpoint deploys)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                        "endpoint-facts.json")
    with open(path) as f:
        images = json.load(f)["images"]
    return images["repository"], images["tag"], images["accounts"]["us-east-1"]


def test_seed():
    """The seed's compare.py and sm.py through Debian's aws CLI with --endpoint-url,
    unchanged: who am I (STS), the execution role (IAM), the vLLM image (ECR), then
    deploy, invoke and delete (SageMaker, SageMaker Runtime)."""
    setup = aws_cli_setup()
    if not setup:
        return 77
    aws, env = setup
    repo, tag, registry = facts_image()
    args = ["--no-endpoints", "--time-scale", "1000", "--create-time", "100"]
    with emulator.Emulator(args) as emu:
        def run(*words):
            p = subprocess.run([aws, "--endpoint-url", emu.url, "--output", "json"] + list(words),
                               capture_output=True, env=env, timeout=60)
            out = p.stdout.decode()
            try:
                doc = json.loads(out) if p.returncode == 0 and out.strip() else {}
            except ValueError:
                doc = {}
            return p.returncode, doc, p.stderr.decode()
        rc, me, err = run("sts", "get-caller-identity")
        account = me.get("Account", "")
        check(rc == 0 and len(account) == 12 and account.isdigit() and
              me.get("Arn") == "arn:aws:iam::%s:user/sm-emulator" % account and
              me.get("UserId", "").startswith("AIDA"), "sts get-caller-identity: %s %s" % (me, err))
        rc, role, err = run("iam", "get-role", "--role-name", "SageMakerExecutionRole")
        role = role.get("Role", {})
        arn = "arn:aws:iam::%s:role/SageMakerExecutionRole" % account
        trust = role.get("AssumeRolePolicyDocument", {})
        check(rc == 0 and role.get("Arn") == arn and role.get("RoleName") ==
              "SageMakerExecutionRole" and isinstance(trust, dict) and
              trust["Statement"][0]["Principal"] == {"Service": "sagemaker.amazonaws.com"},
              "iam get-role: %s %s" % (role, err))
        rc, _, err = run("iam", "get-role", "--role-name", "bad/name")
        check(rc != 0 and "ValidationError" in err, "iam get-role of a bad name: %s" % err)
        rc, imgs, err = run("ecr", "describe-images", "--registry-id", registry,
                            "--repository-name", repo, "--image-ids", "imageTag=" + tag)
        details = imgs.get("imageDetails", [])
        check(rc == 0 and len(details) == 1 and details[0]["imageTags"] == [tag] and
              details[0]["registryId"] == registry and details[0]["repositoryName"] == repo and
              details[0]["imageDigest"].startswith("sha256:"),
              "ecr describe-images: %s %s" % (imgs, err))
        rc, _, err = run("ecr", "describe-images", "--registry-id", registry,
                         "--repository-name", repo, "--image-ids", "imageTag=0.0.1-nope")
        check(rc != 0 and "ImageNotFoundException" in err, "a missing tag: %s" % err)
        rc, _, err = run("ecr", "describe-images", "--repository-name", "nope")
        check(rc != 0 and "RepositoryNotFoundException" in err, "a missing repository: %s" % err)
        image = "%s.dkr.ecr.us-east-1.amazonaws.com/%s:%s" % (registry, repo, tag)
        rc, _, err = cli_deploy(run, role.get("Arn", arn), image)
        check(rc == 0, "create-endpoint: %s" % err)
        rc, _, err = run("sagemaker", "wait", "endpoint-in-service", "--endpoint-name", "e")
        check(rc == 0, "wait endpoint-in-service: %s" % err)
        rc, out, err = run("sagemaker", "describe-endpoint", "--endpoint-name", "e")
        check(rc == 0 and out.get("EndpointStatus") == "InService",
              "describe-endpoint: %s %s" % (out, err))
        with tempfile.TemporaryDirectory() as tmp:
            answer = os.path.join(tmp, "answer.json")
            rc, out, err = run("sagemaker-runtime", "invoke-endpoint", "--endpoint-name", "e",
                               "--content-type", "application/json", "--cli-binary-format",
                               "raw-in-base64-out", "--body", json.dumps(chat("What is 6 * 7?", 8)),
                               answer)
            body = open(answer).read() if os.path.exists(answer) else ""
        check(rc == 0 and "choices" in body, "invoke-endpoint: %s %s %s" % (out, body[:200], err))
        for words in (("delete-endpoint", "--endpoint-name", "e"),
                      ("delete-endpoint-config", "--endpoint-config-name", "c"),
                      ("delete-model", "--model-name", "m")):
            rc, _, err = run("sagemaker", *words)
            check(rc == 0, "%s: %s" % (words[0], err))
    return None


if __name__ == "__main__":
    sys.exit(run_group({"sigv4": test_sigv4, "serve": test_serve, "awscli": test_awscli,
                        "stats": test_stats, "seed": test_seed}, __doc__))
