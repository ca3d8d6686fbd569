#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# A git tree of Debian's linux-source-6.1, for the matrices whose kernels
# are built (configs/kernel-ab.toml, configs/rfc-arm64.toml) and for
# tests/cli/kernel-build.t: the tarball unpacked and committed once, in
# the cache by default, and made again only when the tarball changes.
# About a minute; under an flock, so two callers make it once.
#
#	scripts/linux-source-tree.sh [DIR]
#
# DIR defaults to $IOMMU_BENCH_CACHE (else ~/.cache/iommu-bench)
# /kernel-src/linux-6.1, the path the shipped configs name. The tarball
# is $IOMMU_BENCH_KERNEL_SOURCE, else /usr/src/linux-source-6.1.tar.xz
# (apt-get install linux-source-6.1; scripts/install-deps.sh does).
set -eu

tarball=${IOMMU_BENCH_KERNEL_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
cache=${IOMMU_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/iommu-bench}
dir=${1:-$cache/kernel-src/linux-6.1}
case $dir in
/*) ;;
*) dir=$PWD/$dir ;;
esac

if [ ! -r "$tarball" ]; then
	echo "linux-source-tree: no $tarball (apt-get install linux-source-6.1)" >&2
	exit 1
fi
stamp=$(stat -c '%s %Y' "$tarball")
mark=$dir/.git/iommu-bench-prepared

make_tree() {
	tmp=$dir.tmp
	rm -rf "$tmp" "$dir"
	mkdir -p "$tmp"
	tar -xJf "$tarball" -C "$tmp" --strip-components=1
	git -C "$tmp" init -q
	git -C "$tmp" add -A -f
	git -C "$tmp" -c user.name=iommu-bench \
		-c user.email=iommu-bench@localhost \
		-c commit.gpgsign=false commit -q -m "$(basename "$tarball" .tar.xz)"
	echo "$stamp" >"$tmp/.git/iommu-bench-prepared"
	mv "$tmp" "$dir"
}

mkdir -p "$(dirname "$dir")"
(
	flock 9
	[ "$(cat "$mark" 2>/dev/null)" = "$stamp" ] || make_tree
) 9>"$(dirname "$dir")/.lock"
echo "$dir"
