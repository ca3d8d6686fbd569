#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The toml-test conformance suite (tests/toml-test: its 709 TOML 1.0
# cases, MIT, and their runner) as a single TAP test: the runner's own report goes out as diagnostics, and its summary
# line decides ok or not ok. Run from the repository root by `make check`,
# with TOML_DECODER (the decoder binary) and SRCDIR (the repository).
set -u

srcdir=${SRCDIR:-$(pwd)}
suite=$srcdir/tests/toml-test
runner=$suite/run.py

if [ -z "${TOML_DECODER:-}" ]; then
	echo "1..0 # SKIP TOML_DECODER is not set"
	exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "1..0 # SKIP python3 not found"
	exit 0
fi
if [ ! -f "$runner" ]; then
	echo "1..0 # SKIP toml-test suite not found at $suite"
	exit 0
fi

out=$(python3 "$runner" "$TOML_DECODER" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
summary=$(printf '%s\n' "$out" | sed -n 's/^toml-test: //p' | tail -n 1)
if [ "$rc" -eq 0 ] && [ -n "$summary" ]; then
	echo "ok 1 - toml-test: $summary"
else
	echo "not ok 1 - toml-test: ${summary:-runner failed with exit status $rc}"
fi
echo "1..1"
