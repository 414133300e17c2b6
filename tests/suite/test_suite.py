#!/usr/bin/python3
"""sm-suite end to end against sm-emulator: the whole suite, variants with A-B-A,
--dry-run, bad usage, Ctrl-C and --resume, a refusing endpoint, the progress line on a
terminal, the scenarios' --options-json, and an option only a scenario knows. Every case
also checks that no secret reaches any output or file.

    test_suite.py CASE...     (CASE: see CASES at the bottom; "all" runs every one)

Environment: see suitelib.py."""
import json
import os
import pty
import re
import select
import shlex
import signal
import socket
import subprocess
import sys

import suitelib as sl
from suitelib import check

ARTICLE_ENDPOINTS = ["--endpoint", "gemma-4-e2b=bf16-l4", "--endpoint", "gemma-4-e2b-qat=qat-l4"]
SIDES = ["--baseline", "gemma-4-e2b=bf16", "--candidate", "gemma-4-e2b-qat=qat"]


def step_lines(stderr, manifest):
    """Per step: the indexes of its header, its command and its end in stderr."""
    out = []
    all_lines = stderr.splitlines()
    n = len(manifest["steps"])
    for i, step in enumerate(manifest["steps"]):
        head = f"sm-suite: [{i + 1}/{n}] {step['title']}"
        at = all_lines.index(head)
        check(all_lines[at + 1] == step["command_line"], f"{head}: not followed by its command")
        end = [k for k, line in enumerate(all_lines) if line.startswith(head + ": done in ")]
        check(len(end) == 1 and end[0] > at + 1, f"{head}: no end line after the command")
        out.append((at, at + 1, end[0]))
    return out


def check_result_files(run, labels, ids):
    for label in labels:
        for sid in ids:
            res = sl.load(os.path.join(run, label, sid + ".json"))
            check(res["label"] == label and not res["partial"], f"{label}/{sid}: {res['partial']}")
            c = res["counts"]
            check(c["sent"] == len(res["records"]) == c["ok"], f"{label}/{sid}: counts {c}")
            check(os.path.exists(os.path.join(run, label, sid + ".journal.jsonl")), "journal")


def case_full():
    """The whole suite over HTTP with facts and a price: every step's command is printed
    before it runs and is saved, wrk's output, the result files, the manifest, the
    summary and the reports are where they should be, and a saved command pastes."""
    tmp = sl.tempdir("suite-full-")
    e = sl.env(tmp)
    emu = sl.start_emulator(ARTICLE_ENDPOINTS + ["--region", "us-east-2", "--time-scale", "20",
                                                 "--log-file", tmp + "/{endpoint}.log"], e)
    try:
        p = sl.suite(["--url", emu.url, "--region", "us-east-2", "--time-scale", "20",
                      "--price-per-hour", "1.1267", "--facts-baseline", "gemma-4-e2b.log",
                      "--facts-candidate", "gemma-4-e2b-qat.log", "--out", "run"] + SIDES, e, tmp)
        check(p.returncode == 0, f"exit {p.returncode}\n{p.stderr}")
        run = os.path.join(tmp, "run")
        m = sl.load(os.path.join(run, "manifest.json"))
        check(m["format"] == "wrk-sagemaker-suite" and m["version"] == 1, "manifest format")
        check([s["id"] for s in m["steps"]] == ["decode", "sweep-c1", "sweep-c4", "sweep-c16",
                                                "quiz"], "steps")
        check(all(s["state"] == "done" and s["exit_status"] == 0 for s in m["steps"]), "states")
        check(m["sessions"][0]["outcome"] == "done" and m["reports"]["exit_status"] == 0, "outcome")
        for s in m["steps"]:
            for f in s["files"]:
                check(os.path.exists(os.path.join(run, f)), f"{f} is missing")
            check(s["command"][1:3] == [f"-t{s['threads_and_connections']}",
                                        f"-c{s['threads_and_connections']}"], "-t N -c N")
            check("--timeout" in s["command"] and "70s" in s["command"], "--timeout 70s")
            with open(os.path.join(run, s["output"])) as f:
                check(f.readline() == "$ " + s["command_line"] + "\n", "the output's first line")
        step_lines(p.stderr, m)
        with open(os.path.join(run, "commands.sh")) as f:
            commands = f.read()
        for s in m["steps"]:
            check("\n" + s["command_line"] + "\n" in commands, f"{s['id']} not in commands.sh")
        check(subprocess.run(["sh", "-n", os.path.join(run, "commands.sh")]).returncode == 0,
              "commands.sh is not valid sh")
        check_result_files(run, ["bf16", "qat"], ["decode", "sweep-c1", "sweep-c4", "sweep-c16",
                                                  "quiz"])
        check("sm-suite: requests: 436 sent, 436 ok, 0 failed; no errors" in p.stderr, "summary")
        check("sm-suite: time-scaled: the server runs 20 times faster than real time" in p.stderr,
              "the time-scale note")
        check(f"sm-suite: the report: run/report.md (Markdown), run/chart.svg (chart)" in p.stderr,
              "where the report is")
        with open(os.path.join(run, "report.txt")) as f:
            check(p.stdout == "\n" + f.read(), "stdout is not the table of report.txt")
        check("both sides ran 20 times faster than real" in p.stdout, "real units")
        with open(os.path.join(run, "chart.svg")) as f:
            check("<svg" in f.read(), "chart.svg")
        with open(os.path.join(run, "report.md")) as f:
            check(f.read().startswith("# sm-compare: baseline bf16, candidate qat"), "report.md")
        rep = sl.load(os.path.join(run, "report.json"))
        rows = rep["rows"]
        # the ratio is the candidate's over the baseline's (their agreement with the
        # model is the benchmark's: tests/bench/run, accuracy)
        dec = rows["decode_tokens_per_second"]
        check(dec[0] > 0 and dec[1] > 0 and abs(dec[2] - dec[1] / dec[0]) <= 5e-4 * dec[2],
              f"decode {rows}")
        check(rows["weights_gib"][:2] == [9.75, 8.01], "facts from the copied logs")
        check(rows["quality_correct"][:2] == [37, 37] and rep["identical_answers"]["count"] == 35,
              "quiz")
        check(os.path.exists(os.path.join(run, "bf16", "container.log")), "the copy of the log")
        check(m["facts"] == {"baseline": {"from": "gemma-4-e2b.log", "copy": "bf16/container.log"},
                             "candidate": {"from": "gemma-4-e2b-qat.log",
                                           "copy": "qat/container.log"}}, f"facts {m['facts']}")
        # A saved command pasted into sh measures again.
        line = m["steps"][1]["command_line"].replace("'run/{label}/", "'again/{label}/")
        q = subprocess.run(["sh", "-c", line], env=e, cwd=tmp, capture_output=True, text=True,
                           timeout=sl.TIMEOUT)
        check(q.returncode == 0, f"the pasted command exited {q.returncode}\n{q.stderr}")
        check_result_files(os.path.join(tmp, "again"), ["bf16", "qat"], ["sweep-c1"])
        st = emu.stats()["endpoints"]
        got = {k: v["requests"] for k, v in st.items()}
        check(got == {"gemma-4-e2b": 218 + 8, "gemma-4-e2b-qat": 218 + 8}, f"the emulator got {got}")
        sl.check_no_secrets([("stdout", p.stdout), ("stderr", p.stderr), run])
    finally:
        emu.stop()


