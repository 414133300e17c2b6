#!/usr/bin/python3
"""The project stands alone: no tracked file names a place outside the repository that a
user's clone would not have (the workplace's folder beside it, a developer's home or work
folder). Run from anywhere: test_standalone.py [ROOT]."""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Built from pieces so that this file does not match itself.
OUTSIDE = re.compile("|".join([r"\.\./" + "shared", "SM_" + "SHARED_DIR", "shared/" + "reference",
                               "shared/" + "sigv4", "/" + "work/", "/" + "home/"]))


def tracked(root):
    p = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True)
    if p.returncode == 0:
        return [f for f in p.stdout.decode().split("\0") if f]
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(("build", ".git"))]
        out += [os.path.relpath(os.path.join(d, f), root) for f in files]
    return out


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", ".."))
    found = []
    for rel in tracked(root):
        try:
            with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
                for n, line in enumerate(f, 1):
                    if OUTSIDE.search(line):
                        found.append(f"{rel}:{n}: {line.strip()[:120]}")
        except (IsADirectoryError, FileNotFoundError):
            continue
    if found:
        print("FAIL: files name places outside the repository:", *found[:20], sep="\n  ",
              file=sys.stderr)
        return 1
    print("ok: no file names a place outside the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main())
