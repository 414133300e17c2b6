#!/usr/bin/python3
"""No two folders share a name (docs/style.md, "Names"): no header basename and no type
name (struct, union or enum tag defined with its body, typedef) is defined in two folders
(sub-folders are folders of their own), so an #include "x.h" and a `struct x` mean one
thing wherever they are read. Each duplicate is named with every file and line that
defines it. How the C is read, and its limits: tests/layout/layoutlib.py.

    test_duplicates.py [--self-test | --self-test-first] [--root ROOT] [FOLDER...]

FOLDER (and its sub-folders) limits the report to duplicates one of those folders takes
part in; --self-test proves the check on a small tree it writes (a header and a struct tag
in two folders);
--self-test-first runs that proof, then the check (how the ctests run)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layoutlib  # noqa: E402

TYPES = ("struct", "union", "enum", "typedef")


def check(root, only=None):
    mine = set(layoutlib.c_folders(root, only))
    seen = {}  # (what, name) -> {folder: "file:line"}
    for folder in layoutlib.c_folders(root):
        for f in layoutlib.sources(root, folder):
            if f.endswith(".h"):
                seen.setdefault(("header", f), {}).setdefault(folder, f"{folder}/{f}")
            for kind, name, line in layoutlib.names(layoutlib.read(root, folder, f)):
                if kind in TYPES:
                    seen.setdefault((kind, name), {}).setdefault(folder, f"{folder}/{f}:{line}")
    problems = []
    for (what, name), where in sorted(seen.items()):
        if len(where) > 1 and mine & set(where):
            problems.append(f"{what} {name} in {len(where)} folders: "
                            f"{', '.join(where[f] for f in sorted(where))}")
    return problems


def self_test():
    files = {
        "one/rng.h": "struct rng_state { int s; };\n",
        "one/invoke.c": "struct invoke {\n    int n;\n};\nstruct one_x { int n; };\n",
        "two/sub/rng.h": "struct rng_seed { int s; };\n",
        "two/call.c": "struct call_y;\n\nstruct invoke { int m; };\n",
        "two/call.h": "struct one_x;\n",
    }
    with layoutlib.fixture(files) as root:
        got = check(root)
    return layoutlib.expect("duplicates", got, [
        "header rng.h in 2 folders: one/rng.h, two/sub/rng.h",
        "struct invoke in 2 folders: one/invoke.c:1, two/call.c:3",
    ])


if __name__ == "__main__":
    sys.exit(layoutlib.main(__doc__, check, self_test, "no name defined in two of {n} folders"))
