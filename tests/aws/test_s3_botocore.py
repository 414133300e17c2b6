#!/usr/bin/python3
"""The S3 client signs as botocore's S3SigV4Auth does (Debian 12's python3-botocore,
the oracle): for PutObject, GetObject and ListObjectsV2, virtual-hosted and
path-style, keys that need percent-encoding (signed once, as sent: no second
encoding, no normalisation), a continuation token, a session token and an endpoint
URL with a port, the Authorization header and x-amz-content-sha256 are botocore's
byte for byte. Keys the client refuses are refused.

usage: test_s3_botocore.py S3SIGN_TOOL"""
import datetime
import hashlib
import os
import subprocess
import sys

from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from testkit import isolated_env  # noqa: E402

AKID, SECRET = "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
TOKEN = "FQoGZXIvYXdzEXAMPLETOKEN+/="
WHEN = 1440938160  # 2015-08-30T12:36:00Z

CASES = [
    # name, method, bucket, key, query, region, endpoint, content type, body, token
    ("put virtual-hosted", "PUT", "results-bucket", "runs/run-20260501T120000Z/ep/sweep.json",
     None, "us-east-2", None, "application/json", b'{"format":"x"}', False),
    ("put path-style (a dotted bucket)", "PUT", "my.results", "p/a.json", None, "eu-west-1",
     None, "application/json", b"{}", False),
    ("key encoded once", "GET", "results-bucket", "runs/a b/c+d=e~f(1)!*'.json", None,
     "us-east-1", None, None, b"", False),
    ("get with a session token", "GET", "results-bucket", "x/shard-0-of-4/sweep.json", None,
     "ap-southeast-2", None, None, b"", True),
    ("list, first page", "GET", "results-bucket", None,
     "list-type=2&max-keys=1000&prefix=runs%2Frun-1%2F", "us-east-2", None, None, b"", False),
    ("list, a continuation token", "GET", "results-bucket", None,
     "list-type=2&max-keys=1000&prefix=runs%2F&continuation-token=1ueGcxLPRx1Tr%2FXYExHnhbYLgveDs2J%2FwmTfEZ%2B%3D",
     "us-east-2", None, None, b"", False),
    ("endpoint URL with a port", "PUT", "bench", "runs/r/ep/x.shard-1-of-2.json", None,
     "us-east-1", "http://127.0.0.1:41234", "application/json", b"[1,2,3]\n", True),
    ("list on an endpoint URL", "GET", "bench", None, "list-type=2&max-keys=1000&prefix=runs%2Fr%2F",
     "us-east-1", "http://127.0.0.1:41234", None, b"", False),
]


def ours(tool, c):
    name, method, bucket, key, query, region, endpoint, ctype, body, token = c
    env = isolated_env(AKID=AKID, SECRET=SECRET)
    env.pop("TOKEN", None)
    if token:
        env["TOKEN"] = TOKEN
    p = subprocess.run([tool, method, bucket, key or "-", query or "-", region, endpoint or "-",
                        str(WHEN), ctype or "-"], input=body, env=env, capture_output=True,
                       check=True)
    out = {"headers": {}}
    for line in p.stdout.decode().splitlines():
        kind, rest = line.split(": ", 1)
        if kind == "header":
            k, v = rest.split(": ", 1)
            out["headers"][k] = v
        else:
            out[kind] = rest
    return out


def botocore(c, got):
    name, method, bucket, key, query, region, endpoint, ctype, body, token = c
    req = AWSRequest(method=method, url=got["url"], data=body)
    if ctype:
        req.headers["Content-Type"] = ctype
    req.context["timestamp"] = datetime.datetime.utcfromtimestamp(WHEN).strftime("%Y%m%dT%H%M%SZ")
    creds = Credentials(AKID, SECRET, TOKEN if token else None)
    auth = S3SigV4Auth(creds, "s3", region)
    auth._modify_request_before_signing(req)  # add_auth would read the clock
    creq = auth.canonical_request(req)
    auth._inject_signature_to_request(req, auth.signature(auth.string_to_sign(req, creq), req))
    return req


def main():
    tool, failures = sys.argv[1], []
    for c in CASES:
        got = ours(tool, c)
        req = botocore(c, got)
        name, body = c[0], c[8]
        want_hash = hashlib.sha256(body).hexdigest()
        if got["headers"].get("x-amz-content-sha256") != want_hash:
            failures.append(f"{name}: x-amz-content-sha256 is not the body's SHA-256")
        if req.headers["X-Amz-Content-SHA256"] != want_hash:
            failures.append(f"{name}: botocore would not sign the payload ({req.url})")
        if got["authorization"] != req.headers["Authorization"]:
            failures.append(f"{name}:\n  ours     {got['authorization']}\n"
                            f"  botocore {req.headers['Authorization']}")
        host = got["url"].split("/")[2]
        if got["headers"]["Host"] != host:
            failures.append(f"{name}: Host {got['headers']['Host']} is not the URL's {host}")
    # A key encoded once: the URL carries %XX once, never %25XX.
    enc = ours(tool, CASES[2])["url"]
    if "%2520" in enc or "a%20b/c%2Bd%3De~f%281%29%21%2A%27.json" not in enc:
        failures.append("the key is not encoded once as botocore encodes it: " + enc)
    for bad in ("../x", "a//b", "a/./b", "/a", "a?b", "a#b"):
        p = subprocess.run([tool, "GET", "results-bucket", bad, "-", "us-east-1", "-", str(WHEN),
                            "-"], input=b"", env=isolated_env(AKID=AKID, SECRET=SECRET),
                           capture_output=True)
        if p.returncode == 0:
            failures.append(f"the key {bad!r} was signed, not refused")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(CASES)} requests compared with botocore's S3SigV4Auth; {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
