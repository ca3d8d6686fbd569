#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The libFuzzer targets (tests/fuzz/, docs/fuzzing.md), briefly: each is
# built (make fuzz-build), runs over its regression inputs (every crash
# a fuzzer found, kept), then fuzzes for FUZZ_CHECK_TIME seconds (5) on
# its seed corpus. A crash, a leak or a hang fails; exec/s are printed.
set -eu
. "$(dirname "$0")/lib.sh"
cd "$SRCDIR"

secs=${FUZZ_CHECK_TIME:-5}
out=.output/fuzz

# libFuzzer ships with clang's runtime; a toolchain without it cannot
# build any target, which is a reason to skip, not a failure.
if ! command -v clang >/dev/null 2>&1; then
	echo "1..0 # SKIP clang is not installed (libFuzzer comes with it)"
	exit 0
fi
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)\n{ return d && n ? 0 : 0; }\n' \
	>"$T_TMP/probe.c"
if ! clang -fsanitize=fuzzer,address,undefined -o "$T_TMP/probe" \
	"$T_TMP/probe.c" >"$T_TMP/probe.err" 2>&1; then
	echo "1..0 # SKIP clang cannot link libFuzzer: $(grep -m1 . "$T_TMP/probe.err")"
	exit 0
fi

targets=$(ls tests/fuzz/fuzz-*.c | sed 's|.*/fuzz-||; s|\.c$||')
[ -n "$targets" ]
t_ok $? "the fuzz targets are found in tests/fuzz/"

# MAKEFLAGS of a make check that runs this would pass its -j and its
# variables through; the fuzz build is its own.
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -j2 fuzz-build \
	>"$T_TMP/build.out" 2>&1; then
	t_ok 0 "make fuzz-build builds every target"
else
	t_ok 1 "make fuzz-build builds every target"
	t_diag "$(tail -20 "$T_TMP/build.out")"
	t_done
	exit 1
fi

work=$out/check
for t in $targets; do
	bin=$out/fuzz-$t
	if [ -d "tests/fuzz/regress/$t" ]; then
		# Files as arguments: each is run once, no fuzzing.
		FUZZ_SCRATCH=$T_TMP "$bin" tests/fuzz/regress/"$t"/* \
			>"$T_TMP/regress.log" 2>&1
		st=$?
		[ "$st" -eq 0 ] || t_diag "$(grep -E 'ERROR|SUMMARY|Running:' "$T_TMP/regress.log" | head -5)"
		t_ok $st "fuzz-$t: its regression inputs pass ($(ls tests/fuzz/regress/"$t" | wc -l))"
	fi
	# A fresh corpus each time: the seeds, not what earlier runs found.
	rm -rf "$work/corpus/$t" "$work/artifacts/$t"
	sh tests/fuzz/fuzz-run.sh "$out" "$work" "$t" "$secs" \
		>"$T_TMP/run.out" 2>"$T_TMP/run.err"
	st=$?
	[ "$st" -eq 0 ] || t_diag "$(cat "$T_TMP/run.err")"
	t_ok $st "$(tail -1 "$T_TMP/run.out")"
done

t_done
