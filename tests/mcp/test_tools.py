#!/usr/bin/python3
"""sm-mcp's tools over raw stdio JSON-RPC against sm-emulator: run_benchmark (confirmed) runs
sm-suite with each step a progress notification and a structured result, its
run inside the runs folder, compare_results runs sm-compare -f json on its run, find_vllm_image and
get_deployment_config answer from the facts file, check_quotas reads Service
Quotas, and a tool without a region says so (isError).

    test_tools.py SM_MCP

Environment: SM_EMULATOR, SM_SUITE, SM_COMPARE, WRK (and WRK_PRELOAD in a sanitized
build), SM_PLUGIN_PATH, as for the sm-suite tests."""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "suite"))
import emulator  # noqa: E402
import suitelib  # noqa: E402
from mcpsession import Session  # noqa: E402
from testkit import FAILED, expect as check, finish  # noqa: E402


def main():
    server = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="mcp-tools-")
    env = suitelib.env(tmp, token=False)
    args = ["--endpoint", "base=instant", "--endpoint", "cand=instant", "--quota",
            "us-east-1/ml.g6.xlarge=5"]
    try:
        with emulator.Emulator(args, env=env) as emu:
            s = Session(server, ["--region", "us-east-1", "--endpoint-url", emu.url], env, tmp,
                        client="tools-test")
            check(s.init["result"]["protocolVersion"] == "2025-11-25", "initialize")
            r = s.tool("run_benchmark", {"baseline": "base", "candidate": "cand",
                                         "scenarios": "decode", "out": "run", "confirm": True},
                       token="b1")
            check(not r.get("isError"), "run_benchmark: %s" % r)
            check(r.get("structuredContent", {}).get("run_dir") == "run", "its run: %s" % r)
            check(r["structuredContent"].get("path") == "runs/run", "inside the runs folder: %s" % r)
            check("decode_tokens_per_second" in r["content"][0]["text"], "the table")
            steps = [n["params"]["message"] for n in s.notes if n["method"] == "notifications/progress"]
            check(any(m.startswith("[1/1] decode") for m in steps), "progress per step: %s" % steps)
            check(os.path.exists(os.path.join(tmp, "runs", "run", "report.json")), "the run's reports")
            r = s.tool("compare_results", {"baseline": "run/base", "candidate": "run/cand"})
            check(not r.get("isError") and isinstance(r.get("structuredContent"), dict),
                  "compare_results: %s" % str(r)[:400])
            r = s.tool("run_benchmark", {"baseline": "--evil", "candidate": "cand", "confirm": True})
            check(r.get("isError") and "may not start with '-'" in r["content"][0]["text"],
                  "no option injection: %s" % r)
            r = s.tool("find_vllm_image", {"region": "eu-west-1"})
            check(r["structuredContent"]["image"].startswith(
                "763104351884.dkr.ecr.eu-west-1.amazonaws.com/vllm:"), "find_vllm_image: %s" % r)
            r = s.tool("get_deployment_config", {"endpoint_name": "g", "model_id": "google/gemma-4-E2B-it"})
            check(r["structuredContent"]["CreateModel"]["PrimaryContainer"]["Environment"][
                "SM_VLLM_MODEL"] == "google/gemma-4-E2B-it" and
                  "aws sagemaker create-endpoint --region us-east-1 --endpoint-name g" in
                  r["structuredContent"]["aws_cli"], "get_deployment_config: %s" % r)
            r = s.tool("check_quotas", {"instance_types": ["ml.g6.xlarge"]})
            q = r["structuredContent"]["quotas"][0]
            check(q["quota"] == 5 and q["in_use"] == 2, "check_quotas: %s" % q)
            log = s.close()
            check("client tools-test asked for 2025-11-25" in log, "the log on stderr")
            s = Session(server, [], dict(env, AWS_REGION="", AWS_DEFAULT_REGION=""), tmp,
                        client="tools-test")
            r = s.tool("get_endpoint_status", {"endpoint_name": "base"})
            check(r.get("isError") and r["content"][0]["text"].startswith("no region:"),
                  "no region: %s" % r)
            s.close()
    finally:
        if not FAILED:
            shutil.rmtree(tmp, ignore_errors=True)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
