#!/usr/bin/python3
"""The folders are libraries and programs whose includes run one way (README.md, "Layout"):
every #include "x.h" of a folder's C files must resolve to its own folder or to one the
layout lets it use. The test fails on an arrow against the layout, on a header it cannot
find, and on a folder of C files the layout does not name.

    test_includes.py [ROOT]"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# What each folder may include from, besides itself (the arrows of the layout).
LAYOUT = {
    "common": [],
    "signer": ["common"],
    "aws": ["signer", "common"],
    "plugin": ["signer", "common"],
    "stream": ["plugin", "aws", "signer", "common"],
    "results/stats": ["common"],
    "results/read": ["results/stats", "common"],
    "results/figures": ["results/read", "results/stats", "common"],
    "results/compare": ["results/figures", "results/read", "results/stats", "common"],
    "results/report": ["results/compare", "results/figures", "results/read", "results/stats",
                       "common"],
    "results": ["results/report", "results/compare", "results/figures", "results/read",
                "results/stats", "common"],
    "emulator": ["signer", "common"],
    "suite": ["aws", "signer", "common"],
    "tools": ["aws", "signer", "common"],
    "mcp": ["tools", "aws", "signer", "common"],
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def headers(root, folder):
    d = os.path.join(root, folder)
    return {f for f in os.listdir(d) if f.endswith(".h")} if os.path.isdir(d) else set()


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", ".."))
    have = {folder: headers(root, folder) for folder in LAYOUT}
    problems = []
    for entry in sorted(os.listdir(root)):
        path = os.path.join(root, entry)
        if not os.path.isdir(path) or entry.startswith((".", "build")) or entry == "tests":
            continue
        sources = [f for f in os.listdir(path) if f.endswith((".c", ".h"))]
        if sources and entry not in LAYOUT:
            problems.append(f"{entry}/: C files in a folder the layout does not name")
            continue
        for name in sorted(sources):
            with open(os.path.join(path, name), encoding="utf-8") as f:
                for inc in INCLUDE.findall(f.read()):
                    if inc in have[entry]:
                        continue
                    owners = [o for o in LAYOUT if inc in have[o]]
                    if not owners:
                        problems.append(f"{entry}/{name}: includes \"{inc}\", found nowhere")
                    elif not any(o in LAYOUT[entry] for o in owners):
                        problems.append(f"{entry}/{name}: includes \"{inc}\" of {'/'.join(owners)}/"
                                        f", against the layout ({entry} uses "
                                        f"{', '.join(LAYOUT[entry]) or 'nothing'})")
    if problems:
        print("FAIL:", *problems, sep="\n  ", file=sys.stderr)
        return 1
    print(f"ok: the includes of {len(LAYOUT)} folders follow the layout")
    return 0


if __name__ == "__main__":
    sys.exit(main())
