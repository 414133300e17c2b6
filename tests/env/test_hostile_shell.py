#!/usr/bin/python3
"""Tests pass in a real AWS user's shell (issue 29): ctest runs a representative set
of tests (the aws CLI against the emulator's control plane and CloudWatch, botocore's
signer, sm-invoke, the credential chain) in an environment an AWS user may well have
exported: a region and a default region that are not us-east-1, a profile in a config
file of its own whose region differs and whose credential_process fails, an endpoint
URL (and a SageMaker one) at a closed port, a CA bundle that does not exist, someone
else's keys, the CLI's pager and auto-prompt. Each must pass, none skipped: the tests'
environment is theirs (tests/CMakeLists.txt, testkit.isolated_env), not the caller's.

The tests are not run by a second ctest: ctest, even to list tests, rewrites the build's
Testing/Temporary (LastTest.log, CTestCostData.txt) that the ctest running this test is
writing. Their commands and properties are read with `ctest --show-only=json-v1` from a
copy of the build's CTestTestfile.cmake files in a folder of this test's own, and each
command is run as ctest would run it (ENVIRONMENT, then ENVIRONMENT_MODIFICATION, over
the hostile environment; WORKING_DIRECTORY; TIMEOUT), one after the other. A property
that would change what passing means and is not handled here fails the test.

Both clean-ups are held to it: a C test runs with tests/CMakeLists.txt's (the AWS_
variables ctest unsets), a Python test without it, so that its own, through
testkit.isolated_env, must keep the caller's region, profile and keys out by itself.

usage: test_hostile_shell.py CTEST BUILD_DIR"""
import json
import os
import shutil
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


# Properties that change nothing in how a command alone runs or passes.
IGNORED = {"LABELS", "RUN_SERIAL", "RESOURCE_LOCK", "PROCESSORS", "COST", "_BACKTRACE_TRIPLES"}
SEP = {"path_list": ":", "cmake_list": ";", "string": ""}


def modified(env, own, mods):
    """env with the test's ENVIRONMENT (own) set, then its ENVIRONMENT_MODIFICATION
    applied in order, as ctest does."""
    for pair in own:
        name, _, value = pair.partition("=")
        env[name] = value
    base = dict(env)
    for mod in mods:
        name, _, rest = mod.partition("=")
        op, _, value = rest.partition(":")
        if op == "reset":
            if name in base:
                env[name] = base[name]
            else:
                env.pop(name, None)
        elif op == "set":
            env[name] = value
        elif op == "unset":
            env.pop(name, None)
        elif op.rsplit("_", 1)[0] in SEP and op.rsplit("_", 1)[1] in ("append", "prepend"):
            kind, where = op.rsplit("_", 1)
            old = env.get(name, "")
            sep = SEP[kind] if old else ""
            env[name] = old + sep + value if where == "append" else value + sep + old
        else:
            raise ValueError("ENVIRONMENT_MODIFICATION %s: unknown operation %s" % (mod, op))
    return env


def listed(ctest, build, tmp):
    """The build's tests named in TESTS, as `ctest --show-only=json-v1` describes them,
    read from a copy of the build's CTestTestfile.cmake files (ctest writes its
    Testing/Temporary there, not in the build); default working directories mapped
    back into the build."""
    copy = os.path.join(tmp, "ctest")
    for top, _, files in os.walk(build):
        if "CTestTestfile.cmake" in files:
            where = os.path.join(copy, os.path.relpath(top, build))
            os.makedirs(where, exist_ok=True)
            shutil.copy(os.path.join(top, "CTestTestfile.cmake"), where)
    p = subprocess.run([ctest, "--test-dir", copy, "--show-only=json-v1",
                        "-R", "^(%s)$" % "|".join(TESTS)], capture_output=True, text=True)
    if p.returncode != 0:
        raise ValueError("ctest --show-only=json-v1 exited %d: %s" % (p.returncode, p.stderr))
    tests = {}
    for t in json.loads(p.stdout)["tests"]:
        props = {q["name"]: q["value"] for q in t.get("properties", [])}
        wd = props.get("WORKING_DIRECTORY", build)
        if os.path.commonpath([wd, copy]) == copy:
            wd = os.path.join(build, os.path.relpath(wd, copy))
        props["WORKING_DIRECTORY"] = wd
        tests[t["name"]] = (t.get("command"), props)
    return tests


def run_one(name, command, props, hostile):
    """Runs one test's command as ctest would under the hostile environment; returns
    None when it passed, else why not."""
    unknown = sorted(set(props) - IGNORED - {"ENVIRONMENT", "ENVIRONMENT_MODIFICATION",
                                             "WORKING_DIRECTORY", "TIMEOUT",
                                             "SKIP_RETURN_CODE"})
    if unknown:
        return "its properties %s are not run here (add them to run_one)" % ", ".join(unknown)
    if not command:
        return "it has no command (a NOT_AVAILABLE test?)"
    mods = props.get("ENVIRONMENT_MODIFICATION", [])
    if os.path.basename(command[0]).startswith("python"):  # its own clean-up, not ctest's
        mods = [m for m in mods if not m.startswith("AWS_")]
    env = modified(dict(hostile), props.get("ENVIRONMENT", []), mods)
    timeout = float(props.get("TIMEOUT", 1500)) or None
    try:
        p = subprocess.run(command, env=env, cwd=props["WORKING_DIRECTORY"],
                           stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timed out after %g s" % timeout
    out = (p.stdout + p.stderr).decode(errors="replace")
    if p.returncode == 0:
        print("passed: %s" % name)
        return None
    skip = props.get("SKIP_RETURN_CODE")
    what = "skipped (exit %d)" % p.returncode if skip is not None and p.returncode == int(skip) \
        else "exit %d" % p.returncode
    return "%s\n%s" % (what, out[-6000:])


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    ctest, build = sys.argv[1], os.path.abspath(sys.argv[2])
    with tempfile.TemporaryDirectory() as tmp:
        try:
            tests = listed(ctest, build, tmp)
        except (OSError, ValueError) as e:
            print("FAIL: cannot read this build's tests: %s" % e)
            return 1
        missing = [t for t in TESTS if t not in tests]
        if missing:
            print("FAIL: not in this build's tests: %s" % ", ".join(missing))
            return 1
        hostile = hostile_env(tmp)
        failed = {}
        for name in TESTS:
            why = run_one(name, tests[name][0], tests[name][1], hostile)
            if why:
                failed[name] = why
    for name, why in failed.items():
        print("FAIL: %s under a hostile AWS environment: %s" % (name, why))
    if failed:
        return 1
    print("ok: %d tests passed under a hostile AWS environment" % len(TESTS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
