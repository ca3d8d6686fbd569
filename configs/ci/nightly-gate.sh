#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The nightly gate both CI templates run after the matrix: the newest run
# against the last night that passed (or the night before, until one
# has), plus change points over the last $IOMMU_BENCH_HISTORY nights.
# Writes regress.txt, regress.json and regress-junit.xml in the current
# directory; records the newest run as the last good one when it passes.
# Exit status is regress's: 0 pass, 1 regression, 2 usage.
#
# A matrix that follows a kernel (configs/ci/nightly-sid.toml: a
# meta-package of Debian's sid beside a pinned one) sets
# IOMMU_BENCH_FOLLOWED and IOMMU_BENCH_PINNED to the two kernels' names:
# the night is then judged twice, the followed kernel against the last
# good night (regress names both versions when it moved: "kernel sid:
# 7.3.4-1 -> 7.3.5-1") and against the pinned kernel of the same night,
# and fails if either does.
set -u

: "${IOMMU_BENCH:=./iommu-bench}"
: "${IOMMU_BENCH_STATE:=/var/lib/iommu-bench}"
: "${IOMMU_BENCH_HISTORY:=30}"
last_good="$IOMMU_BENCH_STATE/last-good-run"

runs=$("$IOMMU_BENCH" db info --json |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["counts"]["runs"])')
if [ "${runs:-0}" -lt 2 ]; then
	echo "first night: nothing to compare against yet" | tee regress.txt
	echo '{"verdict": "pass", "pairwise": null, "history": null}' >regress.json
	printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="iommu-bench regress"/>\n' >regress-junit.xml
	exit 0
fi

baseline=previous
if [ -s "$last_good" ]; then
	baseline="run:$(cat "$last_good")"
fi

# The followed kernel only, night to night; "$@" keeps the name one word.
set --
[ -z "${IOMMU_BENCH_FOLLOWED:-}" ] || set -- --only "kernel=$IOMMU_BENCH_FOLLOWED"
"$IOMMU_BENCH" regress --baseline "$baseline" --candidate latest "$@" \
	--history "$IOMMU_BENCH_HISTORY" --junit regress-junit.xml >regress.txt
status=$?
"$IOMMU_BENCH" regress --baseline "$baseline" --candidate latest "$@" \
	--history "$IOMMU_BENCH_HISTORY" --json >regress.json 2>/dev/null
if [ -n "${IOMMU_BENCH_FOLLOWED:-}" ] && [ -n "${IOMMU_BENCH_PINNED:-}" ]; then
	echo "--- $IOMMU_BENCH_FOLLOWED against $IOMMU_BENCH_PINNED, this night" >>regress.txt
	"$IOMMU_BENCH" regress --baseline "kernel:$IOMMU_BENCH_PINNED" \
		--candidate "kernel:$IOMMU_BENCH_FOLLOWED" >>regress.txt
	pinned=$?
	[ "$status" -ne 0 ] || status=$pinned
fi
cat regress.txt

if [ "$status" -eq 0 ]; then
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["pairwise"]["candidate"]["run"])' \
		regress.json >"$last_good.tmp" && mv "$last_good.tmp" "$last_good"
fi
exit "$status"
