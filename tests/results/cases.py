#!/usr/bin/python3
"""The sm-compare cases: one table row per behaviour, run one at a time by ctest.

    cases.py SM_COMPARE FIXTURES GOLDEN CASE     run one case
    cases.py SM_COMPARE FIXTURES GOLDEN --update rewrite every golden file
    cases.py --list                              the case names (for CMake)

sm-compare runs in FIXTURES (made by make_fixtures.py) with relative paths, so
the outputs do not depend on where the build lives. A case checks the exit
code, the exact standard error, byte-for-byte golden files, and facts that must
hold whatever the golden files say (check functions).
"""

import json
import os
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
    p = subprocess.run([BIN] + args, cwd=FIXTURES, capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def as_json(out):
    return json.loads(out.decode("utf-8"))


def check_article(out, _):
    doc = as_json(out)
    rows = doc["rows"]
    want = {"decode_tokens_per_second": 2.05, "load_c1_tokens_per_second": 1.87,
            "load_c4_tokens_per_second": 1.92, "load_c16_tokens_per_second": 1.74,
            "weights_gib": 0.82, "kv_cache_tokens": 1.2}
    for name, ratio in want.items():
        expect(rows[name][2] == ratio, "%s ratio %r, want %r" % (name, rows[name][2], ratio))
    expect(rows["weights_gib"][:2] == [9.75, 8.01], "weights %r" % rows["weights_gib"])
    expect(rows["kv_cache_tokens"][:2] == [723484, 867999], "kv %r" % rows["kv_cache_tokens"])
    expect(rows["decode_tokens_per_second"][:2] == [51.3, 105.1], "decode values")
    expect(rows["load_c16_tokens_per_second"][:2] == [619.1, 1077.25], "c16 values")
    expect(rows["quality_correct"] == [37, 37, None], "quality %r" % rows["quality_correct"])
    expect(rows["load_seconds"] == [82.751806, 66.190265, None], "load seconds")
    expect(doc["identical_answers"] == {"count": 35, "total": 40}, "identical answers")
    expect(doc["columns"] == ["gemma-4-e2b", "gemma-4-e2b-qat",
                              "gemma-4-e2b-qat / gemma-4-e2b"], "columns %r" % doc["columns"])
    got = [(d["id"], d["expected"], d["gemma-4-e2b"], d["gemma-4-e2b-qat"])
           for d in doc["disagreements"]]
    expect(got == [("add-4", "926", "1026", "926"), ("add-7", "355", "355", "655"),
                   ("add-8", "819", "829", "819"), ("add-9", "-275", "-275", "-285"),
                   ("add-14", "948", "918", "1010")], "disagreements %r" % got)
    kinds = doc["quality_by_kind"]["gemma-4-e2b-qat"]
    expect(kinds["add"] == {"correct": 12, "total": 15}, "by kind %r" % kinds)
    expect(doc["mcnemar"]["p"] == 1, "McNemar p %r" % doc["mcnemar"])


def check_known(out, _):
    doc = as_json(out)
    expect(doc["rows"]["decode_tokens_per_second"] == [50, 100, 2], "rates %r" %
           doc["rows"]["decode_tokens_per_second"])
    dec = doc["decode"]
    expect(dec["per_call_fixed_cost_seconds"] == [0.5, 0.5, 1], "fixed %r" % dec)
    expect(dec["least_squares_tokens_per_second"] == [50, 100, 2], "fit %r" % dec)
    expect(dec["least_squares_fixed_cost_seconds"] == [0.5, 0.5, 1], "fit fixed %r" % dec)
    iv = doc["intervals"]["rows"]["decode_tokens_per_second"]
    expect(abs(iv["baseline"][0] - 50) < 1e-9 and abs(iv["baseline"][1] - 50) < 1e-9,
           "interval %r" % iv)


def check_scaled(out, _):
    known = as_json(run(["--format", "json"] + KNOWN)[1])
    doc = as_json(out)
    for key in ("rows", "decode", "intervals"):
        expect(doc[key] == known[key], "%s differ from the unscaled run" % key)
    expect("10 times faster than real time" in doc["time_scale"], doc["time_scale"])


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
    expect(rows["decode_tokens_per_second"][2] == 2.05, "decode %r" % rows)
    c4 = [r for r in doc["requests"] if r["side"] == "candidate" and r["measurement"] == "load c4"]
    expect(c4[0]["failed"] == 1 and "ThrottlingException" in c4[0]["errors"], "c4 %r" % c4)
    cost = doc["cost"]["rows"]
    expect(cost["cost_c1_usd_per_million_tokens"][:2] == [6.86, 3.67], "cost %r" % cost)
    for key in ("latency_seconds", "intervals"):
        expect(doc[key], "no %s" % key)


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
    expect(rows["decode_tokens_per_second"] == [51.3, 105.1, 2.05], "decode %r" % rows)
    expect(rows["load_c16_tokens_per_second"][2] == 1.74, "c16 %r" % rows)
    expect(doc["identical_answers"] == {"count": 35, "total": 40}, "identical answers")


def check_steady(out, _):
    doc = as_json(out)
    expect(doc["rows"]["load_c4_tokens_per_second"] == [400, 800, 2], "steady %r" % doc["rows"])
    expect("load_c4_tokens_per_second" not in doc["intervals"]["rows"], "an interval from one "
           "window")
    lat = doc["latency_seconds"]["latency_c4_p50_seconds"]
    expect(lat == [2.56, 1.28, 0.5], "latency %r" % lat)


def check_same_twice(out, args):
    expect(run(args)[1] == out, "a second run with the same seed differs")


def check_no_nan(out, _):
    text = out.decode("utf-8").lower()
    expect("nan" not in text and "inf" not in text.replace("info", ""), "NaN or inf in output")


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
    ("native_svg_chart_and_output_file", NATIVE + ["-o", "{tmp}/native.txt",
                                                   "--svg", "{tmp}/native.svg"], 0, "",
     ["native.txt", "native.svg"], None),
    ("native_sides_as_flags", ["--baseline", "native/bf16", "-c", "native/qat",
                               "--price-per-hour", "1.1267"], 0, "", ["native.txt"], None),
    ("native_sides_split_by_double_dash", ["--price-per-hour", "1.1267", "native/bf16", "--",
                                           "native/qat"], 0, "", ["native.txt"], None),
    ("bootstrap_same_seed_same_output", ["--seed", "7", "-f", "json"] + NATIVE, 0, "", [],
     check_same_twice),
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
    ("compare_py_file_against_result_files", ["-f", "json", ARTICLE[0], "native/qat"], 0, "", [],
     check_old_vs_new),
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
    ("bad_unknown_format_version", ["bad/version2.json", "known/decode-fast.json"], 2,
     "sm-compare: bad/version2.json: unknown format version 2 (this sm-compare reads "
     "version 1)\n", [], None),
    ("bad_file_of_wrong_kind", ["bad/other.json", "known/decode-fast.json"], 2,
     "sm-compare: bad/other.json: not a wrk-sagemaker result file, journal or compare.py "
     "measure file\n", [], None),
    ("bad_other_format_name", ["bad/format.json", "known/decode-fast.json"], 2,
     "sm-compare: bad/format.json: format \"something-else\" is not wrk-sagemaker-result\n",
     [], None),
    ("bad_input_echoed_on_one_line", ["bad/format-newline.json", "known/decode-fast.json"], 2,
     "sm-compare: bad/format-newline.json: format \"two lines\" is not wrk-sagemaker-result\n",
     [], None),
    ("bad_record_without_end_time", ["bad/no-end.json", "known/decode-fast.json"], 2,
     "sm-compare: bad/no-end.json: record 5: t_end_us is missing\n", [], None),
    ("bad_decode_lengths_differ", ["native/qat/decode-qat.json", "bad/lengths-16-256.json"], 2,
     "sm-compare: bad/lengths-16-256.json: decode lengths [16, 256] differ from the "
     "baseline's [16, 512] (native/qat/decode-qat.json)\n", [], None),
    ("bad_concurrency_levels_differ", ["native/qat", "bad/sweep-c4-128.json"], 2,
     "sm-compare: bad/sweep-c4-128.json: concurrency levels 4 differ from the baseline's "
     "1, 4, 16 (native/qat/sweep-c1-qat.json)\n", [], None),
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
     "sm-compare: --format must be text, markdown, json or csv: xml (see sm-compare --help)\n",
     [], None),
    ("usage_bad_price", ["--price-per-hour", "-3"] + KNOWN, 2,
     "sm-compare: --price-per-hour needs a positive number of USD: -3 (see sm-compare "
     "--help)\n", [], None),
    ("usage_flags_and_arguments_mixed", ["--baseline", "known", "native", "known"], 2,
     "sm-compare: give the sides either with --baseline/--candidate or as arguments "
     "(see sm-compare --help)\n", [], None),
    ("usage_unknown_option", ["--colour"] + KNOWN, 2,
     "sm-compare: unknown option: --colour (see sm-compare --help)\n", [], None),
    ("help_lists_every_option", ["--help"], 0, "", ["help.txt"], None),
]


def golden_path(name):
    return os.path.join(GOLDEN, name)


def run_case(case, update):
    name, args, code, err, goldens, check = case
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
            if update:
                with open(golden_path(g), "wb") as f:
                    f.write(got)
                continue
            want = open(golden_path(g), "rb").read()
            expect(got == want, "%s differs from the golden file %s" % (
                "output" if i == 0 else g, golden_path(g)))
        if check:
            check(out, args)


def main():
    if sys.argv[1] == "--list":
        print(";".join(c[0] for c in CASES))
        return
    update = sys.argv[4] == "--update"
    todo = CASES if update else [c for c in CASES if c[0] == sys.argv[4]]
    if not todo:
        sys.exit("no case %s" % sys.argv[4])
    failed = 0
    for case in todo:
        try:
            run_case(case, update)
        except Failure as e:
            failed += 1
            print("%s: FAILED: %s" % (case[0], e))
    sys.exit(1 if failed else 0)


main()
