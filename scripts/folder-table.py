#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# The folders of code are described once, in docs/architecture.md's
# layering table and its table of rooms (the folders its starred rows
# stand for); README.md's layout table repeats them (the folders without code, schemas/ to scripts/, are the
# README's own rows). Two hand-kept copies had drifted apart.
#
#   scripts/folder-table.py          rewrite README.md's rows from the table
#   scripts/folder-table.py --check  say what differs; exit 1 if anything does
import re
import sys

ROW = re.compile(r"^\| `([a-z0-9/*-]+)/` \| (.*?) \|(?: (.*?) \|)?$")


def rows(path, cols):
    out = []
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        m = ROW.match(line.rstrip("\n"))
        if m and (m.group(3) is not None) == (cols == 3):
            out.append((n, m.group(1), m.group(2)))
    return out


def main():
    root = sys.argv[2] if len(sys.argv) > 2 else "."
    check = len(sys.argv) > 1 and sys.argv[1] == "--check"
    arch = "%s/docs/architecture.md" % root
    readme = "%s/README.md" % root
    # The layering's rows, and the rooms its starred rows stand for.
    code = [(d, what) for _, d, what in rows(arch, 3) if "*" not in d]
    code += [(d, what) for _, d, what in rows(arch, 2)]
    lines = open(readme, encoding="utf-8").read().split("\n")
    have = {d: (n, what) for n, d, what in rows(readme, 2)}
    bad = []
    for d, what in code:
        if d not in have:
            bad.append("README.md: no row for %s/ (%s)" % (d, what))
        elif have[d][1] != what:
            bad.append("README.md:%d: %s/ is described as in "
                       "docs/architecture.md: %s" % (have[d][0], d, what))
            lines[have[d][0] - 1] = "| `%s/` | %s |" % (d, what)
    if check:
        for b in bad:
            print(b)
        return 1 if bad else 0
    missing = [(d, w) for d, w in code if d not in have]
    if missing:
        # New folders go after the last row of code, in the table's order.
        last = max(have[d][0] for d, _ in code if d in have)
        for d, w in reversed(missing):
            lines.insert(last, "| `%s/` | %s |" % (d, w))
    open(readme, "w", encoding="utf-8").write("\n".join(lines))
    return 0


sys.exit(main())
