#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# usage: sh tests/fuzz/fuzz-run.sh BINDIR WORKDIR TARGET SECONDS
# Run BINDIR/fuzz-TARGET for SECONDS on its seed corpus, copied into
# WORKDIR/corpus/TARGET (kept: what a run finds seeds the next one),
# with tests/fuzz/TARGET.dict when there is one (and the dictionaries it
# names on "#include NAME" lines). A crash, a leak or a
# hang is written to WORKDIR/artifacts/TARGET/ and is a failure (exit
# 1, the input and the log named on stderr); the last line printed is
# "fuzz-TARGET: N runs in S s, E exec/s, C corpus files", or "...:
# FAILED". Run from the top of the tree.
set -eu

[ $# -eq 4 ] || { echo "usage: $0 BINDIR WORKDIR TARGET SECONDS" >&2; exit 2; }
bin=$1/fuzz-$3
work=$2
t=$3
secs=$4
corpus=$work/corpus/$t
arts=$work/artifacts/$t
log=$work/fuzz-$t.log
here=$(dirname "$0")

[ -x "$bin" ] || { echo "fuzz-$t: no $bin (make fuzz-build)" >&2; exit 2; }
mkdir -p "$corpus" "$arts"
sh "$here/seed-corpus.sh" "$t" "$corpus" >/dev/null
# The target's dictionary, after those it names on "#include" lines.
dict=
if [ -f "$here/$t.dict" ]; then
	sed -n 's/^#include //p' "$here/$t.dict" | while IFS= read -r inc; do
		cat "$here/$inc"
	done >"$work/$t.dict"
	cat "$here/$t.dict" >>"$work/$t.dict"
	dict=-dict=$work/$t.dict
fi

# -timeout: a single input that takes this long is a hang, not a slow
# parser; -rss_limit_mb: the agent refuses more than 16 MiB a line, and
# no parser here should need more than this for a few KiB of input.
# The targets' scratch files, in memory where /dev/shm is: removed here,
# since a crashing target leaves its own behind.
shm=/dev/shm
[ -d "$shm" ] && [ -w "$shm" ] || shm=${TMPDIR:-/tmp}
scratch=$(mktemp -d "$shm/iommu-bench-fuzz-$t.XXXXXX")
st=0
FUZZ_SCRATCH=$scratch "$bin" -max_total_time="$secs" -timeout=25 \
	-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$arts/" \
	$dict "$corpus" >"$log" 2>&1 || st=$?
rm -rf "$scratch"

runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
n=$(find "$corpus" -type f | wc -l)
if [ "$st" -ne 0 ]; then
	grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error:)' "$log" | head -5 >&2
	echo "fuzz-$t: the input and the log:" \
		"$(ls "$arts" | sed "s|^|$arts/|" | tr '\n' ' ')$log" >&2
	echo "fuzz-$t: FAILED (exit $st) after ${runs:-?} runs"
	exit 1
fi
echo "fuzz-$t: ${runs:-?} runs in $secs s, ${eps:-?} exec/s, $n corpus files"
