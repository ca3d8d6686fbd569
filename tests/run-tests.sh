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
# CI hands back only the log's tail (about 20 lines), and a failure's
# diagnostics sit far above it, without the check that failed (prove
# prints no "not ok"): the tail repeats what it needs, below.
#
# The last line is the whole run's time beside its budget (make check's
# 25 minutes on 2 cores, CHECK_BUDGET_S for another: docs/hacking.md):
# the figure every change pays, read off CI's log each time, not
# asserted.
set -eu
BUDGET_S=${CHECK_BUDGET_S:-1500}
started=$(date +%s)
# The machine's busy and idle jiffies: whether the run was CPU-bound (a
# shorter run then needs less work) or waited (an order can win).
cpu_ticks() {
	awk '/^cpu /{ print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat 2>/dev/null
}
ticks0=$(cpu_ticks)
TAP_TEE_DIR=$(mktemp -d)
export TAP_TEE_DIR
trap 'rm -rf "$TAP_TEE_DIR"' EXIT
# --alone FILE (repeatable, first): FILE runs after all the others, by
# itself: a file whose figures a neighbour's CPU would stretch
# (testbed-cost.t's CPU per GB), judged on a quiet host.
alone=
while [ "${1:-}" = --alone ]; do
	alone="$alone $2"
	shift 2
done
st=0
prove --exec "sh $(dirname "$0")/tap-tee.sh" --comments --timer "$@" || st=$?
if [ -n "$alone" ]; then
	# shellcheck disable=SC2086 # test paths, no spaces
	prove --exec "sh $(dirname "$0")/tap-tee.sh" --comments --timer \
		$alone || st=$?
fi
# The tail is short: the slowest files on one line, then per failed
# file the numbers of its failed checks and only the first, whose
# diagnostics usually hold the cause (the rest tend to follow from it),
# its error lines first.
printf '== the slowest files:'
cat "$TAP_TEE_DIR"/*.time 2>/dev/null | sort -rn | head -10 |
	awk '{ n = split($2, p, "/"); printf " %s %d s,", p[n], $1 }'
echo
for f in "$TAP_TEE_DIR"/*.tap; do
	[ -e "$f" ] || continue
	LC_ALL=C awk -v file="$(cut -d' ' -f2- "${f%.tap}.time" 2>/dev/null)" \
		-v rc="$(cat "${f%.tap}.rc" 2>/dev/null)" '
	{ all[nall++ % 10] = substr($0, 1, 240) }
	/^(not )?ok / { total++ }
	/^not ok / {
		nums = nums " " $3
		if (!first) { first = $0; take = 1; next }
	}
	take && /^#/ { diag[nd++] = substr($0, 1, 240); next }
	{ take = 0 }
	END {
		if (!first && rc != 0) {
			printf "== failed in %s: exit %s, no failed check; its last lines:\n", file, rc
			for (i = (nall > 10 ? nall - 10 : 0); i < nall; i++)
				print "  " all[i % 10]
		}
		if (!first)
			exit
		printf "== failed in %s: not ok%s (of %d)\n", file, nums, total
		print first
		# Error lines first, then the rest, 14 lines at most.
		for (i = 0; i < nd && shown < 14; i++)
			if (tolower(diag[i]) ~ /error|fail|cannot|refus|timed out|no such|denied|not found/) {
				print "  " diag[i]; used[i] = 1; shown++
			}
		for (i = nd - 1; i >= 0 && shown < 14; i--)
			if (!used[i]) { tail[nt++] = diag[i]; shown++ }
		for (i = nt - 1; i >= 0; i--)
			print "  " tail[i]
	}' "$f"
done
took=$(($(date +%s) - started))
# shellcheck disable=SC2086 # two numbers each
busy=$(printf '%s %s\n' "$ticks0" "$(cpu_ticks)" |
	awk 'NF == 4 && $3 + $4 > $1 + $2 { printf "%.0f", 100 * ($3 - $1) / ($3 + $4 - $1 - $2) }')
[ -z "$busy" ] || echo "== the CPUs ($(nproc 2>/dev/null || echo '?')) were busy $busy% of that time"
printf '== the tests took %d s (%d min %02d s) of the %d-minute budget%s\n' \
	"$took" $((took / 60)) $((took % 60)) $((BUDGET_S / 60)) \
	"$([ "$took" -le "$BUDGET_S" ] || echo ': OVER BUDGET')"
exit $st
