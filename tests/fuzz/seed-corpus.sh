#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# usage: sh tests/fuzz/seed-corpus.sh DIR
# Seed the fuzzer's corpus in DIR with the toml-test cases (valid and
# invalid alike: both are interesting inputs) and the shipped configs.
# Files are named by content hash, the way libFuzzer names its own, so
# running this again adds nothing twice. Missing sources are skipped.
set -eu

[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
suite=$here/../../../shared/toml-test
configs=$here/../../configs

mkdir -p "$dir"
for src in "$suite/valid" "$suite/invalid" "$configs"; do
	if [ ! -d "$src" ]; then
		echo "seed-corpus: no $src, skipped" >&2
		continue
	fi
	find "$src" -type f -name '*.toml' | while IFS= read -r f; do
		sum=$(sha1sum < "$f" | cut -d' ' -f1)
		cp "$f" "$dir/$sum"
	done
done
echo "seed-corpus: $(find "$dir" -type f | wc -l) files in $dir"
