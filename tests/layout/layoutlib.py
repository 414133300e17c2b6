"""What the layout checks share: the project's folders of C files and a small C reader.

The reader is regular expressions over the text with comments, strings and character
constants blanked (lengths and line numbers kept), which is enough for this code base:

- functions: a definition is a `{` at brace depth 0 whose head (the text since the last
  `;`, `}` or preprocessor line at depth 0) ends in `)` and holds no `=`; the name is the
  identifier before the head's first `(` (or after `(*` when the function returns a
  function pointer). Multi-line signatures and attributes are fine; a function whose name
  is made by a macro (`F(x) {`) is read as `F`.
- struct/union/enum tags: only definitions (`struct x {`), not uses or forward
  declarations; enum constants: the names before `,`/`=`/`}` inside an enum's braces.
- typedefs: the last identifier of a `typedef ...;` at depth 0, or the one after `(*`
  for a function pointer type.
- macros: every `#define NAME` (with or without arguments); a macro defined right after
  `#ifndef NAME` (an include guard, a default for a -D flag) and one starting with `_`
  (feature-test macros such as _GNU_SOURCE) are not the module's names.
- includes: `#include "x.h"` only (the system's <x.h> are no module's).

It does not expand macros nor follow #if: code under `#if 0` counts as code."""
import os
import re
import sys

SKIP_TOP = ("tests", "docs", "scripts", "deploy", "scenarios")


def c_folders(root, only=None):
    """The project's folders holding .c or .h files, relative to root ('plugin',
    'results/read'), sorted; `only` (folder names) keeps those and their sub-folders."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root).replace(os.sep, "/")
        if rel == ".":
            dirnames[:] = [d for d in dirnames
                           if not d.startswith((".", "build")) and d not in SKIP_TOP]
            continue
        dirnames[:] = [d for d in dirnames if not d.startswith((".", "build"))]
        if any(f.endswith((".c", ".h")) for f in filenames):
            out.append(rel)
    if only:
        out = [f for f in out if any(f == o.strip("/") or f.startswith(o.strip("/") + "/")
                                     for o in only)]
    return sorted(out)


def sources(root, folder):
    d = os.path.join(root, folder)
    return sorted(f for f in os.listdir(d) if f.endswith((".c", ".h")))


def read(root, folder, name):
    with open(os.path.join(root, folder, name), encoding="utf-8") as f:
        return f.read()


_BLANK = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def strip(text):
    """The text with comments, strings and character constants blanked: same length and
    lines, so offsets still give line numbers. Include paths are strings: read them first."""
    def blank(m):
        t = m.group(0)
        if t[0] in "\"'":
            return t[0] + re.sub(r"[^\n]", " ", t[1:-1]) + t[-1]
        return re.sub(r"[^\n]", " ", t)
    return _BLANK.sub(blank, text)


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"([^"]+)"', re.M)


def includes(text):
    """[(header, line)] of the text's #include "x.h" lines."""
    return [(m.group(1), line_of(text, m.start())) for m in INCLUDE.finditer(_no_comments(text))]


def _no_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text,
                  flags=re.S)


IDENT = r"[A-Za-z_]\w*"
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(" + IDENT + ")", re.M)
_IFNDEF = re.compile(r"^[ \t]*#[ \t]*ifndef[ \t]+(" + IDENT +
                     r")[ \t]*\n[ \t]*#[ \t]*define[ \t]+(" + IDENT + ")", re.M)
_PREPRO = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.M)
_TAG = re.compile(r"\b(struct|union|enum)\s+(" + IDENT +
                  r")\s*(?:__attribute__\s*\(\(.*?\)\)\s*)?\{", re.S)
_ENUM_BODY = re.compile(r"\benum\b(?:\s+" + IDENT + r")?\s*\{", re.S)
KEYWORDS = {"if", "while", "for", "switch", "return", "sizeof", "do", "else", "case",
            "__attribute__", "_Static_assert", "static_assert", "__typeof__", "typeof"}


def names(text):
    """The names a C file defines: [(kind, name, line)], kind one of function, struct,
    union, enum, enum constant, typedef, macro."""
    out = []
    clean = strip(text)
    guarded = {a for a, b in _IFNDEF.findall(clean) if a == b}
    for m in _DEFINE.finditer(clean):
        n = m.group(1)
        if n not in guarded and not n.startswith("_"):
            out.append(("macro", n, line_of(clean, m.start())))
    # Preprocessor lines blanked: they hold no definitions the code below reads.
    code = _PREPRO.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), clean)
    for m in _TAG.finditer(code):
        out.append((m.group(1), m.group(2), line_of(code, m.start())))
    for m in _ENUM_BODY.finditer(code):
        end = _match_brace(code, m.end() - 1)
        body = code[m.end():end]
        depth = 0
        start = 0
        for i, ch in enumerate(body + ","):
            if ch in "({[":
                depth += 1
            elif ch in ")}]":
                depth -= 1
            elif ch == "," and depth == 0:
                item = body[start:i]
                mm = re.match(r"\s*(" + IDENT + ")", item)
                if mm:
                    out.append(("enum constant", mm.group(1),
                                line_of(code, m.end() + start + mm.start(1))))
                start = i + 1
    out.extend(_top_level(code))
    return out


def _match_brace(code, i):
    depth = 0
    for j in range(i, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code)


