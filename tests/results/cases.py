#!/usr/bin/python3
"""The sm-compare cases: one table row per behaviour, run one at a time by ctest.

    cases.py SM_COMPARE FIXTURES GOLDEN CASE      run one case
    cases.py SM_COMPARE FIXTURES GOLDEN --update  print how every golden file would change
    cases.py SM_COMPARE FIXTURES GOLDEN --update --yes-i-reviewed
                                                  rewrite the golden files (after reading
                                                  the diff the command above prints)
    cases.py --list                               the case names (for CMake)

Golden files change only through a reviewed diff: --update alone changes nothing.

sm-compare runs in FIXTURES (made by make_fixtures.py) with relative paths, so
the outputs do not depend on where the build lives. A case checks the exit
code, the exact standard error, byte-for-byte golden files, and facts that must
hold whatever the golden files say (check functions).
"""

import base64
import difflib
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

BIN, FIXTURES, GOLDEN = (sys.argv + ["", "", ""])[1:4]
ARTICLE = ["article/measure-gemma-4-e2b.json", "article/measure-gemma-4-e2b-qat.json"]
NATIVE = ["native/bf16", "native/qat", "--price-per-hour", "1.1267"]
KNOWN = ["known/decode-slow.json", "known/decode-fast.json"]
SCALED = ["scaled/decode-slow.json", "scaled/decode-fast.json"]


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


def run(args):
    p = subprocess.run([BIN] + args, cwd=FIXTURES, capture_output=True, timeout=60)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def near(got, want, tol=1e-9):
    return got is not None and abs(got - want) <= tol * max(1.0, abs(want))


def as_json(out):
    return json.loads(out.decode("utf-8"))


def check_article(out, _):
    doc = as_json(out)
    rows = doc["rows"]
    want = {"decode_tokens_per_second": 2.05, "load_c1_tokens_per_second": 1.87,
            "load_c4_tokens_per_second": 1.92, "load_c16_tokens_per_second": 1.74,
            "weights_gib": 0.82, "kv_cache_tokens": 1.2}
    for name, ratio in want.items():
        expect(round(rows[name][2], 2) == ratio and rows[name][2] != ratio,
               "%s ratio %r, want %r at full precision" % (name, rows[name][2], ratio))
    expect(rows["weights_gib"][:2] == [9.75, 8.01], "weights %r" % rows["weights_gib"])
    expect(rows["kv_cache_tokens"][:2] == [723484, 867999], "kv %r" % rows["kv_cache_tokens"])
    expect(rows["decode_tokens_per_second"][:2] == [51.3, 105.1], "decode values")
    expect(rows["load_c16_tokens_per_second"][:2] == [619.1, 1077.25], "c16 values")
    expect(rows["quality_correct"] == [37, 37, None], "quality %r" % rows["quality_correct"])
    expect(rows["load_seconds"] == [82.751806, 66.190265, None], "load seconds")
    expect(rows["server_peak_tokens_per_second"] == [409.6, 716.8, 1.75],
           "compare.py's server_throughput_during_load %r" % rows.get("server_peak_tokens_per_second"))
    expect(doc["identical_answers"] == {"count": 35, "total": 40, "asked": 40}, "identical answers")
    expect(all(v[k] is None for v in doc["intervals"]["rows"].values()
               for k in ("baseline", "candidate", "ratio")), "compare.py files got intervals")
    expect(doc["columns"] == ["gemma-4-e2b", "gemma-4-e2b-qat",
                              "gemma-4-e2b-qat / gemma-4-e2b"], "columns %r" % doc["columns"])
    got = [(d["id"], d["expected"], d["gemma-4-e2b"], d["gemma-4-e2b-qat"])
           for d in doc["disagreements"]]
    expect(got == [("add-4", "926", "1026", "926"), ("add-7", "355", "355", "655"),
                   ("add-8", "819", "829", "819"), ("add-9", "-275", "-275", "-285"),
                   ("add-14", "948", "918", "1010")], "disagreements %r" % got)
    kinds = doc["quality_by_kind"]["gemma-4-e2b-qat"]
    expect(kinds["add"] == {"correct": 12, "total": 15, "answered": 15}, "by kind %r" % kinds)
    expect(doc["mcnemar"]["p"] == 1, "McNemar p %r" % doc["mcnemar"])


def near_all(got, want, tol=1e-6):
    return all(near(g, w, tol) for g, w in zip(got, want)) and len(got) == len(want)


def check_known(out, _):
    doc = as_json(out)
    dec = doc["decode"]
    for got, want in ((doc["rows"]["decode_tokens_per_second"], [50, 100, 2]),
                      (dec["per_call_fixed_cost_seconds"], [0.5, 0.5, 1]),
                      (dec["least_squares_tokens_per_second"], [50, 100, 2]),
                      (dec["least_squares_fixed_cost_seconds"], [0.5, 0.5, 1])):
        expect(near_all(got, want), "%r, want %r" % (got, want))
    iv = doc["intervals"]["rows"]["decode_tokens_per_second"]
    expect(near_all(iv["baseline"], [50, 50]) and near_all(iv["ratio"], [2, 2]),
           "interval %r" % iv)


def check_scaled(out, _):
    known = as_json(run(["--format", "json"] + KNOWN)[1])
    doc = as_json(out)
    for key in ("rows", "decode"):
        for name, got in doc[key].items():
            expect(near_all([x for x in got if x is not None],
                            [x for x in known[key][name] if x is not None]),
                   "%s %s differ from the unscaled run" % (key, name))
    expect("10 times faster than real time" in doc["time_scale"], doc["time_scale"])
    # the scaled run's intervals hold the unscaled ones and their bias bound (10 ms per time)
    for side in ("baseline", "candidate", "ratio"):
        lo, hi = doc["intervals"]["rows"]["decode_tokens_per_second"][side]
        klo, khi = known["intervals"]["rows"]["decode_tokens_per_second"][side]
        expect(lo < klo <= khi < hi, "scaled %s interval %r, unscaled %r" % (side, [lo, hi],
                                                                             [klo, khi]))
    expect(any("time-scaled runs" in w and "10 ms" in w for w in doc["warnings"]),
           "no bias bound among the warnings %r" % doc["warnings"])


def check_journal(out, _, cut=True):
    doc = as_json(out)
    req = [r for r in doc["requests"] if r["side"] == "candidate"][0]
    expect((req["sent"], req["ok"], req["failed"]) == (7, 6, 1), "requests %r" % req)
    expect("token_mismatch" in req["errors"], "errors %r" % req["errors"])
    expect(any("partial run" in w for w in doc["warnings"]), "no partial warning")
    expect(any("last line was incomplete" in w for w in doc["warnings"]) == cut,
           "cut-line warning %s: %r" % ("missing" if cut else "for no cut line", doc["warnings"]))


def check_padded_journal(out, arg):
    check_journal(out, arg, cut=False)


def check_pooled(out, _):
    doc = as_json(out)
    runs = [(r["side"], r["value"]) for r in doc["runs"]]
    expect(len(runs) == 2 and all(s == "baseline" for s, _ in runs), "runs %r" % runs)
    vals = sorted(v for _, v in runs)
    expect(abs(vals[0] - 51.3) < 0.05 and abs(vals[1] - 51.5) < 0.05, "run rates %r" % vals)


def check_native(out, _):
    doc = as_json(out)
    rows = doc["rows"]
    expect(round(rows["decode_tokens_per_second"][2], 2) == 2.05, "decode %r" % rows)
    c4 = [r for r in doc["requests"] if r["side"] == "candidate" and r["measurement"] == "load c4"]
    expect(c4[0]["failed"] == 1 and "ThrottlingException" in c4[0]["errors"], "c4 %r" % c4)
    # the c4 batch with the failed request is left out: the figure is the other batch's
    expect(near(rows["load_c4_tokens_per_second"][1], 328.6, 1e-3), "qat c4 %r" % rows)
    expect(doc["requests_per_figure"]["load_c4_tokens_per_second"]["candidate"] ==
           {"ok": 7, "sent": 8}, "c4 requests %r" % doc["requests_per_figure"])
    cost = doc["cost"]["rows"]
    expect([round(x, 2) for x in cost["cost_c1_usd_per_million_tokens"][:2]] == [6.86, 3.67],
           "cost %r" % cost)
    for key in ("latency_seconds", "intervals"):
        expect(doc[key], "no %s" % key)
    expect("streaming_seconds" not in doc, "wrk's files gave streaming figures")


def check_not_twice(out, _):
    doc = as_json(out)
    base = [r for r in doc["requests"] if r["side"] == "baseline"][0]
    expect(base["sent"] == 10, "baseline requests %r: the journal was read too" % base)
    expect(not any("partial" in w for w in doc["warnings"]), "warnings %r" % doc["warnings"])


def check_twin_left_out(out, _):
    doc = as_json(out)
    base = [r for r in doc["requests"] if r["side"] == "baseline"][0]
    expect(base["sent"] == 10, "baseline requests %r" % base)
    expect(any("the same run as native/qat/decode-qat.json" in w for w in doc["warnings"]),
           "warnings %r" % doc["warnings"])


def check_unscored(out, _):
    doc = as_json(out)
    expect(all(d["right"] == "unknown" for d in doc["disagreements"]), "right is known")
    expect("p" not in doc["mcnemar"] and "n/a" in doc["mcnemar"]["text"], "%r" % doc["mcnemar"])
    expect(any("not scored" in w for w in doc["warnings"]), "warnings %r" % doc["warnings"])


def check_old_vs_new(out, _):
    doc = as_json(out)
    rows = doc["rows"]
    expect([round(x, 2) for x in rows["decode_tokens_per_second"]] == [51.3, 105.1, 2.05],
           "decode %r" % rows)
    expect(round(rows["load_c16_tokens_per_second"][2], 2) == 1.74, "c16 %r" % rows)
    expect(doc["identical_answers"]["count"] == 35, "identical answers")
    expect(any("different clients" in w and "compare.py via aws CLI" in w and
               "wrk-sagemaker 0.1.0" in w for w in doc["warnings"]),
           "no warning about the clients: %r" % doc["warnings"])


def check_steady(out, _):
    doc = as_json(out)
    expect(near_all(doc["rows"]["load_c4_tokens_per_second"], [400, 800, 2]),
           "steady %r" % doc["rows"])
    iv = doc["intervals"]["rows"]["load_c4_tokens_per_second"]
    expect(iv["ratio"] is None and iv["no_interval"]["baseline"] == "n = 1: no interval",
           "an interval from one window: %r" % iv)
    lat = doc["latency_seconds"]["latency_c4_p50_seconds"]
    expect(near_all(lat, [2.56, 1.28, 0.5]), "latency %r" % lat)


