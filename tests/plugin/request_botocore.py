#!/usr/bin/python3
"""A request signed through the Lua API (the plan's first request, as wrk's request()
returns it, with the
credentials the AWS chain finds in the environment, a session token among them)
carries exactly the Authorization header botocore computes for the same request.
Usage: request_botocore.py LUAJIT PLUGIN_DIR"""
import os
import subprocess
import sys

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from testkit import isolated_env  # noqa: E402

LUA = r"""
package.cpath = os.getenv("SM_PLUGIN_PATH") .. "/?.so;" .. package.cpath
local sm = require "sagemaker"
local side = { index = 1, name = "gemma-4-e2b-qat", variant = "qat", component = "comp-1" }
local plan = {
  request = { host = "runtime.sagemaker.eu-west-1.amazonaws.com", region = "eu-west-1",
    service = "sagemaker", user_agent = "wrk-sagemaker/test", format = "vllm-chat",
    custom_attributes = "  a=b   c=d " },
  sides = { side },
  rounds = { { items = { { side = side, phase = "t", prompt = "Brasília?", max_tokens = 64 } } } },
}
assert(sm.begin(plan, { scenario = "t", threads = 1, progress_s = 0 }))
local request = assert(sm.hooks(plan, { thread = 0, filler = "" }))
request() -- wrk's verification call
io.write(request())
"""

CREDS = {"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE",
         "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
         "AWS_SESSION_TOKEN": "FQoGZXIvYXdzEXAMPLETOKEN+/="}


def main():
    env = isolated_env(SM_PLUGIN_PATH=sys.argv[2], **CREDS)
    raw = subprocess.run([sys.argv[1], "-e", LUA], env=env, capture_output=True,
                         check=True).stdout
    head, body = raw.split(b"\r\n\r\n", 1)
    lines = head.decode().split("\r\n")
    method, target, _ = lines[0].split(" ")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    failures = []
    if int(headers["Content-Length"]) != len(body):
        failures.append("Content-Length does not match the body")
    if CREDS["AWS_SECRET_ACCESS_KEY"].encode() in raw:
        failures.append("the secret key is in the request")
    if headers.get("X-Amz-Security-Token") != CREDS["AWS_SESSION_TOKEN"]:
        failures.append("the session token header is missing or wrong")
    req = AWSRequest(method=method, url="https://" + headers["Host"] + target, data=body)
    for name in ("Content-Type", "Accept", "X-Amzn-SageMaker-Target-Variant",
                 "X-Amzn-SageMaker-Custom-Attributes", "X-Amzn-SageMaker-Inference-Component",
                 "User-Agent"):
        req.headers[name] = headers[name]
    req.context["timestamp"] = headers["X-Amz-Date"]
    creds = Credentials(CREDS["AWS_ACCESS_KEY_ID"], CREDS["AWS_SECRET_ACCESS_KEY"],
                        CREDS["AWS_SESSION_TOKEN"])
    auth = SigV4Auth(creds, "sagemaker", "eu-west-1")
    auth._modify_request_before_signing(req)  # add_auth would take its own clock
    auth._inject_signature_to_request(
        req, auth.signature(auth.string_to_sign(req, auth.canonical_request(req)), req))
    if req.headers["Authorization"] != headers["Authorization"]:
        failures.append(f"Authorization differs:\n botocore {req.headers['Authorization']}\n"
                        f" plugin   {headers['Authorization']}")
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
