#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Run every test given (C unit tests, shell tests, the toml-test suite);
# each speaks TAP and prove aggregates them, skips and reasons included.
# --comments: the tests' own diagnostics (a failed run's last lines,
# timings) reach the log, so that a failure in CI, where only the log
# comes back, says why. --timer: each test's time in that log, what
# keeps make check within CI's budget.
#
# CI hands back only the log's tail, and a failure's diagnostics sit far
# above it, without the check that failed (prove prints no "not ok"):
# the tail repeats each failed check with the diagnostics after it, then
# the slowest files, failed ones included.
set -eu
TAP_TEE_DIR=$(mktemp -d)
export TAP_TEE_DIR
trap 'rm -rf "$TAP_TEE_DIR"' EXIT
st=0
prove --exec "sh $(dirname "$0")/tap-tee.sh" --comments --timer "$@" || st=$?
echo "== failed checks, each with the diagnostics after it =="
for f in "$TAP_TEE_DIR"/*.tap; do
	[ -e "$f" ] || continue
	awk -v file="$(cut -d' ' -f2- "${f%.tap}.time" 2>/dev/null)" '
	/^not ok / { print file ": " $0; n = 12; next }
	n > 0 && /^#/ { print "  " substr($0, 1, 300); n--; next }
	{ n = 0 }' "$f"
done | head -200
echo "== the slowest files =="
cat "$TAP_TEE_DIR"/*.time 2>/dev/null | sort -rn | head -12 |
	awk '{ printf "%6d s  %s\n", $1, $2 }'
exit $st