def check_same_twice(out, args):
    expect(run(args)[1] == out, "a second run with the same seed differs")


def check_no_nan(out, _):
    text = out.decode("utf-8").lower()
    expect(not re.search(r"\b-?(nan|inf|infinity)\b", text), "NaN or inf in output")


FAULTS = ["faults/a", "faults/b"]
EVIL = ["-b", "evil/decode-escapes.json", "-b", "native/qat/quiz-qat.json", "-c",
        "native/qat/decode-qat.json", "-c", "evil/quiz-escapes.json"]
MARKUP = ["-b", "evil/markup-decode.json", "-b", "native/qat/quiz-qat.json", "-c",
          "native/qat/decode-qat.json", "-c", "evil/markup-quiz.json"]
PRECISE = ["precise/slow", "precise/fast"]
GUARD_SUFFIX = " (--allow-mixed compares them anyway)\n"


def check_faults(out, _):
    """Failed requests: their batches left out (never a 0 that enters the median), every
    figure with its requests, the failure rates among the warnings and in the verdict."""
    doc = as_json(out)
    rows = doc["rows"]
    # a's c1 batches without a failure: 40.0, 39.8, 40.1, 39.9, 40.3, 39.7, 40.0 (median 40.0)
    expect(near(rows["load_c1_tokens_per_second"][0], 40.0, 1e-4), "a c1 %r" % rows)
    expect(near(rows["load_c1_tokens_per_second"][2], 1.0, 1e-4), "c1 ratio %r" % rows)
    rpf = doc["requests_per_figure"]
    expect(rpf["load_c1_tokens_per_second"]["baseline"] == {"ok": 7, "sent": 8} and
           rpf["decode_tokens_per_second"]["baseline"] == {"ok": 9, "sent": 10} and
           rpf["quality_correct"]["baseline"] == {"ok": 38, "sent": 40}, "requests %r" % rpf)
    w = doc["warnings"]
    for want in ("a load c1: 1 of 8 requests failed (12.5%): ServiceUnavailable 1; 1 of 8 "
                 "batches had a failure and are left out",
                 "a decode: 1 of 10 requests failed (10.0%): ThrottlingException 1",
                 "b load c4: 2 of 32 requests failed (6.2%)"):
        expect(any(x.startswith(want) for x in w), "no warning %r in %r" % (want, w))
    expect("Failures: 5.6% of a's requests (5 of 90) and 2.2% of b's (2 of 90) failed" in
           doc["verdict"], "verdict %r" % doc["verdict"])


def check_warnings_everywhere(out, args):
    """The Warnings section is in every format: text, Markdown, JSON, CSV (comments)."""
    want = "a load c1: 1 of 8 requests failed (12.5%)"
    text = out.decode()
    expect("\nWarnings\n--------\n" in text and want in text, "text warnings")
    md = run(["-f", "markdown"] + FAULTS)[1].decode()
    expect("## Warnings" in md and want in md, "markdown warnings")
    csv = run(["-f", "csv"] + FAULTS)
    expect(csv[1].decode().startswith("# warning: ") and want in csv[1].decode(), "csv warnings")
    expect(any(want in x for x in as_json(run(["-f", "json"] + FAULTS)[1])["warnings"]),
           "json warnings")


def check_unanswered(out, _):
    text = " ".join(out.decode().split())
    for want in ("35/38 answered (2 unanswered)",
                 "identical answers: 38/38 of the questions both sides answered (40 asked)",
                 "Quiz: 37/40 answered against 35/38 answered (0 and 2 unanswered: their "
                 "requests failed); of the 38 questions both answered, 38 answers identical"):
        expect(want in text, "no %r in:\n%s" % (want, text))
    doc = as_json(run(["-f", "json"] + FAULTS)[1])
    expect(doc["quality"]["baseline"] == {"correct": 35, "answered": 38, "unanswered": 2,
                                          "questions": 40}, "quality %r" % doc["quality"])
    expect(doc["identical_answers"] == {"count": 38, "total": 38, "asked": 40},
           "identical %r" % doc["identical_answers"])


def check_precise(out, _):
    """Ratios of 1.004 show as such; the intervals show that they exclude 1."""
    text = " ".join(out.decode().split())
    for want in ("decode_tokens_per_second 50 50.2 1.004",
                 "1.003 to 1.005", "1.0035 to 1.0045",
                 "fast decodes 1.004x as fast as slow (95% interval 1.003 to 1.005)",
                 "serves 1.0040x the tokens per second at every level (c1, c4)"):
        expect(want in text, "no %r in:\n%s" % (want, text))
    doc = as_json(run(["-f", "json"] + PRECISE)[1])
    r = doc["rows"]["decode_tokens_per_second"][2]
    expect(abs(r - 1.004) < 1e-4 and r != round(r, 3), "decode ratio %r is rounded" % r)
    lo, hi = doc["intervals"]["rows"]["load_c1_tokens_per_second"]["ratio"]
    expect(1 < lo < 1.004 < hi, "c1 ratio interval %r" % [lo, hi])


def check_xcheck(out, _):
    doc = as_json(out)
    rows = {(x["side"], x["concurrency"]): x for x in doc["server_log"]}
    a, b = rows[("baseline", 4)], rows[("candidate", 4)]
    expect(not a["differs"] and abs(a["server_tokens_per_second"] /
                                    a["client_tokens_per_second"] - 1) < 0.01, "a %r" % a)
    expect(b["differs"] and abs(b["server_tokens_per_second"] /
                                b["client_tokens_per_second"] - 1.3) < 0.01, "b %r" % b)
    expect(a["log_lines"] >= 10, "a used %r lines" % a["log_lines"])
    expect(sum("the server's log says" in w for w in doc["warnings"]) == 1,
           "warnings %r" % doc["warnings"])


def check_escaped(out, args):
    """No control character from a file reaches any output; each shows as an escape."""
    for fmt in ("text", "markdown", "csv"):
        got = out if fmt == "text" else run(["-f", fmt] + args)[1]
        expect(b"\x1b" not in got, "%s output holds an ESC byte" % fmt)
        expect(b"\\x1b" in got, "%s output does not show the escape" % fmt)
    md = run(["-f", "markdown"] + args)[1].decode()
    expect("34\\|&lt;b&gt;\\*x\\*&lt;/b&gt;" in md, "markdown markup from a reply")
    with tempfile.TemporaryDirectory() as tmp:
        svg = os.path.join(tmp, "x.svg")
        run(["--svg", svg] + args)
        expect(b"\x1b" not in open(svg, "rb").read(), "SVG holds an ESC byte")
    js = run(["-f", "json"] + args)[1]
    expect(b"\x1b" not in js and "Boom\x1b[31mred" in as_json(js)["requests"][0]["errors"],
           "JSON keeps the code, escaped as JSON does")


STREAM = ["stream/a", "stream/b"]
CLIMIT = ["climit/bf16", "climit/qat"]


def stream_rows(doc):
    return doc["streaming_seconds"]["rows"]


def check_stream(out, _):
    """a and b streamed: b's steps are half as long (its chunks of one and two tokens count
    per token), the first token as early; medians and ITL's p90 get intervals, the tails of
    requests and every p99 none, each with its reason."""
    doc = as_json(out)
    st = doc["streaming_seconds"]
    expect(st["mixed"] is False, "mixed %r" % st["mixed"])
    rows = st["rows"]
    for what in ("decode", "c1", "c4"):
        for metric, ratio in (("itl", 0.5), ("tpot", 0.5), ("ttft", 1.0)):
            r = rows["%s_%s_p50_seconds" % (metric, what)]
            expect(near(r[2], ratio, 2e-3), "%s %s ratio %r" % (metric, what, r))
        for metric in ("ttft", "itl", "tpot") + (("e2e",) if what != "decode" else ()):
            for side in (0, 1):
                p = [rows["%s_%s_p%d_seconds" % (metric, what, q)][side] for q in (50, 90, 99)]
                expect(None not in p and p[0] <= p[1] <= p[2], "%s %s %r" % (metric, what, p))
    expect("e2e_decode_p50_seconds" not in rows, "e2e of decode (its lengths differ)")
    iv = doc["intervals"]["rows"]
    lo, hi = iv["itl_c1_p50_seconds"]["ratio"]
    expect(lo <= 0.5 <= hi and hi - lo < 0.01, "itl c1 ratio interval %r" % [lo, hi])
    expect(iv["itl_c4_p90_seconds"]["ratio"] is not None, "no interval for ITL's p90")
    why = iv["itl_c4_p99_seconds"]["no_interval"]
    expect(why["ratio"] == "no interval for a p99 (a tail needs more batches)", "p99 %r" % why)
    why = iv["ttft_c4_p90_seconds"]["no_interval"]
    expect("p90 of requests" in why["baseline"], "ttft p90 %r" % why)
    expect(iv["ttft_decode_p50_seconds"]["samples"] == [10, 10], "decode: a cluster a request")
    sm = st["samples"]
    expect(sm["itl_c1_p50_seconds"]["baseline"] == {"requests": 8, "tokens": 248} and
           sm["itl_c1_p50_seconds"]["candidate"] == {"requests": 8, "tokens": 248},
           "itl samples %r" % sm["itl_c1_p50_seconds"])
    expect(sm["ttft_c4_p50_seconds"]["candidate"] == {"requests": 32}, "ttft samples")
    expect(not any("median ITL" in w for w in doc["warnings"]), "ITL check fired: %r" %
           doc["warnings"])


def check_stream_text(out, _):
    text = out.decode()
    for want in ("Streaming (seconds; successful requests)",
                 "itl_c1_p50_seconds         0.02    0.01  0.5000   248 of 8   248 of 8",
                 "tpot: (end - first chunk) / (completion tokens - 1)"):
        expect(want in text, "no %r in:\n%s" % (want, text))


def check_svg_panels(out, args):
    svg = open([a for a in args if a.endswith(".svg")][0]).read()
    for want in ("Time to first token, seconds", "Inter-token latency per token, seconds",
                 ">c4</text>", ">decode</text>", ">0.500x</text>"):
        expect(want in svg, "no %r in the SVG" % want)


def check_itl_warns(out, _):
    warned = [w for w in as_json(out)["warnings"] if "median ITL" in w]
    expect(warned == ["itloff c1 (sweep): 1 / median ITL is 47.61 tokens/s (n = 248 tokens of "
                      "8 requests), the decode rate from length differencing 50 tokens/s "
                      "(n = 5 and 5 replies of 16 and 64 tokens): they differ by 4.8%, more "
                      "than 2%"], "ITL check warnings %r" % warned)


