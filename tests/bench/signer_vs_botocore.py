#!/usr/bin/python3
"""Signatures per second of the C signer and of botocore on the same SageMaker
request, measured in one run, and their ratio (target: 25x or more).
Usage: signer_vs_botocore.py SIGV4_BENCH [SECONDS]"""
import subprocess
import sys
import time

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

BODY = (b'{"messages":[{"role":"user","content":"Write a long, detailed story about a '
        b'lighthouse keeper on a remote island."}],"max_tokens":512,"temperature":0.0,'
        b'"ignore_eos":true}')
URL = "https://runtime.sagemaker.us-east-2.amazonaws.com/endpoints/gemma-4-e2b/invocations"


def botocore_rate(seconds):
    creds = Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                        "FQoGZXIvYXdzEXAMPLETOKEN")
    auth = SigV4Auth(creds, "sagemaker", "us-east-2")
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(100):
            req = AWSRequest(method="POST", url=URL, data=BODY,
                             headers={"Content-Type": "application/json",
                                      "Accept": "application/json"})
            auth.add_auth(req)
            n += 1
    return n / (time.perf_counter() - start)


def main():
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    out = subprocess.run([sys.argv[1], str(seconds)], capture_output=True, text=True, check=True)
    c_rate = float(out.stdout.split()[1])
    py_rate = botocore_rate(seconds)
    print(f"{'signer':<10} {'signatures/s':>14}")
    print(f"{'C (ours)':<10} {c_rate:>14,.0f}")
    print(f"{'botocore':<10} {py_rate:>14,.0f}")
    ratio = c_rate / py_rate
    print(f"ratio {ratio:.1f}x (target >= 25x: {'met' if ratio >= 25 else 'NOT met'})")


if __name__ == "__main__":
    main()
