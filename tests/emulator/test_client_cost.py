#!/usr/bin/python3
"""client_s, the client model of the -awscli profiles (emulator/README.md, "Calibration"):
a client's own cost of every call is waited out before the call's overhead, so the
request log's admitted comes client_s + overhead_s after received; CloudWatch's
latencies leave it out (OverheadLatency is overhead_s exactly, ModelLatency holds none
of client_s: for this model, which decodes in no time, none at all: its time is the
model's plan, not the host's wake-ups), as SageMaker never sees a client's start-up. The
admission check is a one-sided bound a broken model misses by the whole client_s: the
emulator cannot admit a call before its timers."""
import json
import os
import shutil
import sys
import tempfile

from emutest import chat, check, emulator, finish, invoke
from test_cloudwatch import metrics_json, query, window

CLIENT, OVERHEAD, CALLS = 0.3, 0.2, 2


def main():
    tmp = tempfile.mkdtemp(prefix="emu-client-")
    try:
        log = os.path.join(tmp, "requests.jsonl")
        args = ["--endpoint", "e=instant", "--set", "e.client_s=%g" % CLIENT, "--set",
                "e.overhead_s=%g" % OVERHEAD, "--time-scale", "1", "--request-log", log]
        with emulator.Emulator(args) as emu:
            for i in range(CALLS):
                check(invoke(emu.url, "e", chat("hi %d" % i, 4)).status == 200, "invoke %d" % i)
            start, end = window()
            st, d, _ = metrics_json(emu.url, [
                query("OverheadLatency", "Sum", qid="o"), query("ModelLatency", "Sum", qid="m"),
                query("ModelLatency", "SampleCount", qid="n")], start, end)
        check(st == 200, "GetMetricData: %s %s" % (st, d))
        sums = {r["Id"]: sum(r["Values"]) for r in d.get("MetricDataResults", [])}
        print("CloudWatch sums:", sums)
        check(sums.get("n") == CALLS, "%d latencies: %s" % (CALLS, sums))
        check(abs(sums.get("o", 0) - CALLS * OVERHEAD * 1e6) < 1,
              "OverheadLatency is overhead_s alone: %s" % sums)
        check(sums.get("m", 1e12) <= CALLS, "ModelLatency holds no client_s (nor any host "
              "delay: an instant model's is 0, 1 us of rounding a call): %s" % sums)
        with open(log) as f:
            recs = [json.loads(line) for line in f]
        check(len(recs) == CALLS, "%d requests logged: %s" % (CALLS, recs))
        for r in recs:
            waited = r["admitted"] - r["received"] if r["admitted"] is not None else None
            print("received to admitted: %s s" % waited)
            check(waited is not None and waited >= CLIENT + OVERHEAD - 1e-3,
                  "client_s and overhead_s waited out before admission: %s" % r)
    finally:
        shutil.rmtree(tmp)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
