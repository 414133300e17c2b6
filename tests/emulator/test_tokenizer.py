#!/usr/bin/python3
"""Exact prompt lengths with the model's tokenizer (issue 32, item 3), both
kinds, against the emulator given the same tokenizer.

  count   the emulator's usage.prompt_tokens with --tokenizer is the tokenizer's
          count (python3-sentencepiece's; the hand-counted words of the written
          tokenizer.json) plus its 6 chat-template tokens
  exact   sm-stream runs rate.lua --tokenizer FILE --input-tokens 2048 (and
          300 with a shared prefix of 100, and uniform:20:300): every record's
          usage.prompt_tokens minus the measured overhead (6) is exactly what was
          asked; the run's note reports the overhead and no reply differing, and
          so does the result file's template_overhead;
          sm-compare's report shows it per input; with the tokenizer.json (whose words are the emulator's reply words)
          every reply's text is usage.completion_tokens long; with one that
          knows none of them (each reply word several tokens) every reply is
          reported as differing
  dataset with both kinds: a plain text corpus's prompts are cut to exactly
          --input-tokens tokens (usage.prompt_tokens minus the overhead); a
          ShareGPT file's prompts are counted (each record's prompt_tokens minus
          the overhead is its human turn's count, the note gives their lengths)
          and with --dataset-output-tokens each request's max_tokens is its gpt
          turn's count
  turns   chat.lua --turns 3 with each tokenizer: the overhead per turn grows with
          the history (the emulator's 2 + 4 a message: 6, 14, 22), every reply
          of a turn agreeing, in the notes, the head's template_overhead.per_turn
          and sm-compare's report
  bad     a file that is no model: sm-stream, wrk (rate.lua) and sm-emulator
          each print one line naming it and exit 2

usage: test_tokenizer.py CASE... | all   (environment: SM_EMULATOR, SM_STREAM)"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from emutest import chat, check, finish, invoke  # noqa: E402
import emulator  # noqa: E402  (tests/lib, on the path through emutest)
from testkit import run_cases  # noqa: E402
from tokmodels import WORDS, train_sentencepiece, write_corpus, write_tokenizer_json  # noqa: E402

import sentencepiece  # noqa: E402

TEMPLATE = 6  # the emulator's chat template: 2 for the reply, 4 for the one message
RATE_LUA = os.path.join(ROOT, "scenarios", "rate.lua")
NOTE = re.compile(r"rate: note: template overhead: (\d+) tokens \(usage\.prompt_tokens \d+ for "
                  r"a prompt of exactly \d+ by [^)]*\); (\d+) of (\d+) replies differ from it")
OUT_NOTE = re.compile(r"rate: note: reply lengths: (\d+) of (\d+) replies' texts are not "
                      r"usage\.completion_tokens long by the tokenizer")


def models(tmp):
    """(kind, path) of a trained SentencePiece model and a written tokenizer.json."""
    spm = train_sentencepiece(tmp, "unigram")
    bpe = os.path.join(tmp, "tokenizer.json")
    write_tokenizer_json(bpe, ignore_merges=True)  # every word of WORDS one token
    return [("sentencepiece", spm), ("bpe", bpe)]


def test_count():
    with tempfile.TemporaryDirectory() as tmp:
        for kind, path in models(tmp):
            if kind == "sentencepiece":
                sp = sentencepiece.SentencePieceProcessor(model_file=path)
                texts = [(t, len(sp.encode(t))) for t in
                         ("the keeper climbed the old lighthouse", "Gulls, 42 of them!",
                          "lighthouse" * 7)]
            else:  # each word one token, after a space or first; "." one more
                texts = [("the keeper climbed the old lighthouse", 6),
                         ("reef. storm.", 4)]
            with emulator.Emulator(["--endpoint", "ep=instant", "--tokenizer", path]) as emu:
                for text, n in texts:
                    r = invoke(emu.url, "ep", chat(text, max_tokens=4))
                    got = r.json().get("usage", {}).get("prompt_tokens") if r.status == 200 \
                        else r.body[:200]
                    check(got == n + TEMPLATE, "%s: %r is %d tokens + %d, the emulator says %r"
                          % (kind, text, n, TEMPLATE, got))


def run_rate(emu, tmp, path, extra):
    out = os.path.join(tmp, "out.json")
    cmd = [os.environ["SM_STREAM"], "-t1", "-c16", "-d5m", "-s", RATE_LUA, emu.url, "--",
           "--endpoint", "ep", "--region", "us-east-1", "--rates", "16", "--duration", "1",
           "--arrivals", "constant", "--tokenizer", path, "--max-tokens", "12", "--progress",
           "0", "--out", out, "--force"] + extra
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    check(p.returncode == 0, "sm-stream rate.lua %s: exit %d %s" % (extra, p.returncode,
                                                                   p.stderr[-400:]))
    with open(out) as f:
        return json.load(f)["records"], p.stderr


def compare_report(tmp):
    """sm-compare's text report of tmp/out.json against a copy of itself."""
    b, c = os.path.join(tmp, "b"), os.path.join(tmp, "c")
    for d in (b, c):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        shutil.copy(os.path.join(tmp, "out.json"), os.path.join(d, "rate.json"))
    p = subprocess.run([os.environ["SM_COMPARE"], b, c], capture_output=True, text=True,
                       timeout=60)
    check(p.returncode in (0, 1), "sm-compare: exit %d %s" % (p.returncode, p.stderr[-300:]))
    return " ".join(p.stdout.split())  # the lines as wrapped, joined


