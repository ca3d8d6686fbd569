#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Debian's linux-source-VERSION from SUITE, for the matrices that build a
# kernel other than the machine's own 6.1 (configs/dma-map.toml builds
# 6.12 from bookworm-backports): the package downloaded through an apt
# configuration of its own (the machine's sources and state untouched,
# nothing installed), its tarball kept in the cache and printed. The
# tree to build in is then scripts/linux-source-tree.sh's:
#
#	t=$(scripts/linux-source-fetch.sh bookworm-backports 6.12)
#	IOMMU_BENCH_KERNEL_SOURCE=$t scripts/linux-source-tree.sh \
#		~/.cache/iommu-bench/kernel-src/linux-6.12
#
# The mirror is $IOMMU_BENCH_DEBIAN_MIRROR, else the machine's first
# URI ending in /debian, else deb.debian.org (as the tool's own apt).
# Only Debian's archive key is trusted. Fetched once: a cached tarball
# is printed without asking the mirror.
set -eu

usage() {
	echo "usage: linux-source-fetch.sh SUITE VERSION (e.g. bookworm-backports 6.12)" >&2
	exit 2
}
[ $# -eq 2 ] || usage
suite=$1 version=$2
# Both reach a URL and a path: nothing but what Debian names them with.
case $suite in
'' | *[!a-z0-9-]*) echo "linux-source-fetch: bad suite '$suite'" >&2 && exit 2 ;;
esac
case $version in
'' | *[!0-9.]*) echo "linux-source-fetch: bad version '$version' (like 6.12)" >&2 && exit 2 ;;
esac

cache=${IOMMU_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/iommu-bench}
out=$cache/kernel-src/linux-source-$version.tar.xz
if [ -r "$out" ]; then
	echo "$out"
	exit 0
fi

keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || {
	echo "linux-source-fetch: no $keyring (apt-get install debian-archive-keyring)" >&2
	exit 1
}
mirror=${IOMMU_BENCH_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
	mirror=$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/debian.sources \
		2>/dev/null | tr ' ' '\n' | sed 's:/*$::' | grep -m1 '/debian$' || true)
fi
mirror=${mirror:-http://deb.debian.org/debian}
case $mirror in
http://* | https://* | file:/*) ;;
*) echo "linux-source-fetch: '$mirror' is not a mirror URI" >&2 && exit 2 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/state/lists/partial" "$tmp/cache/archives/partial" "$tmp/parts"
echo "deb [signed-by=$keyring] $mirror $suite main" >"$tmp/sources.list"
apt_opts="-o Dir::Etc::SourceList=$tmp/sources.list -o Dir::Etc::SourceParts=$tmp/parts
	-o Dir::State=$tmp/state -o Dir::Cache=$tmp/cache -o Acquire::Languages=none
	-o APT::Architecture=amd64 -o Debug::NoLocking=1 -o APT::Sandbox::User=root"
# shellcheck disable=SC2086
apt-get $apt_opts -qq update >&2
# shellcheck disable=SC2086
(cd "$tmp" && apt-get $apt_opts -qq download "linux-source-$version" >&2)
deb=$(ls "$tmp"/linux-source-"$version"_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || {
	echo "linux-source-fetch: no linux-source-$version in $suite" >&2
	exit 1
}
dpkg-deb -x "$deb" "$tmp/x"
mkdir -p "$(dirname "$out")"
mv "$tmp/x/usr/src/linux-source-$version.tar.xz" "$out.tmp"
mv "$out.tmp" "$out"
echo "$out"
