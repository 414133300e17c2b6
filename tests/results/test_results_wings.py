#!/usr/bin/python3
"""results/ is built in wings, each using only those below it (results/README.md):
stats, read, figures, compare, report, and sm_compare.c on top. The test fails on
an include of a wing above (or of results/ from a wing), on a C file outside the
wings, on a header name found twice, and on a circle of includes between modules
(a module: x.c and x.h) anywhere in results/.

    test_results_wings.py [ROOT]"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WINGS = ["stats", "read", "figures", "compare", "report"]  # bottom to top
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", ".."))
    results = os.path.join(root, "results")
    where = {}  # module -> its wing's index (len(WINGS): results/ itself)
    files = {}  # module -> its files
    problems = []
    for folder, dirs, names in os.walk(results):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        rel = os.path.relpath(folder, results)
        for name in sorted(n for n in names if n.endswith((".c", ".h"))):
            if rel == "." and name != "sm_compare.c" or rel not in WINGS + ["."]:
                problems.append(f"results/{rel}/{name}: a C file outside the wings {WINGS}")
                continue
            module, wing = name[:-2], WINGS.index(rel) if rel in WINGS else len(WINGS)
            if where.setdefault(module, wing) != wing:
                problems.append(f"results/{rel}/{name}: {module} is in two wings")
            files.setdefault(module, []).append(os.path.join(folder, name))
    arrows = {m: set() for m in files}
    for module, paths in sorted(files.items()):
        for path in paths:
            with open(path, encoding="utf-8") as f:
                for inc in INCLUDE.findall(f.read()):
                    other = inc[:-2]
                    if other not in files or other == module:
                        continue
                    arrows[module].add(other)
                    if where[other] > where[module] or where[other] == len(WINGS):
                        up = (WINGS + ["results"])[where[other]]
                        problems.append(f"{os.path.relpath(path, root)}: includes \"{inc}\" of "
                                        f"results/{up}, a wing above")
    # circles: Tarjan's strongly connected components
    index, low, stack, on, count = {}, {}, [], set(), [0]

    def visit(v):
        index[v] = low[v] = count[0]
        count[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(arrows[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                problems.append("an include circle: " + " ".join(sorted(part)))

    sys.setrecursionlimit(10000)
    for v in sorted(arrows):
        if v not in index:
            visit(v)
    if problems:
        print("FAIL:", *problems, sep="\n  ", file=sys.stderr)
        return 1
    print(f"ok: {len(files)} modules of results/ in {len(WINGS)} wings, "
          f"{sum(len(a) for a in arrows.values())} arrows, none up, no circle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
