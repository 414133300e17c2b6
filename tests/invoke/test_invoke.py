#!/usr/bin/python3
"""sm-invoke, end to end: dry-run vectors, bad usage, sending to a fake
SageMaker that checks every signature with botocore, HTTPS, and secrets.

usage: test_invoke.py SM_INVOKE GROUP   (GROUP: dry_run, usage, send, tls, secrets)

Every run of every group is also searched for the secret key and the session
token (and their first 12 characters): any hit fails the case.
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"

# The AWS suite's example key (dry-run vectors, README section 6).
EXAMPLE_AKID = "AKIDEXAMPLE"
EXAMPLE_SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
EXAMPLE_TOKEN = "FQoGZXIvYXdzEXAMPLETOKEN"
# Fake keys the fake server knows: AKIDTOKEN must send TOKEN, AKIDPLAIN none.
SECRET = "fakeSECRETkey/0123456789+abcdefghijklmnop"
TOKEN = "FAKEsessionTOKEN0123456789abcdefghijklmnopqrstuvwxyz=="
SECRETS = [EXAMPLE_SECRET, EXAMPLE_TOKEN, SECRET, TOKEN]

V1_CREQ = """POST
/endpoints/my-endpoint/invocations

accept:application/json
content-type:application/json
host:runtime.sagemaker.us-east-1.amazonaws.com
x-amz-date:20150830T123600Z