def case_variants_aba():
    """Two variants of one endpoint over HTTPS, --order aba: the baseline alone again
    after both, and sm-compare reports how its runs agree."""
    tmp = sl.tempdir("suite-aba-")
    cert, key = sl.emulator.make_cert(tmp)
    e = sl.env(tmp)
    emu = sl.start_emulator(["--endpoint", "gemma/bf16=bf16-l4", "--endpoint", "gemma/qat=qat-l4",
                             "--time-scale", "40", "--tls-cert", cert, "--tls-key", key], e)
    try:
        check(emu.url.startswith("https://"), emu.url)
        p = sl.suite(["--url", emu.url, "--region", "us-east-1", "--endpoint", "gemma",
                      "--baseline-variant", "bf16", "--candidate-variant", "qat", "--order", "aba",
                      "--scenarios", "decode,sweep", "--levels", "1,4", "--repeats", "3",
                      "--time-scale", "40", "--out", "run"], e, tmp)
        check(p.returncode == 0, f"exit {p.returncode}\n{p.stderr}")
        run = os.path.join(tmp, "run")
        m = sl.load(os.path.join(run, "manifest.json"))
        ids = ["decode", "sweep-c1", "sweep-c4"]
        check([s["id"] for s in m["steps"]] == ids + ["rerun-" + i for i in ids], "steps")
        step_lines(p.stderr, m)
        check_result_files(run, ["bf16", "qat"], ids)
        check_result_files(run, ["bf16"], ["rerun-" + i for i in ids])
        check(not any(n.startswith("rerun-") for n in os.listdir(os.path.join(run, "qat"))),
              "the candidate was measured again")
        for s in m["steps"][3:]:
            words = s["command"][s["command"].index("--"):]
            check(words[1:7] == ["--endpoint", "gemma", "--variant", "bf16", "--label", "bf16"]
                  and "qat" not in words, f"rerun command {words}")
        res = sl.load(os.path.join(run, "bf16", "rerun-decode.json"))
        check(res["endpoint"]["variant"] == "bf16" and res["label"] == "bf16", "rerun file")
        check("Agreement of the runs of one side" in p.stdout, "no agreement section")
        check(re.search(r"bf16 decode_tokens_per_second: 2 runs agree within [0-9.]+%", p.stdout),
              "the decode runs' agreement")
        check(re.search(r"bf16 load_c4_tokens_per_second: 2 runs agree within [0-9.]+%", p.stdout),
              "the c4 runs' agreement")
        v = emu.stats()["endpoints"]["gemma"]["variants"]
        check(v["bf16"]["requests"] == 2 * v["qat"]["requests"] == 2 * (6 + 8 + 32),
              f"variants {v['bf16']['requests']} {v['qat']['requests']}")
        sl.check_no_secrets([("stdout", p.stdout), ("stderr", p.stderr), run])
    finally:
        emu.stop()


