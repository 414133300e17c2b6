#!/usr/bin/python3
"""The folders are libraries and programs whose includes run one way (README.md, "Layout"):
every #include "x.h" of a folder's C files must resolve to its own folder or to one the
layout lets it use. A LAYOUT key is a folder path under the root, sub-folders too
("results/read", "emulator/model"); a sub-folder is a folder of its own and names what it
uses like any other. The test fails on an arrow against the layout (file and line), on a
header it cannot find, and on a folder of C files the layout does not name.

    test_includes.py [--self-test | --self-test-first] [--root ROOT] [FOLDER...]

FOLDER (and its sub-folders) limits the check to those folders; --self-test proves the
check on a small tree it writes (an arrow against the layout, a folder without an entry);
--self-test-first runs that proof, then the check (how the ctests run)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layoutlib  # noqa: E402

# What each folder may include from, besides itself (the arrows of the layout).
LAYOUT = {
    "common": [],
    "signer": ["common"],
    "aws": ["signer", "common"],
    "plugin": ["signer", "common"],
    "stream": ["plugin", "signer", "common"],
    "results/stats": ["common"],
    "results/read": ["results/stats", "common"],
    "results/figures": ["results/read", "results/stats", "common"],
    "results/compare": ["results/figures", "results/read", "results/stats", "common"],
    "results/report": ["results/compare", "results/figures", "results/read", "results/stats",
                       "common"],
    "results": ["results/report", "results/compare", "results/figures", "results/read",
                "results/stats", "common"],
    "emulator": ["emulator/runtime", "emulator/aws", "emulator/model", "emulator/http", "signer",
                 "common"],
    "emulator/runtime": ["emulator/aws", "emulator/model", "emulator/http", "signer", "common"],
    "emulator/aws": ["emulator/model", "emulator/http", "signer", "common"],
    "emulator/model": ["emulator/http", "signer", "common"],
    "emulator/http": ["signer", "common"],
    "suite": ["aws", "signer", "common"],
    "endpoint": ["aws", "signer", "common"],
    "tools": ["endpoint", "aws", "signer", "common"],
    "mcp": ["endpoint", "aws", "signer", "common"],
}


def check(root, layout, only=None):
    every = layoutlib.c_folders(root)
    have = {f: {h for h in layoutlib.sources(root, f) if h.endswith(".h")} for f in every}
    problems = []
    for folder in layoutlib.c_folders(root, only):
        if folder not in layout:
            problems.append(f"{folder}/: C files in a folder the layout does not name "
                            f"(add it to LAYOUT in {os.path.basename(__file__)})")
            continue
        for name in layoutlib.sources(root, folder):
            for inc, line in layoutlib.includes(layoutlib.read(root, folder, name)):
                if inc in have[folder]:
                    continue
                owners = [o for o in every if inc in have[o]]
                if not owners:
                    problems.append(f"{folder}/{name}:{line}: includes \"{inc}\", found nowhere")
                elif not any(o in layout[folder] for o in owners):
                    problems.append(f"{folder}/{name}:{line}: includes \"{inc}\" of "
                                    f"{' and '.join(o + '/' for o in owners)}, against the layout "
                                    f"({folder} uses {', '.join(layout[folder]) or 'nothing'})")
    return problems


def self_test():
    files = {
        "base/a.h": "int a_one(void);\n",
        "lib/sub/b.c": '#include "a.h"\n#include "b.h"\n',
        "lib/sub/b.h": "int b_one(void);\n",
        "base/c.c": '#include "a.h"\n\n#include "b.h"\n',
        "stray/d.c": "int d_one(void) { return 0; }\n",
    }
    layout = {"base": [], "lib/sub": ["base"]}
    with layoutlib.fixture(files) as root:
        got = check(root, layout)
    return layoutlib.expect("includes", got, [
        'base/c.c:3: includes "b.h" of lib/sub/, against the layout (base uses nothing)',
        "stray/: C files in a folder the layout does not name",
    ])


if __name__ == "__main__":
    sys.exit(layoutlib.main(__doc__, check, self_test, "the includes of {n} folders follow the "
                            "layout", LAYOUT))