def check_mixed(out, args):
    doc = as_json(out)
    st = doc["streaming_seconds"]
    expect(st["mixed"] is True, "not said to be mixed")
    w = doc["warnings"]
    expect(any(x.startswith("MIXED COMPARISON: one side streamed its replies") for x in w) and
           any("did not (wrk): TTFT and ITL exist only for streamed replies" in x for x in w),
           "warnings %r" % w)
    expect(not any("different clients" in x for x in w), "the clients warned twice: %r" % w)
    rows = st["rows"]
    expect(rows["ttft_c1_p50_seconds"][0] is None and rows["ttft_c1_p50_seconds"][1] > 0,
           "ttft %r" % rows["ttft_c1_p50_seconds"])
    expect("not streamed" in doc["not_available"]["ttft_c1_p50_seconds"]["baseline"],
           "reason %r" % doc["not_available"]["ttft_c1_p50_seconds"])
    e2e = rows["e2e_c4_p50_seconds"]
    expect(None not in e2e and near(e2e[2], e2e[1] / e2e[0]), "e2e %r" % e2e)
    text = run([a for a in args if a not in ("-f", "json")])[1].decode()
    expect("MIXED: one side did not stream its replies" in text, "no MIXED in the text")


OPEN = ["--slo", "ttft:p90:0.6", "--price-per-hour", "1.1267", "open/a", "open/b"]


def quantile(xs, q):
    """Type 7: linear interpolation between closest ranks (estim_quantile)."""
    xs = sorted(xs)
    h = q * (len(xs) - 1)
    lo = int(h)
    return xs[lo] + (h - lo) * (xs[min(lo + 1, len(xs) - 1)] - xs[lo])


def open_rounds(side):
    """The fixture's rounds, recomputed from its records: per asked rate the records."""
    doc = json.load(open(os.path.join(FIXTURES, "open", side, "rate.json")))
    rates = doc["settings"]["rates"]
    return {rates[b]: [r for r in doc["records"] if r["batch"] == b] for b in range(len(rates))}


def crossing(rounds, metric, q, bound):
    """The capacity by the definition: last rate held, first failed, linear in between."""
    rates = sorted(rounds)
    vals = [quantile([metric(r) for r in rounds[x] if r["ok"]], q) for x in rates]
    errs = [sum(not r["ok"] for r in rounds[x]) / len(rounds[x]) for x in rates]
    held = [v <= bound and e <= 0.01 for v, e in zip(vals, errs)]
    f = held.index(False)
    cands = []
    if vals[f] > bound:
        cands.append(rates[f - 1] + (rates[f] - rates[f - 1]) * (bound - vals[f - 1]) /
                     (vals[f] - vals[f - 1]))
    if errs[f] > 0.01:
        cands.append(rates[f - 1] + (rates[f] - rates[f - 1]) * (0.01 - errs[f - 1]) /
                     (errs[f] - errs[f - 1]))
    return min(cands), rates[f - 1], rates[f]


def ttft(r):
    return (r["t_first_token_us"] - r["t_intended_us"]) / 1e6


def e2e(r):
    return (r["t_end_us"] - r["t_intended_us"]) / 1e6


def check_open(out, _):
    """Every figure of the open-loop JSON against the fixture's records: arrivals over the
    10 s of arrivals, completions over first intended start to last reply, late sends over
    1 ms, p90 TTFT from the intended start, each rate's verdict, the capacity crossed on the
    line between 2 and 4 requests/s, ">=" where every rate held, the ratio and the cost."""
    doc = as_json(out)
    ol = doc["open_loop"]
    expect(ol["slos"] == [{"slo": "ttft:p90", "metric": "ttft", "percentile": 90, "seconds": 0.6}]
           and ol["max_error_rate"] == 0.01 and ol["late_threshold_seconds"] == 0.001,
           "slos %r" % ol["slos"])
    expect(ol["settings"]["rates"] == [1, 2, 4] and ol["settings"]["arrival_seed"] == 1,
           "settings %r" % ol["settings"])
    a = open_rounds("a")
    pts = ol["sides"]["baseline"]["rates"]
    expect([p["rate"] for p in pts] == [1, 2, 4], "rates %r" % [p["rate"] for p in pts])
    for p in pts:
        recs = a[p["rate"]]
        ok = [r for r in recs if r["ok"]]
        span = (max(r["t_end_us"] for r in recs) - min(r["t_intended_us"] for r in recs)) / 1e6
        late = [r["t_start_us"] - r["t_intended_us"] for r in ok]
        want = {"sent": len(recs), "ok": len(ok), "failed": len(recs) - len(ok),
                "arrivals_per_second": len(recs) / 10, "completions_per_second": len(ok) / span,
                "tokens_per_second": 16 * len(ok) / span,
                "late_share": sum(x > 1000 for x in late) / len(ok),
                "late_p99_seconds": quantile(late, 0.99) / 1e6}
        for k, v in want.items():
            expect(near(p[k], v), "a at %g: %s %r, want %r" % (p["rate"], k, p[k], v))
        lat = p["latency_seconds"]
        for q in (50, 90, 99):
            expect(near(lat["ttft"]["p%d" % q], quantile([ttft(r) for r in ok], q / 100)) and
                   near(lat["e2e"]["p%d" % q], quantile([e2e(r) for r in ok], q / 100)),
                   "a at %g: latency %r" % (p["rate"], lat))
        expect(lat["itl"]["tokens"] == 15 * len(ok) and lat["ttft"]["requests"] == len(ok),
               "samples %r" % lat)
        held = p["rate"] < 4
        expect(p["slos"]["held"] == held and p["slos"]["checks"][0]["held"] == held and
               p["slos"]["checks"][1]["held"] == held, "verdict at %g: %r" % (p["rate"], p))
        expect(near(p["goodput_per_second"],
                    sum(ttft(r) <= 0.6 for r in ok) / span), "goodput %r" % p)
    cap, held, failed = crossing(a, ttft, 0.9, 0.6)
    ca = ol["sides"]["baseline"]["capacity"]
    expect(near(ca["requests_per_second"], cap) and ca["relation"] == "=" and
           ca["last_held"] == held == 2 and ca["first_failed"] == failed == 4 and
           ca["limited_by"] == "ttft:p90", "capacity a %r, want %r" % (ca, cap))
    expect(near(ca["usd_per_million_tokens"], 1.1267e6 / 3600 / (cap * 16)) and
           ca["usd_relation"] == "=", "cost %r" % ca)
    cb = ol["sides"]["candidate"]["capacity"]
    expect(cb["requests_per_second"] == 4 and cb["relation"] == ">=" and
           cb["first_failed"] is None and cb["usd_relation"] == "<=", "capacity b %r" % cb)
    ratio = ol["capacity_ratio"]
    expect(near(ratio["value"], 4 / cap) and ratio["relation"] == ">=", "ratio %r" % ratio)
    expect("at least 4 requests/s vs 2.49 for a (at least 1.61x)" in doc["verdict"],
           "verdict %r" % doc["verdict"])
    expect("open_loop" in doc and not any(k.startswith("rate_") for k in doc["not_available"]),
           "rate rows in not_available")


def check_open_text(out, _):
    text = out.decode()
    for want in ("Open-loop load (rate.lua)",
                 "SLOs, checked at each rate: p90 TTFT <= 0.6 s with at most 1% failed",
                 "a     4 [client-limited]          4    3.52    39/40  10.3%",
                 "- a: client-limited: 10% of sends >1 ms late",
                 "(at least 1.61x) (client-limited, so a figure of the client rather\nthan of "
                 "the server: a: 10% of sends >1 ms late)",
                 "failed: p90 ttft 0.940 s, 2.5% failed",
                 "a               2.49  held at 2, failed at 4       p90 TTFT <= 0.6 s",
                 "b               >= 4  held at every rate, up to 4",
                 "Capacity b / a: >= 1.61.", "No 95% interval"):
        expect(want in text, "no %r in:\n%s" % (want, text))


CLIMIT_QAT = "client CPU 97% (round 0); host CPU 8% stolen by its hypervisor (round 0)"


def check_climit(out, _):
    """qat's client ran at 97% CPU, and on a host whose hypervisor took 8% of its CPU in
    another run: every qat figure of the run is marked, with both whys; its c4 ITL, read
    in bursts, has no value; the verdict's ratio carries the caveat."""
    doc = as_json(out)
    lim = doc["client_limited"]
    expect(lim["baseline"] is None and lim["candidate"] == CLIMIT_QAT,
           "client_limited %r" % {k: lim[k] for k in ("baseline", "candidate")})
    fig = lim["figures"]
    for name in ("decode_tokens_per_second", "load_c4_tokens_per_second",
                 "itl_decode_p50_seconds", "ttft_c4_p50_seconds"):
        expect(fig.get(name) == {"baseline": None, "candidate": CLIMIT_QAT},
               "%s: %r" % (name, fig.get(name)))
    expect("quality_correct" not in fig and "weights_gib" not in fig, "a quiz or a fact marked")
    rows = doc["streaming_seconds"]["rows"]
    expect(rows["itl_c4_p50_seconds"][1] is None and rows["itl_c4_p50_seconds"][2] is None,
           "qat's c4 ITL has a value: %r" % rows["itl_c4_p50_seconds"])
    expect(rows["itl_c1_p50_seconds"][1] is not None, "c1 ITL lost")
    na = doc["not_available"]["itl_c4_p50_seconds"]
    expect("ITL not resolved: 62% of chunks read in bursts" in json.dumps(na), "why %r" % na)
    v = doc["verdict"]
    expect("decodes" in v and "(client-limited, so a figure of the client rather than of the "
           "server: qat: %s)" % CLIMIT_QAT in v, "verdict %r" % v)


def check_climit_facts(out, _):
    """The server's facts (its start-up log) are never the client's: not marked, even on
    a side whose client was limited."""
    doc = as_json(out)
    fig = doc["client_limited"]["figures"]
    for name in ("weights_gib", "kv_cache_tokens", "load_seconds"):
        expect(name not in fig, "%s marked client-limited: %r" % (name, fig.get(name)))
    expect("decode_tokens_per_second" in fig, "the measured figures are still marked")
    expect(doc["rows"]["kv_cache_tokens"][2] is not None, "qat's facts read: %r" % doc["rows"])


