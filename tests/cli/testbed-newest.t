#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Debian's newest kernel packaging, booted: 7.3 from trixie-backports,
# which Debian splits into an empty linux-image-VER and the image in
# linux-binary-VER, on the x86 testbed's emulated Intel IOMMU. The
# functions the probes attach to moved upstream since 6.x
# (iommu_dma_map_page/unmap_page became iommu_dma_map_phys/unmap_phys,
# iommu-dma is called directly, VT-d batches its invalidations): every
# probe must still attach, to the function that does the work now, and
# the relations that hold on every kernel must hold here too:
#
#   - strict: one IOTLB sync per unmap;
#   - lazy: none, the flush queue flushes instead, an order of magnitude
#     fewer times at the least;
#   - passthrough: no map calls at all.
#
# Needs root, QEMU and the 7.x kernel (fetched once through the
# testbed's own apt configuration, about 120 MB); skipped with the
# reason otherwise. About a minute and a half under TCG.
set -eu
. "$(dirname "$0")/lib.sh"

SUITE=trixie-backports
PKG=${IOMMU_BENCH_TEST_SUITE_KERNEL:-linux-image-7.3.4+deb13-amd64}
REL=${PKG#linux-image-}
t_testbed_names n 188
trap t_testbed_cleanup EXIT INT TERM

t_testbed_require --suite "$SUITE" "$PKG" qemu-system-x86_64 ip sqlite3 \
	iperf3 pgrep

DB=$T_TMP/n.db
M=$T_TMP/n.toml
testbed_matrix tb-newest '"strict", "lazy", "passthrough"' \
	reboot="strict passthrough" boot=120s \
	kernels="$(testbed_kernel debian-7 "$PKG")
suite = \"$SUITE\"" \
	probes='"map", "unmap", "iotlb_sync", "fq_flush", "hw_flush"' >"$M"

t_run_ok 0 600 "3 trials, 0 failed" \
	"Debian $REL boots, 3 trials, none failed" "$B" --db "$DB" run "$M"

[ "$(t_boot strict kernel_release)" = "$REL" ]
t_ok $? "the boots ran $REL"
[ "$(t_q "SELECT package || '|' || suite || '|' || (version <> '') FROM kernels")" = \
	"$PKG|$SUITE|1" ]
t_ok $? "the store says which package, version and suite ran ($(t_q 'SELECT version FROM kernels'))"
t_modes_ok 7.x strict lazy passthrough

# probe MODE NAME COLUMN: a column of the probe's row in the mode's trial.
probe() {
	t_q "SELECT p.$3 FROM probes p JOIN trials t ON t.id = p.trial_id
	     JOIN cells c ON c.id = t.cell_id WHERE c.mode = '$1'
	     AND t.warmup = 0 AND t.profile = 0 AND p.name = '$2'"
}
n=0
for name in map unmap iotlb_sync fq_flush hw_flush; do
	[ -n "$(probe strict $name target)" ] &&
		[ "$(probe strict $name attach)" = fentry ] || n=$((n + 1))
done
[ $n -eq 0 ]
t_ok $? "every probe attached by fentry ($n did not)"
[ "$(probe strict map target)" = iommu_dma_map_phys ] &&
	[ "$(probe strict unmap target)" = iommu_dma_unmap_phys ]
t_ok $? "map and unmap follow the rename: $(probe strict map target), $(probe strict unmap target)"

r=$(t_flush_ratio strict)
t_between "$r" 0.9 3
t_ok $? "strict: an invalidation submitted per unmap (hw_flush/unmap = $r)"
t_relations "7.x"

t_testbed_gone
t_ok $? "no QEMU and no namespace left after the run"

t_done