def case_stream():
    """--stream: decode and the sweep run with sm-stream, the quiz with wrk; every result
    file says its client; the report compares both sides' streams (TTFT, ITL) and the
    quiz without calling the run mixed."""
    tmp = sl.tempdir("suite-stream-")
    e = sl.env(tmp)
    emu = sl.start_emulator(ARTICLE_ENDPOINTS + ["--region", "us-east-1", "--time-scale", "20"], e)
    try:
        p = sl.suite(["--url", emu.url, "--region", "us-east-1", "--time-scale", "20", "--stream",
                      "--levels", "1,4", "--repeats", "2", "--sweep-batches", "2", "--out", "run"]
                     + SIDES, e, tmp)
        check(p.returncode == 0, f"exit {p.returncode}\n{p.stderr}")
        run = os.path.join(tmp, "run")
        m = sl.load(os.path.join(run, "manifest.json"))
        programs = {s["id"]: os.path.basename(s["command"][0]) for s in m["steps"]}
        check(programs == {"decode": "sm-stream", "sweep-c1": "sm-stream", "sweep-c4": "sm-stream",
                           "quiz": os.path.basename(e["WRK"])}, str(programs))
        for label in ("bf16", "qat"):
            for step, client in (("decode", "sm-stream"), ("sweep-c4", "sm-stream"),
                                 ("quiz", "wrk")):
                res = sl.load(os.path.join(run, label, step + ".json"))
                check(res["client"] == client, f"{label}/{step}: client {res['client']}")
        check("Streaming (seconds; successful requests)" in p.stdout and "itl_c4_p50_seconds"
              in p.stdout, "no streaming table:\n" + p.stdout)
        check("MIXED" not in p.stdout and "compared although" not in p.stdout, "called mixed")
    finally:
        emu.stop()


def case_capacity():
    """--scenarios rate: one open-loop step at the rates given (each side in turn, the
    same arrival times), --slo and --max-error-rate passed to every sm-compare: the
    report's verdict names the capacity at the SLO, and report.json has it per side."""
    tmp = sl.tempdir("suite-capacity-")
    e = sl.env(tmp)
    emu = sl.start_emulator(ARTICLE_ENDPOINTS + ["--region", "us-east-1", "--time-scale", "20"], e)
    try:
        p = sl.suite(["--url", emu.url, "--region", "us-east-1", "--time-scale", "20",
                      "--scenarios", "rate", "--rates", "0.5,40", "--rate-duration", "8",
                      "--max-tokens", "16", "--slo", "e2e:p90:2", "--max-error-rate", "0.05",
                      "--out", "run"] + SIDES, e, tmp)
        check(p.returncode == 0, f"exit {p.returncode}\n{p.stderr}")
        run = os.path.join(tmp, "run")
        m = sl.load(os.path.join(run, "manifest.json"))
        check([s["id"] for s in m["steps"]] == ["rate"], str([s["id"] for s in m["steps"]]))
        cmd = m["steps"][0]["command"]
        check(cmd[1:3] == ["-t64", "-c64"] and "--rates" in cmd and "0.5,40" in cmd, str(cmd))
        with open(os.path.join(run, "commands.sh")) as f:
            compares = [l for l in f if "sm-compare" in l]
        check(compares and all("--slo e2e:p90:2 --max-error-rate 0.05" in l for l in compares),
              "".join(compares))
        check("At p90 end-to-end latency <= 2 s with at most 5% failed, qat serves" in p.stdout,
              "no capacity verdict:\n" + p.stdout)
        report = sl.load(os.path.join(run, "report.json"))
        check("open_loop" in report, "report.json has no open_loop: " + str(list(report)))
    finally:
        emu.stop()


