#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Install the Debian packages iommu-bench needs to build and test.
# Idempotent: apt-get skips what is already there.
set -eu

# Build: compilers, the libraries we link, the BPF toolchain, and the
# kernel source package that libperf is built from (Debian ships no libperf).
# Run and test: iperf3, perf, iproute2 for network namespaces, gnuplot for
# plots, chromium to render reports, bpftrace as the probe-cost yardstick,
# fio for the storage workload (also run inside the testbed's guests).
# Kernel builds: the toolchain a kernel needs, and an arm64 cross compiler
# (the seeds' platform), pahole for BTF, ccache for the kept worktree's
# builds going back and forth between commits (kernel build --workdir).
# The testbed: QEMU, busybox-static and cpio for the guest's initramfs, kmod
# for depmod, zstd/xz for the compressed modules of Debian's kernels.
# Its Arm guest: qemu-system-arm (qemu-system-aarch64), and the libraries
# the cross-built arm64 agent links and runs with (ARM64_PKGS below).
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
fio
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
qemu-system-arm
bc
bison
flex
libssl-dev
dwarves
ccache
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

# The arm64 agent (make agent-arm64): Debian's arm64 libraries beside the
# native ones (multiarch). libgsl-dev cannot be installed for two arches at
# once: its runtime libraries are, and the Makefile links those. The testbed's Arm guest runs that agent from
# this machine's root, so their runtime halves are what it loads there.
ARM64_PKGS="
libc6:arm64
libsqlite3-dev:arm64
libjansson-dev:arm64
libgsl27:arm64
libgslcblas0:arm64
libbpf-dev:arm64
libelf-dev:arm64
zlib1g-dev:arm64
libiperf-dev:arm64
"

export DEBIAN_FRONTEND=noninteractive
added=
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	dpkg --add-architecture arm64
	added=1
fi
# A mirror without arm64 must not cost the rest: without it, the Arm
# guest's tests say why they skip.
if ! apt-get update -q; then
	echo "install-deps: apt-get update failed with arm64 added;" \
		"going on without the arm64 agent's libraries" >&2
	[ -z "$added" ] || dpkg --remove-architecture arm64
	ARM64_PKGS=
	apt-get update -q
fi
# shellcheck disable=SC2086 # word splitting of the lists is intended
apt-get install -y -q --no-install-recommends $PKGS $ARM64_PKGS
