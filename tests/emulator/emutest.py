"""Helpers the emulator's Python tests share: signing with botocore (an
independent signer, clock fixed), plain http.client requests, curl --aws-sigv4,
sm-invoke, raw sockets, and a tiny check() that counts failures."""
import datetime
import http.client
import json
import os
import socket
import subprocess
import sys
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import emulator  # noqa: E402

from botocore.auth import SigV4Auth  # noqa: E402
from botocore.awsrequest import AWSRequest  # noqa: E402
from botocore.credentials import Credentials  # noqa: E402

from testkit import expect as check, finish, isolate_process, isolated_env  # noqa: E402,F401

# The emulator and its clients get the same key from the environment, as users do;
# nothing else of the caller's AWS environment reaches them (testkit.isolated_env).
AKID = "AKIDEMULATORTEST"
SECRET = "emulator-test-secret"
isolate_process(AWS_ACCESS_KEY_ID=AKID, AWS_SECRET_ACCESS_KEY=SECRET)


def amz_now(offset=0):
    t = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=offset)
    return t.strftime("%Y%m%dT%H%M%SZ")


def signed_headers(url, path, body, akid=AKID, secret=SECRET, token=None, region="us-east-1",
                   service="sagemaker", amz_date=None, extra=None):
    """Headers botocore would send for POST url+path with body (bytes)."""
    req = AWSRequest(method="POST", url=url + path, data=body)
    req.headers["Content-Type"] = "application/json"
    req.headers["Accept"] = "application/json"
    for k, v in (extra or {}).items():
        req.headers[k] = v
    req.context["timestamp"] = amz_date or amz_now()  # add_auth() would take the clock
    auth = SigV4Auth(Credentials(akid, secret, token), service, region)
    auth._modify_request_before_signing(req)
    creq = auth.canonical_request(req)
    auth._inject_signature_to_request(req, auth.signature(auth.string_to_sign(req, creq), req))
    return dict(req.headers.items())


class Reply:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def json(self):
        return json.loads(self.body)

    def header(self, name):
        return self.headers.get(name.lower())


def request(url, path, body=b"", headers=None, method="POST", timeout=30):
    """One HTTP(S) request; returns a Reply (headers lower-cased)."""
    u = urllib.parse.urlsplit(url)
    if u.scheme == "https":
        import ssl
        conn = http.client.HTTPSConnection(u.hostname, u.port, timeout=timeout,
                                           context=ssl._create_unverified_context())
    else:
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        data = r.read()
        return Reply(r.status, {k.lower(): v for k, v in r.getheaders()}, data)
    finally:
        conn.close()


def invoke(url, endpoint, payload, **kw):
    """A botocore-signed InvokeEndpoint call; payload is a dict or bytes."""
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    path = "/endpoints/%s/invocations" % endpoint
    extra_send = kw.pop("send_headers", None)
    headers = signed_headers(url, path, body, **kw)
    headers.update(extra_send or {})
    return request(url, path, body, headers)


def curl(url, endpoint, body, user=None, region="us-east-1", service="sagemaker", extra=()):
    """curl --aws-sigv4 (an independent signer); returns (status, headers, body, exit code)."""
    cmd = ["curl", "-s", "-D", "-", "--max-time", "30", "-H", "Content-Type: application/json",
           "--data-binary", "@-", url + "/endpoints/%s/invocations" % endpoint]
    if user is not False:
        cmd += ["--aws-sigv4", "aws:amz:%s:%s" % (region, service), "--user",
                user or "%s:%s" % (AKID, SECRET)]
    p = subprocess.run(cmd + list(extra), input=body if isinstance(body, bytes) else body.encode(),
                       capture_output=True)
    head, _, payload = p.stdout.partition(b"\r\n\r\n")
    while head.startswith(b"HTTP/1.1 100"):  # Expect: 100-continue
        head, _, payload = payload.partition(b"\r\n\r\n")
    lines = head.decode(errors="replace").split("\r\n")
    status = int(lines[0].split()[1]) if lines and lines[0].startswith("HTTP/") else 0
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    return status, headers, payload, p.returncode


def sm_invoke(url, endpoint, body, *args, env=None):
    """Runs sm-invoke; returns (exit code, stdout, stderr)."""
    binary = os.environ.get("SM_INVOKE", "sm-invoke")
    p = subprocess.run([binary, "--url", url, "--endpoint", endpoint, "--region", "us-east-1",
                        "--body", "-"] + list(args), input=body.encode(), capture_output=True,
                       env=env)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def raw(url, data, read=True):
    """Writes raw bytes on a new socket; returns what the server sent until it closed."""
    u = urllib.parse.urlsplit(url)
    with socket.create_connection((u.hostname, u.port), timeout=10) as s:
        s.sendall(data)
        out = b""
        while read:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            out += chunk
        return out


def aws_cli():
    """Debian's aws CLI (the awscli package) when installed, else the first on PATH."""
    if os.path.exists("/usr/bin/aws"):
        return "/usr/bin/aws"
    import shutil
    return shutil.which("aws")


def aws_cli_env():
    """The aws CLI's environment: the test's keys, us-east-1, no pager, and nothing
    of the caller's AWS environment (no AWS_REGION, profile, endpoint URL or file)."""
    return isolated_env(AWS_ACCESS_KEY_ID=AKID, AWS_SECRET_ACCESS_KEY=SECRET,
                        AWS_DEFAULT_REGION="us-east-1", AWS_PAGER="")


def aws_cli_setup():
    """(the aws command, its environment), or None after saying the test is skipped."""
    aws = aws_cli()
    if not aws:
        print("SKIP: the aws command is not installed (Debian: apt-get install awscli)")
    return (aws, aws_cli_env()) if aws else None


def run_group(tests, doc):
    """Runs the test named by argv[1] (a dict name -> function); the exit status: 2 for
    bad usage, 77 when the test says it was skipped, else finish()'s."""
    group = sys.argv[1] if len(sys.argv) > 1 else ""
    if group not in tests:
        print(doc, file=sys.stderr)
        return 2
    return 77 if tests[group]() == 77 else finish()


def control(url, op, body, prefix="SageMaker", service="sagemaker"):
    """One AWS JSON 1.1 control-plane call signed by botocore; (status, JSON body)."""
    data = json.dumps(body).encode()
    req = AWSRequest(method="POST", url=url + "/", data=data, headers={
        "X-Amz-Target": "%s.%s" % (prefix, op), "Content-Type": "application/x-amz-json-1.1"})
    req.context["timestamp"] = amz_now()
    SigV4Auth(Credentials(AKID, SECRET), service, "us-east-1").add_auth(req)
    r = request(url, "/", data, dict(req.headers.items()))
    return r.status, (json.loads(r.body) if r.body else {})


def until(what, get, ok, guard=90):
    """Polls get() until ok(value) and returns the value; the guard (seconds) only ends a
    hang, as a failed check."""
    import time
    end = time.monotonic() + guard
    while True:
        v = get()
        if ok(v):
            return v
        if time.monotonic() > end:
            check(False, "%s never came: %s" % (what, v))
            return v


def chat(prompt, max_tokens=64, **extra):
    body = {"messages": [{"role": "user", "content": prompt}], "max_tokens": max_tokens,
            "temperature": 0}
    body.update(extra)
    return body