def case_dry_run():
    """--dry-run prints every command, creates nothing, and routes each scenario option
    to the scenarios that take it."""
    tmp = sl.tempdir("suite-dry-")
    e = sl.env(tmp, AWS_REGION="eu-west-1")
    p = sl.suite(["--baseline", "a", "--candidate", "b", "--out", "run", "--dry-run",
                  "--repeats", "2", "--quiz-max-tokens", "32", "--temperature", "0.5",
                  "--sweep-batches", "3", "--custom-attributes", "trace=1 x"], e, tmp)
    check(p.returncode == 0, f"exit {p.returncode}\n{p.stderr}")
    check(not os.path.exists(os.path.join(tmp, "run")), "--dry-run created the run directory")
    cmds = [shlex.split(line) for line in p.stdout.splitlines() if not line.startswith("#")]
    check(len(cmds) == 5 + 3, f"{len(cmds)} commands")
    url = "https://runtime.sagemaker.eu-west-1.amazonaws.com"
    want = {  # scenario: (threads, words that must be there, words that must not)
        "decode.lua": ([1], ["--repeats", "2", "--temperature", "0.5"], ["--max-tokens", "--batches"]),
        "sweep.lua": ([1, 4, 16], ["--batches", "3", "--temperature", "0.5"], ["--repeats",
                                                                              "--max-tokens"]),
        "quiz.lua": ([1], ["--max-tokens", "32", "--temperature", "0.5"], ["--repeats", "--batches"]),
    }
    seen = {}
    for c in cmds[:5]:
        c = [w for w in c if not w.startswith("SM_PLUGIN_PATH=")]
        script = os.path.basename(c[c.index("-s") + 1])
        n = int(c[1][2:])
        check(c[1] == f"-t{n}" and c[2] == f"-c{n}" and re.fullmatch(r"-d\d+m", c[3]), str(c))
        check(c[4:6] == ["--timeout", "70s"] and c[c.index("--") - 1] == url, str(c))
        args = c[c.index("--") + 1:]
        check(args[:4] == ["--endpoint", "a", "--endpoint", "b"], str(args))
        check(args[args.index("--region") + 1] == "eu-west-1", "the region from AWS_REGION")
        check(args[args.index("--custom-attributes") + 1] == "trace=1 x", "quoting")
        threads, present, absent = want[script]
        check(all(w in args for w in present) and not any(w in args for w in absent),
              f"{script}: {args}")
        seen.setdefault(script, []).append(n)
    check(seen == {k: v[0] for k, v in want.items()}, f"levels {seen}")
    check(cmds[5][-2:] == ["run/a", "run/b"] and "--svg" in cmds[5], str(cmds[5]))
    check(p.stdout.startswith("# sm-suite --dry-run: 5 steps, then sm-compare; run directory run"),
          p.stdout)


def case_min_attainment_passed_to_compare():
    """--min-attainment goes to sm-compare beside --slo (its criterion for each rate and the
    capacity), as given."""
    tmp = sl.tempdir("suite-attain-")
    e = sl.env(tmp, AWS_REGION="eu-west-1")
    p = sl.suite(["--baseline", "a", "--candidate", "b", "--out", "run", "--dry-run",
                  "--scenarios", "rate", "--rates", "1,2", "--slo", "e2e:p90:2",
                  "--min-attainment", "95"], e, tmp)
    check(p.returncode == 0, f"exit {p.returncode}\n{p.stderr}")
    cmds = [shlex.split(line) for line in p.stdout.splitlines() if not line.startswith("#")]
    compares = [c for c in cmds if any(w.endswith("sm-compare") for w in c)]
    check(compares and all("--min-attainment" in c and
                           c[c.index("--min-attainment") + 1] == "95" and "--slo" in c
                           for c in compares), str(compares))
    check(not any("--min-attainment" in c for c in cmds if c not in compares),
          "--min-attainment went to a measuring step")


USAGE = [  # (arguments, the one line on stderr); "{tmp}" is the test's folder
    ([], "sm-suite: no endpoints: pass --baseline NAME --candidate NAME (or --endpoint NAME "
         "--baseline-variant A --candidate-variant B)"),
    (["--bogus"], "sm-suite: unknown option --bogus (see sm-suite --help)"),
    (["--baseline", "a", "--candidate", "b"], "sm-suite: no region: pass --region REGION (or set "
                                             "AWS_REGION)"),
    (["--region", "r", "--baseline", "a", "--candidate", "b", "--levels", "0"],
     "sm-suite: --levels wants at most 16 whole numbers >= 1 separated by commas, got '0'"),
    (["--region", "r", "--baseline", "a", "--candidate", "b", "--out", "{tmp}/full"],
     "sm-suite: {tmp}/full already holds files: continue that run with --resume {tmp}/full, or "
     "choose another --out"),
    (["--resume", "{tmp}/none"], "sm-suite: --resume {tmp}/none: no such run directory"),
    (["--resume", "{tmp}/full"], "sm-suite: --resume: {tmp}/full/manifest.json: no such file (not "
                                 "a sm-suite run directory)"),
    (["--region", "r", "--baseline", "a", "--candidate", "b", "--facts-baseline", "{tmp}/no.log"],
     "sm-suite: --facts-baseline: cannot read {tmp}/no.log: No such file or directory"),
    (["--region", "r", "--baseline", "a", "--candidate", "b", "--quiz", "{tmp}/full/x"],
     "sm-suite: --quiz: {tmp}/full/x is not a quiz file (an object with a non-empty \"questions\" "
     "list)"),
    (["--region", "r", "--baseline", "a", "--candidate", "b", "--scenario-dir", "{tmp}"],
     "sm-suite: no scenarios in {tmp} (decode.lua): pass --scenario-dir"),
    (["--region", "r", "--baseline", "a", "--candidate", "b", "--candidate-component", "bad_name"],
     "sm-suite: --candidate-component: 'bad_name' is not a SageMaker inference component name "
     "(letters, digits and inner '-', at most 63)"),
    (["--region", "r", "--baseline", "a", "--candidate", "b", "--baseline-component", "c", "--deploy",
      "--baseline-model", "m", "--candidate-model", "m", "--role", "arn:aws:iam::1:role/r"],
     "sm-suite: --deploy creates endpoints without inference components: drop "
     "--baseline-component, or deploy the component first"),
]