def check_climit_text(out, _):
    text = out.decode()
    flat = " ".join(text.split())  # the paragraphs are wrapped
    for want in ("[client-limited]", "Client-limited figures",
                 "- qat: client-limited: " + CLIMIT_QAT,
                 "ITL not resolved: 62% of chunks read in bursts",
                 "(client-limited, so a figure of the client rather than of the server: qat: "
                 + CLIMIT_QAT + ")"):
        expect(want in flat, "no %r in:\n%s" % (want, text))


def check_climit_csv(out, _):
    lines = {l.split(",", 1)[0]: l for l in out.decode().splitlines()}
    expect(lines["decode_tokens_per_second"].endswith(
        "candidate client-limited: " + CLIMIT_QAT), lines["decode_tokens_per_second"])
    expect("ITL not resolved: 62% of chunks read in bursts" in lines["itl_c4_p50_seconds"],
           lines["itl_c4_p50_seconds"])


def check_climit_md(out, _):
    text = out.decode()
    expect("\\[client-limited\\]" in text and "- qat: client-limited: client CPU 97%" in text,
           "markdown: %s" % text)


def check_open_svg(out, args):
    svg = open([a for a in args if a.endswith(".svg")][0]).read()
    for want in ("Latency against achieved rate: p90 TTFT from the intended start",
                 "stroke-dasharray", ">SLO 0.6 s</text>", "achieved rate: successful requests"):
        expect(want in svg, "no %r in the SVG" % want)
    expect(svg.count("<circle") == 6, "%d points, want 6" % svg.count("<circle"))


def ramp_rows(text, folder):
    """The Scaling table rows of the input in ramp/FOLDER (lists of cells) in the text report."""
    part = text.split("Scaling (ramp.lua)")[1].split(" (ramp/%s/ramp.json)" % folder)[1]
    rows = [l.split() for l in part.split("\n\n")[1].splitlines()[1:]]
    return rows[:2]


def check_ramp(out, _):
    """The Scaling section from the fixtures' definition: a side's capacity is its first
    sample (odd seconds) with two instances, its transition the 8/s requests from the
    change at 10 s until then, good only once the capacity came (TTFT 0.3 s) but for the
    first 8 after it for a (TTFT 1.2 s up to 14 s); its instance-hours are the samples'
    one instance until the capacity, two after, from -1 s to 21 s."""
    text = out.decode()
    for side, decision, capacity, good in (("a", "1", 5, 8), ("b", "0.5", 3, 8)):
        rows = ramp_rows(text, side)
        expect(rows[0][:4] == ["1", "0-10", "2", "1"] and rows[0][6] == "n/a"
               and rows[0][7] == "n/a" and rows[0][11] == "20", "%s piece 1: %r" % (side, rows[0]))
        sent = 8 * capacity
        want = ["2", "10-20", "8", "1", "->", "2", decision, str(capacity), str(sent),
                "%.1f%%" % (100.0 * good / sent)]
        expect(rows[1][:10] == want, "%s piece 2: %r, want %r" % (side, rows[1][:10], want))
        hours = ((10 + capacity) - (-1) + 2 * (21 - (10 + capacity))) / 3600
        want = "%s (ramp/%s/ramp.json): timeline %s.timeline.jsonl, 12 samples, 1 scaling " \
            "activity, %.4f instance-hours" % (side, side, side, hours)
        expect(want in " ".join(text.split()), "no %r in:\n%s" % (want, text))


def check_ramp_json(out, _):
    """The JSON's "scaling" from the fixtures' definition (as check_ramp)."""
    doc = as_json(out)["scaling"]
    for role, side, decision, capacity in (("baseline", "a", 1.0, 5), ("candidate", "b", 0.5, 3)):
        x = doc[role][0]
        expect(x["path"] == "ramp/%s/ramp.json" % side and x["timeline"] == "%s.timeline.jsonl"
               % side and x["samples"] == 12 and x["activities"] == 1 and x["sent"] == 100,
               "%s: %r" % (role, {k: v for k, v in x.items() if k != "steps"}))
        st = x["steps"][1]
        t, s = st["transition"], st["steady"]
        expect(st["decision_s"] == decision and st["capacity_s"] == capacity
               and st["instances_before"] == 1 and st["instances_most"] == 2
               and t["sent"] == 8 * capacity and t["good"] == 8 and t["seconds"] == capacity
               and near(t["goodput"], 8 / capacity) and s["sent"] == 80 - 8 * capacity
               and s["good"] == s["sent"] and t["refused"] == t["failed"] > 0
               and near(st["instance_hours"], (capacity + 2 * (10 - capacity)) / 3600),
               "%s step 2: %r" % (role, st))
        expect(x["steps"][0]["capacity_s"] is None and x["steps"][0]["transition"]["sent"] == 0,
               "%s step 1: %r" % (role, x["steps"][0]))


def check_ramp_cost(out, _):
    """With --price-per-hour, each side's cost is its instance-hours times the price, in
    the text and the JSON; without a price, the JSON's cost is null (check_ramp_json's
    run has none)."""
    text = " ".join(out.decode().split())
    doc = as_json(run(["-f", "json", "--price-per-hour", "1.5", "--slo", "ttft:p90:0.6",
                       "ramp/a", "ramp/b"])[1])["scaling"]
    plain = as_json(run(["-f", "json", "--slo", "ttft:p90:0.6", "ramp/a", "ramp/b"])[1])
    for role, side in (("baseline", "a"), ("candidate", "b")):
        x = doc[role][0]
        expect(near(x["cost_usd"], x["instance_hours"] * 1.5), "%s: %r" % (role, x))
        expect(plain["scaling"][role][0]["cost_usd"] is None, "a cost without a price")
        want = "%.4f instance-hours over the samples (%.4g USD at 1.5 USD per instance-hour)" \
            % (x["instance_hours"], x["instance_hours"] * 1.5)
        expect(want in text, "%s: no %r in:\n%s" % (side, want, text))


def check_ramp_untimed(out, _):
    text = out.decode()
    expect("ramp/untimed/ramp.json): no timeline (run the ramp under sm-timeline" in
           " ".join(text.split())
           and "the scaling goes without its timeline: cannot read the timeline "
           "ramp/untimed/gone.jsonl" in " ".join(text.split()),
           "untimed:\n%s" % text)
    rows = ramp_rows(text, "untimed")
    expect(rows[1][3:6] == ["n/a", "n/a", "n/a"] and rows[1][6] == "0" and rows[1][9] == "80",
           "untimed piece 2: %r" % rows[1])


def check_ramp_other(out, _):
    """A timeline beside the file (by the file name its settings give, whatever the folder
    before it) that samples another endpoint is left out with a warning."""
    text = " ".join(out.decode().split())
    expect("ramp/other/ramp.json: the timeline other.timeline.jsonl samples endpoint not-b, "
           "not this file's; the scaling goes without it" in text
           and "ramp/other/ramp.json): no timeline" in text, "other:\n%s" % out.decode())


def check_ramp_svg(out, args):
    svg = open([a for a in args if a.endswith(".svg")][0]).read()
    for want in ("Scaling of a under the ramp", "Scaling of b under the ramp",
                 "instances serving", "p90 TTFT from the intended start, seconds",
                 "offered rate, requests per second"):
        expect(want in svg, "no %r in the SVG" % want)


def check_ramp_cold(out, _):
    """The cold fixture's cold starts (make_fixtures.py, ramp/cold): 6 calls refused for no
    capacity from 0 s to the first served at 3 s, in piece 1; 4 from 19.5 s with none served
    after; the copies counted where a variant's instances are (0 -> 1, capacity at 3 s)."""
    text = out.decode()
    rows = ramp_rows(text, "cold")
    expect(rows[0][:7] == ["1", "0-10", "2", "0", "->", "1", "0.5"] and rows[0][7] == "3"
           and rows[0][-4:-1] == ["(0)", "6", "1"], "cold piece 1: %r" % rows[0])
    expect(rows[1][-4:-1] == ["(0)", "4", "1"], "cold piece 2: %r" % rows[1])
    flat = " ".join(text.split())
    for want in ("timeline cold.timeline.jsonl of inference component cold-ic",
                 "10 failed (0 refused, 10 for no capacity), 2 cold starts",
                 "cold start piece from s seconds refused 1 1 0 3 6 2 2 19.5 not served 4"):
        expect(want in flat, "no %r in:\n%s" % (want, text))


def check_ramp_cold_json(out, _):
    """The JSON's cold starts and no-capacity counts (as check_ramp_cold); a variant's
    timeline has none."""
    doc = as_json(out)["scaling"]
    x, a = doc["candidate"][0], doc["baseline"][0]
    expect(x["inference_component"] == "cold-ic" and x["no_capacity"] == 10
           and x["cold_starts"] == [
               {"piece": 1, "start_s": 0, "seconds": 3, "refused": 6},
               {"piece": 2, "start_s": 19.5, "seconds": None, "refused": 4}],
           "cold: %r" % {k: v for k, v in x.items() if k != "steps"})
    st = x["steps"]
    expect(st[0]["cold_starts"] == 1 and st[0]["instances_before"] == 0
           and st[0]["instances_most"] == 1 and st[0]["capacity_s"] == 3
           and st[0]["transition"]["no_capacity"] == 6 and st[1]["steady"]["no_capacity"] == 4,
           "cold steps: %r" % st)
    expect(a["inference_component"] is None and a["cold_starts"] == [] and a["no_capacity"] == 0,
           "a: %r" % {k: v for k, v in a.items() if k != "steps"})


def check_ramp_cold_svg(out, args):
    svg = open([a for a in args if a.endswith(".svg")][0]).read()
    for want in ("Scaling of cold under the ramp (copies from sm-timeline)",
                 "copies of the inference component serving",
                 "Scaling of a under the ramp (instances from sm-timeline)"):
        expect(want in svg, "no %r in the SVG" % want)


def check_ramp_cold_other(out, _):
    """A component's timeline beside a file whose calls went to another component is left
    out with a warning; the refusals and cold starts stand (they are the records')."""
    text = " ".join(out.decode().split())
    expect("ramp/coldother/ramp.json: the timeline cold.timeline.jsonl samples inference "
           "component cold-ic, not this file's (other-ic); the scaling goes without it" in text
           and "ramp/coldother/ramp.json): no timeline" in text
           and "10 failed (0 refused, 10 for no capacity), 2 cold starts" in text,
           "coldother:\n%s" % out.decode())


def check_open_wrk(out, _):
    """wrk's runs: end-to-end latency only; the capacity on p99 e2e from the records."""
    ol = as_json(out)["open_loop"]
    p = ol["sides"]["baseline"]["rates"][0]
    expect(p["latency_seconds"]["ttft"] is None and not ol["sides"]["baseline"]["streamed"],
           "wrk gave a TTFT: %r" % p["latency_seconds"])
    cap = crossing(open_rounds("wrk-a"), e2e, 0.99, 1.0)[0]
    got = ol["sides"]["baseline"]["capacity"]["requests_per_second"]
    expect(near(got, cap), "capacity %r, want %r" % (got, cap))


