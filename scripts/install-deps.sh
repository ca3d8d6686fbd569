#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Install the Debian packages iommu-bench needs to build and test.
# Idempotent: apt-get skips what is already there.
set -eu

# Build: compilers, the libraries we link, the BPF toolchain, and the
# kernel source package that libperf is built from (Debian ships no libperf).
# Run and test: iperf3, perf, iproute2 for network namespaces, gnuplot for
# plots, chromium to render reports, bpftrace as the probe-cost yardstick.
# Kernel builds: the toolchain a kernel needs, and an arm64 cross compiler
# (the seeds' platform), pahole for BTF.
# The testbed: QEMU, busybox-static and cpio for the guest's initramfs, kmod
# for depmod, zstd/xz for the compressed modules of Debian's kernels.
PKGS="
build-essential
pkg-config
clang
llvm
libclang-rt-14-dev
libsqlite3-dev
sqlite3
libjansson-dev
libgsl-dev
libbpf-dev
bpftool
libelf-dev
zlib1g-dev
libiperf-dev
iperf3
linux-perf
linux-source-6.1
xz-utils
iproute2
openssh-client
openssh-server
kexec-tools
procps
gnuplot-nox
chromium
bpftrace
python3
perl
git
man-db
groff-base
qemu-system-x86
bc
bison
flex
libssl-dev
dwarves
gcc-aarch64-linux-gnu
busybox-static
cpio
kmod
zstd
"

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: must run as root (apt-get)" >&2
	exit 2
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086 # word splitting of the list is intended
apt-get install -y -q --no-install-recommends $PKGS