def case_usage():
    """Bad usage: one line on stderr naming what is wrong, exit 2, nothing created; and
    --help names every option."""
    tmp = sl.tempdir("suite-usage-")
    os.makedirs(os.path.join(tmp, "full"))
    with open(os.path.join(tmp, "full", "x"), "w") as f:
        f.write("[]")
    e = sl.env(tmp)
    for args, want in USAGE:
        p = sl.suite([a.replace("{tmp}", tmp) for a in args], e, tmp)
        want = want.replace("{tmp}", tmp)
        check(p.returncode == 2 and p.stderr == want + "\n" and not p.stdout,
              f"{args}: exit {p.returncode}\n{p.stderr}\nwant: {want}")
    p = sl.suite(["--region", "r", "--baseline", "a", "--candidate", "b"], dict(e, WRK="/nonexistent/wrk"),
                 tmp)
    check(p.returncode == 2 and p.stderr.startswith("sm-suite: WRK=/nonexistent/wrk: not a program"),
          p.stderr)
    check(sorted(os.listdir(tmp)) == sorted(["full"] + (["wrk-preload"] if "WRK_PRELOAD" in os.environ
                                                        else [])), "a refused run created files")
    p = sl.suite(["--help"], e, tmp)
    check(p.returncode == 0 and p.stdout.startswith("Usage: sm-suite"), "--help")
    for opt in ("--baseline", "--candidate", "--endpoint", "--baseline-variant",
                "--candidate-variant", "--region", "--url", "--scenarios", "--levels", "--order",
                "--time-scale", "--out", "--resume", "--dry-run", "--scenario-dir",
                "--price-per-hour", "--facts-baseline", "--facts-candidate", "--format", "--extra",
                "--seed", "--min-tokens", "--custom-attributes", "--profile", "--refuse-after",
                "--temperature", "--lengths", "--repeats", "--prompt", "--ignore-eos",
                "--no-ignore-eos", "--mode", "--batches", "--duration", "--max-tokens", "--quiz",
                "--version", "$WRK", "$SM_COMPARE", "$SM_PLUGIN_PATH", "Exit status"):
        check(opt in p.stdout, f"--help does not mention {opt}")


def wait_for(stream, prefix, seen):
    """Reads lines of stream into seen until one starts with prefix."""
    for line in stream:
        seen.append(line)
        if line.startswith(prefix):
            return
    raise sl.Failure(f"no line starting with {prefix!r}:\n{''.join(seen)}")