def check_open_no_slo(out, _):
    text = out.decode()
    expect("Open-loop load (rate.lua)" in text and "Capacity" not in text and "SLOs" not in text,
           "a capacity without SLOs:\n%s" % text)
    doc = as_json(run(["-f", "json", "open/a", "open/b"])[1])
    expect(doc["open_loop"]["sides"]["baseline"]["capacity"] is None and
           doc["open_loop"]["capacity_ratio"]["relation"] is None and
           doc["open_loop"]["sides"]["baseline"]["rates"][0]["slos"] is None, "json without SLOs")


CANDS = ["--candidates", "cands"]
CANDS_MISSING = ("sm-compare: --baseline zz: no such candidate in cands/candidates.json "
                 "(a, b, c, d, e, f)\n")


def cands_by_label(doc):
    return {c["label"]: c for c in doc["candidates"]}


def check_cands_json(out, _):
    """The fixture's five candidates: c is cheapest at p90 TTFT <= 0.6 s, a and b within its
    range (b held at every rate: its cost is only bounded above), d's search failed and e's
    folder is missing: both shown with why and left out of the front and the choice."""
    doc = as_json(out)
    by = cands_by_label(doc)
    expect(doc["baseline"] == "a" and doc["slo_key"] == "ttft:p90", "baseline and slo")
    expect(doc["pareto_front"] == ["a", "b", "c"], "front %r" % doc["pareto_front"])
    rec = doc["recommendation"]
    expect(rec["label"] == "c" and rec["within"] == ["a", "b"], "recommendation %r" % rec)
    expect(rec["reason"].startswith("c is cheapest at p90 TTFT <= 0.6 s: 6.51 USD per million "
                                    "tokens [3.91, 7.81]; a, b are within that range"),
           "reason %r" % rec["reason"])
    c = by["c"]
    cap = c["capacity"]["requests_per_second"]
    expect(near(c["cost_at_capacity"]["usd_per_million_tokens"], 0.9e6 / (3600 * cap * 16)),
           "c's cost from its own price and capacity")
    expect(near(c["cost_at_capacity"]["usd_per_million_tokens_low"], 0.9e6 / (3600 * 4 * 16)) and
           near(c["cost_at_capacity"]["usd_per_million_tokens_high"], 0.9e6 / (3600 * 2 * 16)),
           "c's cost range at the bracket's ends")
    expect(c["latency_at_slo"] == {"seconds": 0.54, "rate": 2, "requests": 20},
           "c's p90 TTFT at the last rate held %r" % c["latency_at_slo"])
    expect(by["b"]["cost_at_capacity"]["usd_relation"] == "<=" and
           by["b"]["capacity"]["relation"] == ">=", "b held at every rate")
    expect(by["d"]["excluded"].startswith("its search failed: no rate met p90 TTFT <= 0.6 s") and
           not by["d"]["pareto_front"], "d %r" % by["d"]["excluded"])
    expect(by["e"]["excluded"] == "cannot be read: cands/e: No such file or directory",
           "e %r" % by["e"]["excluded"])
    expect(by["f"]["excluded"].startswith("it had errors: more than 1% of the requests failed "
                                          "at every rate") and not by["f"]["pareto_front"],
           "f %r" % by["f"]["excluded"])
    ratio = c["ratio_to_baseline"]["capacity"]
    expect(near(ratio["value"], cap / by["a"]["capacity"]["requests_per_second"]) and
           near(ratio["low"], 2 / 4) and near(ratio["high"], 4 / 2), "c / a capacity %r" % ratio)


def check_cands_text(out, _):
    text = out.decode()
    expect("c is cheapest at p90 TTFT <= 0.6 s" in text and "- d left out: its search failed"
           in text and "- e left out: cannot be read" in text, "text names the choice and why")


def check_cands_svg(out, args):
    svg = open([a for a in args if a.endswith(".svg")][0]).read()
    expect(svg.startswith("<svg ") and svg.endswith("</svg>\n"), "one standalone svg element")
    expect(svg.count("<circle") == 4, "three points and the recommendation's ring")
    expect("f left out: it had errors" in svg, "f left out for its errors")
    expect("d left out: its search failed" in svg and "e left out" in svg, "left out named")


def check_cands_ab(out, _):
    """Two candidates give the numbers of sm-compare A B with the same SLO and price."""
    nway = cands_by_label(as_json(out))
    rc, ab_out, err = run(["-f", "json", "--slo", "ttft:p90:0.6", "--price-per-hour", "1.1267",
                           "cands2/a", "cands2/b"])
    expect(rc == 0, "A/B run: %s" % err)
    ol = as_json(ab_out)["open_loop"]
    for label, role in (("a", "baseline"), ("b", "candidate")):
        ab, nw = ol["sides"][role]["capacity"], nway[label]
        for key in ("requests_per_second", "relation", "last_held", "first_failed",
                    "tokens_per_request", "tokens_per_second"):
            expect(nw["capacity"][key] == ab[key], "%s %s: %r, A/B %r" % (
                label, key, nw["capacity"][key], ab[key]))
        expect(nw["cost_at_capacity"]["usd_per_million_tokens"] == ab["usd_per_million_tokens"]
               and nw["cost_at_capacity"]["usd_relation"] == ab["usd_relation"], "%s cost" % label)
        held = [r for r in ol["sides"][role]["rates"] if r["rate"] == ab["last_held"]][0]
        check = [c for c in held["slos"]["checks"] if c["slo"] == "ttft:p90"][0]
        expect(nw["latency_at_slo"]["seconds"] == check["value"] and
               nw["latency_at_slo"]["requests"] == held["latency_seconds"]["ttft"]["requests"],
               "%s latency at the SLO" % label)
    got = nway["b"]["ratio_to_baseline"]["capacity"]
    expect(got["value"] == ol["capacity_ratio"]["value"] and
           got["relation"] == ol["capacity_ratio"]["relation"], "capacity ratio %r" % got)


def check_cands_quiz(out, _):
    """Folders with decode, sweep and quiz: the quiz is in the table and the reference rows
    are in the ratios with the A/B's 95% intervals."""
    rc, js, err = run(["-f", "json", "--candidates", "cands-quiz"])
    by = cands_by_label(as_json(js))
    expect(by["qat"]["quiz"] == {"correct": 37, "total": 40, "score": 37 / 40}, "quiz")
    rows = by["qat"]["ratio_to_baseline"]["rows"]
    rc, ab, err = run(["-f", "json", "--slo", "ttft:p90:0.6", "cands-quiz/bf16", "cands-quiz/qat"])
    want = as_json(ab)["intervals"]["rows"]["decode_tokens_per_second"]["ratio"]
    got = rows["decode_tokens_per_second"]
    expect([got["low"], got["high"]] == want, "decode ratio interval %r, A/B %r" % (got, want))


def check_cands_baseline(out, _):
    doc = as_json(out)
    by = cands_by_label(doc)
    expect(doc["baseline"] == "c" and by["c"]["ratio_to_baseline"] is None and
           by["a"]["ratio_to_baseline"] is not None, "ratios to c")
    expect(near(by["a"]["ratio_to_baseline"]["capacity"]["value"],
                by["a"]["capacity"]["requests_per_second"] /
                by["c"]["capacity"]["requests_per_second"]), "a / c")


def check_open_attainment(out, _):
    """--min-attainment: each rate's verdict is its attainment against the bound (the share
    of requests sent with a TTFT within 0.6 s, recounted here from the records)."""
    ol = as_json(out)["open_loop"]
    expect(ol["capacity_criterion"] == "attainment" and ol["min_attainment"] == 0.9,
           "criterion %r %r" % (ol["capacity_criterion"], ol["min_attainment"]))
    for p in ol["sides"]["baseline"]["rates"]:
        att = [c for c in p["slos"]["checks"] if c["slo"] == "attainment"]
        expect(len(att) == 1 and att[0]["bound"] == 0.9 and
               att[0]["value"] == p["slo_attainment"] and
               att[0]["held"] == (p["slo_attainment"] >= 0.9), "attainment check %r" % p)
    by = ol["sides"]["baseline"]["capacity"]["limited_by"]
    expect(by in ("attainment", "error_rate"), "limited by %r" % by)


def check_view_json(out, _):
    """--view vllm -f json: both sides, the peer's names, and vLLM's ITL named as not ours."""
    doc = as_json(out)
    expect(doc["view"] == "vllm" and "vllm/benchmarks/serve.py" in doc["definitions_from"],
           "view %r" % doc.get("view"))
    for role in ("baseline", "candidate"):
        ms = {m["key"]: m for m in doc["sides"][role]["metrics"]}
        expect(set(ms) == {"ttft", "tpot", "itl", "e2el"}, "metrics %r" % sorted(ms))
        expect(ms["itl"]["ours"] is None and "per chunk gap" in ms["itl"]["differs"],
               "vLLM's ITL passed off as ours: %r" % ms["itl"])
        expect(ms["ttft"]["ours"] == "ttft" and ms["ttft"]["n"] > 0 and
               set(ms["ttft"]["percentiles"]) == {"p99"}, "ttft %r" % ms["ttft"])


def check_view_vllm_file(out, _):
    """A vllm bench serve file as the baseline: its TTFTs 100 and 300 ms, E2EL 170 and 400."""
    ms = {m["key"]: m for m in as_json(out)["sides"]["baseline"]["metrics"]}
    expect(near(ms["ttft"]["mean"], 200) and near(ms["e2el"]["median"], 285) and
           ms["itl"]["n"] == 3, "vLLM file's view %r" % ms)


def html_element(html, tag):
    """The text of the only <tag> element of html."""
    parts = re.findall(r"<%s>(.*?)</%s>" % (tag, tag), html, re.S)
    expect(len(parts) == 1 and html.count("<" + tag) == 1, "%d <%s> elements, want 1"
           % (html.count("<" + tag), tag))
    return parts[0]


