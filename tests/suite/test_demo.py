#!/usr/bin/python3
"""scripts/demo itself, on the build under test (--no-setup --build): its table must
reproduce the article's figures (tests/data/article-2026-09-25.json) within 2%,
it must say the run was time-scaled and where the report and chart are, and it must
stop the emulator when done and on Ctrl-C.

    test_demo.py table        the whole demo (--time-scale 10, as the README's command)
    test_demo.py interrupt    Ctrl-C to the demo's process group in the middle

Environment: see suitelib.py."""
import json
import os
import re
import signal
import subprocess
import sys

import suitelib as sl
from suitelib import check

TOLERANCE = 0.02
DEMO = os.path.join(sl.ROOT, "scripts", "demo")


def demo_env(tmp):
    """The test's environment without AWS settings; TMPDIR inside the test's folder, so
    that what the demo starts can be found by its path."""
    e = {k: v for k, v in sl.env(tmp).items() if not k.startswith("AWS_")}
    e["TMPDIR"] = os.path.join(tmp, "tmpdir")
    os.makedirs(e["TMPDIR"])
    return e


def processes_under(path):
    """Pids of the processes whose command line names something under path."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if path.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


def check_stopped(e):
    """The emulator is gone and the demo's temporary folder removed."""
    check(processes_under(e["TMPDIR"]) == [], "a process the demo started still runs")
    check(os.listdir(e["TMPDIR"]) == [], f"the demo left {os.listdir(e['TMPDIR'])}")


def table_rows(text):
    """measurement -> the cells of its first row whose cells are plain values."""
    rows = {}
    for line in text.splitlines():
        cols = re.split(r"\s{2,}", line.strip())
        if len(cols) < 3 or not re.fullmatch(r"[a-z][a-z0-9_]+", cols[0]) or cols[0] in rows:
            continue
        if all(re.fullmatch(r"-?[0-9][0-9.,]*x?|[0-9]+/[0-9]+|None|[\w-]+", c) for c in cols[1:]):
            rows[cols[0]] = cols[1:]
    return rows


def near(cell, want, what):
    """A printed number within TOLERANCE of want, allowing for its printed rounding."""
    digits = len(cell.split(".")[1]) if "." in cell else 0
    got = float(cell.replace(",", ""))
    check(abs(got - want) <= TOLERANCE * abs(want) + 0.5 * 10 ** -digits,
          f"{what}: {cell}, the article {want}")


def check_table(out, article):
    res, ratios = article["results"], article["results"]["ratios_qat_over_bf16"]
    b, q = res["bf16"], res["qat"]
    rows = table_rows(out)
    want = {
        "weights_gib": (b["weights_gib"], q["weights_gib"], ratios["weights"]),
        "kv_cache_tokens": (b["kv_cache_tokens"], q["kv_cache_tokens"], ratios["kv_cache"]),
        "load_seconds": (b["load_seconds"], q["load_seconds"], None),
        "decode_tokens_per_second": (b["decode_tokens_per_second"], q["decode_tokens_per_second"],
                                     ratios["decode"]),
        "per_call_fixed_cost_seconds": (b["per_call_fixed_cost_seconds"],
                                        q["per_call_fixed_cost_seconds"], None),
    }
    price = res["price"]["usd_per_hour"]
    for c in ("1", "4", "16"):
        bt, qt = b["load_tokens_per_second"][c], q["load_tokens_per_second"][c]
        want[f"load_c{c}_tokens_per_second"] = (bt, qt, ratios["load_c" + c])
        want[f"cost_c{c}_usd_per_million_tokens"] = (price / (bt * 3600) * 1e6,
                                                     price / (qt * 3600) * 1e6, None)
    for name, (wb, wq, wr) in want.items():
        check(name in rows, f"the table has no {name} row:\n{out}")
        near(rows[name][0], wb, name + " bf16")
        near(rows[name][1], wq, name + " qat")
        if wr is not None:
            near(rows[name][2], wr, name + " ratio")
    check(rows["quality_correct"][:2] == ["37/40", "37/40"], f"quality {rows['quality_correct']}")
    ident = article["results"]["identical_answers"]
    check(f"identical answers: {ident['count']}/{ident['total']}" in out, "identical answers")
    check(rows["max_concurrency"][:2] == [f"{b['max_concurrency_at_8192']}x",
                                          f"{q['max_concurrency_at_8192']}x"], "max concurrency")
    check(rows["quantization"][:2] == ["None", q["quantization"]], "quantization")
    dis = out[out.index("Disagreements ("):].split("\n\n")[0].splitlines()
    check(dis[0] == "Disagreements (5 of 40 questions)", dis[0])
    got = [re.split(r"\s{2,}", line.strip())[:4] for line in dis[3:]
           if len(re.split(r"\s{2,}", line.strip())) == 5]
    check(got == [[d["id"], d["expected"], d["bf16"], d["qat"]]
                  for d in article["results"]["disagreements"]], f"disagreements {got}")


def case_table():
    tmp = sl.tempdir("suite-demo-")
    e = demo_env(tmp)
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                           "article-2026-09-25.json")) as f:
        article = json.load(f)
    run = os.path.join(tmp, "run")
    p = subprocess.run([DEMO, "--no-setup", "--build", os.environ["SUITE_BUILD"], "--time-scale",
                        "10", "--out", run], env=e, cwd=tmp, capture_output=True, text=True,
                       timeout=sl.TIMEOUT)
    check(p.returncode == 0, f"exit {p.returncode}\n{p.stderr}")
    check_stopped(e)
    check_table(p.stdout, article)
    check("both sides ran 10 times faster than real" in p.stdout, "the table's time-scale note")
    check("sm-suite: time-scaled: the server runs 10 times faster than real time" in p.stderr,
          "sm-suite's time-scale note")
    check(f"demo: the Markdown report is {run}/report.md, the chart {run}/chart.svg." in p.stderr,
          "where the report and the chart are")
    for name in ("report.md", "chart.svg", "report.txt", "report.json"):
        check(os.path.getsize(os.path.join(run, name)) > 0, name)
    check(re.search(r"demo: done in \d+ s\.", p.stderr), "the demo's time")
    sl.check_no_secrets([("stdout", p.stdout), ("stderr", p.stderr), run])


def case_interrupt():
    tmp = sl.tempdir("suite-demo-int-")
    e = demo_env(tmp)
    run = os.path.join(tmp, "run")
    proc = subprocess.Popen([DEMO, "--no-setup", "--build", os.environ["SUITE_BUILD"],
                             "--time-scale", "20", "--out", run], env=e, cwd=tmp, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    seen = []
    for line in proc.stderr:  # until a reply is in
        seen.append(line)
        if re.match(r"sm-suite: \[1/5\] decode: [1-9]\d*/20 requests", line):
            break
    check(processes_under(e["TMPDIR"]) != [], "the emulator does not run")
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
    out, err = proc.communicate(timeout=sl.TIMEOUT)
    err = "".join(seen) + err
    check(proc.returncode == 130, f"exit {proc.returncode}\n{err}")
    check("demo: interrupted; the emulator is stopped." in err, err)
    check_stopped(e)
    for label in ("bf16", "qat"):
        res = sl.load(os.path.join(run, label, "decode.json"))
        check(res["partial"] and res["partial_reason"] == "interrupted", f"{label}: not partial")
        check(res["counts"]["sent"] == len(res["records"]), f"{label}: counts")


CASES = {"table": case_table, "interrupt": case_interrupt}

if __name__ == "__main__":
    sys.exit(sl.run_cases(CASES, sys.argv[1:]))