def case_sigint_resume():
    """Ctrl-C in the middle of a step: wrk writes partial result files that sm-compare
    reads, sm-suite says how to resume and compare; the resume skips the complete step,
    moves the unfinished one aside and completes the run."""
    tmp = sl.tempdir("suite-int-")
    e = sl.env(tmp)
    emu = sl.start_emulator(ARTICLE_ENDPOINTS + ["--time-scale", "5"], e)
    try:
        args = ["--url", emu.url, "--region", "us-east-1", "--scenarios", "decode,sweep",
                "--levels", "1,4", "--repeats", "1", "--lengths", "16,64", "--time-scale", "5",
                "--sweep-batches", "2", "--out", "run"] + SIDES
        proc = subprocess.Popen([os.environ["SM_SUITE"]] + args, env=e, cwd=tmp, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        seen = []
        wait_for(proc.stderr, "sm-suite: [2/3] sweep c1: 1/4 requests", seen)  # a reply is in
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=sl.TIMEOUT)
        err = "".join(seen) + err
        check(proc.returncode == 130, f"exit {proc.returncode}\n{err}")
        run = os.path.join(tmp, "run")
        check_result_files(run, ["bf16", "qat"], ["decode"])
        for label in ("bf16", "qat"):
            res = sl.load(os.path.join(run, label, "sweep-c1.json"))
            check(res["partial"] and res["partial_reason"] == "interrupted", str(res["partial"]))
            check(res["counts"]["sent"] == len(res["records"]), "partial counts")
        ls = err.splitlines()
        check("sm-suite: [2/3] sweep c1: interrupted; wrk wrote its partial result files" in ls, err)
        at = ls.index("sm-suite: to resume (steps whose result files are complete are skipped):")
        # the command names the run's target again: a resume never takes it from the run
        resume = [os.environ["SM_SUITE"], "--resume", "run", "--url", emu.url, "--region",
                  "us-east-1"] + SIDES
        check(shlex.split(ls[at + 1]) == resume, ls[at + 1])
        at = ls.index("sm-suite: to compare what is there:")
        cmp = subprocess.run(shlex.split(ls[at + 1]), cwd=tmp, capture_output=True, text=True)
        check(cmp.returncode == 0 and "decode_tokens_per_second" in cmp.stdout,
              f"the compare command: {cmp.returncode}\n{cmp.stderr}")
        check("partial run (interrupted)" in cmp.stdout, "sm-compare does not see the partial run")
        m = sl.load(os.path.join(run, "manifest.json"))
        check([s["state"] for s in m["steps"]] == ["done", "interrupted", "pending"], "states")
        check(m["sessions"][0]["outcome"] == "interrupted", "session outcome")
        check(not os.path.exists(os.path.join(run, "report.txt")), "compared after Ctrl-C")
        sl.check_no_secrets([("stdout", out), ("stderr", err), run])

        dry = sl.suite(resume[1:] + ["--dry-run"], e, tmp)
        check(dry.returncode == 0 and "# [1/3] decode: complete, would be skipped\n" in dry.stdout
              and "# [2/3] sweep c1\n" in dry.stdout, dry.stdout + dry.stderr)
        p = sl.suite(resume[1:], e, tmp)
        check(p.returncode == 0, f"resume: exit {p.returncode}\n{p.stderr}")
        check("sm-suite: 3 steps, 1 complete already" in p.stderr, "skipped steps")
        check("sm-suite: [1/3] decode" not in p.stderr, "decode ran again")
        moved = re.search(r"step sweep-c1 was not complete: its files are now in run/(interrupted/\S+)",
                          p.stderr)
        check(moved, p.stderr)
        for f in ("bf16/sweep-c1.json", "qat/sweep-c1.journal.jsonl", "output/02-sweep-c1.txt"):
            check(os.path.exists(os.path.join(run, moved.group(1), f)), f"{f} was not moved")
        check_result_files(run, ["bf16", "qat"], ["decode", "sweep-c1", "sweep-c4"])
        m = sl.load(os.path.join(run, "manifest.json"))
        check([s["state"] for s in m["steps"]] == ["done"] * 3, "states after the resume")
        check(m["steps"][1]["earlier"][0]["moved_to"] == moved.group(1), "earlier attempt")
        check([s["outcome"] for s in m["sessions"]] == ["interrupted", "done"], "sessions")
        with open(os.path.join(run, "commands.sh")) as f:
            check("\n# resumed " in f.read(), "commands.sh")
        check("load_c4_tokens_per_second" in p.stdout, "the table after the resume")
        sl.check_no_secrets([("stdout", p.stdout), ("stderr", p.stderr), run])
    finally:
        emu.stop()


def case_failure():
    """An endpoint that refuses every request stops the suite (exit 1) with the reason,
    the hints and no comparison; a scenario that refuses its options stops it with 2."""
    tmp = sl.tempdir("suite-fail-")
    e = sl.env(tmp)
    emu = sl.start_emulator(ARTICLE_ENDPOINTS + ["--region", "us-east-2", "--time-scale", "50"], e)
    try:
        p = sl.suite(["--url", emu.url, "--region", "us-west-2", "--out", "run"] + SIDES, e, tmp)
        check(p.returncode == 1, f"exit {p.returncode}\n{p.stderr}")
        check(re.search(r"sm-suite: \[1/5\] decode: failed: refused: \S+ failed its first 3 "
                        r"requests: 403 InvalidSignatureException: Credential should be scoped to a "
                        r"valid region, not 'us-west-2'\.", p.stderr), p.stderr)
        check("sm-suite: requests: 5 sent, 0 ok, 5 failed:" in p.stderr, "summary")
        check("sm-suite: to resume (steps whose result files are complete are skipped):" in p.stderr
              and "sm-suite: to compare what is there:" in p.stderr, "hints")
        check("[2/5]" not in p.stderr and not p.stdout, "went on after the refusal")
        m = sl.load(os.path.join(tmp, "run", "manifest.json"))
        check(m["steps"][0]["state"] == "failed" and m["steps"][0]["exit_status"] == 3, "step")
        check(m["sessions"][0]["outcome"] == "failed" and "reports" not in m, "outcome")
        res = sl.load(os.path.join(tmp, "run", "bf16", "decode.json"))
        check(res["partial"] and res["partial_reason"].startswith("refused: "), "partial file")
        sl.check_no_secrets([("stdout", p.stdout), ("stderr", p.stderr), os.path.join(tmp, "run")])

        p = sl.suite(["--url", emu.url, "--region", "us-east-2", "--format", "tgi", "--out", "run2"]
                     + SIDES, e, tmp)
        check(p.returncode == 2, f"exit {p.returncode}\n{p.stderr}")
        check("  decode: the tgi format has no ignore_eos" in p.stderr, p.stderr)
        check("decode: failed: wrk exited with status 2: the scenario stopped before sending "
              "anything" in p.stderr, p.stderr)
        check(emu.stats()["endpoints"]["gemma-4-e2b"]["replies"] == {"403": 2}, "requests sent")
    finally:
        emu.stop()


