#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The other IOMMUs QEMU emulates, end to end: AMD-Vi (amd-iommu on q35,
# found through the IVRS table; Debian builds its driver in) under
# Debian's 6.1, and virtio-iommu (virtio-iommu-pci, found through ACPI's
# VIOT table on x86 and the device tree on arm64's virt; a module in
# Debian's 6.12, absent from its 6.1) under 6.12, on x86 and on the arm64
# guest when its agent is built. Each mode is verified from inside the guest
# as with Intel's and the SMMUv3, and the relations that must hold
# whatever the IOMMU are asserted on the driver's own functions:
#
#   - strict: one IOTLB sync per unmap;
#   - lazy: none, the flush queue flushes instead, an order of magnitude
#     fewer times at the least;
#   - passthrough: no map calls at all.
#
# QEMU's AMD-Vi reports NpCache, and Linux's AMD driver then forces
# strict at boot ("Using strict mode due to virtualization"), whatever
# iommu.strict says: lazy comes here by sysfs on the strict boot, which
# the driver allows. And a kernel without the driver is refused before
# any boot.
#
# Needs root, QEMU and both testbed kernels (downloaded once); skipped
# with the reason otherwise. About two and a half minutes under TCG.
set -eu
. "$(dirname "$0")/lib.sh"

PKG=linux-image-6.1.0-57-amd64
PKG612=linux-image-6.12.117+deb12-amd64
t_testbed_names i 190
trap t_testbed_cleanup EXIT INT TERM

t_testbed_require "$PKG" qemu-system-x86_64 ip sqlite3 iperf3 pgrep \
	python3
t_testbed_require "$PKG612"

PROBES='"map", "unmap", "iotlb_sync", "fq_flush", "hw_flush"'

# --- AMD-Vi on 6.1 ---
DB=$T_TMP/amd.db
M=$T_TMP/amd.toml
testbed_matrix tb-amd '"strict", "lazy", "passthrough"' \
	reboot="strict passthrough" qemu='iommu = "amd"' \
	probes="$PROBES" >"$M"

t_run_ok 0 600 "3 trials, 0 failed" \
	"the AMD-Vi guest's run finishes, 3 trials, none failed" \
	"$B" --db "$DB" run "$M"
t_diag "$(grep -i 'AMD-Vi' "/run/iommu-bench/qemu-$G/console.log" 2>/dev/null | head -3)"

t_boot strict facts | grep -q '"amd-vi"'
t_ok $? "the guest's facts name its IOMMU: AMD-Vi"
t_modes_ok amd strict lazy passthrough
t_relations amd

# --- virtio-iommu on 6.12 ---
DB=$T_TMP/virtio.db
M=$T_TMP/virtio.toml
testbed_matrix tb-virtio '"strict", "lazy"' qemu='iommu = "virtio"' \
	kernels="$(testbed_kernel debian-6.12 "$PKG612")" \
	probes="$PROBES" >"$M"

t_run_ok 0 600 "2 trials, 0 failed" \
	"the virtio-iommu guest's run finishes, 2 trials, none failed" \
	"$B" --db "$DB" run "$M"
t_boot strict facts | grep -q '"virtio-iommu"'
t_ok $? "the guest's facts name its IOMMU: virtio-iommu"
t_modes_ok virtio strict lazy
t_relations virtio

# --- virtio-iommu on arm64's virt machine, 6.12 ---
AGENT=$(dirname "$B")/.output/arm64/iommu-bench
PKGA=linux-image-6.12.117+deb12-arm64
if [ ! -x "$AGENT" ] || ! command -v qemu-system-aarch64 >/dev/null ||
	! "$B" testbed build --kernel "$PKGA" >/dev/null 2>&1; then
	T_N=$((T_N + 1))
	echo "ok $T_N # SKIP arm64: no agent at $AGENT (make agent-arm64), no qemu-system-aarch64 or no $PKGA"
else
	DB=$T_TMP/virtio-arm64.db
	M=$T_TMP/virtio-arm64.toml
	QEMU=qemu-system-aarch64
	testbed_matrix tb-virtio-arm64 '"strict", "lazy"' boot=180s \
		qemu='arch = "arm64"
iommu = "virtio"' kernels="$(testbed_kernel debian-6.12-arm64 "$PKGA")" \
		probes="$PROBES" >"$M"
	t_run_ok 0 600 "2 trials, 0 failed" \
		"the arm64 virtio-iommu guest's run finishes, 2 trials, none failed" \
		"$B" --db "$DB" run "$M"
	t_modes_ok arm64-virtio strict lazy
	t_relations arm64-virtio
	QEMU=qemu-system-x86_64
fi

# --- a kernel without the driver ---
DB=$T_TMP/none.db
testbed_matrix tb-virtio61 '"strict"' qemu='iommu = "virtio"' \
	probes="$PROBES" >"$M"
t_run 2 "$B" --db "$DB" plan "$M" &&
	t_grep "$T_ERR" "kernel 'debian-6.1' ($PKG) has no virtio-iommu driver: CONFIG_VIRTIO_IOMMU is not set"
t_ok $? "plan: virtio-iommu on Debian's 6.1 (no driver) is refused, and why"
t_run 1 "$B" --db "$DB" run "$M" &&
	t_grep "$T_ERR" "has no virtio-iommu driver" && [ -z "$(t_qemu_pids)" ] &&
	! grep -q 'booting' "$T_ERR"
t_ok $? "run: refused before a boot"

t_testbed_gone
t_ok $? "no QEMU and no namespace left after the runs"

t_done
