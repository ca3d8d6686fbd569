#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# usage: sh tests/fuzz/seed-corpus.sh TARGET DIR
# Seed the corpus of fuzz-TARGET in DIR: the files of seeds/TARGET/
# (real outputs and the unit tests' inputs, in the target's input
# format), the regression inputs of regress/TARGET/, and what the tree
# already holds in that format: the toml-test cases (valid and invalid
# alike: both are interesting inputs) and the shipped configs for toml,
# the captured perf reports for perf-report, the /proc captures for
# procstat. Files are named by content hash, the way libFuzzer names its
# own, so running this again adds nothing twice. Missing sources are
# skipped.
set -eu

[ $# -eq 2 ] || { echo "usage: $0 TARGET DIR" >&2; exit 2; }
t=$1
dir=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..

# seed SRC PATTERN: every file under SRC whose name matches PATTERN.
seed() {
	if [ ! -d "$1" ]; then
		echo "seed-corpus: no $1, skipped" >&2
		return 0
	fi
	find "$1" -type f -name "$2" | while IFS= read -r f; do
		sum=$(sha1sum < "$f" | cut -d' ' -f1)
		cp "$f" "$dir/$sum"
	done
}

mkdir -p "$dir"
[ -d "$here/seeds/$t" ] && seed "$here/seeds/$t" '*'
[ -d "$here/regress/$t" ] && seed "$here/regress/$t" '*'
case $t in
toml)
	seed "$top/tests/toml-test/valid" '*.toml'
	seed "$top/tests/toml-test/invalid" '*.toml'
	seed "$top/configs" '*.toml'
	;;
perf-report)
	seed "$top/tests/unit/fixtures/perf" '*.txt'
	;;
procstat)
	seed "$top/tests/unit/fixtures/procstat" '*.txt'
	;;
esac
echo "seed-corpus: $(find "$dir" -type f | wc -l) files in $dir"