def check_html(out, args, want_charts=3):
    """One file that loads nothing: its policy allows its own style and script (by hash),
    no URL or import, every table of the Markdown report, each chart an inline SVG."""
    html = out.decode("utf-8")
    for tag, directive in (("style", "style-src"), ("script", "script-src")):
        digest = hashlib.sha256(html_element(html, tag).encode("utf-8")).digest()
        want = "%s 'sha256-%s'" % (directive, base64.b64encode(digest).decode())
        expect(want in html, "the policy does not allow the <%s> (want %s)" % (tag, want))
    expect("default-src 'none'" in html, "no default-src 'none'")
    tag = re.search(r"<[a-zA-Z][^<>]*\s(src|href|xlink:href)\s*=\s*\"?[^#\"][^<>]*>", html)
    expect(not tag, "a reference to another file: %r" % (tag and tag.group(0)))
    for target in re.findall(r"href=\"#([^\"]*)\"", html):
        expect(html.count(" id=\"%s\"" % target) == 1, "a link to no section: #%s" % target)
    for ref in ("url(", "@import"):
        expect(ref not in html_element(html, "style"), "%r in the style" % ref)
    md = run(["-f", "markdown"] + [a for a in args if a not in ("-f", "html")])[1].decode()
    tables = len(re.findall(r"^\| ---", md, re.M))
    expect(html.count("<table>") == tables, "%d tables, the Markdown report has %d"
           % (html.count("<table>"), tables))
    charts = re.findall(r"<figure class=\"chart\".*?</figure>", html, re.S)
    expect(len(charts) == want_charts, "%d charts, want %d" % (len(charts), want_charts))
    for c in charts:
        expect(c.count("<svg") == 1 and re.search(r"<(circle|rect|path|polyline)", c),
               "a chart without an SVG drawing")


def check_cands_html(out, args):
    """The N-way report in HTML: its page, the Pareto chart, each point's figures its
    tooltip, and a latency-throughput chart for each of the four candidates compared with
    the baseline (e's pair never ran)."""
    check_html(out, args, 5)
    html = out.decode("utf-8")
    for label in "bcdf":
        expect("Latency against throughput: %s against a" % label in html,
               "no curve of %s against the baseline" % label)


def check_html_inert(out, args):
    """HTML from a file (an error code, a reply) is shown as text, never markup."""
    check_html(out, args, 2)  # a decode run and a quiz: no curve
    html = out.decode("utf-8")
    for markup in ("<img", "<svg onload", "document.title='pwned'"):
        expect(markup not in html, "%r reached the HTML" % markup)
    expect(html.count("pwned") == html.count("document.title=&#39;pwned&#39;") > 0,
           "a 'pwned' not escaped")
    expect("&lt;img src=x onerror=&quot;" in html, "the error code is not shown escaped")


def check_html_link(_, args):
    """--html never writes through a symbolic link: exit 2 naming it, the target untouched."""
    with tempfile.TemporaryDirectory() as tmp:
        target, link = os.path.join(tmp, "target"), os.path.join(tmp, "report.html")
        open(target, "w").write("kept\n")
        os.symlink(target, link)
        rc, out, err = run(["--html", link] + args)
        expect(rc == 2 and link in err, "exit %d, stderr %r" % (rc, err))
        expect(open(target).read() == "kept\n", "the link's target was written")


