#!/usr/bin/python3
"""Every file of the project that its documents name exists: a path under one of the
project's top-level folders (emulator/model/batch.c, scenarios/sweep.lua) in README.md,
BENCHMARKS.md, docs/*.md, a folder's README.md, or a string of the benchmark
(tests/bench/run and its parts, adjacent literals joined as Python joins them, so a path
cut across two lines is read whole). Not counted: a file the README writes itself
(`<!-- readme-test: file PATH -->`) and a path on a line after a peer repository's
`owner/name`, which names that repository's file. The test fails naming the document and
the missing path: a file moved without its mentions.

    test_named_paths.py [--self-test | --self-test-first] [--root ROOT]

--self-test proves the check on a small tree it writes (a stale path in a document and
in a benchmark string cut in two, beside paths that exist, a README-written file and a
peer's); --self-test-first runs that proof, then the check (how the ctest runs)."""
import ast
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layoutlib  # noqa: E402

KINDS = "c|h|py|lua|md|sh|json|txt|csv|jsonl"
WRITTEN = re.compile(r"<!-- readme-test: file (\S+) -->")
PEER = re.compile(r"`[\w.-]+/[\w.-]+`")


def tops(root):
    return sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d))
                  and not d.startswith((".", "build")) and d != "runs")


def texts(root):
    """[(document, text)]: the Markdown files whole, the benchmark's string constants."""
    docs = ["README.md", "BENCHMARKS.md"] + [
        os.path.relpath(f, root) for pat in ("docs/*.md", "*/README.md", "*/*/README.md")
        for f in sorted(glob.glob(os.path.join(root, pat)))]
    out = [(d, layoutlib.read(root, "", d)) for d in docs if os.path.isfile(os.path.join(root, d))]
    bench = sorted(glob.glob(os.path.join(root, "tests", "bench", "*.py")))
    bench += [p for p in [os.path.join(root, "tests", "bench", "run")] if os.path.isfile(p)]
    for path in bench:
        tree = ast.parse(layoutlib.read(root, "", path))
        out += [(os.path.relpath(path, root), n.value) for n in ast.walk(tree)
                if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return out


def check(root, only=None):
    del only  # the documents are the whole tree's
    named = re.compile(r"(?<![\w./-])((?:%s)/[\w./-]*\w\.(?:%s))(?![\w-])"
                       % ("|".join(map(re.escape, tops(root))), KINDS))
    written = set()
    for _, text in texts(root):
        written.update(WRITTEN.findall(text))
    problems = []
    for doc, text in texts(root):
        for line in text.splitlines():
            peer = PEER.search(line)
            for m in named.finditer(line):
                path = m.group(1)
                if peer and peer.start() < m.start() or path in written:
                    continue
                if not os.path.exists(os.path.join(root, path)):
                    problem = f"{doc}: names {path}, which is not in the tree"
                    if problem not in problems:
                        problems.append(problem)
    return problems


def self_test():
    files = {
        "emulator/model/batch.c": "int batch_one(void);\n",
        "scenarios/sweep.lua": "-- sweep\n",
        "docs/guide.md": "The model is emulator/model/batch.c; it was emulator/batch.c.\n"
                         "`ai-dynamo/aiperf` keeps docs/tutorials/exports.md.\n",
        "README.md": "<!-- readme-test: file scenarios/capital.lua -->\n"
                     "wrk -s scenarios/capital.lua; wrk -s scenarios/sweep.lua\n",
        "tests/bench/run": 'NOTE = ("the timing model (emulator/"\n        "model/tok.h)")\n',
    }
    with layoutlib.fixture(files) as root:
        got = check(root)
    return layoutlib.expect("named paths", got, [
        "docs/guide.md: names emulator/batch.c, which is not in the tree",
        "tests/bench/run: names emulator/model/tok.h, which is not in the tree"])


if __name__ == "__main__":
    sys.exit(layoutlib.main(__doc__, check, self_test,
                            "every project file its documents name is in the tree"))