def case_tty():
    """On a terminal the progress line is redrawn in place with the time left."""
    tmp = sl.tempdir("suite-tty-")
    e = sl.env(tmp)
    emu = sl.start_emulator(ARTICLE_ENDPOINTS + ["--time-scale", "2"], e)
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen([os.environ["SM_SUITE"], "--url", emu.url, "--region", "us-east-1",
                                 "--scenarios", "decode,sweep", "--levels", "1", "--lengths",
                                 "16,32", "--repeats", "1", "--sweep-max-tokens", "48",
                                 "--sweep-batches", "2", "--time-scale", "2", "--out", "run"]
                                + SIDES, env=e, cwd=tmp, stdout=subprocess.DEVNULL, stderr=slave)
        os.close(slave)
        text = b""
        while True:
            ready, _, _ = select.select([master], [], [], sl.TIMEOUT)
            try:
                chunk = os.read(master, 65536) if ready else b""
            except OSError:
                chunk = b""
            if not chunk:
                break
            text += chunk
        check(proc.wait(timeout=sl.TIMEOUT) == 0, f"exit {proc.returncode}\n{text.decode()}")
        out = text.decode()
        check(re.search(r"\r\x1b\[Ksm-suite: \[2/2\] sweep c1(: \d/4 requests)?, 0:\d\d elapsed, "
                        r"about 0:\d\d left\r\x1b\[K", out),
              f"no progress line redrawn in place:\n{out!r}")
        check("sm-suite: [2/2] sweep c1: done in" in out, "the end of the last step")
    finally:
        os.close(master)
        emu.stop()


