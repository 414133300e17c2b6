"""The tokenizers of common/tokz.h against models this test makes.

SentencePiece: Debian's spm_train trains a unigram and a BPE model on a text
written here, and a BPE one with Gemma's settings (no dummy prefix, white space
kept, byte fallback); tokz's ids must be python3-sentencepiece's, and a prompt built to
N tokens must be N tokens by python3-sentencepiece's count. Hugging Face
byte-level BPE: a tokenizer.json written here (its merges build the words);
a prompt built to N tokens encodes to N. A bad model file is one line, exit 2.

    test_tokz.py TOKZ_TOOL"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from testkit import expect, finish  # noqa: E402
from tokmodels import GEMMA_LIKE, train_sentencepiece, write_tokenizer_json  # noqa: E402

import sentencepiece  # noqa: E402

TOOL = sys.argv[1]
TEXTS = ["the keeper climbed", "Lighthouse, 42 gulls!  over\tthe reef.", "unknownword zzz",
         "caf\u00e9 \u00e0 la plage", "  leading and trailing  ", ""]
LENGTHS = [1, 2, 7, 100, 2048]


def tool(*args, text=None):
    return subprocess.run([TOOL, *args], input=(text or "").encode(), capture_output=True)


def sentencepiece_cases(tmp):
    for kind, extra in (("unigram", ()), ("bpe", ()), ("gemma-like bpe", GEMMA_LIKE)):
        try:
            model = train_sentencepiece(tmp, kind.split()[-1], vocab_size=400 if extra else 80,
                                        extra=extra, name=kind.replace(" ", "-"))
        except RuntimeError as e:
            expect(False, str(e))
            continue
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


def bpe_cases(tmp):
    path = os.path.join(tmp, "tokenizer.json")
    vocab = write_tokenizer_json(path)
    r = tool(path, "kind")
    expect(r.returncode == 0 and r.stdout.decode().startswith("bpe "),
           "tokenizer.json: kind %r %r" % (r.stdout, r.stderr))
    expect(tool(path, "encode", text="the reef").stdout.decode().split() ==
           [str(vocab[t]) for t in ("the", "\u0120reef")],
           "tokenizer.json: 'the reef' is not [the, \u0120reef]")
    for n in LENGTHS:
        p = tool(path, "prompt", str(n), "3").stdout
        got = tool(path, "count", text=p.decode()).stdout.decode().strip()
        expect(got == str(n), "bpe: a prompt built to %d tokens counts %s" % (n, got))


def link_cases(tmp):
    """A model reached through a link (the Hugging Face cache's way) loads; a FIFO is
    refused without blocking."""
    path = os.path.join(tmp, "blob.json")
    write_tokenizer_json(path)
    link = os.path.join(tmp, "tokenizer-link.json")
    os.symlink(path, link)
    r = tool(link, "kind")
    expect(r.returncode == 0 and r.stdout.decode().startswith("bpe "),
           "a linked tokenizer.json: exit %d %r" % (r.returncode, r.stderr))
    fifo = os.path.join(tmp, "fifo.model")
    os.mkfifo(fifo)
    r = subprocess.run([TOOL, fifo, "kind"], capture_output=True, timeout=30)
    expect(r.returncode == 2 and b"not a regular file" in r.stderr,
           "a FIFO: exit %d %r" % (r.returncode, r.stderr))


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
    link_cases(tmp)
    bad_cases(tmp)
sys.exit(finish())
