#!/usr/bin/python3
"""The secret scanner every test relies on finds what it must and nothing else:
if it went blind, every "no secret in any output" check would pass silently."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import secretscan  # noqa: E402

SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
TOKEN = "FQoGZXIvYXdzEXAMPLETOKENxyz/abc+def=="

# (what, text, headers checked, found)
CASES = [
    ("clean text", "200 OK 0.123 s\nall good", True, False),
    ("the secret as it is", "key=" + SECRET, True, True),
    ("the secret JSON-escaped", '{"k": "wJalrXUtnFEMI\\/K7MDENG+bPxRfiCYEXAMPLEKEY"}', True, True),
    ("the secret percent-encoded", "k=wJalrXUtnFEMI%2FK7MDENG%2BbPxRfiCYEXAMPLEKEY", True, True),
    ("the secret's first 12 characters", "cut: wJalrXUtnFEM", True, True),
    ("the token", "x-token " + TOKEN, True, True),
    ("an Authorization header", "Authorization: AWS4-HMAC-SHA256 Credential=AKID/x", True, True),
    ("a JSON Authorization member", '{"Authorization": "x"}', True, True),
    ("a redacted token header", "X-Amz-Security-Token: <redacted>", True, False),
    ("a shown token header", "X-Amz-Security-Token: abc", True, True),
    ("a signature", "Signature=" + "0" * 64, True, True),
    ("an Authorization header where headers are allowed", "Authorization: x", False, False),
]


def main():
    failed = 0
    for what, text, headers, want in CASES:
        found = secretscan.scan([SECRET, TOKEN], [("case", text, headers)])
        if bool(found) != want:
            print("FAIL %s: found %r, want %s" % (what, found, want))
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