# name, arguments, exit code, standard error (exact; None: anything), golden files, check.
# A golden "-" is standard output; another name is a file the case writes (the argument
# after -o / --svg, relative to a temporary folder given as {tmp}).
CASES = [
    ("article_import_reproduces_combine_table", ARTICLE, 0, "", ["article.txt"], None),
    ("article_import_json_keeps_reference_keys", ["-f", "json"] + ARTICLE, 0, "",
     ["article.json"], check_article),
    ("native_three_scenarios_text", NATIVE, 0, "", ["native.txt"], check_no_nan),
    ("native_three_scenarios_markdown", ["--format", "markdown"] + NATIVE, 0, "",
     ["native.md"], None),
    ("native_three_scenarios_json", ["--format", "json"] + NATIVE, 0, "", ["native.json"],
     check_native),
    ("native_three_scenarios_csv", ["--format", "csv"] + NATIVE, 0, "", ["native.csv"], None),
    ("native_html_report_self_contained", ["-f", "html"] + NATIVE, 0, "", ["native.html"],
     check_html),
    ("html_report_shows_markup_from_files_as_text", ["-f", "html"] + MARKUP, 0, "", [],
     check_html_inert),
    ("native_html_file_beside_the_text_report", NATIVE + ["-o", "{tmp}/native.txt",
                                                           "--html", "{tmp}/native.html"],
     0, "", ["native.txt", "native.html"], None),
    ("html_file_never_written_through_a_link", NATIVE, 0, "", [], check_html_link),
    ("native_svg_chart_and_output_file", NATIVE + ["-o", "{tmp}/native.txt",
                                                   "--svg", "{tmp}/native.svg"], 0, "",
     ["native.txt", "native.svg"], None),
    ("native_sides_as_flags", ["--baseline", "native/bf16", "-c", "native/qat",
                               "--price-per-hour", "1.1267"], 0, "", ["native.txt"], None),
    ("native_sides_split_by_double_dash", ["--price-per-hour", "1.1267", "native/bf16", "--",
                                           "native/qat"], 0, "", ["native.txt"], None),
    ("report_same_on_every_run", ["-f", "json"] + NATIVE, 0, "", [], check_same_twice),
    ("known_rate_recovered_exactly", ["-f", "json"] + KNOWN, 0, "", ["known.json"], check_known),
    ("steady_mode_tokens_over_the_run_span", ["-f", "json", "steady/sweep-c4-slow.json",
                                              "steady/sweep-c4-fast.json"], 0, "", [],
     check_steady),
    ("time_scaled_files_reported_in_real_units", ["-f", "json"] + SCALED, 0, "", [],
     check_scaled),
    ("time_scaled_text_says_so", SCALED, 0, "", ["scaled.txt"], None),
    ("journal_only_run_recovered_and_marked_partial", ["native/qat/decode-qat.json", "journal"],
     0, "", ["journal.txt"], None),
    ("journal_only_run_counts_failures", ["-f", "json", "native/qat/decode-qat.json", "journal"],
     0, "", [], check_journal),
    ("journal_padded_with_nul_bytes_reads_whole", ["-f", "json", "native/qat/decode-qat.json",
                                                   "padded"], 0, "", [], check_padded_journal),
    ("journal_beside_its_result_in_a_directory_not_read", ["-f", "json", "jdir",
                                                          "native/bf16/decode-bf16.json"], 0, "",
     [], check_not_twice),
    ("journal_given_with_its_result_left_out", ["-f", "json", "-b", "native/qat/decode-qat.json",
                                                "-b", "journal/decode-qat.journal.jsonl", "-c",
                                                "native/bf16/decode-bf16.json"], 0, "", [],
     check_twin_left_out),
    ("guard_refuses_compare_py_against_wrk_sagemaker", [ARTICLE[0], "native/qat"], 2,
     "sm-compare: baseline article/measure-gemma-4-e2b.json was measured by compare.py via aws "
     "CLI, candidate native/qat/decode-qat.json by wrk-sagemaker 0.1.0: different clients" +
     GUARD_SUFFIX, [], None),
    ("guard_allow_mixed_compares_and_warns", ["-f", "json", "--allow-mixed", ARTICLE[0],
                                              "native/qat"], 0, "", [], check_old_vs_new),
    ("guard_refuses_different_time_scales", ["known/decode-slow.json",
                                             "mixed/decode-scaled.json"], 2,
     "sm-compare: baseline known/decode-slow.json ran at time_scale 1, candidate "
     "mixed/decode-scaled.json at 10: different time scales" + GUARD_SUFFIX, [], None),
    ("guard_refuses_different_prompts", ["native/qat/decode-qat.json",
                                         "mixed/decode-other-prompt.json"], 2,
     "sm-compare: baseline native/qat/decode-qat.json and candidate "
     "mixed/decode-other-prompt.json: decode prompts differ" + GUARD_SUFFIX, [], None),
    ("guard_refuses_pooling_different_clients", ["-b", "native/bf16/decode-bf16.json", "-b",
                                                 "mixed/decode-other-client.json", "-c",
                                                 "native/qat/decode-qat.json"], 2,
     "sm-compare: baseline native/bf16/decode-bf16.json was measured by wrk-sagemaker 0.1.0, "
     "baseline mixed/decode-other-client.json by another-client 2.0: different clients" +
     GUARD_SUFFIX, [], None),
    ("failed_batches_left_out_and_counted", ["-f", "json"] + FAULTS, 0, "", [], check_faults),
    ("failures_in_the_warnings_of_every_format", FAULTS, 0, "", [], check_warnings_everywhere),
    ("quiz_failed_questions_unanswered", FAULTS, 0, "", ["faults.txt"], check_unanswered),
    ("precision_ratios_and_intervals_show_what_they_mean", PRECISE, 0, "", ["precise.txt"],
     check_precise),
    ("server_log_cross_check_warns_on_a_difference", ["-f", "json", "xcheck/a", "xcheck/b"], 0,
     "", [], check_xcheck),
    ("escape_control_characters_in_every_format", EVIL, 0, "", [], check_escaped),
    ("bad_label_with_control_characters", ["evil/label-escape.json", "known/decode-fast.json"], 2,
     "sm-compare: evil/label-escape.json: label: \"x\\x1b[31m\" is not a label (1 to 64 "
     "letters, digits, '-', '_' and '.', not starting with '.')\n", [], None),
    ("bad_time_scale_not_a_number", ["evil/scale-fast.json", "known/decode-fast.json"], 2,
     "sm-compare: evil/scale-fast.json: time_scale: \"fast\" is not a number\n", [], None),
    ("bad_time_scale_out_of_range", ["evil/scale-tiny.json", "known/decode-fast.json"], 2,
     "sm-compare: evil/scale-tiny.json: time_scale: 1e-300 is out of range (0.001 to 1e+06)\n",
     [], None),
    ("bad_time_scale_null", ["evil/scale-null.json", "known/decode-fast.json"], 2,
     "sm-compare: evil/scale-null.json: time_scale: null is not a number\n", [], None),
    ("bad_decode_length_zero", ["evil/length-zero.json", "known/decode-fast.json"], 2,
     "sm-compare: evil/length-zero.json: settings.lengths[1]: 0 is out of range (1 to 1e+07)\n",
     [], None),
    ("bad_fifo_refused_at_once", ["special/fifo.json", "known/decode-fast.json"], 2,
     "sm-compare: special/fifo.json: cannot read: a FIFO (named pipe), not a regular file\n",
     [], None),
    ("bad_directory_as_a_log", ["--facts-baseline", "special/dir.json"] + KNOWN, 2,
     "sm-compare: special/dir.json: cannot read: a directory, not a file\n", [], None),
    ("bad_file_starting_with_nul", ["special/nul.json", "known/decode-fast.json"], 2,
     "sm-compare: special/nul.json: starts with a NUL byte: not a JSON text file\n", [], None),
    ("bad_directory_with_a_fifo_does_not_wait", ["special", "known"], 2,
     "sm-compare: special/nul.json: starts with a NUL byte: not a JSON text file\n", [], None),
    ("compare_py_replies_unscored_without_their_questions", ["-f", "json", "--quiz",
                                                             "bad/quiz-empty.json"] + ARTICLE,
     0, "", [], check_unscored),
    ("bad_quiz_file_missing", ["--quiz", "nowhere.json"] + ARTICLE, 2,
     "sm-compare: nowhere.json: cannot read: No such file or directory\n", [], None),
    ("runs_on_one_side_pooled_with_agreement", ["-f", "json", "-b",
                                                "native/bf16/decode-bf16.json", "-b",
                                                "rerun/decode-bf16-again.json", "-c",
                                                "native/qat/decode-qat.json"], 0, "", [],
     check_pooled),
    ("runs_on_one_side_agreement_text", ["native/bf16/decode-bf16.json",
                                         "rerun/decode-bf16-again.json", "--",
                                         "native/qat/decode-qat.json"], 0, "", ["pooled.txt"],
     None),
    ("bad_malformed_json", ["bad/truncated.json", "known/decode-fast.json"], 2,
     "sm-compare: bad/truncated.json:1:2087: malformed JSON: expected a member name\n", [], None),
    ("bad_unknown_format_version", ["bad/version3.json", "known/decode-fast.json"], 2,
     "sm-compare: bad/version3.json: unknown format version 3 (this reader reads versions 1 "
     "to 2)\n", [], None),
    ("bad_file_of_wrong_kind", ["bad/other.json", "known/decode-fast.json"], 2,
     "sm-compare: bad/other.json: not a wrk-sagemaker result file, journal or compare.py "
     "measure file\n", [], None),
    ("bad_other_format_name", ["bad/format.json", "known/decode-fast.json"], 2,
     "sm-compare: bad/format.json: format \"something-else\" is not wrk-sagemaker-result\n",
     [], None),
    ("bad_input_echoed_on_one_line", ["bad/format-newline.json", "known/decode-fast.json"], 2,
     "sm-compare: bad/format-newline.json: format \"two\\nlines\" is not "
     "wrk-sagemaker-result\n", [], None),
    ("bad_record_without_end_time", ["bad/no-end.json", "known/decode-fast.json"], 2,
     "sm-compare: bad/no-end.json: record 5: t_end_us is missing\n", [], None),
    ("bad_decode_lengths_differ", ["native/qat/decode-qat.json", "bad/lengths-16-256.json"], 2,
     "sm-compare: bad/lengths-16-256.json: decode lengths [16, 256] differ from the "
     "baseline's [16, 512] (native/qat/decode-qat.json)" + GUARD_SUFFIX, [], None),
    ("bad_concurrency_levels_differ", ["native/qat", "bad/sweep-c4-128.json"], 2,
     "sm-compare: bad/sweep-c4-128.json: concurrency levels 4 differ from the baseline's "
     "1, 4, 16 (native/qat/sweep-c1-qat.json)" + GUARD_SUFFIX, [], None),
    ("bad_measure_load_level_not_a_number", ["badlevel/measure-qat.json", ARTICLE[0]], 2,
     "sm-compare: badlevel/measure-qat.json: load level \"4x\" is not a concurrency\n", [], None),
    ("bad_quiz_differs", ["native/qat", "bad/quiz-other.json"], 2,
     "sm-compare: bad/quiz-other.json: quiz \"another-quiz\" differs from the baseline's "
     "\"compare-py-40\" (native/qat/quiz-qat.json)\n", [], None),
    ("bad_missing_path", ["nowhere", "known"], 2,
     "sm-compare: nowhere: No such file or directory\n", [], None),
    ("bad_empty_directory", ["bad/empty", "known"], 2,
     "sm-compare: bad/empty: no result files, journals, measure files or logs in this "
     "directory\n", [], None),
    ("bad_directory_stops_at_broken_file", ["bad", "known"], 2,
     "sm-compare: bad/no-end.json: record 5: t_end_us is missing\n", [], None),
    ("usage_one_side_only", ["known"], 2,
     "sm-compare: give a BASELINE and a CANDIDATE (or use -- between the sides) "
     "(see sm-compare --help)\n", [], None),
    ("usage_bad_format", ["--format", "xml"] + KNOWN, 2,
     "sm-compare: --format must be text, markdown, json, csv or html: xml (see sm-compare --help)\n",
     [], None),
    ("usage_bad_price", ["--price-per-hour", "-3"] + KNOWN, 2,
     "sm-compare: --price-per-hour needs a positive number of USD: -3 (see sm-compare "
     "--help)\n", [], None),
    ("usage_flags_and_arguments_mixed", ["--baseline", "known", "native", "known"], 2,
     "sm-compare: give the sides either with --baseline/--candidate or as arguments "
     "(see sm-compare --help)\n", [], None),
    ("usage_bad_margin", ["--margin", "60%"] + KNOWN, 2,
     "sm-compare: --margin must be a share in (0, 50%], as 2% or 0.02: 60% (see sm-compare "
     "--help)\n", [], None),
    ("usage_unknown_option", ["--colour"] + KNOWN, 2,
     "sm-compare: unknown option: --colour (see sm-compare --help)\n", [], None),
    ("help_lists_every_option", ["--help"], 0, "", ["help.txt"], None),
    ("stream_table_and_intervals_text", STREAM, 0, "", ["stream.txt"], check_stream_text),
    ("stream_figures_json", ["-f", "json"] + STREAM, 0, "", [], check_stream),
    ("stream_table_markdown", ["-f", "markdown"] + STREAM, 0, "", ["stream.md"], None),
    ("stream_rows_csv", ["-f", "csv"] + STREAM, 0, "", ["stream.csv"], None),
    ("stream_svg_ttft_and_itl_panels", STREAM + ["-o", "{tmp}/stream.txt", "--svg",
                                                 "{tmp}/stream.svg"], 0, "",
     ["stream.txt", "stream.svg"], check_svg_panels),
    ("stream_itl_check_warns_above_2_percent", ["-f", "json", "stream/a", "stream/itloff"], 0, "",
     [], check_itl_warns),
    ("stream_mixed_with_wrk_refused", ["stream/wrk", "stream/a"], 2,
     "sm-compare: candidate stream/a/decode.json streamed its replies (sm-stream), baseline "
     "stream/wrk/decode.json did not (wrk): TTFT and ITL exist only for streamed replies and "
     "cannot be compared" + GUARD_SUFFIX, [], None),
    ("stream_mixed_allowed_says_so", ["-f", "json", "--allow-mixed", "stream/wrk", "stream/a"], 0,
     "", [], check_mixed),
    ("bad_stream_gaps_not_chunks_minus_one", ["stream/bad-gaps-count.json", "stream/a"], 2,
     "sm-compare: stream/bad-gaps-count.json: record 2: chunk_gaps_us: 20 gaps for 22 chunks "
     "(chunks - 1 expected)\n", [], None),
    ("bad_stream_negative_gap", ["stream/bad-gap-negative.json", "stream/a"], 2,
     "sm-compare: stream/bad-gap-negative.json:141:7: record 2, field chunk_gaps_us: a gap is "
     "negative\n", [], None),
    ("bad_stream_first_token_before_start", ["stream/bad-first-before-start.json", "stream/a"], 2,
     "sm-compare: stream/bad-first-before-start.json: record 2: t_first_token_us is before "
     "t_start_us\n", [], None),
    ("client_limited_text_marks_figures_and_verdict", CLIMIT, 0, "", ["climit.txt"],
     check_climit_text),
    ("client_limited_json_names_why_and_itl_unresolved", ["-f", "json"] + CLIMIT, 0, "", [],
     check_climit),
    ("client_limited_never_marks_the_servers_facts",
     ["-f", "json", "--facts-baseline", "native/bf16/vllm-bf16.log", "--facts-candidate",
      "native/qat/vllm-qat.log"] + CLIMIT, 0, "", [], check_climit_facts),
    ("client_limited_markdown", ["-f", "markdown"] + CLIMIT, 0, "", ["climit.md"], check_climit_md),
    ("client_limited_csv_note", ["-f", "csv"] + CLIMIT, 0, "", ["climit.csv"], check_climit_csv),
    ("candidates_table_front_and_recommendation_text", CANDS, 0, "", ["cands.txt"],
     check_cands_text),
    ("candidates_figures_from_own_records_json", ["-f", "json"] + CANDS, 0, "", ["cands.json"],
     check_cands_json),
    ("candidates_markdown", ["-f", "markdown"] + CANDS, 0, "", ["cands.md"], None),
    ("candidates_html_report_page_and_pareto_chart", ["-f", "html"] + CANDS, 0, "",
     ["cands.html"], check_cands_html),
    ("candidates_one_row_each_csv", ["-f", "csv"] + CANDS, 0, "", ["cands.csv"], None),
    ("candidates_pareto_chart_svg", CANDS + ["-o", "{tmp}/cands.txt", "--svg", "{tmp}/cands.svg"],
     0, "", ["cands.txt", "cands.svg"], check_cands_svg),
    ("candidates_two_give_the_ab_numbers", ["-f", "json", "--candidates", "cands2"], 0, "", [],
     check_cands_ab),
    ("candidates_baseline_label_sets_the_ratios", ["-f", "json", "--baseline", "c"] + CANDS, 0,
     "", [], check_cands_baseline),
    ("candidates_one_is_its_own_front_and_choice", ["--candidates", "cands1"], 0, "",
     ["cands1.txt"], None),
    ("candidates_ratios_carry_the_reference_rows_and_quiz", ["--candidates", "cands-quiz"], 0,
     "", ["cands-quiz.txt"], check_cands_quiz),
    ("candidates_dir_without_candidates_json", ["--candidates", "open"], 2,
     "sm-compare: open: no candidates.json: not the folder of an sm-suite --candidates run\n",
     [], None),
    ("candidates_unknown_baseline", CANDS + ["--baseline", "zz"], 2, CANDS_MISSING, [], None),
    ("candidates_refuse_price_per_hour", CANDS + ["--price-per-hour", "1"], 2,
     "sm-compare: --candidates takes no: --price-per-hour (candidates.json has each price) "
     "(see sm-compare --help)\n", [], None),
    ("open_loop_curve_and_capacity_text", OPEN, 0, "", ["open.txt"], check_open_text),
    ("open_loop_figures_json", ["-f", "json"] + OPEN, 0, "", ["open.json"], check_open),
    ("open_loop_markdown", ["-f", "markdown"] + OPEN, 0, "", ["open.md"], None),
    ("open_loop_rows_csv", ["-f", "csv"] + OPEN, 0, "", ["open.csv"], None),
    ("open_loop_html_report_curve_and_scatter", ["-f", "html"] + OPEN, 0, "", ["open.html"],
     check_html),
    ("open_loop_svg_latency_against_achieved_rate", OPEN + ["-o", "{tmp}/open.txt", "--svg",
                                                          "{tmp}/open.svg"], 0, "",
     ["open.txt", "open.svg"], check_open_svg),
    ("open_loop_wrk_end_to_end_capacity", ["-f", "json", "--slo", "e2e:p99:1", "open/wrk-a",
                                           "open/wrk-b"], 0, "", [], check_open_wrk),
    ("open_loop_without_slo_no_capacity", ["open/a", "open/b"], 0, "", [], check_open_no_slo),
    ("ramp_scaling_per_load_change_decision_capacity_transition_and_instance_hours",
     ["--slo", "ttft:p90:0.6", "ramp/a", "ramp/b"], 0, "", ["ramp.txt"], check_ramp),
    ("ramp_scaling_json_per_step_counts_and_times",
     ["-f", "json", "--slo", "ttft:p90:0.6", "ramp/a", "ramp/b"], 0, "", [], check_ramp_json),
    ("ramp_scaling_cost_is_instance_hours_at_the_price",
     ["--price-per-hour", "1.5", "--slo", "ttft:p90:0.6", "ramp/a", "ramp/b"], 0, "", [],
     check_ramp_cost),
    ("ramp_scaling_without_its_timeline_file_says_so",
     ["--slo", "ttft:p90:0.6", "ramp/a", "ramp/untimed"], 0, "", [], check_ramp_untimed),
    ("ramp_scaling_timeline_of_another_endpoint_left_out",
     ["--slo", "ttft:p90:0.6", "ramp/a", "ramp/other"], 0, "", [], check_ramp_other),
    ("ramp_component_no_capacity_refusals_and_cold_starts_per_load_change",
     ["--slo", "ttft:p90:0.6", "ramp/a", "ramp/cold"], 0, "", ["ramp-cold.txt"],
     check_ramp_cold),
    ("ramp_component_cold_starts_markdown",
     ["-f", "markdown", "--slo", "ttft:p90:0.6", "ramp/a", "ramp/cold"], 0, "",
     ["ramp-cold.md"], None),
    ("ramp_component_cold_starts_csv",
     ["-f", "csv", "--slo", "ttft:p90:0.6", "ramp/a", "ramp/cold"], 0, "", ["ramp-cold.csv"],
     None),
    ("ramp_component_cold_starts_json",
     ["-f", "json", "--slo", "ttft:p90:0.6", "ramp/a", "ramp/cold"], 0, "", [],
     check_ramp_cold_json),
    ("ramp_component_timeline_of_another_component_left_out",
     ["--slo", "ttft:p90:0.6", "ramp/a", "ramp/coldother"], 0, "", [], check_ramp_cold_other),
    ("ramp_component_svg_shows_copies",
     ["--slo", "ttft:p90:0.6", "ramp/a", "ramp/cold", "-o", "{tmp}/cold.txt", "--svg",
      "{tmp}/cold.svg"], 0, "", [], check_ramp_cold_svg),
    ("ramp_scaling_svg_rate_instances_and_ttft_strips",
     ["--slo", "ttft:p90:0.6", "ramp/a", "ramp/b", "-o", "{tmp}/ramp.txt", "--svg",
      "{tmp}/ramp.svg"], 0, "", ["ramp.txt", "ramp.svg"], check_ramp_svg),
    ("open_loop_attainment_criterion_json", ["-f", "json", "--min-attainment", "90"] + OPEN, 0,
     "", [], check_open_attainment),
    ("usage_min_attainment_without_slo", ["--min-attainment", "90", "open/a", "open/b"], 2,
     "sm-compare: --min-attainment 90: give the SLOs to attain with --slo METRIC:pQ:SECONDS (the "
     "share of requests meeting all of them at once) (see sm-compare --help)\n", [], None),
    ("peer_view_vllm_json_names_what_differs", ["--view", "vllm", "-f", "json", "open/a",
                                                "open/b"], 0, "", [], check_view_json),
    ("vllm_result_refused_outside_view", ["bad/vllm-serve.json", "open/b"], 2,
     "sm-compare: bad/vllm-serve.json: a vllm bench serve result: its metrics are vLLM's (ITL "
     "per chunk, ours per token; E2EL to its last event), not ours, so it is not compared; put "
     "it beside ours with --view vllm (or aiperf, guidellm, llmperf)\n", [], None),
    ("peer_view_vllm_file_beside_ours", ["--view", "vllm", "-f", "json", "bad/vllm-serve.json",
                                         "open/b"], 0, "", [], check_view_vllm_file),
    ("usage_view_refuses_what_it_would_not_use",
     ["--view", "vllm", "--slo", "ttft:p90:1", "open/a", "open/b"], 2,
     "sm-compare: --view shows the peer's own figures; it takes no: --slo (see sm-compare "
     "--help)\n", [], None),
    ("usage_view_refuses_html", ["--view", "vllm", "--html", "x.html", "open/a", "open/b"], 2,
     "sm-compare: --view shows the peer's own figures; it takes no: --html (see sm-compare "
     "--help)\n", [], None),
    ("usage_view_refuses_svg", ["--view", "aiperf", "--svg", "x.svg", "open/a", "open/b"], 2,
     "sm-compare: --view shows the peer's own figures; it takes no: --svg (see sm-compare "
     "--help)\n", [], None),
    ("usage_view_unknown_peer", ["--view", "genai", "open/a", "open/b"], 2,
     "sm-compare: --view must be vllm, aiperf, guidellm or llmperf: genai (see sm-compare "
     "--help)\n", [], None),
    ("usage_view_not_csv", ["--view", "aiperf", "-f", "csv", "open/a", "open/b"], 2,
     "sm-compare: --view writes text or json: csv (see sm-compare --help)\n", [], None),
    ("open_loop_other_seed_refused", ["open/a", "open/seed2"], 2,
     "sm-compare: baseline open/a/rate.json and candidate open/seed2/rate.json: open-loop "
     "arrival_seed 1 and 2 differ" + GUARD_SUFFIX, [], None),
    ("open_loop_ttft_slo_on_wrk_refused", ["--slo", "ttft:p90:1", "open/wrk-a", "open/wrk-b"], 2,
     "sm-compare: --slo ttft:p90: the baseline open/wrk-a/rate.json did not stream its replies "
     "(wrk): it has no TTFT (measure with sm-stream)\n", [], None),
    ("open_loop_slo_without_open_loop_refused", ["--slo", "e2e:p90:1"] + KNOWN, 2,
     "sm-compare: --slo and --max-error-rate judge open-loop runs (rate.lua), and neither side "
     "has one\n", [], None),
    ("usage_bad_slo", ["--slo", "ttft:90:1"] + OPEN[2:], 2,
     "sm-compare: --slo ttft:90:1: the percentile must be p and a number above 0 and below 100 "
     "(p50, p90, p99.9) (see sm-compare --help)\n", [], None),
    ("usage_bad_max_error_rate", ["--max-error-rate", "5%"] + OPEN[2:], 2,
     "sm-compare: --max-error-rate 5%: give a fraction from 0 to 1 (0.01 allows 1% of a "
     "round's requests to fail) (see sm-compare --help)\n", [], None),
    ("bad_stream_chunk_tokens_not_chunks", ["stream/bad-tokens-count.json", "stream/a"], 2,
     "sm-compare: stream/bad-tokens-count.json: record 2: chunk_tokens: 21 counts for 22 chunks "
     "(one a chunk expected)\n", [], None),
]


