#!/usr/bin/python3
"""End to end: Debian's wrk runs the scenarios against sm-emulator, and every
run's records must agree exactly with what the emulator says it received and
sent (GET /emulator/stats). One case per invocation:

    test_e2e.py CASE        (CASE: see CASES at the bottom; "all" runs every one)

Environment: WRK (wrk), SM_EMULATOR (sm-emulator), SM_PLUGIN_PATH (the folder of
sagemaker.so), SKEWCLOCK (tests/e2e/skewclock.so), optionally WRK_PRELOAD (a
library wrk must load first: the sanitizer runtime in a sanitized build)."""
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import emulator  # noqa: E402
import secretscan  # noqa: E402
from testkit import Failure, check, isolated_env  # noqa: E402

SCENARIOS = os.path.join(ROOT, "scenarios")
SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
TOKEN = "IQoJb3JpZ2luX2VjEXAMPLESESSIONTOKEN+/=="
TIMEOUT = 120


def env(**extra):
    """The environment of both wrk and the emulator: the same credentials, a session token."""
    return isolated_env(AWS_ACCESS_KEY_ID="AKIDE2ETEST", AWS_SECRET_ACCESS_KEY=SECRET,
                        AWS_SESSION_TOKEN=TOKEN, **extra)


def start_emulator(*args):
    emu = emulator.Emulator(list(args), binary=os.environ["SM_EMULATOR"], env=env())
    emu.start()
    return emu



class Run:
    """One wrk run: its exit code, output, and result files by label."""

    def __init__(self, rc, stdout, stderr, outdir):
        self.rc, self.stdout, self.stderr, self.outdir = rc, stdout, stderr, outdir
        self.results = {}
        for name in sorted(os.listdir(outdir)):
            if name.endswith(".json"):
                with open(os.path.join(outdir, name)) as f:
                    result = json.load(f)
                self.results[result["label"]] = result

    def records(self, label=None):
        out = []
        for lab, result in self.results.items():
            if label is None or lab == label:
                out += result["records"]
        return sorted(out, key=lambda r: r["seq"])


def wrk_command(scenario, url, threads, script_args, duration="1m", script=None):
    cmd = [os.environ["WRK"], f"-t{threads}", f"-c{threads}", f"-d{duration}", "--timeout", "60s",
           "-s", script or os.path.join(SCENARIOS, scenario + ".lua"), url, "--"]
    return cmd + list(script_args)


def wrk_env(**extra):
    e = env(**extra)
    if os.environ.get("WRK_PRELOAD"):
        e["LD_PRELOAD"] = " ".join(filter(None, [os.environ["WRK_PRELOAD"], e.get("LD_PRELOAD")]))
        e["ASAN_OPTIONS"] = "detect_leaks=0"
    return e


def run_wrk(scenario, url, script_args, threads=1, duration="1m", extra_env=None, script=None):
    outdir = tempfile.mkdtemp(prefix="e2e-")
    args = list(script_args) + ["--region", "us-east-1", "--out",
                                os.path.join(outdir, scenario + "-{label}.json")]
    cmd = wrk_command(scenario, url, threads, args, duration, script)
    p = subprocess.run(cmd, env=wrk_env(**(extra_env or {})), capture_output=True, text=True,
                       timeout=TIMEOUT)
    run = Run(p.returncode, p.stdout, p.stderr, outdir)
    check_no_secrets(run)
    return run


def check_no_secrets(run):
    """No secret key or session token (in any form) anywhere; no request header or
    signature in the output or the files."""
    found = secretscan.scan([SECRET, TOKEN], [("stdout", run.stdout), ("stderr", run.stderr),
                                              run.outdir])
    check(not found, secretscan.describe(found))


def check_ok(run, what):
    check(run.rc == 0, f"{what}: wrk exited {run.rc}\n{run.stderr}")
    for label, result in run.results.items():
        check(not result["partial"], f"{what}: {label} is partial: {result['partial_reason']}")


def check_against_emulator(run, st, tokens=True):
    """Per endpoint (and variant): records == requests the emulator received; records
    by status == replies by status; socket failures == dropped; tokens agree."""
    by_endpoint = {}
    for r in run.records():
        by_endpoint.setdefault(r["endpoint"], []).append(r)
    check(set(by_endpoint) <= set(st["endpoints"]), "records name endpoints the emulator lacks")
    for name, e in st["endpoints"].items():
        recs = by_endpoint.get(name, [])
        check(len(recs) == e["requests"],
              f"{name}: {len(recs)} records, the emulator received {e['requests']}")
        statuses = {}
        for r in recs:
            if r["status"]:
                statuses[str(r["status"])] = statuses.get(str(r["status"]), 0) + 1
        check(statuses == e["replies"], f"{name}: statuses {statuses} != replies {e['replies']}")
        dropped = sum(1 for r in recs if r["status"] == 0)
        check(dropped == e["dropped"], f"{name}: {dropped} socket failures, {e['dropped']} dropped")
        check(e["in_flight"] == 0, f"{name}: requests still in flight at the emulator")
        if tokens:
            got = sum(r["completion_tokens"] or 0 for r in recs)
            check(got == e["completion_tokens"],
                  f"{name}: {got} completion tokens recorded, {e['completion_tokens']} sent")
    for r in run.records():
        variants = st["endpoints"][r["endpoint"]]["variants"]
        check(r["variant"] is None or r["variant"] in variants, f"unknown variant {r['variant']}")


