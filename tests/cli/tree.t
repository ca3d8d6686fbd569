#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# House rules of the tree: licence lines, documentation that keeps up with
# the command table, and results/ holding nothing but its README.
set -eu
. "$(dirname "$0")/lib.sh"
cd "$SRCDIR"

if ! git rev-parse --git-dir >/dev/null 2>&1; then
	echo "1..0 # SKIP not a git checkout"
	exit 0
fi

# A patch must start with its "From " line for git am; it carries the
# licence of the tree it patches.
missing=$(git ls-files -- ':!LICENSE' ':!*.json' ':!*.patch' | while read -r f; do
	[ -f "$f" ] || continue
	head -3 "$f" | grep -q 'SPDX-License-Identifier' || echo "$f"
done)
[ -z "$missing" ]
st=$?
[ "$st" -eq 0 ] || t_diag "files without an SPDX line:" "$missing"
t_ok $st "every tracked file has an SPDX line"

extra=$(git ls-files results | grep -v '^results/README.md$' || true)
[ -z "$extra" ]
t_ok $? "results/ tracks only its README"

# Every command in the table has a section in the man page and a line in
# the README, so that neither can silently fall behind.
cmds=$("$IOMMU_BENCH" --help | sed -n '/^commands:/,/^$/p' | awk 'NF>1 {print $1}')
[ -n "$cmds" ]
t_ok $? "the command list can be read from --help"
for c in $cmds; do
	grep -q "^\.SS \"*$c\b" docs/iommu-bench.1
	t_ok $? "man page documents '$c'"
	grep -q "iommu-bench $c\b" README.md
	t_ok $? "README mentions '$c'"
done

if command -v clang-format >/dev/null 2>&1; then
	out=$(git ls-files '*.c' '*.h' | xargs clang-format --dry-run --Werror 2>&1)
	st=$?
	[ "$st" -eq 0 ] || t_diag "$(echo "$out" | head -20)" "(make format fixes it)"
	t_ok $st "every C file is formatted by .clang-format"
fi

# Every key that docs/matrix.md documents in a table is in the man page too.
keys=$(grep -E '^\| `[a-z_]+` \|' docs/matrix.md | sed -E 's/^\| `([a-z_]+)`.*/\1/' | sort -u)
[ "$(echo "$keys" | wc -w)" -gt 40 ]
t_ok $? "docs/matrix.md documents the matrix keys in tables"
missing=""
for k in $keys; do
	grep -qE "(^|[^a-z_])$k([^a-z_]|\$)" docs/iommu-bench.1 || missing="$missing $k"
done
[ -z "$missing" ]
st=$?
[ "$st" -eq 0 ] || t_diag "missing from the man page:$missing"
t_ok $st "the man page names every matrix key"

# And the other way: every key the parser takes (its key tables in
# bench/matrix/matrix-*.c) is documented in docs/matrix.md, so a lost section of
# the documentation shows here.
code_keys=$(awk '/keys(\[\])+ = \{|keys\[\]\[[0-9]+\] = \{/ { on = 1 }
	on { print } on && /\};/ { on = 0 }' "$SRCDIR"/bench/matrix/matrix-*.c |
	grep -o '"[a-z_]*"' | tr -d '"' | sort -u)
[ "$(echo "$code_keys" | wc -w)" -gt 40 ]
t_ok $? "the parser's key tables are found in bench/matrix/matrix-*.c"
missing=""
for k in $code_keys; do
	grep -qE "\`$k\`|\[collect\.$k\]" docs/matrix.md || missing="$missing $k"
done
[ -z "$missing" ]
st=$?
[ "$st" -eq 0 ] || t_diag "keys the parser takes, missing from docs/matrix.md:$missing"
t_ok $st "docs/matrix.md documents every key the parser takes"

if command -v man >/dev/null 2>&1; then
	warn=$(MANWIDTH=80 man --warnings -l docs/iommu-bench.1 2>&1 >/dev/null || true)
	[ -z "$warn" ]
	st=$?
	[ "$st" -eq 0 ] || t_diag "$warn"
	t_ok $st "the man page renders without warnings"
fi

t_done
