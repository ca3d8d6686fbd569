#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Install the Debian packages iommu-bench needs to build and test.
# Idempotent: apt-get skips what is already there.
set -eu

# Build: compilers, the libraries we link, the BPF toolchain, and the
# kernel source package that libperf is built from (Debian ships no libperf).
# libcurl: the lava transport's REST client.
# Run and test: iperf3, perf, iproute2 for network namespaces, gnuplot for
# plots, chromium to render reports, bpftrace as the probe-cost yardstick,
# fio for the storage workload (also run inside the testbed's guests).
# Kernel builds: the toolchain a kernel needs, and an arm64 cross compiler
# (the seeds' platform), pahole for BTF, ccache for the kept worktree's
# builds going back and forth between commits (kernel build --workdir).
# The testbed: QEMU, busybox-static and cpio for the guest's initramfs, kmod
# for depmod, zstd/xz for the compressed modules of Debian's kernels.
# The robot's mail (iommu-bench nightly --send): msmtp as the sendmail
# its test hands mails to, python3-aiosmtpd the SMTP server they reach.
# KCIDB (export --kcidb): python3-jsonschema checks its reports as
# kcidb-io does, in the tests and in their stand-in of the REST service.
# bash-completion: the completion script is tested through its helpers too.
# The Debian packages (make deb, tests/cli/deb.t): debhelper and lintian
# (dpkg-dev comes with build-essential).
# The lab machine in a VM (iommu-bench labvm): debootstrap for its image,
# fdisk (sfdisk), e2fsprogs and dosfstools for its disk, qemu-utils for
# its overlays, dnsmasq-base for the DHCP of its link, qemu-efi-aarch64
# for the arm64 one's firmware; for the arm64 image's build on another
# arch, qemu-user-static and binfmt-support (its packages' scripts run
# emulated) and mtools (its ESP checked as the firmware reads it).
# Its Arm guest: qemu-system-arm (qemu-system-aarch64), and the libraries
# the cross-built arm64 agent links and runs with (ARM64_PKGS below).
# LAVA (LAVA_PKGS below): a master + worker that make check brings up
# (tests/lava/lava-up.sh) to run jobs on a QEMU device. Installed by
# default, as CI needs it; IOMMU_BENCH_NO_LAVA=1 skips it (~200 packages)
# for whoever never uses LAVA, and its tests then skip.
PKGS="
build-essential
pkg-config
clang
llvm
libclang-rt-14-dev
libsqlite3-dev
sqlite3
libjansson-dev
libcurl4-openssl-dev
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
python3-jsonschema
bash-completion
debhelper
lintian
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
debootstrap
fdisk
e2fsprogs
dosfstools
qemu-utils
dnsmasq-base
qemu-efi-aarch64
qemu-user-static
binfmt-support
mtools
msmtp
python3-aiosmtpd
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
libcurl4-openssl-dev:arm64
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

# LAVA: postgresql first, its cluster running, so that lava-server's
# postinst finds the database server and creates its role, database and
# schema itself; without systemd nothing else starts the cluster.
# --no-install-recommends: the recommends pull a host kernel, apache2,
# lxc, nfs and tftpd, none of which the QEMU device uses. The coordinator
# passes a multinode job's messages between its sub-jobs.
LAVA_PKGS="
lava-server
lava-dispatcher
lava-coordinator
lavacli
"
lava_failed() {
	echo "install-deps: installing LAVA failed ($1); see apt-get's" \
		"output above. IOMMU_BENCH_NO_LAVA=1 skips LAVA (its tests" \
		"then skip); CI must not." >&2
	exit 1
}
if [ "${IOMMU_BENCH_NO_LAVA:-}" = 1 ]; then
	echo "install-deps: IOMMU_BENCH_NO_LAVA=1: not installing LAVA" \
		"(its tests will skip)"
else
	# A python3 other than Debian's ahead on PATH (pyenv, a venv) breaks
	# lava-server's postinst, which needs Debian's modules.
	(
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
		export PATH
		unset PYTHONPATH PYTHONHOME VIRTUAL_ENV
		apt-get install -y -q --no-install-recommends postgresql ||
			lava_failed "apt-get install postgresql"
		# The cluster postgresql's postinst created (15/main on Debian 12).
		cluster=$(pg_lsclusters -h |
			awk '$2 == "main" { print $1, $2, $4; exit }')
		[ -n "$cluster" ] ||
			cluster=$(pg_lsclusters -h | awk 'NR == 1 { print $1, $2, $4 }')
		[ -n "$cluster" ] || lava_failed "no PostgreSQL cluster"
		read -r ver name status <<-EOF
			$cluster
		EOF
		if [ "$status" != online ]; then
			pg_ctlcluster "$ver" "$name" start ||
				lava_failed "pg_ctlcluster $ver $name start"
		fi
		# shellcheck disable=SC2086 # word splitting of the list is intended
		apt-get install -y -q --no-install-recommends $LAVA_PKGS ||
			lava_failed "apt-get install lava-server lava-dispatcher lava-coordinator lavacli"
	) || exit 1
fi