def golden_path(name):
    return os.path.join(GOLDEN, name)


def show_diff(path, want, got):
    """Prints how the golden file at path would change (a unified diff)."""
    if want == got:
        return False
    old = want.decode("utf-8", "replace").splitlines(keepends=True)
    new = got.decode("utf-8", "replace").splitlines(keepends=True)
    sys.stdout.writelines(difflib.unified_diff(old, new, path, path + " (new)"))
    if not (old and old[-1].endswith("\n")) or not (new and new[-1].endswith("\n")):
        print("\n\\ (no newline at the end of one side)")
    return True


def run_case(case, update):
    """Runs one case; update: None (check), "diff" (print the golden diff) or "write"."""
    name, args, code, err, goldens, check = case
    changed = 0
    with tempfile.TemporaryDirectory() as tmp:
        args = [a.replace("{tmp}", tmp) for a in args]
        rc, out, stderr = run(args)
        expect(rc == code, "exit %d, want %d; stderr: %s" % (rc, code, stderr))
        if err is not None:
            expect(stderr == err, "stderr:\n%s\nwant:\n%s" % (stderr, err))
        writes = [a for a in args if a.startswith(tmp)]
        if writes:
            expect(out == b"", "output on stdout although -o was given")
        for i, g in enumerate(goldens):
            got = open(writes[i], "rb").read() if writes else out
            path = golden_path(g)
            want = open(path, "rb").read() if os.path.exists(path) else b""
            if update:
                changed += show_diff(path, want, got)
                if update == "write" and want != got:
                    with open(path, "wb") as f:
                        f.write(got)
                continue
            expect(got == want, "%s differs from the golden file %s" % (
                "output" if i == 0 else g, path))
        if check:
            check(out, args)
    return changed


def main():
    if sys.argv[1] == "--list":
        print(";".join(c[0] for c in CASES))
        return
    update = None
    if sys.argv[4] == "--update":
        update = "write" if sys.argv[5:] == ["--yes-i-reviewed"] else "diff"
        if sys.argv[5:] not in ([], ["--yes-i-reviewed"]):
            sys.exit("--update takes only --yes-i-reviewed after it")
    todo = CASES if update else [c for c in CASES if c[0] == sys.argv[4]]
    if not todo:
        sys.exit("no case %s" % sys.argv[4])
    failed = changed = 0
    for case in todo:
        try:
            changed += run_case(case, update)
        except Failure as e:
            failed += 1
            print("%s: FAILED: %s" % (case[0], e))
    if update == "diff" and changed:
        print("%d golden file(s) would change; nothing was written. Read the diff above, then "
              "run again with --update --yes-i-reviewed." % changed)
        sys.exit(1)
    if update == "write":
        print("%d golden file(s) rewritten" % changed)
    sys.exit(1 if failed else 0)


main()
