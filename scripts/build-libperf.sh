#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Build libperf (tools/lib/perf) from Debian's linux-source package: Debian
# ships perf but not its library, and the user asked for libperf. Only the
# few folders libperf needs are unpacked, into OUT, once.
#
#	scripts/build-libperf.sh OUT [CROSS_COMPILE]
#
# With a cross prefix (aarch64-linux-gnu-) the libraries are built for
# that arch, as the arm64 agent needs them.
# Leaves OUT/lib/libperf.a, OUT/lib/libapi.a and OUT/include/perf/*.h.
set -eu

out=$1
cross=${2:-}
case $cross in
'') karch= ;;
aarch64-*) karch=arm64 ;;
*) echo "build-libperf: no kernel arch known for '$cross'" >&2; exit 2 ;;
esac
tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
if [ -z "$tarball" ]; then
	echo "build-libperf: no /usr/src/linux-source-*.tar.xz;" \
		"run scripts/install-deps.sh" >&2
	exit 1
fi
top=$(basename "$tarball" .tar.xz)
src="$out/src"

if [ ! -f "$src/$top/tools/lib/perf/Makefile" ]; then
	rm -rf "$src"
	mkdir -p "$src"
	tar -C "$src" -xJf "$tarball" \
		"$top/tools/lib" "$top/tools/include" "$top/tools/build" \
		"$top/tools/scripts" "$top/tools/arch" "$top/scripts" \
		"$top/include/uapi" "$top/arch/x86/include/uapi" \
		"$top/arch/arm64/include/uapi" \
		"$top/Makefile" 2>/dev/null || true
	[ -f "$src/$top/tools/lib/perf/Makefile" ] || {
		echo "build-libperf: $tarball has no tools/lib/perf" >&2
		exit 1
	}
fi

# Through ccache where it is installed, as the tool's own objects are
# (the Makefile): paths below the unpacked source hash as relative ones,
# so that a clean clone's libperf is cache hits.
cc=${cross}gcc
map=
if command -v ccache >/dev/null 2>&1; then
	cc="ccache $cc"
	CCACHE_BASEDIR=$(cd "$src" && pwd)
	export CCACHE_BASEDIR
	map="-fdebug-prefix-map=$CCACHE_BASEDIR=."
fi
# libperf calls into libapi (sysfs and procfs helpers): build both.
for lib in api perf; do
	make -s -C "$src/$top/tools/lib/$lib" -j"$(nproc)" \
		${cross:+CROSS_COMPILE=$cross ARCH=$karch} CC="$cc" \
		EXTRA_CFLAGS="-fPIC -O2 -g -Wno-error $map" "lib$lib.a" >&2
done
mkdir -p "$out/lib" "$out/include"
cp "$src/$top/tools/lib/perf/libperf.a" "$out/lib/"
cp "$src/$top/tools/lib/api/libapi.a" "$out/lib/"
rm -rf "$out/include/perf"
cp -r "$src/$top/tools/lib/perf/include/perf" "$out/include/"
