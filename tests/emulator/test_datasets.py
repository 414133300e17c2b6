#!/usr/bin/python3
"""Dataset files (issue 32, item 2, a part) sent as they say, under sm-stream and
wrk, read back from the emulator's request log (each request's last user text).

  sharegpt  chat.lua --turns 3 --dataset-sampling without on a ShareGPT JSON list of
            three conversations of three human turns (and a system and gpt turns):
            every human turn is sent once, each conversation's in its order
  corpus    rate.lua --dataset on a plain text corpus with --input-tokens 5: every
            prompt is 5 consecutive words of it (round the end), 5 + 6 prompt tokens

usage: test_datasets.py CASE... | all   (environment: SM_EMULATOR, SM_STREAM, WRK)"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from emutest import check, finish  # noqa: E402
import emulator  # noqa: E402  (tests/lib, on the path through emutest)
from testkit import run_cases  # noqa: E402

CORPUS = "the keeper climbed stairs of old lighthouse and watched waves break on black rocks"


def engines():
    out = [("sm-stream", [os.environ["SM_STREAM"]])]
    if os.environ.get("WRK"):
        out.append(("wrk", [os.environ["WRK"]]))
    return out


def run(engine, emu, tmp, scenario, args):
    cmd = engine + ["-t2", "-c2", "-d1m", "--timeout", "60s", "-s",
                    os.path.join(ROOT, "scenarios", scenario), emu.url, "--", "--endpoint", "ep",
                    "--region", "us-east-1", "--max-tokens", "4", "--out",
                    os.path.join(tmp, "out-{label}.json"), "--force"] + args
    if engine[0] == os.environ["SM_STREAM"]:
        cmd += ["--progress", "0"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def logged(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def test_sharegpt():
    convs = [[("system", "be brief")] + [(w, "%s %d turn" % (who, k))
                                         for k in range(1, 4) for w in ("human", "gpt")]
             for who in ("alpha", "beta", "gamma")]
    data = [{"id": str(i), "conversations": [{"from": f, "value": v} for f, v in c]}
            for i, c in enumerate(convs)]
    human = sorted(v for c in convs for f, v in c if f == "human")
    for name, engine in engines():
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "sharegpt.json")
            with open(path, "w") as f:
                json.dump(data, f)
            log = os.path.join(tmp, "requests.jsonl")
            with emulator.Emulator(["--endpoint", "ep=instant", "--request-log", log]) as emu:
                p = run(engine, emu, tmp, "chat.lua", ["--conversations", "3", "--turns", "3",
                                                      "--dataset", path,
                                                      "--dataset-sampling", "without"])
                check(p.returncode == 0, "%s chat.lua: exit %d %s" % (name, p.returncode,
                                                                    p.stderr[-400:]))
            lines = [e for e in logged(log) if e["endpoint"] == "ep"]
        sent = [e["prompt"] for e in lines]
        check(sorted(sent) == human, "%s: the human turns sent once each: %r" % (name, sent))
        for who in ("alpha", "beta", "gamma"):
            mine = [e["prompt"] for e in sorted(lines, key=lambda e: e["arrival"])
                    if e["prompt"].startswith(who)]
            check(mine == ["%s %d turn" % (who, k) for k in (1, 2, 3)],
                  "%s: %s's turns in order: %r" % (name, who, mine))


def test_corpus():
    words = CORPUS.split()
    ring = words + words[:4]
    runs = {" ".join(ring[i:i + 5]) for i in range(len(words))}
    for name, engine in engines():
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "corpus.txt")
            with open(path, "w") as f:
                f.write(CORPUS.replace(" of ", "\nof ") + "\n")
            log = os.path.join(tmp, "requests.jsonl")
            with emulator.Emulator(["--endpoint", "ep=instant", "--request-log", log]) as emu:
                p = run(engine, emu, tmp, "rate.lua", ["--rates", "10", "--duration", "1",
                                                      "--arrivals", "constant", "--dataset",
                                                      path, "--input-tokens", "5"])
                check(p.returncode == 0, "%s rate.lua: exit %d %s" % (name, p.returncode,
                                                                    p.stderr[-400:]))
            lines = [e for e in logged(log) if e["endpoint"] == "ep"]
        check(len(lines) == 10, "%s: %d requests" % (name, len(lines)))
        for e in lines:
            check(e["prompt"] in runs and e["prompt_tokens"] == 5 + 6,
                  "%s: %r (%r tokens) is no run of 5 corpus words" % (name, e["prompt"],
                                                                     e["prompt_tokens"]))


if __name__ == "__main__":
    status = run_cases({"sharegpt": test_sharegpt, "corpus": test_corpus}, sys.argv)
    sys.exit(max(status, finish()))