def check_result_shape(run, scenario):
    """Every top-level field of docs/result-format.md, and seq over the run."""
    seqs = []
    for label, res in run.results.items():
        for field in ("format", "version", "tool", "scenario", "run_id", "label", "endpoint",
                      "target", "wrk", "client", "api", "time_scale", "started_at", "ended_at",
                      "partial", "partial_reason", "settings", "counts", "records"):
            check(field in res, f"{label}: no {field}")
        check(res["format"] == "wrk-sagemaker-result" and res["version"] == 2, "format/version")
        check(res["client"] == "wrk" and res["api"] == "invoke", "client/api")
        check(res["scenario"] == scenario, f"scenario {res['scenario']}")
        check(res["target"]["service"] == "sagemaker", "service")
        c = res["counts"]
        check(c["sent"] == len(res["records"]) == c["ok"] + c["failed"], f"{label}: counts {c}")
        check(sum(c["errors"].values()) == c["failed"], f"{label}: errors {c}")
        for r in res["records"]:
            check(r["t_end_us"] >= r["t_start_us"] >= 0, "times")
            check(r["endpoint"] == res["endpoint"]["name"], "a record in the wrong file")
            check((r["error"] is None) == r["ok"], f"ok and error disagree: {r}")
        seqs += [r["seq"] for r in res["records"]]
        with open(os.path.join(run.outdir, f"{scenario}-{label}.journal.jsonl")) as f:
            lines = [json.loads(line) for line in f]
        check(lines[0]["label"] == label and "records" not in lines[0], "journal header")
        check(lines[1:] == res["records"], f"{label}: the journal's records differ")
    check(sorted(seqs) == list(range(len(seqs))), "seq numbers the run's records 0..n-1")
    ids = {res["run_id"] for res in run.results.values()}
    check(len(ids) == 1, "one run_id per run")


# ---------------------------------------------------------------- the cases

def case_smoke():
    emu = start_emulator("--endpoint", "gemma=instant", "--endpoint", "gemma-qat=instant")
    try:
        run = run_wrk("smoke", emu.url, ["--endpoint", "gemma", "--endpoint", "gemma-qat",
                                         "--custom-attributes", "trace=e2e  run=1"])
        check_ok(run, "smoke")
        check_result_shape(run, "smoke")
        check_against_emulator(run, emu.stats())
        check("gemma: 200 " in run.stdout and "gemma-qat: 200 " in run.stdout, run.stdout)
        check(run.stdout.count("Canberra") == 2, f"the replies are not printed:\n{run.stdout}")
        check(len(run.records("gemma")) == len(run.records("gemma-qat")) == 1, "one each")
    finally:
        emu.stop()


