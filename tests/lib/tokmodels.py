"""Tokenizer models the tests make themselves (stdlib only, and Debian's spm_train).

    from tokmodels import WORDS, train_sentencepiece, write_tokenizer_json
    model = train_sentencepiece(tmp, "unigram")      # tmp/unigram.model
    write_tokenizer_json(tmp + "/tokenizer.json")    # byte-level BPE

WORDS are the emulator's filler words (emulator/model/tok.c), so that its replies are
made of words these models know."""
import json
import os
import subprocess

WORDS = ("the keeper climbed stairs of old lighthouse and watched waves break on black rocks "
         "while gulls circled above a lamp turned slowly in salt wind night fell over quiet "
         "island ships passed far beyond reef he wrote every storm into his logbook before "
         "dawn grey fog rolled across harbour where boats rested near cliffs").split()


def write_corpus(path):
    """Sentences of WORDS, deterministic."""
    with open(path, "w") as f:
        for i in range(3000):
            words = [WORDS[(i * 7 + k * 13) % len(WORDS)] for k in range(5 + i % 9)]
            f.write(" ".join(words) + ".\n")


# Gemma's settings: no dummy prefix (the text's first word has no '▁'), white space
# kept as it is, unknown bytes as byte pieces.
GEMMA_LIKE = ["--add_dummy_prefix=false", "--remove_extra_whitespaces=false",
              "--normalization_rule_name=identity", "--byte_fallback=true", "--split_digits=true"]


def train_sentencepiece(tmp, kind, vocab_size=80, extra=(), name=None):
    """spm_train on write_corpus's text (extra: more of its flags): returns the
    .model's path, tmp/NAME.model (NAME: kind), and raises on failure."""
    text = os.path.join(tmp, "corpus.txt")
    if not os.path.exists(text):
        write_corpus(text)
    prefix = os.path.join(tmp, name or kind)
    r = subprocess.run(["spm_train", "--input=" + text, "--model_prefix=" + prefix,
                        "--vocab_size=%d" % vocab_size, "--model_type=" + kind,
                        "--hard_vocab_limit=false", "--character_coverage=1.0"] + list(extra),
                       capture_output=True)
    if r.returncode != 0:
        raise RuntimeError("spm_train %s: %s" % (kind, r.stderr[-300:]))
    return prefix + ".model"


def write_tokenizer_json(path, ignore_merges=False, words=WORDS):
    """A byte-level BPE tokenizer.json (GPT-2's kind): the letters, the space's
    stand-in and '.' as tokens, then each of words (WORDS) merged letter by letter after
    a space (Ġword; these merges first, so that a word after a space is always
    one token) and alone (word: one token only where no other word's merge cuts
    in first, unless ignore_merges, Llama 3's rule, makes a word of the
    vocabulary one token). Returns the vocabulary."""
    vocab, merges = {}, []
    for c in "abcdefghijklmnopqrstuvwxyz\u0120.,":
        vocab[c] = len(vocab)
    for head in ("\u0120", ""):
        for w in words:
            cur = head + w[0]
            if cur not in vocab:
                vocab[cur] = len(vocab)
                merges.append([head, w[0]])
            for ch in w[1:]:
                if cur + ch not in vocab:
                    vocab[cur + ch] = len(vocab)
                    merges.append([cur, ch])
                cur += ch
    doc = {"version": "1.0", "added_tokens": [], "normalizer": None,
           "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False,
                             "trim_offsets": True, "use_regex": True},
           "post_processor": None, "decoder": {"type": "ByteLevel"},
           "model": {"type": "BPE", "vocab": vocab, "merges": merges,
                     "ignore_merges": ignore_merges}}
    with open(path, "w") as f:
        json.dump(doc, f)
    return vocab
