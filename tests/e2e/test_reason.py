#!/usr/bin/python3
"""A thinking model end to end (issue 30): sm-emulator streams reasoning tokens
(its reasoning_tokens profile) before the answer; sm-stream records the first
token of either kind (TTFT), the first answer token (t_first_output_us) and the
reasoning tokens, on both routes; sm-compare's TTFT, TTFOT, TPOT and ITL (all
tokens and answer-only) are the record's own times. --thinking off turns the
reasoning off (chat_template_kwargs.enable_thinking), the older vLLM field
reasoning_content is read as reasoning, and per-token ITL is asked for (with its
fallback for a container that refuses it). Token counts are asserted exactly
against the emulator's plan and request log, the figures exactly against the
records: no timing margin.

usage: test_reason.py CASE   (environment: SM_STREAM, SM_EMULATOR, SM_COMPARE, SM_SUITE, WRK,
                              SM_PLUGIN_PATH, optionally WRK_PRELOAD)"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import emulator  # noqa: E402
from testkit import check, isolated_env, wrk_program  # noqa: E402

R = 6  # the profile's reasoning tokens
LENGTHS = (8, 12)  # decode's reply lengths: max_tokens counts reasoning and answer


def env():
    return isolated_env(AWS_ACCESS_KEY_ID="AKIDREASONTEST", AWS_SECRET_ACCESS_KEY="reason-secret")


def emulator_for(log, *sets):
    args = ["--endpoint", "a=instant", "--endpoint", "b=instant", "--request-log", log]
    for ep in ("a", "b"):
        for s in ("overhead_s=0.002", "step_ms=1:1", "jitter=0", "reasoning_tokens=%d" % R) + sets:
            args += ["--set", "%s.%s" % (ep, s)]
    return emulator.Emulator(args, binary=os.environ["SM_EMULATOR"], env=env())


def run(emu, out, scenario, args, engine_args=()):
    cmd = ([os.environ["SM_STREAM"], "-t1", "-c1", "-d2m", "--timeout", "60s"] + list(engine_args)
           + ["-s", os.path.join(ROOT, "scenarios", scenario), emu.url, "--", "--region",
              "us-east-1", "--out", os.path.join(out, "{label}.json")] + list(args))
    p = subprocess.run(cmd, env=env(), capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, "%s: exit %d\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    return {lab: json.load(open(os.path.join(out, lab + ".json"))) for lab in ("a", "b")}


def decode_run(api, sets=(), args=()):
    """decode.lua under sm-stream on api against a thinking emulator: (out dir, result
    files by label, the emulator's request log)."""
    out = tempfile.mkdtemp(prefix="reason-")
    log = os.path.join(out, "requests.jsonl")
    with emulator_for(log, *sets) as emu:
        res = run(emu, out, "decode.lua",
                  ["--endpoint", "a", "--endpoint", "b", "--lengths",
                   ",".join(map(str, LENGTHS)), "--repeats", "2"] + list(args),
                  engine_args=("--api", api))
    with open(log) as f:
        logged = [json.loads(line) for line in f if line.strip()]
    return out, res, logged


def records(res):
    return [r for lab in ("a", "b") for r in res[lab]["records"]]


def check_record(r, thinking=True):
    """The record's counts against the emulator's plan: max_tokens tokens in all (decode
    asks ignore_eos), R of them reasoning, each in a chunk of its own; the first answer
    chunk is the (R+1)-th, its time the first chunk's plus the R gaps before it."""
    n = r["max_tokens"]
    check(r["ok"] and r["completion_tokens"] == n, str(r))
    check(r["chunks"] == n and "chunk_tokens" not in r, str(r))
    if not thinking:
        check("reasoning_tokens" not in r and "t_first_output_us" not in r, str(r))
        return
    check(r["reasoning_tokens"] == R, str(r))
    check(r["t_first_output_us"] == r["t_first_token_us"] + sum(r["chunk_gaps_us"][:R]), str(r))
    check(r["t_first_token_us"] < r["t_first_output_us"] <= r["t_end_us"], str(r))


def quantile(values, q):
    """estim's quantile of equal weights (linear between the order statistics)."""
    v = sorted(values)
    h = (len(v) - 1) * q
    i = int(h)
    return v[i] if i + 1 >= len(v) else v[i] + (h - i) * (v[i + 1] - v[i])


def compare(out, res):
    p = subprocess.run([os.environ["SM_COMPARE"], "--format", "json",
                        os.path.join(out, "a.json"), os.path.join(out, "b.json")],
                       capture_output=True, text=True, env=env(), timeout=60)
    check(p.returncode in (0, 1), "sm-compare: exit %d\n%s" % (p.returncode, p.stderr))
    return json.loads(p.stdout), p


def rows_of(doc):
    """{row name: [baseline, candidate, ratio]} of sm-compare's streaming figures."""
    return doc["streaming_seconds"]["rows"]


def per_token_gaps(r):
    """(gap, tokens, answer) of each chunk after the first: the gap before it, its tokens
    (chunk_tokens when the record has them: a busy emulator may send two steps' tokens in
    one chunk), and whether the chunk before it came at or after the first answer token
    (the answer's own gaps, docs/compare.md)."""
    toks = r.get("chunk_tokens") or [1] * r["chunks"]
    at = r["t_first_token_us"]
    for j, gap in enumerate(r["chunk_gaps_us"], 1):
        yield gap, toks[j], at >= r["t_first_output_us"]
        at += gap


def expected(recs):
    """The decode figures' p50s from the records' own times (seconds)."""
    ttft = [(r["t_first_token_us"] - r["t_start_us"]) / 1e6 for r in recs]
    ttfot = [(r["t_first_output_us"] - r["t_start_us"]) / 1e6 for r in recs]
    tpot = [(r["t_end_us"] - r["t_first_token_us"]) / 1e6 / (r["completion_tokens"] - 1)
            for r in recs]
    tpot_a = [(r["t_end_us"] - r["t_first_output_us"]) / 1e6
              / (r["completion_tokens"] - r["reasoning_tokens"] - 1) for r in recs]
    itl, itl_a = [], []
    for r in recs:
        for gap, tokens, answer in per_token_gaps(r):
            itl += [gap / tokens / 1e6] * tokens
            itl_a += [gap / tokens / 1e6] * tokens if answer else []
    return {"ttft": quantile(ttft, .5), "ttfot": quantile(ttfot, .5), "tpot": quantile(tpot, .5),
            "tpot_answer": quantile(tpot_a, .5), "itl": quantile(itl, .5),
            "itl_answer": quantile(itl_a, .5)}


def case_plan(api):
    """Both routes: every record's counts as the emulator planned them (exact), the
    emulator's log counts reasoning and answer, and sm-compare's TTFT, TTFOT, TPOT and ITL
    (all tokens and answer-only) are the records' own."""
    out, res, logged = decode_run(api)
    recs = records(res)
    check(len(recs) == 2 * 2 * len(LENGTHS), "%d records" % len(recs))
    for r in recs:
        check_record(r)
    check(sorted(e["completion_tokens"] for e in logged) == sorted(r["max_tokens"] for r in recs),
          str(logged))
    doc, p = compare(out, res)
    rows = rows_of(doc)
    for side, lab in ((0, "a"), (1, "b")):
        want = expected(res[lab]["records"])
        for metric, v in want.items():
            name = "%s_decode_p50_seconds" % metric
            check(name in rows, "no row %s in %s" % (name, sorted(rows)))
            got = rows[name][side]  # printed to the microsecond at least
            check(got is not None and abs(got - v) <= 1e-6 + 1e-6 * v,
                  "%s %s: %r, the records say %r" % (lab, name, got, v))


def case_thinking_off():
    """--thinking off: the body turns the chat template's thinking off, the emulator
    does not reason, the record has no reasoning and sm-compare no answer-only rows;
    --thinking on reasons as the default does; the settings say which."""
    out, res, logged = decode_run("stream", args=["--thinking", "off"])
    for r in records(res):
        check_record(r, thinking=False)
    check(res["a"]["settings"].get("thinking") == "off", str(res["a"]["settings"]))
    rows = rows_of(compare(out, res)[0])
    check(not any(n.startswith(("ttfot", "tpot_answer", "itl_answer")) for n in rows),
          sorted(rows))
    out, res, logged = decode_run("openai", args=["--thinking", "on"])
    for r in records(res):
        check_record(r)


def case_older_field():
    """An older vLLM's delta.reasoning_content is reasoning as delta.reasoning is."""
    out, res, logged = decode_run("stream", sets=("reasoning_field=reasoning_content",))
    for r in records(res):
        check_record(r)


def case_thinking_refused():
    """--thinking with a body format that has no chat template, or a bad value: one line,
    exit 2, nothing sent."""
    for extra, want in ((["--format", "tgi", "--thinking", "on"], "--thinking on needs "
                         "--format vllm-chat"), (["--thinking", "maybe"],
                                                 "--thinking must be on, off or default")):
        cmd = [os.environ["SM_STREAM"], "-t1", "-c1", "-d1m", "-s",
               os.path.join(ROOT, "scenarios", "smoke.lua"), "http://127.0.0.1:9", "--",
               "--endpoint", "a", "--region", "us-east-1"] + extra
        p = subprocess.run(cmd, env=env(), capture_output=True, text=True, timeout=60)
        check(p.returncode == 2 and want in p.stderr and len(p.stderr.splitlines()) == 1,
              "%s: exit %d %r" % (extra, p.returncode, p.stderr))


def case_itl_per_token(api):
    """By default the vLLM body asks stream_options.continuous_usage_stats, the emulator
    sends the running usage in every chunk, each record's ITL is per token and
    sm-compare says so; a container that refuses it (400 naming the field) is asked once:
    that request is sent again without it, every later one goes without it, the records
    and sm-compare say per chunk."""
    out, res, logged = decode_run(api)
    check(all(r["itl_unit"] == "token" for r in records(res)), str(records(res)))
    doc, p = compare(out, res)
    check(doc["streaming_seconds"].get("itl_unit") == {"baseline": "token",
                                                       "candidate": "token"}, str(doc))
    text = subprocess.run([os.environ["SM_COMPARE"], os.path.join(out, "a.json"),
                           os.path.join(out, "b.json")], capture_output=True, text=True,
                          env=env(), timeout=60).stdout
    check("ITL unit: per token on a, per token on b" in " ".join(text.split()), text)

    out, res, logged = decode_run(api, sets=("continuous_usage_stats=reject",))
    recs = records(res)
    refused = [r for r in recs if not r["ok"]]
    check(len(refused) == 1 and refused[0]["status"] in (400, 424)
          and "continuous_usage_stats" in (refused[0]["error"] or {}).get("message", ""),
          "one refusal recorded: %s" % refused)
    good = [r for r in recs if r["ok"]]
    check(len(good) == 2 * 2 * len(LENGTHS), "every item answered once: %d" % len(good))
    for r in good:
        check_record(r)
        check(r["itl_unit"] == "chunk", str(r))
    statuses = [e["status"] for e in logged]
    check(statuses.count(200) == len(good) and len(statuses) == len(good) + 1,
          "the container was asked once with the field: %s" % statuses)
    doc, p = compare(out, res)
    check(doc["streaming_seconds"].get("itl_unit") == {"baseline": "chunk",
                                                       "candidate": "chunk"}, str(doc))


def case_whole_reply_wrk():
    """wrk (whole replies, InvokeEndpoint): a thinking model's completion_tokens count
    reasoning and answer, and the reply's text (what a quiz scores) is the answer only,
    never message.reasoning."""
    out = tempfile.mkdtemp(prefix="reason-")
    with emulator_for(os.path.join(out, "requests.jsonl")) as emu:
        e = env()
        if os.environ.get("WRK_PRELOAD"):  # the sanitizers' runtime, for the plugin
            e.update(LD_PRELOAD=os.environ["WRK_PRELOAD"], ASAN_OPTIONS="detect_leaks=0")
        p = subprocess.run([os.environ["WRK"], "-t1", "-c1", "-d1m", "--timeout", "60s", "-s",
                            os.path.join(ROOT, "scenarios", "smoke.lua"), emu.url, "--",
                            "--endpoint", "a", "--region", "us-east-1", "--out",
                            os.path.join(out, "{label}.json")],
                           env=e, capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, p.stderr)
    r = json.load(open(os.path.join(out, "a.json")))["records"][0]
    check(r["ok"] and r["completion_tokens"] == R + 1, str(r))  # "Canberra": one token
    lines = p.stdout.splitlines()
    check("Canberra" in lines and not any("Canberra" != x and "Canberra" in x for x in lines[-3:]),
          "the text is the answer alone: " + p.stdout)


def case_suite_passes_thinking():
    """sm-suite passes --thinking to every scenario it runs (the scenarios' own option)."""
    out = tempfile.mkdtemp(prefix="reason-")
    p = subprocess.run([os.environ["SM_SUITE"], "--baseline", "a", "--candidate", "b",
                        "--region", "us-east-1", "--url", "http://127.0.0.1:9", "--dry-run",
                        "--no-endpoint-check", "--no-cloudwatch", "--thinking", "off",
                        "--out", os.path.join(out, "run")],
                       env=dict(env(), WRK=wrk_program(out)), capture_output=True, text=True,
                       timeout=120)
    check(p.returncode == 0, p.stderr)
    steps = [x for x in p.stdout.splitlines() if " -s " in x]
    check(steps and all(x.endswith("--thinking off") for x in steps), p.stdout)


def main():
    case = sys.argv[1]
    CASES[case]()
    print("ok")


CASES = {"plan_stream": lambda: case_plan("stream"), "plan_openai": lambda: case_plan("openai"),
         "thinking_off": case_thinking_off, "older_field": case_older_field,
         "thinking_refused": case_thinking_refused,
         "itl_per_token_stream": lambda: case_itl_per_token("stream"),
         "itl_per_token_openai": lambda: case_itl_per_token("openai"),
         "whole_reply_wrk": case_whole_reply_wrk,
         "suite_passes_thinking": case_suite_passes_thinking}

if __name__ == "__main__":
    main()
