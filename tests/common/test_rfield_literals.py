#!/usr/bin/python3
"""A record field's name is spelled once, in common/rfield.h (issue 31): no C file
outside the table and the tests holds it as a string literal, neither the whole
literal ("t_end_us") nor a JSON key inside one (",\\"t_end_us\\":"). Where the
same word names something of another format (a reply body's "finish_reason",
the counts' "ok"), rfield_other_uses.txt says so, per file (its basename) or
folder ("emulator/*", a path pattern) and word, with why.

    test_rfield_literals.py ROOT"""
import fnmatch
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = {os.path.join("common", "rfield.h"), os.path.join("common", "rfield.c")}
NAME = re.compile(r'^#define (RFIELD_\w+)\s+"([^"]*)"', re.M)


def table_names(root):
    """The record fields' names: the macros of rfield.h that its table's rows name."""
    with open(os.path.join(root, "common", "rfield.h"), encoding="utf-8") as f:
        text = f.read()
    names = dict(NAME.findall(text))
    rows = re.findall(r"^\s*X\(([^,]*),", text, re.M)
    bad = [r for r in rows if r not in names]
    if bad or not rows:
        raise SystemExit("FAIL: common/rfield.h: a row of RFIELD_TABLE names its field by "
                         f"{bad[0] if bad else 'nothing'}, not by an RFIELD_ macro")
    return {names[m] for m in rows}


def literals(text):
    """The string literals of C source text (escapes kept), comments and chars left out."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif text.startswith("/*", i):
            i = text.find("*/", i + 2)
            i = n if i < 0 else i + 2
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            if c == '"':
                out.append((text.count("\n", 0, i) + 1, text[i + 1 : j]))
            i = j + 1
        else:
            i += 1
    return out


def other_uses(path):
    """[(a basename or a path pattern, {names})]: where a name means another format's word."""
    allowed = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if line:
                allowed.append((line[0].rstrip(":"), set(line[1:])))
    return allowed


def is_other_use(allowed, path, word):
    for where, words in allowed:
        if word in words and (fnmatch.fnmatch(path, where) if "/" in where
                              else os.path.basename(path) == where):
            return True
    return False


def spellings(root, names, allowed):
    """Every literal outside the table and the tests that spells a name: 'path:line: name'."""
    found = []
    keys = re.compile(r'\\"(' + "|".join(map(re.escape, sorted(names))) + r')\\"')
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        dirs[:] = sorted(
            d for d in dirs if not d.startswith((".", "build")) and (rel != "." or d != "tests")
        )
        for name in sorted(files):
            path = os.path.normpath(os.path.join(rel, name))
            if not name.endswith((".c", ".h")) or path in TABLE:
                continue
            with open(os.path.join(root, path), encoding="utf-8") as f:
                text = f.read()
            for line, lit in literals(text):
                for word in ([lit] if lit in names else []) + keys.findall(lit):
                    if not is_other_use(allowed, path, word):
                        found.append(f"{path}:{line}: \"{word}\"")
    return found


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", ".."))
    names = table_names(root)
    allowed = other_uses(os.path.join(HERE, "rfield_other_uses.txt"))
    found = spellings(root, names, allowed)
    if found:
        print("FAIL: a record field's name spelled outside common/rfield.h (use its RFIELD_ "
              "macro; a word of another format goes into tests/common/rfield_other_uses.txt):",
              *found, sep="\n  ", file=sys.stderr)
        return 1
    print(f"ok: {len(names)} record fields, each spelled only in common/rfield.h")
    return 0


if __name__ == "__main__":
    sys.exit(main())