def _top_level(code):
    """Functions defined and typedefs declared at brace depth 0."""
    out = []
    depth = 0
    head_start = 0
    i = 0
    n = len(code)
    body_is_function = False
    while i < n:
        ch = code[i]
        if ch == "{":
            if depth == 0:
                head = code[head_start:i]
                fn = _function_name(head)
                body_is_function = fn is not None
                if fn:
                    at = head.find(fn)
                    out.append(("function", fn, line_of(code, head_start + max(at, 0))))
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0 and body_is_function:
                head_start = i + 1
                body_is_function = False
        elif ch == ";" and depth == 0:
            stmt = code[head_start:i]
            td = _typedef_name(stmt)
            if td:
                out.append(("typedef", td, line_of(code, head_start + stmt.rfind(td))))
            head_start = i + 1
        i += 1
    return out


def _function_name(head):
    h = head.strip()
    if not h.endswith(")") or "=" in h:
        return None
    if re.match(r"(typedef\b|struct\b|union\b|enum\b)[^()]*$", h):
        return None
    # Attributes and their parentheses are not the signature.
    h = re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", " ", h)
    m = re.search(r"\(\s*\*\s*(" + IDENT + r")\s*\(", h)
    if m:
        return m.group(1)
    m = re.search(r"(" + IDENT + r")\s*\(", h)
    if not m or m.group(1) in KEYWORDS:
        return None
    return m.group(1)


def _typedef_name(stmt):
    s = stmt.strip()
    if not s.startswith("typedef"):
        return None
    m = re.search(r"\(\s*\*\s*(" + IDENT + r")\s*\)\s*\(", s)
    if m:
        return m.group(1)
    s = re.sub(r"\[[^\]]*\]\s*$", "", s)
    m = re.search(r"(" + IDENT + r")\s*$", s)
    return m.group(1) if m else None


def read_prefixes(path, problems=None):
    """tests/layout/prefixes.txt: {basename or folder/basename: prefix}. A line that is not
    `basename prefix`, a line out of order or twice goes to problems (when given)."""
    out = {}
    keys = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                fields = line.split("#", 1)[0].split()
                if not fields:
                    continue
                where = f"{os.path.join('tests', 'layout', os.path.basename(path))}:{n}"
                if len(fields) != 2 or not re.fullmatch(r"[\w/]+", fields[0]) or \
                        not re.fullmatch(r"[A-Za-z]\w*", fields[1]):
                    if problems is not None:
                        problems.append(f"{where}: not `basename prefix`: {line.strip()[:80]}")
                    continue
                if problems is not None and (fields[0] in out or keys and fields[0] < keys[-1]):
                    why = "twice" if fields[0] in out else "out of order (keep the lines sorted)"
                    problems.append(f"{where}: {fields[0]} {why}")
                keys.append(fields[0])
                out[fields[0]] = fields[1]
    return out


def prefix_of(prefixes, folder, base):
    """The declared prefix of module `base` in `folder`, without its underscore."""
    return prefixes.get(f"{folder}/{base}", prefixes.get(base, base))


class fixture:
    """A temporary tree of files ({path: text}); `with fixture(files) as root`."""

    def __init__(self, files):
        self.files = files

    def __enter__(self):
        import tempfile
        self.tmp = tempfile.TemporaryDirectory(prefix="layout-")
        for path, text in self.files.items():
            full = os.path.join(self.tmp.name, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write(text)
        return self.tmp.name

    def __exit__(self, *exc):
        self.tmp.cleanup()


def expect(what, got, wanted):
    """0 when every wanted message is in one of got's lines and got has no other line."""
    missing = [w for w in wanted if not any(w in g for g in got)]
    extra = [g for g in got if not any(w in g for w in wanted)]
    if missing or extra:
        print(f"FAIL: the {what} check on its fixture:", *[f"missing: {m}" for m in missing],
              *[f"unexpected: {e}" for e in extra], sep="\n  ", file=sys.stderr)
        return 1
    print(f"ok: the {what} check names the {len(wanted)} planted problems of its fixture")
    return 0


def main(doc, check, self_test, ok_line, *extra):
    """The checks' command line: [--self-test | --self-test-first] [--root ROOT] [FOLDER...]."""
    args = sys.argv[1:]
    if "-h" in args or "--help" in args:
        print(doc)
        return 0
    if args[:1] == ["--self-test"]:
        return self_test()
    if args[:1] == ["--self-test-first"]:  # the ctests: the fixture, then the tree
        if self_test():
            return 1
        args = args[1:]
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    if args[:1] == ["--root"]:
        if len(args) < 2:
            print("layout: --root needs a folder", file=sys.stderr)
            return 2
        root, args = args[1], args[2:]
    root = os.path.abspath(root)
    if not os.path.isdir(root):
        print(f"layout: --root {root}: no such folder", file=sys.stderr)
        return 2
    for a in args:
        if a.startswith("-") or not os.path.isdir(os.path.join(root, a)):
            print(f"layout: {a}: no such folder under {root}", file=sys.stderr)
            return 2
    problems = check(root, *extra, only=args or None)
    if problems:
        print("FAIL:", *problems, sep="\n  ", file=sys.stderr)
        print(f"{len(problems)} problem(s)", file=sys.stderr)
        return 1
    print("ok: " + ok_line.format(n=len(c_folders(root, args or None))))
    return 0