def listener():
    """A TCP socket listening on 127.0.0.1 that accepts nothing by itself, and its URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.setblocking(False)
    return sock, "http://127.0.0.1:%d" % sock.getsockname()[1]


def check_no_connection(sock, what):
    try:
        conn, _ = sock.accept()
        conn.close()
        raise sl.Failure(f"{what} connected to the URL")
    except BlockingIOError:
        pass


def case_options_json():
    """A scenario given --options-json prints its name and every option it takes as JSON
    and exits in wrk's main state: no connection to the URL, and wrk does not wait for its
    -d of an hour."""
    tmp = sl.tempdir("suite-optjson-")
    e = sl.env(tmp)
    sock, url = listener()
    want = {  # scenario: (one of its own options with its spec, options it does not take)
        "decode": ({"name": "--repeats", "arg": "N", "type": "int", "many": False, "default": 5,
                    "min": 1}, ["--max-tokens", "--quiz"]),
        "sweep": ({"name": "--max-tokens", "arg": "N", "type": "int", "many": False,
                   "default": 256, "min": 1}, ["--repeats", "--lengths"]),
        "quiz": ({"name": "--max-tokens", "arg": "N", "type": "int", "many": False,
                  "default": 64, "min": 1}, ["--repeats", "--prompt"]),
    }
    try:
        for name, (own, absent) in want.items():
            script = os.path.join(sl.ROOT, "scenarios", name + ".lua")
            p = subprocess.run([e["WRK"], "-t1", "-c1", "-d1h", "-s", script, url, "--",
                                "--options-json"], env=e, capture_output=True, text=True,
                               timeout=60)
            check(p.returncode == 0 and p.stderr == "", f"{name}: exit {p.returncode}\n{p.stderr}")
            doc = json.loads(p.stdout)
            check(doc["format"] == "wrk-sagemaker-options" and doc["version"] == 1 and
                  doc["scenario"] == name, f"{name}: {p.stdout[:200]}")
            opts = {o["name"]: o for o in doc["options"]}
            got = {k: opts.get(own["name"], {}).get(k) for k in own}
            check(got == own, f"{name}: {got}")
            check(opts["--endpoint"]["many"] is True and opts["--endpoint"]["type"] == "string",
                  f"{name}: --endpoint {opts['--endpoint']}")
            check(opts["--ignore-eos"]["type"] == "bool" if name != "quiz" else True, name)
            check(all(o["help"] for o in doc["options"]), f"{name}: an option without help")
            check(not any(a in opts for a in absent), f"{name}: {sorted(opts)}")
            check_no_connection(sock, name + ".lua --options-json")
    finally:
        sock.close()


NEW_SCENARIO = """-- decode.lua of a test: a scenario with options sm-suite never heard of.
package.path = %(lua)s .. "/?.lua;" .. package.path
local run = require "sm.run"
run.scenario({
  name = "decode",
  summary = "a greeting to each endpoint, --greetings times",
  usage = "wrk -t1 -c1 -d1h -s decode.lua URL -- --endpoint NAME",
  options = {
    { name = "--greeting", arg = "TEXT", type = "string", default = "hello", help = "what to say" },
    { name = "--greetings", arg = "N", type = "int", min = 1, default = 2, help = "how often" },
  },
  settings = function(o) return { { "greeting", o.greeting }, { "greetings", o.greetings } } end,
  plan = function(o, ctx)
    local items = {}
    for i = 0, o.greetings - 1 do
      for _, side in ipairs(run.order(ctx.sides, i)) do
        items[#items + 1] = { side = side, batch = i, max_tokens = 8, temperature = 0,
          prompt = o.greeting }
      end
    end
    return { { items = items } }
  end,
})
"""


def case_new_option():
    """An option that only a scenario knows (in a folder given with --scenario-dir):
    sm-suite accepts it, checks its type from the scenario's own spec, and passes it to
    wrk; the scenario gets it in a real run."""
    tmp = sl.tempdir("suite-newopt-")
    scen = os.path.join(tmp, "scen")
    os.makedirs(scen)
    with open(os.path.join(scen, "decode.lua"), "w") as f:
        f.write(NEW_SCENARIO % {"lua": json.dumps(os.path.join(sl.ROOT, "lua"))})
    e = sl.env(tmp)
    base = ["--scenario-dir", scen, "--scenarios", "decode", "--region", "us-east-1"] + SIDES
    p = sl.suite(base + ["--greetings", "3", "--decode-greeting", "hi there", "--dry-run"], e, tmp)
    check(p.returncode == 0, f"exit {p.returncode}\n{p.stderr}")
    cmd = [shlex.split(line) for line in p.stdout.splitlines() if not line.startswith("#")][0]
    words = cmd[cmd.index("--") + 1:]
    check(words[-4:] == ["--greetings", "3", "--greeting", "hi there"], str(words))
    check(cmd[cmd.index("-s") + 1] == os.path.join(scen, "decode.lua"), str(cmd))
    for value, want in (("x", "--greetings wants a whole number >= 1, got 'x'"),
                        ("0", "--greetings wants a whole number >= 1, got '0'")):
        p = sl.suite(base + ["--greetings", value, "--dry-run"], e, tmp)
        check(p.returncode == 2 and p.stderr == "sm-suite: " + want + "\n" and not p.stdout,
              f"--greetings {value}: exit {p.returncode}\n{p.stderr}")
    p = sl.suite(base + ["--greeting", "", "--dry-run"], e, tmp)
    check(p.returncode == 2 and p.stderr == "sm-suite: --greeting wants a value\n", p.stderr)
    p = sl.suite(base + ["--repeats", "3", "--dry-run"], e, tmp)
    check(p.returncode == 2 and p.stderr == "sm-suite: unknown option --repeats: decode, which "
          "this suite runs, does not take it (see sm-suite --help)\n", p.stderr)

    emu = sl.start_emulator(ARTICLE_ENDPOINTS + ["--time-scale", "50"], e)
    try:
        p = sl.suite(base + ["--url", emu.url, "--time-scale", "50", "--greetings", "3",
                             "--greeting", "hi", "--out", "run"], e, tmp)
        check(p.returncode == 0, f"exit {p.returncode}\n{p.stderr}")
        m = sl.load(os.path.join(tmp, "run", "manifest.json"))
        check(m["steps"][0]["command"][-4:] == ["--greetings", "3", "--greeting", "hi"],
              str(m["steps"][0]["command"]))
        for label in ("bf16", "qat"):
            res = sl.load(os.path.join(tmp, "run", label, "decode.json"))
            check(res["settings"] == {"greeting": "hi", "greetings": 3}, str(res["settings"]))
            check(res["counts"]["ok"] == 3 and not res["partial"], str(res["counts"]))
        got = {k: v["requests"] for k, v in emu.stats()["endpoints"].items()}
        check(got == {"gemma-4-e2b": 3, "gemma-4-e2b-qat": 3}, f"the emulator got {got}")
        sl.check_no_secrets([("stdout", p.stdout), ("stderr", p.stderr), os.path.join(tmp, "run")])
    finally:
        emu.stop()


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    sys.exit(sl.run_cases(CASES, sys.argv[1:]))
