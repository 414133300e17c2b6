#!/usr/bin/python3
"""No include circle between the modules of a folder: inside every folder (sub-folders are
folders of their own), module x (x.c and x.h) uses module y when one of x's files includes
"y.h" of the same folder; the test fails on a circle of such uses (a.h includes b.h, b.c
includes a.h), naming its modules in order and the include (file and line) that makes
each step. A module's own header does not count.

    test_circles.py [--self-test | --self-test-first] [--root ROOT] [FOLDER...]

FOLDER (and its sub-folders) limits the check to those folders; --self-test proves the
check on a small tree it writes (a circle of three modules beside a clean folder);
--self-test-first runs that proof, then the check (how the ctests run)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layoutlib  # noqa: E402


def uses(root, folder):
    """{module: {used module: "file:line"}} of the folder."""
    files = layoutlib.sources(root, folder)
    headers = {f[:-2] for f in files if f.endswith(".h")}
    out = {}
    for name in files:
        mod = name.rsplit(".", 1)[0]
        edges = out.setdefault(mod, {})
        for inc, line in layoutlib.includes(layoutlib.read(root, folder, name)):
            used = inc[:-2] if inc.endswith(".h") else None
            if used in headers and used != mod and used not in edges:
                edges[used] = f"{folder}/{name}:{line}"
    return out


def circles(graph):
    """The circles of the graph, one per strongly connected part, each as a list of
    modules in order (first one again at the end)."""
    index, low, stack, on, parts = {}, {}, [], set(), []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, {})):
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
                parts.append(set(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    out = []
    for part in parts:  # one circle through the part's first module, by breadth-first search
        start = min(part)
        prev, todo = {start: None}, [start]
        found = None
        while todo and not found:
            v = todo.pop(0)
            for w in sorted(graph[v]):
                if w == start:
                    found = v
                    break
                if w in part and w not in prev:
                    prev[w] = v
                    todo.append(w)
        path = [start]
        v = found
        while v != start:
            path.insert(1, v)
            v = prev[v]
        out.append(path + [start])
    return sorted(out)


def check(root, only=None):
    problems = []
    for folder in layoutlib.c_folders(root, only):
        graph = uses(root, folder)
        for circle in circles(graph):
            steps = ", ".join(f"{graph[a][b]} includes \"{b}.h\""
                              for a, b in zip(circle, circle[1:]))
            problems.append(f"{folder}/: include circle {' -> '.join(circle)} ({steps})")
    return problems


def self_test():
    files = {
        "lib/a.h": '#include "b.h"\n',
        "lib/a.c": '#include "a.h"\n',
        "lib/b.h": "int b_one(void);\n",
        "lib/b.c": '#include "b.h"\n\n#include "c.h"\n',
        "lib/c.h": "int c_one(void);\n",
        "lib/c.c": '#include "c.h"\n#include "a.h"\n',
        "ok/x.h": "int x_one(void);\n",
        "ok/y.c": '#include "x.h"\n#include "y.h"\n',
        "ok/y.h": '#include "x.h"\n',
    }
    with layoutlib.fixture(files) as root:
        got = check(root)
    return layoutlib.expect("circles", got, [
        'lib/: include circle a -> b -> c -> a (lib/a.h:1 includes "b.h", lib/b.c:3 includes '
        '"c.h", lib/c.c:2 includes "a.h")'])


if __name__ == "__main__":
    sys.exit(layoutlib.main(__doc__, check, self_test, "no include circle inside {n} folders"))
