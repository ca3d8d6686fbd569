#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# The folders of code are described once, in docs/architecture.md: its
# layering table and its table of rooms (what its starred rows stand
# for). README.md's layout table repeats them, in that order, word for
# word, then its own rows for the folders without code (schemas/ to
# scripts/). Two hand-kept copies had drifted apart.
#
#   scripts/folder-table.py [ROOT]          README.md's rows written anew
#   scripts/folder-table.py --check [ROOT]  what differs; exit 1 if any
import re
import sys

ROW = re.compile(r"^\| `([a-z0-9/*-]+)/` \| (.*?) \|(?: (.*?) \|)?$")


def code_rows(arch):
    layers, rooms = [], []
    for line in open(arch, encoding="utf-8"):
        m = ROW.match(line.rstrip("\n"))
        if not m:
            continue
        if m.group(3) is not None:
            layers.append((m.group(1), m.group(2)))
        else:
            rooms.append((m.group(1), m.group(2)))
    out = []
    for d, what in layers:
        if d.endswith("/*"):
            out += [r for r in rooms if r[0].startswith(d[:-1])]
        else:
            out.append((d, what))
    return ["| `%s/` | %s |" % r for r in out]


def layout(lines):
    """The first and last line of README.md's layout table, or None."""
    for i, line in enumerate(lines):
        m = ROW.match(line)
        if m and m.group(3) is None:
            last = i
            while last + 1 < len(lines) and ROW.match(lines[last + 1]):
                last += 1
            return i, last
    return None


def main():
    args = sys.argv[1:]
    check = args[:1] == ["--check"]
    rest = args[1:] if check else args
    root = rest[0] if rest else "."
    want = code_rows("%s/docs/architecture.md" % root)
    path = "%s/README.md" % root
    lines = open(path, encoding="utf-8").read().split("\n")
    span = layout(lines)
    if not span:
        print("README.md: no layout table (| `folder/` | what |)")
        return 1
    first, last = span
    have = lines[first:last + 1]
    wanted = set(r.split("`")[1] for r in want)
    own = [l for l in have if l.split("`")[1] not in wanted]
    got = [l for l in have if l.split("`")[1] in wanted]
    if not check:
        lines[first:last + 1] = want + own
        open(path, "w", encoding="utf-8").write("\n".join(lines))
        return 0
    bad = [w for g, w in zip(got + [None] * len(want), want) if g != w]
    for w in bad:
        print("README.md:%d: should read: %s" % (first + want.index(w) + 1, w))
    if bad:
        print("(make folder-table writes it from docs/architecture.md)")
    return 1 if bad else 0


sys.exit(main())