def case_decode():
    scale = 50
    emu = start_emulator("--endpoint", "a=bf16-l4", "--endpoint", "b=qat-l4", "--set",
                         "*.jitter=0", "--set", "a.step_ms=1:25", "--set", "b.step_ms=1:12.5",
                         "--time-scale", str(scale))
    try:
        run = run_wrk("decode", emu.url, ["--endpoint", "a=bf16", "--endpoint", "b=qat",
                                          "--time-scale", str(scale)])
        check_ok(run, "decode")
        check_result_shape(run, "decode")
        check_against_emulator(run, emu.stats())
        for label, want in (("bf16", 40.0), ("qat", 80.0)):
            res = run.results[label]
            check(res["settings"]["lengths"] == [16, 512] and res["settings"]["repeats"] == 5,
                  "decode settings")
            check(res["time_scale"] == scale, "time_scale")
            # The emulator's service time of each reply (model microseconds, the plan: no
            # jitter here), not the client's wall: the decode rate is the model's whatever
            # the machine's load; what a client measures is the benchmark's (accuracy).
            walls = {}
            for r in res["records"]:
                check(r["ok"] and r["completion_tokens"] == r["max_tokens"] and
                      isinstance(r.get("server_us"), int), f"record {r}")
                walls.setdefault(r["max_tokens"], []).append(r.get("server_us") or 0)
            check(sorted(len(v) for v in walls.values()) == [5, 5], "5 replies of each length")
            rate = 496 / ((statistics.median(walls[512]) - statistics.median(walls[16])) / 1e6)
            check(abs(rate / want - 1) < 0.01, f"{label}: decode rate {rate:.3f}, want {want}")
        # Per repetition and length, the sides' order turns: a b, b a, a b ...
        order = [r["endpoint"] for r in run.records()]
        for i in range(0, len(order), 4):
            want = ["a", "b", "a", "b"] if (i // 4) % 2 == 0 else ["b", "a", "b", "a"]
            check(order[i:i + 4] == want, f"order {order}")
    finally:
        emu.stop()


def case_decode_mismatch():
    """A container that ignores ignore_eos (TGI, asked in the lmi format, on a prompt
    with a short answer): token_mismatch records that say so; the run stops early."""
    emu = start_emulator("--endpoint", "t=instant", "--set", "t.format=tgi")
    try:
        run = run_wrk("decode", emu.url, ["--endpoint", "t", "--format", "lmi", "--prompt",
                                          "What is 54 * 28? Reply with the number only."])
        check(run.rc == 3, f"exit {run.rc}\n{run.stderr}")
        res = run.results["t"]
        check(res["partial"] and res["partial_reason"].startswith("refused: t failed its first 3"),
              res["partial_reason"])
        errs = [r["error"] for r in res["records"]]
        check(all(e["code"] == "token_mismatch" for e in errs), str(errs))
        check(errs[0]["message"].startswith("the container ignored ignore_eos: asked 16, got "),
              errs[0]["message"])
        check("token_mismatch: the container ignored ignore_eos" in run.stderr, run.stderr)
        check_against_emulator(run, emu.stats())
    finally:
        emu.stop()


def case_sweep_batch():
    emu = start_emulator("--endpoint", "a=bf16-l4", "--endpoint", "b=qat-l4",
                         "--time-scale", "50")
    try:
        run = run_wrk("sweep", emu.url, ["--endpoint", "a", "--endpoint", "b"], threads=4)
        check_ok(run, "sweep")
        check_result_shape(run, "sweep")
        check_against_emulator(run, emu.stats())
        recs = run.records()
        check(len(recs) == 64, f"{len(recs)} records, want 8 batches (the default) x 2 sides x 4")
        groups = {}
        for r in recs:
            check(r["ok"] and r["completion_tokens"] == 256, f"record {r}")
            groups.setdefault((r["endpoint"], r["batch"]), []).append(r)
        spans = []
        for key, rs in groups.items():
            check(sorted(r["thread"] for r in rs) == [0, 1, 2, 3], f"{key}: one per thread")
            starts = [r["t_start_us"] for r in rs]
            ends = [r["t_end_us"] for r in rs]  # together: every one sent before any reply
            check(max(starts) < min(ends), f"{key}: a request left after a reply: {starts} {ends}")
            spans.append((min(starts), max(r["t_end_us"] for r in rs)))
        spans.sort()
        for (s0, e0), (s1, _) in zip(spans, spans[1:]):
            check(s1 >= e0, "a batch started before the one before it was done")
        settings = run.results["a"]["settings"]
        check(settings["mode"] == "batch" and settings["concurrency"] == 4, str(settings))
    finally:
        emu.stop()


def case_open_loop():
    """rate.lua: each rate and side a round of arrivals at their times. Constant
    arrivals are exact gaps of 1 / rate; no request leaves before its time; Poisson
    arrivals are the same on both sides (one seed); every record is in the emulator."""
    emu = start_emulator("--endpoint", "a=instant", "--endpoint", "b=instant")
    try:
        run = run_wrk("rate", emu.url, ["--endpoint", "a", "--endpoint", "b", "--rates", "40,80",
                                        "--duration", "0.5", "--arrivals", "constant",
                                        "--max-tokens", "8"], threads=4)
        check_ok(run, "rate")
        check_result_shape(run, "rate")
        check_against_emulator(run, emu.stats())
        for label in ("a", "b"):
            for batch, rate in ((0, 40), (1, 80)):
                recs = sorted((r for r in run.records(label) if r["batch"] == batch),
                              key=lambda r: r["t_intended_us"])
                check(len(recs) == rate // 2, f"{label} at {rate}/s: {len(recs)} requests")
                at = [r["t_intended_us"] for r in recs]
                check(all(b - a == 1000000 // rate for a, b in zip(at, at[1:])),
                      f"{label} at {rate}/s: gaps {[b - a for a, b in zip(at, at[1:])]}")
                check(all(r["t_start_us"] >= r["t_intended_us"] for r in recs), "sent early")
        settings = run.results["a"]["settings"]
        check(settings["arrivals"] == "constant" and settings["rates"] == [40, 80], str(settings))
        for label in ("a", "b"):  # wrk's own rounds: one per rate of this side, whole replies
            rounds = run.results[label].get("client_rounds")
            check(isinstance(rounds, list) and [c["batch"] for c in rounds] == [0, 1],
                  f"{label}: client_rounds {rounds}")
            for c in rounds:
                check(c["stalls_of"] == "lua hooks" and c["threads"] == 4 and not c["busy_poll"]
                      and c["reads"] == c["chunks"] == c["burst_chunks"] == 0
                      and c["wall_s"] > 0 and c["cpu_s"] >= 0 and c["cpus"] >= 1, str(c))
                # the host's stolen CPU over the round, from /proc/stat (ticks of 10 ms)
                steal = c["host_steal_share"]
                check(steal is None and c["wall_s"] < 0.05
                      or steal is not None and 0 <= steal <= 1, str(c))
        run = run_wrk("rate", emu.url, ["--endpoint", "a", "--endpoint", "b", "--rates", "100",
                                        "--duration", "0.3", "--max-tokens", "8"], threads=4)
        check_ok(run, "rate poisson")
        offsets = []
        for label in ("a", "b"):
            at = sorted(r["t_intended_us"] for r in run.records(label))
            offsets.append([t - at[0] for t in at])
        check(offsets[0] == offsets[1] and len(set(b - a for a, b in
                                                     zip(offsets[0], offsets[0][1:]))) > 3,
              "Poisson arrivals: one schedule for both sides, gaps that vary")
    finally:
        emu.stop()


def case_workload():
    """rate.lua's workloads: synthetic prompts of exactly the tokens asked for (by the
    emulator's count: 200 and its chat template's 6), reply lengths drawn and sent with
    ignore_eos; a dataset of prompts and conversations; a dataset's bad line refused
    with its number, exit 2."""
    emu = start_emulator("--endpoint", "a=instant")
    try:
        run = run_wrk("rate", emu.url, ["--endpoint", "a", "--rates", "50", "--duration", "0.2", "--arrivals", "constant",
                                        "--input-tokens", "200", "--output-tokens",
                                        "uniform:3:6"], threads=2)
        check_ok(run, "synthetic")
        recs = run.records("a")
        check(len(recs) == 10 and {r["prompt_tokens"] for r in recs} == {206}, str(
            [r["prompt_tokens"] for r in recs]))
        check(all(3 <= r["max_tokens"] == r["completion_tokens"] <= 6 for r in recs),
              str([(r["max_tokens"], r["completion_tokens"]) for r in recs]))
        data = os.path.join(tempfile.mkdtemp(prefix="e2e-ds-"), "prompts.jsonl")
        with open(data, "w") as f:
            f.write('{"prompt": "one two three"}\n{"messages": [{"role": "system", "content": '
                    '"Be brief."}, {"role": "user", "content": "four five"}], "max_tokens": 5}\n')
        run = run_wrk("rate", emu.url, ["--endpoint", "a", "--rates", "50", "--duration", "0.2", "--arrivals", "constant",
                                        "--dataset", data, "--max-tokens", "9"], threads=2)
        check_ok(run, "dataset")
        got = {(r["prompt_tokens"], r["max_tokens"]) for r in run.records("a")}
        check(got == {(9, 9), (15, 5)}, str(got))  # the emulator counts its chat template too
        with open(data, "a") as f:
            f.write('{"prompt": "six", "max_tokens": 0}\n')
        run = run_wrk("rate", emu.url, ["--endpoint", "a", "--rates", "50", "--duration", "0.2", "--arrivals", "constant",
                                        "--dataset", data], threads=2)
        check(run.rc == 2 and f"{data}:3: \"max_tokens\" must be a whole number from 1"
              in run.stderr, f"exit {run.rc}: {run.stderr}")
    finally:
        emu.stop()


def case_sweep_steady():
    emu = start_emulator("--endpoint", "a=instant", "--endpoint", "b=instant",
                         "--set", "*.overhead_s=0.002")
    try:
        run = run_wrk("sweep", emu.url, ["--endpoint", "a", "--endpoint", "b", "--mode",
                                         "steady", "--duration", "0.3"], threads=2)
        check_ok(run, "steady")
        check_result_shape(run, "sweep")
        check_against_emulator(run, emu.stats())
        a, b = run.records("a"), run.records("b")
        check(len(a) > 10 and len(b) > 10, f"{len(a)} and {len(b)} records")
        check(min(r["t_start_us"] for r in b) >= max(r["t_end_us"] for r in a),
              "the second side's round overlapped the first")
        # --duration on the rounds' clock is test_rounds' (no host in it); here the count:
        # a reply takes at least overhead_s, so a thread that took items only within the
        # round's 0.3 s took at most 0.3 / 0.002 + 1 of them
        for side in (a, b):
            check(len(side) <= 2 * (150 + 1), f"{len(side)} records: sent past --duration")
    finally:
        emu.stop()


def case_quiz():
    emu = start_emulator("--endpoint", "gemma-4-e2b=bf16-l4", "--endpoint",
                         "gemma-4-e2b-qat=qat-l4", "--time-scale", "200")
    try:
        run = run_wrk("quiz", emu.url, ["--endpoint", "gemma-4-e2b=bf16", "--endpoint",
                                        "gemma-4-e2b-qat=qat"], threads=2)
        check_ok(run, "quiz")
        check_result_shape(run, "quiz")
        check_against_emulator(run, emu.stats())
        with open(os.path.join(SCENARIOS, "quiz-compare-py-40.json")) as f:
            quiz = {q["id"]: q for q in json.load(f)["questions"]}
        for label in ("bf16", "qat"):
            recs = run.records(label)
            check(sorted(r["question"] for r in recs) == sorted(quiz), f"{label}: the 40 ids")
            for r in recs:
                q = quiz[r["question"]]
                check(r["kind"] == q["kind"] and r["answer"] == q["answer"], f"record {r}")
                check(r["text"] == r["text"].strip(), "text not stripped")
            correct = sum(r["correct"] for r in recs)
            check(correct == 37, f"{label}: {correct}/40 correct, the profile scores 37")
            check(run.results[label]["settings"]["questions"] == 40, "settings.questions")
    finally:
        emu.stop()


def case_formats():
    emu = start_emulator("--endpoint", "v=instant", "--endpoint", "t=instant", "--endpoint",
                         "l=instant", "--set", "t.format=tgi", "--set", "l.format=lmi")
    try:
        runs = [
            ("completions", run_wrk("smoke", emu.url, ["--endpoint", "v", "--format",
                                                       "vllm-completions"])),
            ("raw", run_wrk("smoke", emu.url, ["--endpoint", "v", "--format", "raw", "--body",
                                               '{"prompt":"What is 2 * 3?","max_tokens":8}'])),
            ("tgi", run_wrk("quiz", emu.url, ["--endpoint", "t", "--format", "tgi"])),
            ("lmi", run_wrk("decode", emu.url, ["--endpoint", "l", "--format", "lmi",
                                                "--repeats", "1"])),
        ]
        for what, run in runs:
            check_ok(run, what)
            check(all(r["ok"] for r in run.records()), f"{what}: failures")
            check(all(r["completion_tokens"] for r in run.records()), f"{what}: no token counts")
        check(sum(r["correct"] for r in runs[2][1].records()) == 40, "tgi quiz answers")
        st = emu.stats()
        check(st["endpoints"]["v"]["replies"] == {"200": 2}, str(st["endpoints"]["v"]))
        check(st["endpoints"]["t"]["replies"] == {"200": 40}, str(st["endpoints"]["t"]))
        check(st["endpoints"]["l"]["replies"] == {"200": 2}, str(st["endpoints"]["l"]))
    finally:
        emu.stop()


def case_https_variants():
    tmp = tempfile.mkdtemp(prefix="e2e-tls-")
    cert, key = emulator.make_cert(tmp)
    emu = start_emulator("--endpoint", "gemma/bf16=instant", "--endpoint", "gemma/qat=instant",
                         "--tls-cert", cert, "--tls-key", key)
    try:
        check(emu.url.startswith("https://"), emu.url)
        run = run_wrk("sweep", emu.url, ["--endpoint", "gemma", "--variant", "bf16", "--variant",
                                         "qat", "--max-tokens", "32", "--batches", "2"], threads=2)
        check_ok(run, "https")
        check_result_shape(run, "sweep")
        st = emu.stats()
        check_against_emulator(run, st)
        variants = st["endpoints"]["gemma"]["variants"]
        for v in ("bf16", "qat"):
            recs = run.records(v)
            check(len(recs) == 4 and all(r["variant"] == v for r in recs), f"{v}: records")
            check(variants[v]["replies"] == {"200": 4}, f"{v}: {variants[v]}")
            check(run.results[v]["endpoint"]["variant"] == v, "endpoint.variant")
    finally:
        emu.stop()


def case_faults():
    emu = start_emulator("--endpoint", "a=instant", "--endpoint", "b=instant",
                         "--set", "a.fault.throttle=every:4", "--set", "a.fault.model_error=every:9",
                         "--set", "b.fault.drop=every:5", "--set", "b.fault.internal=every:7",
                         "--set", "b.fault.unavailable=every:11")
    try:
        run = run_wrk("quiz", emu.url, ["--endpoint", "a", "--endpoint", "b"], threads=2)
        check_ok(run, "faults")
        check_result_shape(run, "quiz")
        st = emu.stats()
        check_against_emulator(run, st, tokens=False)
        codes = {}
        for r in run.records():
            if r["error"]:
                codes[r["error"]["code"]] = codes.get(r["error"]["code"], 0) + 1
        check(codes.get("ThrottlingException") == st["endpoints"]["a"]["faults"]["throttle"],
              f"throttling {codes}")
        check(codes.get("socket") == st["endpoints"]["b"]["dropped"] > 0, f"drops {codes}")
        check(codes.get("ModelError", 0) == st["endpoints"]["a"]["faults"]["model_error"] > 0,
              f"model errors {codes}")
        check(len(run.records()) == 80, "every question asked once per side")
    finally:
        emu.stop()


def expect_refusal(emu, args, what, rc=2):
    outdir = tempfile.mkdtemp(prefix="e2e-")
    cmd = wrk_command(args[0], emu.url, args[1], args[2] + ["--out", outdir + "/x-{label}.json"])
    cmd[3:3] = args[3]  # after -t and -c, so that it wins
    p = subprocess.run(cmd, env=wrk_env(), capture_output=True, text=True, timeout=TIMEOUT)
    check_no_secrets(Run(p.returncode, p.stdout, p.stderr, outdir))
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    check(p.returncode == rc, f"{what}: exit {p.returncode}, want {rc}\n{p.stderr}")
    return lines, outdir


def case_misuse():
    emu = start_emulator("--endpoint", "gemma=instant")
    try:
        region = ["--region", "us-east-1"]
        cases = [
            (("smoke", 1, ["--endpoint", "gemma"] + region, ["-c2"]),
             "smoke: wrk must run one connection per thread, or a reply cannot be matched to its "
             "request: pass -t N -c N (got -t 1 -c 2)"),
            (("smoke", 1, region, []),
             "smoke: no endpoint: pass --endpoint NAME (the SageMaker endpoint to call)"),
            (("smoke", 1, ["--endpoint", "gemma"], []),
             f"smoke: {emu.url} is not a SageMaker Runtime URL "
             "(https://runtime.sagemaker.REGION.amazonaws.com): pass --region"),
            (("decode", 2, ["--endpoint", "gemma"] + region, []),
             "decode: decode times one request at a time: run it with -t 1 -c 1"),
            (("decode", 1, ["--endpoint", "gemma", "--repeats", "x"] + region, []),
             "decode: --repeats wants a whole number >= 1, got 'x'"),
            (("sweep", 1, ["--endpoint", "gemma", "--mode", "steady"] + region, []),
             "sweep: --duration goes with --mode steady, and --mode steady needs --duration"),
            (("decode", 1, ["--endpoint", "gemma", "--format", "tgi"] + region, []),
             "decode: the tgi format has no ignore_eos (leave it out, or pass the container's "
             "own field with --extra)"),
            (("quiz", 1, ["--endpoint", "gemma", "--quiz", "/nonexistent.json"] + region, []),
             "quiz: cannot read the quiz: /nonexistent.json: No such file or directory"),
            (("smoke", 1, ["--endpoint", "a", "--endpoint", "b"] + region, []), None),
        ]
        for args, want in cases:
            if want is None:  # two sides but an --out without {label}
                cmd = wrk_command(args[0], emu.url, 1, args[2] + ["--out", "/tmp/x.json"])
                p = subprocess.run(cmd, env=wrk_env(), capture_output=True, text=True)
                check(p.returncode == 2 and p.stderr.strip() == "smoke: --out must contain "
                      "{label} when the run has several endpoints", p.stderr)
                continue
            lines, _ = expect_refusal(emu, args, want)
            check(lines == [want], f"got {lines}\nwant [{want}]")
        check(emu.stats()["totals"]["requests"] == 0, "a refused run sent requests")
    finally:
        emu.stop()


def case_refused():
    emu = start_emulator("--endpoint", "gemma=instant")
    try:
        for args, want, code in (
            (["--endpoint", "gemma", "--region", "eu-west-1"],
             "check the region and credentials", "InvalidSignatureException"),
            (["--endpoint", "nope", "--region", "us-east-1"],
             "check the endpoint name, variant and region", "ValidationError"),
        ):
            lines, outdir = expect_refusal(emu, ("decode", 1, args, []), code, rc=3)
            last = [line for line in lines if "partial result" in line]
            check(len(last) == 1 and last[0].startswith("decode: partial result: refused: ")
                  and last[0].endswith(want) and code in last[0], f"{lines}")
            with open(os.path.join(outdir, f"x-{args[1]}.json")) as f:
                res = json.load(f)
            check(res["partial"] and res["partial_reason"].startswith("refused: "), "partial")
            check(res["counts"]["failed"] == 3 and res["counts"]["ok"] == 0, str(res["counts"]))
        st = emu.stats()
        check(st["endpoints"]["gemma"]["replies"] == {"403": 3}, str(st["endpoints"]["gemma"]))
    finally:
        emu.stop()


def case_sigint():
    """Ctrl-C mid-run: a valid partial result file, 'interrupted', exit 4."""
    emu = start_emulator("--endpoint", "a=bf16-l4", "--time-scale", "5")
    try:
        outdir = tempfile.mkdtemp(prefix="e2e-")
        cmd = wrk_command("decode", emu.url, 1, ["--endpoint", "a", "--region", "us-east-1",
                                                 "--progress", "0.001", "--out",
                                                 outdir + "/decode-{label}.json"])
        p = subprocess.Popen(cmd, env=wrk_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        seen = []
        for line in p.stderr:  # wait for the first record's progress line
            seen.append(line)
            if line.startswith("decode: 2/10 done"):
                break
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=TIMEOUT)
        run = Run(p.returncode, out, "".join(seen) + err, outdir)
        check_no_secrets(run)
        check(run.rc == 4, f"exit {run.rc}\n{run.stderr}")
        res = run.results["a"]
        check(res["partial"] and res["partial_reason"] == "interrupted", str(res["partial"]))
        check(2 <= res["counts"]["sent"] < 10, str(res["counts"]))
        check_result_shape(run, "decode")
        check("decode: partial result: interrupted" in run.stderr, run.stderr)
    finally:
        emu.stop()


def case_duration_cap():
    emu = start_emulator("--endpoint", "a=bf16-l4", "--time-scale", "5")
    try:
        run = run_wrk("decode", emu.url, ["--endpoint", "a"], duration="1s")
        check(run.rc == 4, f"exit {run.rc}\n{run.stderr}")
        res = run.results["a"]
        check(res["partial"] and res["partial_reason"] == "duration cap", res["partial_reason"])
        check(res["counts"]["sent"] < 10, str(res["counts"]))
        check_result_shape(run, "decode")
    finally:
        emu.stop()


def case_clock_skew():
    """Signing with a clock 15 minutes slow: one 403 'Signature expired', then the
    plugin signs with the server's time and the run completes."""
    emu = start_emulator("--endpoint", "a=instant")
    try:
        run = run_wrk("decode", emu.url, ["--endpoint", "a", "--repeats", "2"],
                      extra_env={"LD_PRELOAD": os.environ["SKEWCLOCK"], "SKEW_SECONDS": "-900"})
        check_ok(run, "skew")
        recs = run.records()
        check(recs[0]["status"] == 403 and "Signature expired" in recs[0]["error"]["message"],
              str(recs[0]))
        check(len(recs) == 5 and all(r["ok"] for r in recs[1:]), f"{len(recs)} records")
        check(emu.stats()["endpoints"]["a"]["replies"] == {"403": 1, "200": 4}, "emulator")
    finally:
        emu.stop()


def case_example():
    emu = start_emulator("--endpoint", "a=instant", "--endpoint", "b=instant")
    try:
        run = run_wrk("example", emu.url, ["--endpoint", "a", "--endpoint", "b", "--count", "2"])
        check_ok(run, "example")
        check_result_shape(run, "example")
        check_against_emulator(run, emu.stats())
        check(len(run.records("a")) == len(run.records("b")) == 2, "2 stories per side")
        check(run.results["a"]["settings"] == {"count": 2, "words": 50}, "settings")
    finally:
        emu.stop()


BROKEN_CHECK = """
package.path = %s .. "/lua/?.lua;" .. package.path
local run = require "sm.run"
local replies = 0
run.scenario({
  name = "broken", summary = "a check that fails on the second reply", usage = "",
  settings = function() return {} end,
  plan = function(o, ctx)
    local items = {}
    for i = 1, 6 do items[i] = { side = ctx.sides[1], prompt = "p", max_tokens = 4 } end
    return { { items = items } }
  end,
  check = function(item, reply, rec)
    replies = replies + 1
    if replies == 2 then error("the check broke\\non a second line") end
  end,
})
"""


def case_check_error():
    """A scenario's check that raises: the run stops, and the result file says why
    (the error's first line); what was recorded before stays."""
    emu = start_emulator("--endpoint", "a=instant")
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "broken.lua")
        with open(script, "w") as f:
            f.write(BROKEN_CHECK % json.dumps(ROOT))
        try:
            run = run_wrk("broken", emu.url, ["--endpoint", "a"], script=script)
            check(run.rc == 4, f"exit {run.rc}\n{run.stderr}")
            res = run.results["a"]
            reason = res["partial_reason"] or ""
            check(res["partial"] and reason.startswith("scenario error: ")
                  and reason.endswith("the check broke"), reason)
            check(len(res["records"]) == 1 and res["records"][0]["ok"], str(res["records"]))
            check("broken: partial result: scenario error: " in run.stderr, run.stderr)
            check_result_shape(run, "broken")
        finally:
            emu.stop()


def case_out_kept():
    """A result or journal already at --out is never overwritten nor followed as a link:
    the run refuses to start (exit 2, one line) unless --force; a label cannot name a
    path outside its folder."""
    emu = start_emulator("--endpoint", "gemma=instant")
    try:
        outdir = tempfile.mkdtemp(prefix="e2e-kept-")
        out = os.path.join(outdir, "r-{label}.json")
        args = ["--endpoint", "gemma", "--region", "us-east-1", "--out", out]

        def smoke(extra=()):
            cmd = wrk_command("smoke", emu.url, 1, args + list(extra))
            return subprocess.run(cmd, env=wrk_env(), capture_output=True, text=True,
                                  timeout=TIMEOUT)

        def run_id():
            with open(os.path.join(outdir, "r-gemma.json")) as f:
                return json.load(f)["run_id"]

        p = smoke()
        check(p.returncode == 0, p.stderr)
        first = run_id()
        p = smoke()
        path = os.path.join(outdir, "r-gemma.json")
        check(p.returncode == 2 and p.stderr.strip() == f"smoke: {path} exists: a run never "
              "overwrites a result (move it, or pass --force)", p.stderr)
        check(run_id() == first, "the first result was touched")
        p = smoke(["--force"])
        check(p.returncode == 0 and run_id() != first, p.stderr)
        # A journal placed beforehand as a link to a victim: refused, the victim untouched.
        victim = os.path.join(outdir, "victim")
        with open(victim, "w") as f:
            f.write("precious\n")
        args[-1] = os.path.join(outdir, "l-{label}.json")
        os.symlink(victim, os.path.join(outdir, "l-gemma.journal.jsonl"))
        p = smoke()
        check(p.returncode == 2 and "l-gemma.journal.jsonl exists" in p.stderr, p.stderr)
        with open(victim) as f:
            check(f.read() == "precious\n", "the victim was written")
        lines, _ = expect_refusal(emu, ("smoke", 1, ["--endpoint", "gemma=..", "--region",
                                                     "us-east-1"], []), "label")
        check(lines == ["smoke: the label '..' may hold only letters, digits, '.', '_' and '-', "
                        "not start with '.' and be 64 characters at most"], str(lines))
    finally:
        emu.stop()


def real_us(r, scale):
    """A whole reply's end-to-end time in real microseconds (docs/compare.md, Time-scaled
    runs): the emulator's service time scaled, the client's share as measured."""
    took = r["t_end_us"] - r["t_start_us"]
    return r["server_us"] + max(0.0, took - r["server_us"] / scale)


def case_time_scale():
    """At --time-scale 10 every record carries the emulator's service time, never
    less than the model's plan nor more than the client saw (times 10), and
    sm-compare's figures are the records' by the documented conversion: the server's
    share multiplied by 10, the client's kept in real units (the old conversion read
    the per-call cost of this 10 ms model 5 to 20% high). Whether K=10 then reads as
    K=1 is measured by the benchmark (BENCHMARKS.md, accuracy: K=10 vs K=1), not here:
    two runs' walls on a shared machine differ by more than a test may wait out."""
    scale, overhead, step1 = 10, 0.01, 0.005
    emu = start_emulator("--endpoint", "a=instant", "--endpoint", "b=instant", "--set",
                         "*.overhead_s=%g" % overhead, "--set", "*.step_ms=1:5,4:6", "--set",
                         "*.jitter=0", "--time-scale", str(scale))
    try:
        sides = ["--endpoint", "a", "--endpoint", "b", "--time-scale", str(scale)]
        runs = [run_wrk("decode", emu.url, sides + ["--lengths", "4,32", "--repeats", "5"]),
                run_wrk("sweep", emu.url, sides + ["--max-tokens", "8", "--batches", "3"],
                        threads=4)]
    finally:
        emu.stop()
    files = {"a": [], "b": []}
    for run in runs:
        check_ok(run, "time scale %g" % scale)
        for r in run.records():
            us = r.get("server_us")
            plan = (overhead + r["completion_tokens"] * step1) * 1e6  # at least a step each
            took = (r["t_end_us"] - r["t_start_us"]) * scale
            check(isinstance(us, int) and plan - 1 <= us <= took + scale,
                  f"the service time {us} us: the plan {plan:.0f}, the client saw {took} x K: {r}")
        for name in os.listdir(run.outdir):
            if name.endswith(".json"):
                files[name[:-5].rsplit("-", 1)[1]].append(os.path.join(run.outdir, name))
    p = subprocess.run([os.environ["SM_COMPARE"], "-f", "json"] + files["a"] + ["--"]
                       + files["b"], capture_output=True, text=True, timeout=TIMEOUT)
    check(p.returncode == 0, f"sm-compare: exit {p.returncode}: {p.stderr}")
    rep = json.loads(p.stdout)
    dec = [r for r in runs[0].records() if r["endpoint"] == "a"]
    walls = {n: statistics.median(real_us(r, scale) for r in dec if r["max_tokens"] == n)
             for n in (4, 32)}
    rate = 28 / ((walls[32] - walls[4]) / 1e6)
    batches = {}
    for r in runs[1].records():
        if r["endpoint"] == "a":
            batches.setdefault(r["batch"], []).append(r)
    c4 = statistics.median(
        sum(r["completion_tokens"] for r in rs) * 1e6 /
        max(r["t_start_us"] - min(x["t_start_us"] for x in rs) + real_us(r, scale) for r in rs)
        for rs in batches.values())
    for got, want, what in ((rep["rows"]["decode_tokens_per_second"][0], rate, "decode rate"),
                            (rep["decode"]["per_call_fixed_cost_seconds"][0],
                             walls[4] / 1e6 - 4 / rate, "per-call cost"),
                            (rep["rows"]["load_c4_tokens_per_second"][0], c4, "c4 throughput")):
        check(got is not None and abs(got / want - 1) < 1e-6,
              f"{what}: sm-compare {got}, the records by the conversion {want}")
    warnings = " ".join(rep.get("warnings", []))
    check("no bias bound" in warnings, f"the warnings say the bias is gone: {warnings}")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    names = list(CASES) if sys.argv[1:] == ["all"] else sys.argv[1:]
    if not names or any(n not in CASES for n in names):
        print(f"usage: test_e2e.py CASE... | all   (cases: {', '.join(CASES)})")
        return 2
    failed = 0
    for name in names:
        try:
            CASES[name]()
            print(f"ok {name}")
        except Failure as e:
            failed += 1
            print(f"FAIL {name}: {e}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