def test_exact():
    with tempfile.TemporaryDirectory() as tmp:
        for kind, path in models(tmp):
            with emulator.Emulator(["--endpoint", "ep=instant", "--tokenizer", path]) as emu:
                for extra, want in ((["--input-tokens", "2048"], 2048),
                                    (["--input-tokens", "300", "--prefix-tokens", "100",
                                      "--prefix-groups", "2"], 300),
                                    (["--input-tokens", "uniform:20:300"], None)):
                    recs, err = run_rate(emu, tmp, path, extra)
                    check(len(recs) == 16 and all(r["ok"] for r in recs),
                          "%s %s: %d records" % (kind, extra, len(recs)))
                    m = NOTE.search(err)
                    check(m is not None, "%s %s: no overhead note in %r" % (kind, extra, err))
                    check(m is None or m.groups() == (str(TEMPLATE), "0", "16"),
                          "%s %s: the note says %r" % (kind, extra, m and m.group(0)))
                    with open(os.path.join(tmp, "out.json")) as f:
                        t = json.load(f).get("template_overhead")
                    check(t is not None and t.get("tokens") == TEMPLATE and
                          t.get("replies") == 16 and t.get("replies_differing") == 0 and
                          t.get("tokenizer") == os.path.basename(path) and
                          t.get("first_prompt_tokens") == t.get("exact_tokens", -99) + TEMPLATE,
                          "%s %s: the head's template_overhead %r" % (kind, extra, t))
                    if want == 2048:
                        report = compare_report(tmp)
                        check("Chat template overhead (--tokenizer)" in report and
                              ("%d tokens (usage.prompt_tokens %d for a prompt of exactly 2048"
                               % (TEMPLATE, 2048 + TEMPLATE)) in report and
                              "0 of 16 replies differ from it" in report,
                              "%s: sm-compare's report says the overhead: %r" % (kind, report))
                    if want is not None:
                        got = sorted({r["prompt_tokens"] - TEMPLATE for r in recs})
                        check(got == [want], "%s %s: prompt_tokens minus %d are %r, not %d"
                              % (kind, extra, TEMPLATE, got, want))
                    if kind == "bpe":
                        m = OUT_NOTE.search(err)
                        check(m is not None and m.groups() == ("0", "16"),
                              "bpe %s: reply lengths note %r" % (extra, m and m.group(0)))


def test_reply_lengths_differ():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "tokenizer.json")
        write_tokenizer_json(path, words=["zq", "zqx", "xzq"])  # no word of the emulator's
        with emulator.Emulator(["--endpoint", "ep=instant", "--tokenizer", path]) as emu:
            recs, err = run_rate(emu, tmp, path, ["--input-tokens", "64"])
        check(sorted({r["prompt_tokens"] for r in recs}) == [64 + TEMPLATE],
              "unknown words: prompt_tokens %r" % sorted({r["prompt_tokens"] for r in recs}))
        m = OUT_NOTE.search(err)
        check(m is not None and m.groups() == ("16", "16"),
              "replies of words the tokenizer splits: the note %r" % (m and m.group(0)))


DS_NOTE = re.compile(r"rate: note: dataset prompts by [^:]*: (\d+) of them, (\d+) to (\d+) "
                     r"tokens \(mean [\d.]+\) before the template")


def counter(kind, path):
    """The number of tokens of a text by the model at path (python3-sentencepiece's; the
    tokenizer.json's: one a word of WORDS after a space or first, '.' one more)."""
    if kind == "sentencepiece":
        sp = sentencepiece.SentencePieceProcessor(model_file=path)
        return lambda t: len(sp.encode(t))
    return lambda t: sum(1 + w.count(".") for w in t.split())


