#!/usr/bin/python3
"""Tests pass in a real AWS user's shell (issue 29): ctest runs a representative set
of tests (the aws CLI against the emulator's control plane and CloudWatch, botocore's
signer, sm-invoke, the credential chain) in an environment an AWS user may well have
exported: a region and a default region that are not us-east-1, a profile in a config
file of its own whose region differs and whose credential_process fails, an endpoint
URL (and a SageMaker one) at a closed port, a CA bundle that does not exist, someone
else's keys, the CLI's pager and auto-prompt. Each must pass, none skipped: the tests'
environment is theirs (tests/CMakeLists.txt, testkit.isolated_env), not the caller's.

usage: test_hostile_shell.py CTEST BUILD_DIR"""
import os
import re
import socket
import subprocess
import sys
import tempfile

TESTS = [
    "emulator_control_plane_aws_cli_unchanged_against_the_control_plane_and_service_quotas",
    "emulator_cloudwatch_aws_cli_filter_log_events_and_get_metric_data_unchanged",
    "emulator_control_plane_seed_clients_sequence_unchanged_sts_iam_ecr_and_sagemaker",
    "emulator_control_plane_each_service_verified_with_its_signing_name_and_regions",
    "emulator_http_tls_with_curl_and_sm_invoke",
    "plugin_request_botocore",
    "creds_chain",
]


def closed_port():
    """A local port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def hostile_env(tmp):
    config, creds = os.path.join(tmp, "config"), os.path.join(tmp, "credentials")
    with open(config, "w") as f:
        f.write("[profile someone-else]\nregion = ap-south-1\n"
                "credential_process = /bin/false\noutput = text\n"
                "[default]\nregion = sa-east-1\n")
    with open(creds, "w") as f:
        f.write("[someone-else]\naws_access_key_id = AKIDSOMEONEELSE\n"
                "aws_secret_access_key = someone-elses-secret\n"
                "[default]\naws_access_key_id = AKIDDEFAULTOTHER\n"
                "aws_secret_access_key = default-other-secret\n")
    closed = "http://127.0.0.1:%d" % closed_port()
    env = dict(os.environ)
    env.update(AWS_REGION="us-east-2", AWS_DEFAULT_REGION="eu-west-3",
               AWS_PROFILE="someone-else", AWS_DEFAULT_PROFILE="someone-else",
               AWS_CONFIG_FILE=config, AWS_SHARED_CREDENTIALS_FILE=creds,
               AWS_ENDPOINT_URL=closed, AWS_ENDPOINT_URL_SAGEMAKER=closed,
               AWS_ENDPOINT_URL_STS=closed, AWS_ENDPOINT_URL_CLOUDWATCH_LOGS=closed,
               AWS_CA_BUNDLE=os.path.join(tmp, "missing-ca.pem"),
               AWS_ACCESS_KEY_ID="AKIDSOMEONEELSE", AWS_SECRET_ACCESS_KEY="someone-elses-secret",
               AWS_SESSION_TOKEN="someone-elses-token", AWS_PAGER="less",
               AWS_CLI_AUTO_PROMPT="on", AWS_MAX_ATTEMPTS="7", AWS_RETRY_MODE="adaptive",
               AWS_STS_REGIONAL_ENDPOINTS="regional", AWS_USE_FIPS_ENDPOINT="true",
               AWS_EC2_METADATA_DISABLED="false",
               AWS_EC2_METADATA_SERVICE_ENDPOINT=closed)
    return env


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    ctest, build = sys.argv[1:]
    listed = subprocess.run([ctest, "--test-dir", build, "-N"], capture_output=True,
                            text=True).stdout
    missing = [t for t in TESTS if (": %s\n" % t) not in listed + "\n"]
    if missing:
        print("FAIL: not in this build's tests: %s" % ", ".join(missing))
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([ctest, "--test-dir", build, "--output-on-failure",
                            "-R", "^(%s)$" % "|".join(TESTS)],
                           env=hostile_env(tmp), capture_output=True, text=True)
    print(p.stdout[-20000:], p.stderr[-4000:])
    passed = set(re.findall(r"Test +#\d+: (\S+) \.*\s+Passed", p.stdout))
    failed = [t for t in TESTS if t not in passed]
    if p.returncode != 0 or failed:
        print("FAIL: under a hostile AWS environment these did not pass: %s (ctest exited %d)"
              % (", ".join(failed) or "-", p.returncode))
        return 1
    print("ok: %d tests passed under a hostile AWS environment" % len(passed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
