#!/usr/bin/python3
"""Differential test: the C signer against Debian's botocore on generated
SageMaker-like requests (endpoint names and paths that need encoding, query
strings, extra headers with odd white space and case, session tokens, bodies
from empty to 64 KiB, dates and regions). Every canonical request, string to
sign and signature must match. Usage: botocore_diff.py SIGV4_BATCH [COUNT] [SEED]"""
import base64
import json
import random
import subprocess
import sys
from urllib.parse import quote

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

REGIONS = ["us-east-1", "us-east-2", "eu-west-1", "ap-southeast-2", "me-central-1"]
NAMES = ["gemma-4-e2b", "gemma-4-e2b-qat", "a", "x" * 63, "ep%3Ax", "ep:x", "a b", "caf\u00e9",
         "\u1234", "($!*)", "a+b", "~tilde", "x/../y", "./z", "%", "a%2Fb"]
PATHS = ["/endpoints/{}/invocations", "/endpoints/{}/invocations-response-stream",
         "//endpoints//{}//invocations", "/endpoints/./{}/invocations/", "/{}", "/{}/../x/.."]
HEADER_NAMES = ["X-Amzn-SageMaker-Custom-Attributes", "X-Amzn-SageMaker-Target-Variant",
                "X-Amzn-SageMaker-Inference-Component", "x-amzn-sagemaker-session-id",
                "X-Test", "X-TEST", "x-test-Other"]
ODD_VALUES = ["  a=b   c=d ", "\tv\t", "plain", "a  b\t\tc", " ", "\u00e9t\u00e9", "x,y", "'q'"]


def rand_text(rng, n):
    alphabet = "abcXYZ019 -_.~:/?&=+%$!*'()\u00e9\u1234"
    return "".join(rng.choice(alphabet) for _ in range(n))


def gen_request(rng, i):
    scheme, port = rng.choice([("https", ""), ("http", ":8080"), ("https", ":8443"),
                               ("http", "")])
    region = rng.choice(REGIONS)
    host = rng.choice([f"runtime.sagemaker.{region}.amazonaws.com", "127.0.0.1", "localhost"])
    path = rng.choice(PATHS).format(rng.choice(NAMES))
    query = ""
    if rng.random() < 0.3:
        pairs = [(quote(rand_text(rng, rng.randint(0, 6)), safe="-_.~"),
                  quote(rand_text(rng, rng.randint(0, 6)), safe="-_.~"))
                 for _ in range(rng.randint(1, 4))]
        if rng.random() < 0.3:
            pairs.append((pairs[0][0], "dup"))
        query = "?" + "&".join(f"{k}={v}" for k, v in pairs if k)
    headers = [("Content-Type", rng.choice(["application/json", "text/plain; charset=utf-8"])),
               ("Accept", rng.choice(["application/json", "*/*"]))]
    for _ in range(rng.randint(0, 4)):
        headers.append((rng.choice(HEADER_NAMES), rng.choice(ODD_VALUES)))
    if rng.random() < 0.2:
        headers.append(("User-Agent", "wrk-sagemaker-test"))
    size = rng.choice([0, 1, 15, 300, 4096, rng.randint(0, 65536), 65536])
    body = rng.randbytes(size)
    return {
        "url": f"{scheme}://{host}{port}{path}{query}",
        "host": host + port if not ((scheme, port) in (("http", ":80"), ("https", ":443"))) else host,
        "method": rng.choice(["POST"] * 5 + ["GET", "PUT"]),
        "target": path + query,
        "headers": headers,
        "body": body,
        "akid": rng.choice(["AKIDEXAMPLE", "AKIDEXAMPLE2", "K" * 20]),
        "secret": rng.choice(["wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "s3cr3t+/=", "x" * 40]),
        "token": rng.choice([None, None, "FQoGZXIvYXdzEXAMPLETOKEN", "tok/en+=" * 40]),
        "region": region,
        "service": rng.choice(["sagemaker"] * 4 + ["service"]),
        "amz_date": f"{rng.randint(2000, 2030):04d}{rng.randint(1, 12):02d}"
                    f"{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}"
                    f"{rng.randint(0, 59):02d}{rng.randint(0, 59):02d}Z",
    }


def botocore_sign(r):
    creds = Credentials(r["akid"], r["secret"], r["token"])
    req = AWSRequest(method=r["method"], url=r["url"], data=r["body"])
    for k, v in r["headers"]:
        req.headers[k] = v
    auth = SigV4Auth(creds, r["service"], r["region"])
    req.context["timestamp"] = r["amz_date"]
    auth._modify_request_before_signing(req)
    creq = auth.canonical_request(req)
    sts = auth.string_to_sign(req, creq)
    return creq, sts, auth.signature(sts, req)


def main():
    batch = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 1500
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 20261130)
    reqs = [gen_request(rng, i) for i in range(count)]
    lines = []
    for r in reqs:
        lines.append(json.dumps({
            "method": r["method"], "target": r["target"],
            "headers": [["Host", r["host"]]] + [list(h) for h in r["headers"]],
            "body_b64": base64.b64encode(r["body"]).decode(), "akid": r["akid"],
            "secret": r["secret"], "token": r["token"], "region": r["region"],
            "service": r["service"], "amz_date": r["amz_date"]}))
    out = subprocess.run([batch], input="\n".join(lines) + "\n", capture_output=True,
                         text=True, check=False)
    got = [json.loads(line) for line in out.stdout.splitlines()]
    if len(got) != count:
        print(f"C signer answered {len(got)} of {count} requests: {out.stderr}")
        return 1
    mismatches = 0
    for r, g in zip(reqs, got):
        creq, sts, sig = botocore_sign(r)
        if (g["creq"], g["sts"], g["signature"]) != (creq, sts, sig):
            mismatches += 1
            if mismatches <= 3:
                print(f"MISMATCH {r['method']} {r['url']}\n--- botocore\n{creq}\n--- C\n"
                      f"{g['creq']}\n")
    print(f"{count} requests, {mismatches} mismatches")
    return 1 if mismatches or count < 1000 else 0


if __name__ == "__main__":
    sys.exit(main())