def test_dataset():
    with tempfile.TemporaryDirectory() as tmp:
        corpus = os.path.join(tmp, "corpus.txt")
        write_corpus(corpus)
        convs = []
        for i in range(6):  # prompts of 3 to 8 words, replies of 2 to 12
            human = " ".join(WORDS[(i * 5 + k) % len(WORDS)] for k in range(3 + i))
            gpt = " ".join(WORDS[(i * 3 + k) % len(WORDS)] for k in range(2 + 2 * i))
            convs.append({"conversations": [{"from": "human", "value": human},
                                            {"from": "gpt", "value": gpt}]})
        sharegpt = os.path.join(tmp, "sharegpt.json")
        with open(sharegpt, "w") as f:
            json.dump(convs, f)
        for kind, path in models(tmp):
            count = counter(kind, path)
            with emulator.Emulator(["--endpoint", "ep=instant", "--tokenizer", path]) as emu:
                recs, err = run_rate(emu, tmp, path, ["--dataset", corpus, "--input-tokens",
                                                      "uniform:40:400"])
                lens = sorted({r["prompt_tokens"] - TEMPLATE for r in recs})
                check(len(recs) == 16 and all(r["ok"] for r in recs),
                      "%s corpus: %d records" % (kind, len(recs)))
                m = NOTE.search(err)
                check(m is not None and m.groups() == (str(TEMPLATE), "0", "16"),
                      "%s corpus: the overhead note %r (every prompt exact)"
                      % (kind, m and m.group(0)))
                check(all(40 <= n <= 400 for n in lens) and len(lens) > 1,
                      "%s corpus: prompt lengths %r" % (kind, lens))
                recs, err = run_rate(emu, tmp, path, ["--dataset", sharegpt,
                                                      "--dataset-output-tokens"])
                want = {count(c["conversations"][0]["value"]):
                        count(c["conversations"][1]["value"]) for c in convs}
                check(len(want) == len(convs), "%s: the test's prompts differ in length" % kind)
                got = [(r["prompt_tokens"] - TEMPLATE, r["max_tokens"]) for r in recs]
                check(len(recs) == 16 and all(p in want and want[p] == mt for p, mt in got),
                      "%s sharegpt: (prompt tokens, max_tokens) %r, want from %r"
                      % (kind, got, want))
                m = DS_NOTE.search(err)
                check(m is not None and m.group(1) == "16" and
                      int(m.group(2)) >= min(want) and int(m.group(3)) <= max(want),
                      "%s sharegpt: the lengths note %r" % (kind, m and m.group(0)))
                m = NOTE.search(err)
                check(m is not None and m.groups() == (str(TEMPLATE), "0", "16"),
                      "%s sharegpt: the overhead note %r" % (kind, m and m.group(0)))


def test_turns():
    want = [2 + 4 * (2 * t - 1) for t in (1, 2, 3)]
    with tempfile.TemporaryDirectory() as tmp:
        for kind, path in models(tmp):
            out = os.path.join(tmp, "out.json")
            with emulator.Emulator(["--endpoint", "ep=instant", "--tokenizer", path]) as emu:
                p = subprocess.run(
                    [os.environ["SM_STREAM"], "-t1", "-c4", "-d5m", "-s",
                     os.path.join(ROOT, "scenarios", "chat.lua"), emu.url, "--", "--endpoint",
                     "ep", "--region", "us-east-1", "--conversations", "4", "--turns", "3",
                     "--input-tokens", "30", "--max-tokens", "5", "--tokenizer", path,
                     "--progress", "0", "--out", out, "--force"],
                    capture_output=True, text=True, timeout=240)
            check(p.returncode == 0, "%s chat.lua: exit %d %s" % (kind, p.returncode,
                                                                p.stderr[-400:]))
            if p.returncode:
                continue
            with open(out) as f:
                t = json.load(f).get("template_overhead") or {}
            got = [(e.get("tokens"), e.get("replies"), e.get("replies_differing"))
                   for e in t.get("per_turn", [])]
            check(got == [(w, 4, 0) for w in want],
                  "%s: per_turn (tokens, replies, differing) %r, want %r" % (kind, got, want))
            for turn, w in enumerate(want, 1):
                line = "chat: note: template overhead, turn %d: %d tokens; 0 of 4 replies " \
                       "differ from it" % (turn, w)
                check(line in p.stderr, "%s: no note %r in %r" % (kind, line, p.stderr[-600:]))
            report = compare_report(tmp)
            check(all("turn %d: %d tokens; 0 of 4 replies differ from it" % (k, w) in report
                      for k, w in enumerate(want, 1)),
                  "%s: sm-compare's per-turn lines in %r" % (kind, report[-800:]))


def test_bad():
    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, "not-a.model")
        with open(bad, "wb") as f:
            f.write(b"\x0a\x05hello, no protobuf of a model\n")
        args = ["--endpoint", "ep", "--region", "us-east-1", "--rates", "1", "--duration", "1",
                "--input-tokens", "20", "--tokenizer", bad]
        cmds = {"sm-stream": [os.environ["SM_STREAM"], "-t1", "-c1", "-d5s", "-s", RATE_LUA,
                              "http://127.0.0.1:9", "--"] + args,
                "sm-emulator": [emulator.find_binary(), "--tokenizer", bad]}
        if shutil.which("wrk"):
            cmds["wrk"] = ["wrk", "-t1", "-c1", "-d1s", "-s", RATE_LUA, "http://127.0.0.1:9",
                           "--"] + args
        for name, cmd in cmds.items():
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            lines = p.stderr.splitlines()
            check(p.returncode == 2 and len(lines) == 1 and bad in lines[0] and
                  "neither a tokenizer.json nor a SentencePiece model" in lines[0],
                  "%s with a bad model: exit %d, %r" % (name, p.returncode, p.stderr))


if __name__ == "__main__":
    status = run_cases({"count": test_count, "exact": test_exact,
                        "differ": test_reply_lengths_differ, "bad": test_bad,
                        "dataset": test_dataset, "turns": test_turns}, sys.argv)
    sys.exit(max(status, finish()))