accept;content-type;host;x-amz-date
488d8b76651689aa401681fd5c5da49ab30742dd8ec292bd19a48143dc7245aa"""
BODY = b'{"inputs":"hi"}'
BODY_SHA = "488d8b76651689aa401681fd5c5da49ab30742dd8ec292bd19a48143dc7245aa"


@dataclass
class Case:
    name: str
    args: list
    rc: int = 0
    env: dict = field(default_factory=dict)
    stdin: bytes = b""
    out: list = field(default_factory=list)  # regexes stdout must match
    err: list = field(default_factory=list)  # regexes stderr must match
    not_err: list = field(default_factory=list)  # regexes stderr must not match
    reply: dict = field(default_factory=dict)  # fields of the fake server's JSON reply
    one_line: bool = False  # stderr is exactly one line


EX = {"AWS_ACCESS_KEY_ID": EXAMPLE_AKID, "AWS_SECRET_ACCESS_KEY": EXAMPLE_SECRET}
EX_TOKEN = dict(EX, AWS_SESSION_TOKEN=EXAMPLE_TOKEN)
DRY = ["--endpoint", "my-endpoint", "--region", "us-east-1", "--body", "{body}", "--dry-run",
       "--amz-date", "20150830T123600Z"]
SIG = "Signature=%s$"

DRY_RUN = [
    Case("V1 signature and canonical request", DRY, env=EX,
         out=[re.escape("---- canonical request\n" + V1_CREQ + "\n---- string to sign\n"),
              "5d75b66d47664abae49cd6acff11fc691b3183550af430d3611c00a128ab1d72\n",
              "(?m)^Host: runtime.sagemaker.us-east-1.amazonaws.com$",
              SIG % "041aade881711189b08ea4b658df62bb89e14acb342cd488ea682934a90424e3"]),
    Case("V1 body from stdin", [a if a != "{body}" else "-" for a in DRY], env=EX, stdin=BODY,
         out=[SIG % "041aade881711189b08ea4b658df62bb89e14acb342cd488ea682934a90424e3"]),
    Case("V2 session token signed and redacted", DRY, env=EX_TOKEN,
         out=[SIG % "f78d3bbfef886aebd81c8dfa3726cd02efbc1b820a55c2afa51dea482e21e183",
              "(?m)^x-amz-security-token:<redacted>$", "(?m)^X-Amz-Security-Token: <redacted>$",
              "SignedHeaders=accept;content-type;host;x-amz-date;x-amz-security-token,"]),
    Case("V4 custom attributes white space", DRY + ["--custom-attributes", "  a=b   c=d "], env=EX,
         out=[SIG % "b5d9cf7814f595db0d1d943eea90c86a7733e40b92034290b29a9eb2964cffc0",
              "(?m)^x-amzn-sagemaker-custom-attributes:a=b c=d$"]),
    Case("default url from the region", DRY[:3] + ["eu-west-1"] + DRY[4:], env=EX,
         out=["(?m)^Host: runtime.sagemaker.eu-west-1.amazonaws.com$",
              "Credential=AKIDEXAMPLE/20150830/eu-west-1/sagemaker/aws4_request"]),
    Case("default url of a China region ends in .com.cn", DRY[:3] + ["cn-north-1"] + DRY[4:], env=EX,
         out=["(?m)^Host: runtime.sagemaker.cn-north-1.amazonaws.com.cn$",
              "(?m)^host:runtime.sagemaker.cn-north-1.amazonaws.com.cn$"]),
    Case("non-default port kept in host", DRY + ["--url", "http://127.0.0.1:8080/pre/"], env=EX,
         out=["(?m)^host:127.0.0.1:8080$", "(?m)^POST /pre/endpoints/my-endpoint/invocations HTTP/1.1$"]),
    Case("default port left out of host", DRY + ["--url", "https://example.com:443"], env=EX,
         out=["(?m)^host:example.com$"]),
    Case("service and variant headers", DRY + ["--service", "other", "--target-variant", "v2",
                                               "--inference-component", "ic-1",
                                               "--header", "X-Amzn-SageMaker-Session-Id: s-1"], env=EX,
         out=["/other/aws4_request", "(?m)^x-amzn-sagemaker-target-variant:v2$",
              "(?m)^x-amzn-sagemaker-inference-component:ic-1$",
              "(?m)^x-amzn-sagemaker-session-id:s-1$"]),
    Case("region from AWS_REGION", DRY[:2] + DRY[4:], env=dict(EX, AWS_REGION="ap-south-1"),
         out=["/ap-south-1/sagemaker/aws4_request"]),
    Case("region from AWS_DEFAULT_REGION", DRY[:2] + DRY[4:], env=dict(EX, AWS_DEFAULT_REGION="sa-east-1"),
         out=["/sa-east-1/sagemaker/aws4_request"]),
    Case("help lists every flag", ["--help"],
         out=[re.escape(f) for f in ["--endpoint NAME", "--region", "--body FILE", "--content-type",
                                     "--accept", "--header 'Name: value'", "--target-variant",
                                     "--custom-attributes", "--inference-component", "--url BASE",
                                     "--service", "--profile", "--dry-run", "--amz-date",
                                     "--insecure", "--cacert FILE", "--timeout SECONDS", "--verbose",
                                     "--help", "Exit status"]]),
]

USAGE = [Case(n, a, rc=2, env=EX, err=[e], one_line=True) for n, a, e in [
    ("unknown flag", DRY + ["--bogus"], "unknown option '--bogus'"),
    ("flag without value", DRY + ["--region"], "--region needs a value"),
    ("stray argument", DRY + ["extra"], "unexpected argument 'extra'"),
    ("missing --endpoint", DRY[2:], "missing --endpoint NAME"),
    ("missing --body", DRY[:4], "missing --body FILE"),
    ("endpoint with underscore", DRY + ["--endpoint", "a_b"], "--endpoint 'a_b' is not a SageMaker endpoint name"),
    ("endpoint starting with -", DRY + ["--endpoint=-ab"], "'-ab' is not a SageMaker endpoint name"),
    ("endpoint ending with -", DRY + ["--endpoint", "ab-"], "'ab-' is not a SageMaker endpoint name"),
    ("endpoint of 64 characters", DRY + ["--endpoint", "e" * 64], "is not a SageMaker endpoint name"),
    ("empty endpoint", DRY + ["--endpoint", ""], "'' is not a SageMaker endpoint name"),
    ("amz-date without Z", DRY + ["--amz-date", "20150830T123600"], "--amz-date '20150830T123600' is not"),
    ("amz-date month 13", DRY + ["--amz-date", "20151330T123600Z"], "--amz-date '20151330T123600Z' is not"),
    ("amz-date 30 February", DRY + ["--amz-date", "20150230T123600Z"], "--amz-date '20150230T123600Z' is not"),
    ("body file missing", DRY + ["--body", "{dir}/none.json"], "--body .*/none.json: No such file or directory"),
    ("body is a directory", DRY + ["--body", "{dir}"], "--body .*: Is a directory"),
    ("timeout zero", DRY + ["--timeout", "0"], "--timeout '0' is not a number of seconds from"),
    ("timeout not a number", DRY + ["--timeout", "soon"], "--timeout 'soon' is not"),
    ("header without colon", DRY + ["--header", "NoColon"], "--header 'NoColon' is not 'Name: value'"),
    ("header with bad name", DRY + ["--header", "Bad Name: x"], "header name with characters"),
    ("header sm-invoke manages", DRY + ["--header", "Authorization: x"], "sets a header sm-invoke manages"),
    ("header content-type", DRY + ["--header", "content-type: text/csv"], "use --content-type"),
    ("url with another scheme", DRY + ["--url", "ftp://127.0.0.1"], "only http:// and https://"),
    ("url that is no url", DRY + ["--url", "http://"], "is not a URL"),
    ("url with a query", DRY + ["--url", "http://127.0.0.1/?a=b"], "a query, user or fragment"),
    ("plain http to SageMaker's own host", DRY + ["--url", "http://runtime.sagemaker.us-east-1.amazonaws.com"],
     "--url: refusing to sign requests for http://runtime.sagemaker.us-east-1.amazonaws.com: plain http"),
    ("plain http to another machine", DRY + ["--url", "http://192.0.2.7:8080"],
     "refusing to sign requests for http://192.0.2.7:8080: .* --allow-plain-http"),
    ("region with capitals", DRY + ["--region", "US-EAST-1"], "--region 'US-EAST-1' is not a region name"),
    ("service with underscore", DRY + ["--service", "sage_maker"], "--service 'sage_maker' is not"),
]] + [
    Case("no credentials names every source", DRY, rc=2, one_line=True,
         env={"AWS_EC2_METADATA_SERVICE_ENDPOINT": "http://127.0.0.1:1", "AWS_EC2_METADATA_DISABLED": ""},
         err=["^sm-invoke: no AWS credentials: tried environment, profile 'default' in {dir}/credentials "
              "and {dir}/config, container endpoint \\(AWS_CONTAINER_CREDENTIALS_RELATIVE_URI and "
              "_FULL_URI not set\\), instance metadata \\(http://127.0.0.1:1/latest/api/token: .*\\)$"]),
    Case("no region", DRY[:2] + DRY[4:], rc=2, env=EX, one_line=True,
         err=["no AWS region: AWS_REGION and AWS_DEFAULT_REGION are not set"]),
    Case("missing named profile", DRY + ["--profile", "nope"], rc=2, env=EX, one_line=True,
         err=["AWS profile 'nope' not found in {dir}/credentials or {dir}/config"]),
]

OK_ARGS = ["--endpoint", "ok-1", "--region", "us-east-1", "--body", "{body}", "--url", "{url}"]
TOK = {"AWS_ACCESS_KEY_ID": "AKIDTOKEN", "AWS_SECRET_ACCESS_KEY": SECRET, "AWS_SESSION_TOKEN": TOKEN}
PLAIN = {"AWS_ACCESS_KEY_ID": "AKIDPLAIN", "AWS_SECRET_ACCESS_KEY": SECRET}
TIMING = r"^200 OK \d+\.\d{3} s\n$"


def ep(name):
    return ["--endpoint", name] + OK_ARGS[2:]


SEND = [
    Case("success with session token", OK_ARGS, env=TOK, err=[TIMING],
         reply={"attempt": 1, "body_sha256": BODY_SHA, "scope": ["*", "us-east-1", "sagemaker"]}),
    Case("success without token", OK_ARGS, env=PLAIN, err=[TIMING], reply={"body_len": 15}),
    Case("body from stdin", [a if a != "{body}" else "-" for a in OK_ARGS], env=TOK, stdin=b"x" * 5000,
         reply={"body_sha256": hashlib.sha256(b"x" * 5000).hexdigest()}),
    Case("empty body", OK_ARGS + ["--body", "/dev/null"], env=TOK, reply={"body_len": 0}),
    Case("3 MiB body, no Expect", OK_ARGS + ["--body", "{big}"], env=TOK,
         reply={"body_len": 3 << 20, "headers": {"expect": None}}),
    Case("every SageMaker header signed", OK_ARGS + [
        "--target-variant", "v1", "--custom-attributes", " a=b  c=d ", "--inference-component", "ic-1",
        "--content-type", "text/csv", "--accept", "text/plain", "--header", "X-Repeat: one",
        "--header", "X-Repeat:   two  ", "--header", "X-Empty:", "--header", "X-Amzn-Trace-Id: Root=1"],
        env=TOK, reply={"headers": {"x-amzn-sagemaker-target-variant": "v1", "content-type": "text/csv",
                                    "x-amzn-sagemaker-custom-attributes": "a=b  c=d ",
                                    "x-amzn-sagemaker-inference-component": "ic-1", "accept": "text/plain",
                                    "x-repeat": ["one", "two  "], "x-empty": ""}}),
    Case("plain http to localhost needs no flag", OK_ARGS + ["--url", "{localhost_url}"],
         env=TOK, reply={"attempt": "*", "headers": {"host": "localhost:*"}}),
    Case("plain http elsewhere sent with --allow-plain-http", DRY + ["--url", "http://192.0.2.7:8080",
         "--allow-plain-http"], env=TOK, out=["^---- canonical request"]),
    Case("url with a path prefix", OK_ARGS + ["--url", "{url}/prefix//"], env=TOK,
         reply={"path": "/prefix/endpoints/ok-1/invocations"}),
    Case("region from AWS_REGION", OK_ARGS[:2] + OK_ARGS[4:], env=dict(TOK, AWS_REGION="eu-central-1"),
         reply={"scope": ["*", "eu-central-1", "sagemaker"]}),
    Case("profile credentials and region", OK_ARGS[:2] + OK_ARGS[4:] + ["--profile", "dev", "-v"],
         env=dict(TOK, AWS_ACCESS_KEY_ID="AKIDWRONG"),
         err=["credentials AKIDPLAIN from profile 'dev' in .*/credentials; region us-west-2"],
         reply={"scope": ["*", "us-west-2", "sagemaker"]}),
    Case("credential_process", OK_ARGS + ["--profile", "proc"], env={},
         reply={"attempt": "*"}),
    Case("credentials file readable by others: one warning", OK_ARGS[:2] + OK_ARGS[4:] +
         ["--profile", "dev"], env=dict(AWS_SHARED_CREDENTIALS_FILE="{dir}/credentials-open"),
         err=["(?m)^wrk-sagemaker: warning: .*/credentials-open is readable by other users "
              "\\(mode 0644\\): chmod 600 it$"], reply={"attempt": "*"}),
    Case("credential_process leaving a child that holds its output", OK_ARGS +
         ["--profile", "bgproc"], env={}, reply={"attempt": "*"}),
    Case("wrong secret", OK_ARGS, rc=1, env=dict(TOK, AWS_SECRET_ACCESS_KEY=SECRET[::-1]), one_line=True,
         err=["^403 InvalidSignatureException: The request signature we calculated does not match"]),
    Case("unknown key", OK_ARGS, rc=1, env=dict(TOK, AWS_ACCESS_KEY_ID="AKIDOTHER"), one_line=True,
         err=["^403 UnrecognizedClientException: The security token included in the request is invalid.$"]),
    Case("model error", ep("model-error"), rc=1, env=TOK, one_line=True,
         err=['^424 ModelError: Received client error \\(400\\) from primary with message "bad prompt".']),
    Case("validation error", ep("missing"), rc=1, env=TOK, one_line=True,
         err=["^400 ValidationError: Endpoint missing of account 123456789012 not found.$"]),
    Case("error code only in the body", ep("throttled"), rc=1, env=TOK, one_line=True,
         err=["^429 ThrottlingException: Rate exceeded$"]),
    Case("error without code", ep("plain-502"), rc=1, env=TOK, one_line=True, out=["^$"],
         err=["^502 Bad Gateway$"]),
    Case("error reason with terminal escapes shown as '?'", ep("hostile-503"), rc=1, env=TOK, one_line=True,
         err=["^503 Busy\\?\\[2J\\?\\]0;pwned\\? now\n$"]),
    Case("verbose reply header with terminal escapes shown as '?'", ep("hostile-503") + ["-v"], rc=1, env=TOK,
         err=["(?m)^< HTTP/1.1 503 Busy\\?\\[2J\\?\\]0;pwned\\? now$"], not_err=["\x1b", "\x07"]),
    Case("server clock ahead: one retry", ep("skew-ahead"), env=TOK,
         err=["^sm-invoke: 403 InvalidSignatureException: the server's clock is \\+(3599|3600|3601) s from ours",
              "\n200 OK "], reply={"attempt": 2}),
    Case("server clock behind: one retry", ep("skew-behind"), env=TOK,
         err=["the server's clock is -(3599|3600|3601) s from ours", "\n200 OK "], reply={"attempt": 2}),
    Case("still expired after the retry", ep("skew-always"), rc=1, env=TOK,
         err=["signing again", "\n403 InvalidSignatureException: Signature expired: .* \\(request 2\\)\n$"]),
    Case("fixed --amz-date: no retry", ep("skew-ahead") + ["--amz-date", "20150830T123600Z"], rc=1,
         env=TOK, one_line=True, err=["^403 InvalidSignatureException: Signature expired: 20150830T123600Z"]),
    Case("time-out", ep("slow") + ["--timeout", "0.3"], rc=1, env=TOK, one_line=True,
         err=["no complete reply within 0.300 s \\(--timeout\\)"]),
    Case("connection refused", OK_ARGS + ["--url", "http://127.0.0.1:1"], rc=1, env=TOK, one_line=True,
         err=["^sm-invoke: http://127.0.0.1:1/endpoints/ok-1/invocations: .*"]),
]

SECRET_MODES = [
    Case("verbose success", OK_ARGS + ["-v"], env=TOK,
         err=["(?m)^> X-Amz-Security-Token: <redacted>$", "(?m)^> Authorization: <redacted>$",
              "(?m)^< HTTP/1.1 200 OK$", "credentials AKIDTOKEN from environment"],
         not_err=["AWS4-HMAC-SHA256"]),
    Case("verbose error reply", ep("model-error") + ["--verbose"], rc=1, env=TOK,
         err=["ModelError"]),
    Case("verbose skew retry", ep("skew-always") + ["-v"], rc=1, env=TOK, err=["signing again"]),
    Case("verbose dry run", DRY + ["-v"], env=TOK, out=["<redacted>"]),
    Case("process printing secrets on stderr", OK_ARGS + ["--profile", "proc", "-v"], env={}),
    Case("failing process printing secrets", OK_ARGS + ["--profile", "badproc"], rc=2, env={}, one_line=True,
         err=["credential_process \\(program '[^']*'\\) exited with status 3 \\(its standard error is "
              "not shown"]),
    Case("process with bad JSON", OK_ARGS + ["--profile", "jsonproc"], rc=2, env={}, one_line=True,
         err=["credential_process \\(program 'printf'\\): \"SecretAccessKey\" is missing or not a "
              "string$"]),
]

TLS = [
    Case("https with --cacert", OK_ARGS + ["--url", "{tls_url}", "--cacert", "{dir}/cert.pem"], env=TOK,
         err=[TIMING], reply={"headers": {"host": "127.0.0.1:*"}}),
    Case("https with --insecure", OK_ARGS + ["--url", "{tls_url}", "--insecure"], env=TOK, err=[TIMING]),
    Case("https self-signed refused", OK_ARGS + ["--url", "{tls_url}"], rc=1, env=TOK, one_line=True,
         err=["(?i)certificate"]),
]

GROUPS = {"dry_run": DRY_RUN, "usage": USAGE, "send": SEND, "secrets": SECRET_MODES, "tls": TLS}


def write_files(d):
    with open(os.path.join(d, "body.json"), "wb") as f:
        f.write(BODY)
    with open(os.path.join(d, "big.bin"), "wb") as f:
        f.write(b"y" * (3 << 20))
    proc_json = json.dumps({"Version": 1, "AccessKeyId": "AKIDTOKEN", "SecretAccessKey": SECRET,
                            "SessionToken": TOKEN, "Expiration": "2099-01-01T00:00:00Z"})
    with open(os.path.join(d, "creds.json"), "w") as f:
        f.write(proc_json)
    for name, mode in (("credentials", 0o600), ("credentials-open", 0o644)):
        with open(os.path.join(d, name), "w") as f:
            f.write("[dev]\naws_access_key_id = AKIDPLAIN\naws_secret_access_key = %s\n" % SECRET)
        os.chmod(os.path.join(d, name), mode)
    with open(os.path.join(d, "secrets.txt"), "w") as f:
        f.write("%s %s\n" % (SECRET, TOKEN))
    with open(os.path.join(d, "config"), "w") as f:
        f.write("[profile dev]\nregion = us-west-2\n"
                "[profile proc]\ncredential_process = sh -c 'cat %s/secrets.txt >&2; cat %s/creds.json'\n"
                "[profile badproc]\ncredential_process = sh -c 'cat %s/secrets.txt >&2; exit 3'\n"
                "[profile jsonproc]\ncredential_process = printf '{\"Version\":1,\"AccessKeyId\":\"A\"}'\n"
                "[profile bgproc]\ncredential_process = sh -c 'cat %s/creds.json; sleep 20 &'\n"
                % (d, d, d, d))


def start_server(extra):
    cmd = [PYTHON, os.path.join(HERE, "fake_sagemaker.py"), "--key", "AKIDTOKEN=" + SECRET,
           "--key", "AKIDPLAIN=" + SECRET, "--token", "AKIDTOKEN=" + TOKEN] + extra
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    port = p.stdout.readline().decode().strip()
    if not port.isdigit():
        raise SystemExit("fake_sagemaker.py did not start")
    return p, port


def make_cert(d):
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", d + "/key.pem", "-out", d + "/cert.pem", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)


def match_reply(want, got, where="reply"):
    """Checks want against got: '*' matches anything, None means absent, '127.0.0.1:*' a prefix."""
    problems = []
    if isinstance(want, dict):
        for k, v in want.items():
            if v is None:
                if isinstance(got, dict) and k in got:
                    problems.append("%s.%s should be absent" % (where, k))
            elif not isinstance(got, dict) or k not in got:
                problems.append("%s.%s missing" % (where, k))
            else:
                problems += match_reply(v, got[k], where + "." + k)
    elif isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for i, (w, g) in enumerate(zip(want, got)):
            problems += match_reply(w, g, "%s[%d]" % (where, i))
    elif isinstance(want, str) and want.endswith("*") and str(got).startswith(want[:-1]):
        pass
    elif want != got:
        problems.append("%s is %r, want %r" % (where, got, want))
    return problems


def check(case, rc, out, err, d):
    problems = []
    text = out + err
    for s in SECRETS:
        for piece in (s, s[:12]):
            if piece in text:
                problems.append("a secret leaked: %r" % piece[:4])
    if rc != case.rc:
        problems.append("exit code %d, want %d" % (rc, case.rc))
    for rx in case.out:
        if not re.search(rx.replace("{dir}", re.escape(d)), out):
            problems.append("stdout does not match %r" % rx)
    for rx in case.err:
        if not re.search(rx.replace("{dir}", re.escape(d)), err):
            problems.append("stderr does not match %r" % rx)
    for rx in case.not_err:
        if re.search(rx, err):
            problems.append("stderr matches %r" % rx)
    if case.one_line and err.count("\n") != 1:
        problems.append("stderr has %d lines, want 1" % err.count("\n"))
    if case.reply:
        try:
            problems += match_reply(case.reply, json.loads(out))
        except ValueError:
            problems.append("stdout is not the fake server's JSON")
    return problems


def run_case(sm_invoke, case, d, subst):
    env = {"PATH": "/usr/bin:/bin", "HOME": d, "AWS_EC2_METADATA_DISABLED": "true",
           "AWS_SHARED_CREDENTIALS_FILE": d + "/credentials", "AWS_CONFIG_FILE": d + "/config"}
    env.update({k: v.format(**subst) for k, v in case.env.items()})
    args = [a.format(**subst) for a in case.args]
    p = subprocess.run([sm_invoke] + args, input=case.stdin, capture_output=True, env=env, timeout=60)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def main():
    sm_invoke, group = sys.argv[1], sys.argv[2]
    failed = 0
    with tempfile.TemporaryDirectory() as d:
        write_files(d)
        subst = {"dir": d, "body": d + "/body.json", "big": d + "/big.bin", "url": "", "localhost_url": "", "tls_url": ""}
        servers = []
        if group in ("send", "secrets"):
            servers.append(start_server([]))
            subst["url"] = "http://127.0.0.1:" + servers[-1][1]
            subst["localhost_url"] = "http://localhost:" + servers[-1][1]
        if group == "tls":
            make_cert(d)
            servers.append(start_server(["--tls", d + "/cert.pem", d + "/key.pem"]))
            subst["tls_url"] = "https://127.0.0.1:" + servers[-1][1]
        try:
            for case in GROUPS[group]:
                rc, out, err = run_case(sm_invoke, case, d, subst)
                problems = check(case, rc, out, err, d)
                print("%s: %s" % ("FAIL" if problems else "ok", case.name))
                for p in problems:
                    print("    " + p)
                if problems:
                    for s in SECRETS:
                        out, err = out.replace(s, "<SECRET>"), err.replace(s, "<SECRET>")
                    print("    stdout: %r\n    stderr: %r" % (out[:600], err[:600]))
                failed += bool(problems)
        finally:
            for p, _ in servers:
                p.stdin.close()
                p.wait(timeout=30)
    print("%d of %d cases failed" % (failed, len(GROUPS[group])))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
