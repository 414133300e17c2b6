#!/usr/bin/python3
"""The README's hand-made start-up log query asks for every fact sm-suite fetches: its
--filter-pattern is aws/cwlogs.h's CWLOGS_FACTS_PATTERN, term for term.

    test_readme_pattern.py ROOT"""
import re
import sys


def main():
    root = sys.argv[1]
    with open(f"{root}/aws/cwlogs.h", encoding="utf-8") as f:
        macro = re.search(r"#define CWLOGS_FACTS_PATTERN\s*\\\n((?:.*\\\n)*.*\n)", f.read()).group(1)
    ours = "".join(bytes(m, "utf-8").decode("unicode_escape")
                   for m in re.findall(r'"((?:[^"\\]|\\.)*)"', macro)).strip()
    with open(f"{root}/README.md", encoding="utf-8") as f:
        readme = re.findall(r"startup\.logs\.json`.*--filter-pattern '([^']*)'", f.read())
    if len(readme) != 1 or readme[0] != ours:
        print(f"FAIL: README's start-up query {readme} is not CWLOGS_FACTS_PATTERN {ours!r}",
              file=sys.stderr)
        return 1
    print(f"ok: README asks for the {ours.count('?')} start-up facts sm-suite fetches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
