#!/usr/bin/python3
"""Every name a module defines carries its prefix (docs/style.md, "Names"): in x.c and x.h
every function defined (static ones too), struct/union/enum tag, typedef, enum constant
and macro starts with the module's prefix and an underscore, `x_` (macros and enum
constants in capitals, `X_`); a function or type may also be the prefix itself
(`struct buf`, `suite_run()` of suite_run.c). The
prefix is the file's basename unless tests/layout/prefixes.txt declares another (one line
`basename prefix`, or `folder/basename prefix` for one folder's file; sorted, each naming
a file: a line out of order, twice, malformed or naming no file fails too). A program file (a
.c that defines main) uses a prefix no module (a folder's x.h) has. Exempt: `main`,
`luaopen_*` (Lua's loader finds the module by that name), include guards and defaults
of -D flags (`#ifndef X` / `#define X`), macros starting with `_` (feature tests), the
macros another library reads (LIBRARY_NAMES: PCRE2_CODE_UNIT_WIDTH).
Each lapse is named with its file and line. How the C is read, and its limits:
tests/layout/layoutlib.py.

    test_names.py [--self-test | --self-test-first] [--root ROOT] [FOLDER...]

FOLDER (and its sub-folders) limits the check to those folders; --self-test proves the
check on a small tree it writes (a lapse of every kind, a program using a module's prefix);
--self-test-first runs that proof, then the check (how the ctests run)."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layoutlib  # noqa: E402

PREFIXES = os.path.join("tests", "layout", "prefixes.txt")
UPPER = {"macro", "enum constant"}


# Names another library reads: pcre2.h takes the code unit width from this macro.
LIBRARY_NAMES = {"PCRE2_CODE_UNIT_WIDTH"}


def exempt(kind, name):
    if name in LIBRARY_NAMES:
        return True
    return kind == "function" and (name == "main" or name.startswith("luaopen_"))


def carries(kind, name, prefix):
    if kind in UPPER:
        return name.startswith(prefix.upper() + "_")
    if name == prefix:  # the module's own type or its one function (suite_run)
        return True
    return name.startswith(prefix + "_")


def check(root, only=None):
    problems = []
    prefixes = layoutlib.read_prefixes(os.path.join(root, PREFIXES), problems)
    modules = {}  # prefix -> a module's header having it
    bases = set()
    for folder in layoutlib.c_folders(root):
        for f in layoutlib.sources(root, folder):
            bases.update((f.rsplit(".", 1)[0], f"{folder}/{f.rsplit('.', 1)[0]}"))
            if f.endswith(".h"):
                modules.setdefault(layoutlib.prefix_of(prefixes, folder, f[:-2]), f"{folder}/{f}")
    problems += [f"{PREFIXES}: {base} names no file" for base in sorted(set(prefixes) - bases)]
    for folder in layoutlib.c_folders(root, only):
        files = layoutlib.sources(root, folder)
        for name in files:
            base = name.rsplit(".", 1)[0]
            prefix = layoutlib.prefix_of(prefixes, folder, base)
            defined = layoutlib.names(layoutlib.read(root, folder, name))
            is_program = name.endswith(".c") and base + ".h" not in files and any(
                k == "function" and n == "main" for k, n, _ in defined)
            if is_program and prefix in modules:
                problems.append(f"{folder}/{name}: a program with prefix {prefix}_, which the "
                                f"module {modules[prefix]} has (declare another in {PREFIXES})")
            for kind, n, line in defined:
                if not exempt(kind, n) and not carries(kind, n, prefix):
                    want = prefix.upper() if kind in UPPER else prefix
                    problems.append(f"{folder}/{name}:{line}: {kind} {n} lacks the prefix {want}_")
    return problems


def self_test():
    files = {
        "lib/ok.h": "#ifndef SM_OK_H\n#define SM_OK_H\nstruct ok { int n; };\nenum ok_kind "
                    "{ OK_ONE, OK_TWO = 2 };\ntypedef int ok_t;\n#define OK_MAX(a, b) ((a) > "
                    "(b) ? (a) : (b))\nint ok_sum(int a,\n           int b);\n#endif\n",
        "lib/ok.c": '#define _GNU_SOURCE\n#include "ok.h"\nstatic int ok_twice(int (*f)(int),'
                    "\n                    int x) {\n    return f(f(x));\n}\nint ok_sum(int a, "
                    "int b) { return a + b; }\n",
        "lib/bad.h": "struct bad_one { int n; };\nstruct other { int n; };\nenum bad_kind { "
                     "BAD_A,\n    WRONG_B };\ntypedef void (*bad_fn)(int);\ntypedef int "
                     "(*lost_fn)(int);\n#define LOST(x) (x)\n",
        "lib/bad.c": '#include "bad.h"\nstatic int\nhelper(int a,\n       int b) {\n    return '
                     "a;\n}\nint bad_ok(void) { return 0; }\nstatic void __attribute__((unused))"
                     " stray(void) {}\n",
        "lib/rec.h": "struct rec_file { int n; };\n",
        "lib/main.c": '#include "ok.h"\nint main(void) { return 0; }\nstatic int run(void) '
                      "{ return 0; }\n",
        "app/sm_app.c": "static int rec_go(void) { return 0; }\nint main(void) { return "
                        "rec_go(); }\n",
        "tests/layout/prefixes.txt": "record rec\nsm_app rec\nlib/ok ok\nwrong\n",
    }
    with layoutlib.fixture(files) as root:
        got = check(root)
    return layoutlib.expect("names", got, [
        "lib/bad.h:2: struct other lacks the prefix bad_",
        "lib/bad.h:4: enum constant WRONG_B lacks the prefix BAD_",
        "lib/bad.h:6: typedef lost_fn lacks the prefix bad_",
        "lib/bad.h:7: macro LOST lacks the prefix BAD_",
        "lib/bad.c:3: function helper lacks the prefix bad_",
        "lib/bad.c:8: function stray lacks the prefix bad_",
        "lib/main.c:3: function run lacks the prefix main_",
        "app/sm_app.c: a program with prefix rec_, which the module lib/rec.h has",
        "tests/layout/prefixes.txt:3: lib/ok out of order",
        "tests/layout/prefixes.txt:4: not `basename prefix`: wrong",
        "tests/layout/prefixes.txt: record names no file",
    ])


if __name__ == "__main__":
    sys.exit(layoutlib.main(__doc__, check, self_test,
                            "the names of {n} folders carry their module's prefix"))
