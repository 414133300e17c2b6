#!/usr/bin/python3
"""Starts sm-emulator (no endpoints, a fast clock) and runs sdk_lifecycle.mjs, the
official MCP TypeScript SDK client, against sm-mcp pointed at it.

    test_sdk_lifecycle.py SM_MCP VERSION NODE_DIR

Exit status 77 (ctest: skipped) when node or npm is not installed."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import emulator  # noqa: E402
from testkit import isolated_env  # noqa: E402


def main():
    server, version, node_dir = sys.argv[1:4]
    env = isolated_env(AWS_ACCESS_KEY_ID="AKIDMCPSDKTEST", AWS_SECRET_ACCESS_KEY="mcp-sdk-test-key")
    # Creating lasts 300 model s (0.3 s here); ml.g6.4xlarge has no capacity and its
    # InsufficientInstanceCapacity would take 1000 s: the cancelled deploy's endpoint stays Creating.
    with emulator.Emulator(["--no-endpoints", "--time-scale", "1000", "--create-time", "300",
                            "--quota", "us-east-1/*=4", "--capacity", "us-east-1/ml.g6.4xlarge=0",
                            "--capacity-wait", "1000000"], env=env) as emu:
        p = subprocess.run([os.path.join(HERE, "run_sdk_test.sh"), server, version, node_dir,
                            "sdk_lifecycle.mjs", emu.url], env=env)
    return p.returncode


if __name__ == "__main__":
    sys.exit(main())
