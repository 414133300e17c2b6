"""The tokenizers of common/tokz.h against models this test makes.

SentencePiece: Debian's spm_train trains a unigram and a BPE model on a text
written here; tokz's ids must be python3-sentencepiece's, and a prompt built to
N tokens must be N tokens by python3-sentencepiece's count. Hugging Face
byte-level BPE: a tokenizer.json written here (its merges build the words);
a prompt built to N tokens encodes to N. A bad model file is one line, exit 2.

    test_tokz.py TOKZ_TOOL"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from testkit import expect, finish  # noqa: E402

import sentencepiece  # noqa: E402

TOOL = sys.argv[1]
WORDS = ("the keeper climbed stairs of old lighthouse and watched waves break on black rocks "
         "while gulls circled above a lamp turned slowly in salt wind night fell over quiet "
         "island ships passed far beyond reef").split()
TEXTS = ["the keeper climbed", "Lighthouse, 42 gulls!  over\tthe reef.", "unknownword zzz",
         "caf\u00e9 \u00e0 la plage", "  leading and trailing  ", ""]
LENGTHS = [1, 2, 7, 100, 2048]


def tool(*args, text=None):
    return subprocess.run([TOOL, *args], input=(text or "").encode(), capture_output=True)


def corpus(path):
    with open(path, "w") as f:
        for i in range(3000):
            words = [WORDS[(i * 7 + k * 13) % len(WORDS)] for k in range(5 + i % 9)]
            f.write(" ".join(words) + ".\n")


def sentencepiece_cases(tmp):
    text = os.path.join(tmp, "corpus.txt")
    corpus(text)
    for kind in ("unigram", "bpe"):
        prefix = os.path.join(tmp, kind)
        r = subprocess.run(["spm_train", "--input=" + text, "--model_prefix=" + prefix,
                            "--vocab_size=80", "--model_type=" + kind, "--hard_vocab_limit=false",
                            "--character_coverage=1.0"], capture_output=True)
        expect(r.returncode == 0, "spm_train %s: %s" % (kind, r.stderr[-300:]))
        model = prefix + ".model"
        sp = sentencepiece.SentencePieceProcessor(model_file=model)
        for t in TEXTS:
            got = tool(model, "encode", text=t).stdout.decode().split()
            want = [str(i) for i in sp.encode(t)]
            expect(got == want, "%s %r: ids %s, sentencepiece says %s" % (kind, t, got, want))
        r = tool(model, "kind")
        expect(r.stdout.decode().startswith("sentencepiece "), "%s: kind %r" % (kind, r.stdout))
        for n in LENGTHS:
            for seed in (1, 9):
                p = tool(model, "prompt", str(n), str(seed)).stdout.decode()
                got = len(sp.encode(p))
                expect(got == n, "%s: a prompt built to %d tokens (seed %d) is %d by "
                       "sentencepiece: %r" % (kind, n, seed, got, p[:80]))


def bpe_json(path):
    """Bytes as tokens, then each word merged letter by letter, after a space
    (Ġword) and alone (word)."""
    vocab, merges = {}, []
    for c in "abcdefghijklmnopqrstuvwxyz\u0120.,":
        vocab[c] = len(vocab)
    for w in WORDS:
        for head in ("\u0120", ""):
            cur = head + w[0]
            if cur not in vocab:
                vocab[cur] = len(vocab)
                merges.append([head, w[0]]) if head else None
            for ch in w[1:]:
                if cur + ch not in vocab:
                    vocab[cur + ch] = len(vocab)
                    merges.append([cur, ch])
                cur += ch
    doc = {"version": "1.0", "added_tokens": [], "normalizer": None,
           "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False,
                             "trim_offsets": True, "use_regex": True},
           "post_processor": None, "decoder": {"type": "ByteLevel"},
           "model": {"type": "BPE", "vocab": vocab, "merges": merges}}
    with open(path, "w") as f:
        json.dump(doc, f)


def bpe_cases(tmp):
    path = os.path.join(tmp, "tokenizer.json")
    bpe_json(path)
    r = tool(path, "kind")
    expect(r.returncode == 0 and r.stdout.decode().startswith("bpe "),
           "tokenizer.json: kind %r %r" % (r.stdout, r.stderr))
    expect(tool(path, "encode", text="the reef").stdout.decode().split() ==
           [str(json.load(open(path))["model"]["vocab"][t]) for t in ("the", "\u0120reef")],
           "tokenizer.json: 'the reef' is not [the, \u0120reef]")
    for n in LENGTHS:
        p = tool(path, "prompt", str(n), "3").stdout
        got = tool(path, "count", text=p.decode()).stdout.decode().strip()
        expect(got == str(n), "bpe: a prompt built to %d tokens counts %s" % (n, got))


def bad_cases(tmp):
    garbage = os.path.join(tmp, "garbage.model")
    with open(garbage, "wb") as f:
        f.write(b"\x08\x96\x01not a model\n")
    broken = os.path.join(tmp, "broken.json")
    with open(broken, "w") as f:
        f.write('{"model": {"type": "WordPiece"}}')
    for path, says in ((garbage, "neither a tokenizer.json nor a SentencePiece model"),
                       (broken, "model.type is not BPE"),
                       (os.path.join(tmp, "absent.model"), "cannot read the tokenizer")):
        r = tool(path, "kind")
        err = r.stderr.decode()
        expect(r.returncode == 2 and err.count("\n") == 1 and says in err and path in err,
               "bad model %s: exit %d, %r" % (path, r.returncode, err))


with tempfile.TemporaryDirectory() as tmp:
    sentencepiece_cases(tmp)
    bpe_cases(tmp)
    bad_cases(tmp)
sys.exit(finish())
