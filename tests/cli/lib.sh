# SPDX-License-Identifier: GPL-2.0-only
#
# TAP helpers for the command-line tests. Sourced by tests/cli/*.t, which
# run from the repo root with $IOMMU_BENCH set to the binary under test.
# Every test gets its own scratch directory, removed on exit however the
# test ends.

: "${IOMMU_BENCH:?set IOMMU_BENCH to the binary under test}"
: "${SRCDIR:=$(pwd)}"

# A failed check must print "not ok" and let the rest run, so errexit,
# which the scripts may have set, is off from here on.
set +e

T_N=0
T_FAILED=0
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/iommu-bench-test.XXXXXX")
trap 't_cleanup' EXIT INT TERM
# Never let a test touch the user's results/ database by accident.
export IOMMU_BENCH_DB="$T_TMP/default.db"

t_cleanup() {
	rm -rf "$T_TMP"
}

# ok COND-EXIT-STATUS DESCRIPTION
t_ok() {
	T_N=$((T_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $T_N - $2"
	else
		echo "not ok $T_N - $2"
		T_FAILED=$((T_FAILED + 1))
	fi
}

t_diag() {
	printf '%s\n' "$@" | sed 's/^/# /'
}

# t_run WANT_STATUS CMD ARGS...: runs CMD, stdout to $T_OUT, stderr to
# $T_ERR; returns 0 when the exit status is WANT_STATUS.
t_run() {
	want=$1
	shift
	T_OUT="$T_TMP/out"
	T_ERR="$T_TMP/err"
	"$@" >"$T_OUT" 2>"$T_ERR"
	T_STATUS=$?
	if [ "$T_STATUS" -ne "$want" ]; then
		t_diag "command: $*" "exit status $T_STATUS, want $want" \
			"stderr:" "$(head -20 "$T_ERR")"
		return 1
	fi
	return 0
}

# t_grep FILE PATTERN: fixed-string search, with a diagnostic on a miss.
t_grep() {
	if grep -qF -- "$2" "$1"; then
		return 0
	fi
	t_diag "'$2' not found in:" "$(head -20 "$1")"
	return 1
}

t_done() {
	echo "1..$T_N"
	[ "$T_FAILED" -eq 0 ]
}

# t_testbed_require PKG TOOL...: root, the tools and the testbed's guest
# kernel PKG (downloaded once into its cache), or a SKIP with the reason
# and exit.
t_testbed_require() {
	pkg=$1
	shift
	if [ "$(id -u)" -ne 0 ]; then
		echo "1..0 # SKIP the testbed needs root (a namespace, a tap)"
		exit 0
	fi
	for tool in "$@"; do
		if ! command -v "$tool" >/dev/null 2>&1; then
			echo "1..0 # SKIP $tool is not installed"
			exit 0
		fi
	done
	if ! "$IOMMU_BENCH" testbed build --kernel "$pkg" \
		>"$T_TMP/build.out" 2>"$T_TMP/build.err"; then
		echo "1..0 # SKIP no testbed kernel: $(grep -m1 . "$T_TMP/build.err")"
		exit 0
	fi
}
