#!/usr/bin/python3
"""The checked-in .clang-tidy is CI's clang check (tests/README.md, "What CI runs"): with
the build's warning flags, clang-tidy reports clang's own warnings as errors, in a C file
and in a project header of a sub-folder (results/read/, say). A small tree written here,
clang-tidy run on it as scripts/lint runs it (the same config, a compile database with
-Wall -Wextra).

    test_lint_config.py ROOT

Exit 77 (skipped, never passed) when clang-tidy is missing."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HEADER = """static inline int lint_probe_header(void) {
    int unused_in_header;
    return 0;
}
"""
SOURCE = """#include <stdio.h>
#include "read/probe.h"
int lint_probe(int x) {
    int unused_in_source;
    return x + lint_probe_header();
}
"""


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    if not shutil.which("clang-tidy"):
        print("clang-tidy is missing: skipped")
        return 77
    config = os.path.join(sys.argv[1], ".clang-tidy")
    with tempfile.TemporaryDirectory(prefix="lint-config-") as tmp:
        src = os.path.join(tmp, "results", "probe.c")
        os.makedirs(os.path.join(tmp, "results", "read"))
        with open(os.path.join(tmp, "results", "read", "probe.h"), "w") as f:
            f.write(HEADER)
        with open(src, "w") as f:
            f.write(SOURCE)
        with open(os.path.join(tmp, "compile_commands.json"), "w") as f:
            json.dump([{"directory": tmp, "file": src, "command":
                        "cc -std=c11 -Wall -Wextra -I%s/results -c %s -o probe.o" % (tmp, src)}],
                      f)
        p = subprocess.run(["clang-tidy", "--config-file=" + config, "-p", tmp, "--quiet", src],
                           capture_output=True, text=True, timeout=120)
    out = p.stdout + p.stderr
    problems = []
    if p.returncode == 0:
        problems.append("clang-tidy passed a file with two of clang's warnings")
    for where, name in (("probe.c", "unused_in_source"), ("read/probe.h", "unused_in_header")):
        if not any(where in line and name in line and "[clang-diagnostic-unused-variable" in line
                   and "error:" in line for line in out.splitlines()):
            problems.append(f"no clang-diagnostic error for {name} in {where}")
    for line in problems:
        print(line)
    if problems:
        print(out[-2000:])
        return 1
    print("clang-tidy reports clang's own warnings as errors, in a source and a sub-folder's header")
    return 0


if __name__ == "__main__":
    sys.exit(main())
