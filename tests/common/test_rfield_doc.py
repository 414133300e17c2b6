#!/usr/bin/python3
"""common/rfield.h's table of record fields is docs/result-format.md's: the tables
of its "Records" section whose head is "| field | type | unit | meaning |" name
the same fields, each with the same type and unit, as rfield_dump prints. A
row naming two fields ("`t_start_us`, `t_end_us`") gives both its type and unit.
The comparison is checked first to tell a field either side gained or lost.

    test_rfield_doc.py RFIELD_DUMP DOC"""
import subprocess
import sys

HEAD = ["field", "type", "unit", "meaning"]


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def doc_fields(path):
    """{name: (type, unit)} of the record tables of the Records section."""
    fields, section, in_table = {}, None, False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("## "):
                section, in_table = line[3:].strip(), False
            if section != "Records" or not line.startswith("|"):
                in_table = in_table and line.startswith("|")
                continue
            row = cells(line)
            if row == HEAD:
                in_table = True
            elif in_table and not set(line.strip()) <= set("|-: "):
                if len(row) != len(HEAD):
                    raise SystemExit(f"{path}:{n}: a record table's row has {len(row)} cells, "
                                     f"not {len(HEAD)}")
                for name in row[0].split(","):
                    name = name.strip().strip("`")
                    if name in fields:
                        raise SystemExit(f"{path}:{n}: {name} is in the tables twice")
                    fields[name] = (row[1].replace("`", ""), row[2])
    return fields


def table_fields(dump):
    out = subprocess.run([dump], check=True, capture_output=True, text=True).stdout
    fields = {}
    for line in out.splitlines():
        name, typ, unit = line.split("\t")
        if name in fields:
            raise SystemExit(f"rfield.h: {name} is in the table twice")
        fields[name] = (typ, unit)
    return fields


def differences(table, doc):
    """Lines saying where table and doc disagree; none when they agree."""
    out = [f"{n}: in common/rfield.h's table, not in the document's" for n in table if n not in doc]
    out += [f"{n}: in the document's record tables, not in common/rfield.h's" for n in doc
            if n not in table]
    out += [f"{n}: common/rfield.h says {table[n]}, the document {doc[n]} (type, unit)"
            for n in table if n in doc and table[n] != doc[n]]
    return out


def comparison_sees_a_field_gained_or_lost(table, doc):
    """The comparison fails when either side gains or loses a field."""
    some = next(iter(doc))
    extra = {"x_new_field_us": ("integer", "microseconds")}
    without = lambda d: {k: v for k, v in d.items() if k != some}
    return all(differences(*pair) for pair in [(without(table), doc), (table, without(doc)),
                                               ({**table, **extra}, doc), (table, {**doc, **extra})])


def main():
    table, doc = table_fields(sys.argv[1]), doc_fields(sys.argv[2])
    if not doc:
        print(f"FAIL: {sys.argv[2]}: no record table (| field | type | unit | meaning |) in "
              "its Records section", file=sys.stderr)
        return 1
    if not comparison_sees_a_field_gained_or_lost(table, doc):
        print("FAIL: the comparison does not see a field gained or lost", file=sys.stderr)
        return 1
    diff = differences(table, doc)
    if diff:
        print("FAIL: common/rfield.h and docs/result-format.md (Records) differ:", *diff,
              sep="\n  ", file=sys.stderr)
        return 1
    print(f"ok: {len(table)} record fields, the same in common/rfield.h and the document")
    return 0


if __name__ == "__main__":
    sys.exit(main())
