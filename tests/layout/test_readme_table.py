#!/usr/bin/python3
"""The README's folder table is the layout: every folder of C files that LAYOUT
(test_includes.py) names has a row "| `folder/` | what | the folders it uses |" whose
last cell lists exactly its arrows, in any order ("nothing" for none).

    test_readme_table.py [--root ROOT]"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_includes import LAYOUT  # noqa: E402

ROW = re.compile(r"^\| `([a-z/]+)/` \|.*\| ([a-z/, ]*) \|$", re.M)


def main():
    root = sys.argv[sys.argv.index("--root") + 1] if "--root" in sys.argv else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        rows = {m.group(1): {a.strip() for a in m.group(2).split(",")} - {"", "nothing"}
                for m in ROW.finditer(f.read())}
    problems = []
    for folder, uses in sorted(LAYOUT.items()):
        if folder not in rows:
            problems.append(f"README.md: no row for `{folder}/` in the folder table")
        elif rows[folder] != set(uses):
            problems.append(f"README.md: `{folder}/` uses {', '.join(sorted(rows[folder]))} "
                            f"in the table, {', '.join(sorted(uses)) or 'nothing'} in LAYOUT")
    if problems:
        print("FAIL:", *problems, sep="\n  ", file=sys.stderr)
        return 1
    print(f"ok: the README's folder table has the {len(LAYOUT)} folders with their arrows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
