#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The kernel's DMA map benchmark as a workload, for real: the bootable
# tiny testbed kernel with configs/kbuild/dma-map-benchmark.config (an
# incremental build in the worktree kernel-build.t keeps: about a
# minute), booted in strict and in lazy on the x86 testbed's emulated
# Intel IOMMU, the guest's spare virtio function (held by virtio-pci)
# lent to dma_map_benchmark with unbind = true, 1 and 2 threads, 3 s
# each. Then, per trial:
#
#   - the benchmark's own count of operations (read by BPF as its
#     threads return) is there, and the probes, filtered to the device,
#     counted as many maps and as many unmaps, within 2%;
#   - the device went back to virtio-pci (the agent reads sysfs after);
#
# and unmap costs more in strict than in lazy, by the kernel's mean and
# by the probes', with one IOTLB sync per unmap in strict and none in
# lazy. Before any boot: a kernel without the benchmark (Debian's 6.1),
# and the plan's refusals (the spare held without unbind, another device
# of the VM, threads and granule out of the kernel's ranges).
#
# Needs root, QEMU, the kernel source and a compiler; skipped with the
# reason otherwise. About 2 minutes after kernel-build.t.
set -eu
. "$(dirname "$0")/lib.sh"

PKG=linux-image-6.1.0-57-amd64
t_testbed_names d 196
DB=$T_TMP/dm.db
JOBS=$(nproc 2>/dev/null || echo 2)
trap t_testbed_cleanup EXIT INT TERM

t_testbed_require "$PKG" qemu-system-x86_64 ip sqlite3 iperf3 pgrep python3 \
	git make gcc bc flex bison tar xz perl
t_tiny_tree

TINY=$SRCDIR/configs/kbuild/testbed-guest-tiny.config
FRAG=$SRCDIR/configs/kbuild/dma-map-benchmark.config
start=$(date +%s)
t_run 0 "$B" kernel build --tree "$KSRC" --config tinyconfig \
	--fragment "$TINY" --fragment "$FRAG" --workdir "$WD" -j "$JOBS" --json
st=$?
t_ok $st "the tiny kernel with the benchmark builds ($(($(date +%s) - start)) s)"
[ $st -eq 0 ] || {
	t_diag "$(tail -10 "$T_ERR")"
	t_done
	exit
}
CONFIG=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["config"])' "$T_OUT")
grep -qx 'CONFIG_DMA_MAP_BENCHMARK=y' "$CONFIG"
t_ok $? "its config has CONFIG_DMA_MAP_BENCHMARK=y"

# dm_matrix KERNELS WORKLOAD-LINES [QEMU-LINES]: strict and lazy, each
# booted, a dma_map workload on the guest's spare, the map, unmap and
# IOTLB sync probes filtered to it.
dm_matrix() {
	testbed_matrix tb-dma-map '"strict", "lazy"' reboot="strict lazy" \
		kernels="$1" qemu="${3:-spare = \"virtio\"}" workloads="[[workloads]]
name = \"dm\"
type = \"dma_map\"
host = \"$G\"
seconds = \"3s\"
$2" probes='"map", "unmap", "iotlb_sync"' collect='device = "0000:00:10.0"'
}
tiny="[[kernels]]
name = \"tiny-dm\"
build = { tree = \"$KSRC\", config = \"tinyconfig\", fragments = [\"$TINY\", \"$FRAG\"] }"

# Refused before any boot.
dm_matrix "$tiny" 'threads = [1, 2]' >"$T_TMP/held.toml"
t_run 2 "$B" plan "$T_TMP/held.toml" &&
	t_grep "$T_ERR" "spare device (spare = \"virtio\") is held by virtio-pci; set unbind = true"
t_ok $? "the plan refuses the spare virtio-pci holds without unbind = true"
dm_matrix "$tiny" 'device = "0000:00:03.0"
unbind = true' >"$T_TMP/other.toml"
t_run 2 "$B" plan "$T_TMP/other.toml" &&
	t_grep "$T_ERR" "the one device it lends is its spare, 0000:00:10.0"
t_ok $? "... another device of the testbed VM"
dm_matrix "$tiny" 'unbind = true
threads = 1025
granule = [1, 0]' >"$T_TMP/range.toml"
t_run 2 "$B" plan "$T_TMP/range.toml" && t_grep "$T_ERR" "threads" &&
	t_grep "$T_ERR" "granule"
t_ok $? "... threads and a granule out of the kernel's ranges"
t_diag "$(grep error "$T_ERR" | head -3)"

dm_matrix "$(testbed_kernel debian-6.1 "$PKG")" 'unbind = true' \
	>"$T_TMP/nobench.toml"
t_run 1 timeout 300 "$B" --db "$T_TMP/nobench.db" run "$T_TMP/nobench.toml" &&
	t_grep "$T_ERR" "workload 'dm': this kernel has no dma_map_benchmark: CONFIG_DMA_MAP_BENCHMARK is not set; add configs/kbuild/dma-map-benchmark.config to its build" &&
	! grep -q "booting" "$T_ERR"
t_ok $? "Debian's 6.1, without the benchmark, refused before it boots"
t_diag "$(grep -i "benchmark" "$T_ERR" | head -2)"
[ -z "$(t_qemu_pids)" ]
t_ok $? "... and no QEMU started"

# The run: strict and lazy, 1 and 2 threads.
dm_matrix "$tiny" 'unbind = true
threads = [1, 2]' >"$T_TMP/dm.toml"
t_run_ok 0 600 "4 trials, 0 failed" \
	"strict and lazy booted, 1 and 2 threads each, none failed" \
	"$B" --db "$DB" run "$T_TMP/dm.toml"
grep -Eq "dm-t2 rep 1: ok, map [0-9]+ ns, unmap [0-9]+ ns" "$T_ERR"
t_ok $? "each trial's line says its map and unmap times"

# tq MODE WORKLOAD EXPR: EXPR over the trial of that cell.
tq() {
	t_q "SELECT $3 FROM trials t JOIN cells c ON c.id = t.cell_id
	     WHERE c.mode = '$1' AND c.workload = '$2' AND t.warmup = 0
	     AND t.profile = 0"
}
metric() {
	tq "$1" "$2" "(SELECT printf('%.0f', m.value) FROM metrics m
	               WHERE m.trial_id = t.id AND m.name = '$3')"
}
calls() {
	tq "$1" "$2" "(SELECT p.calls FROM probes p WHERE p.trial_id = t.id
	               AND p.name = '$3')"
}
per_call() {
	tq "$1" "$2" "(SELECT printf('%.0f', 1.0 * p.total_ns / p.calls)
	               FROM probes p WHERE p.trial_id = t.id
	               AND p.name = '$3' AND p.calls > 0)"
}
answer() {
	tq "$1" "$2" "(SELECT a.path FROM artifacts a WHERE a.trial_id = t.id
	               AND a.kind = 'dma_map.json')"
}

for mode in strict lazy; do
	for w in dm-t1 dm-t2; do
		[ "$(tq $mode $w "t.status || '/' || t.effective_mode")" = "ok/$mode" ]
		t_ok $? "$mode $w: ok, $mode in effect (verified in the guest)"
		ops=$(metric $mode $w operations)
		maps=$(calls $mode $w map)
		unmaps=$(calls $mode $w unmap)
		[ "${ops:-0}" -gt 0 ] &&
			t_between "$maps" "$(echo "$ops * 0.98" | bc)" "$(echo "$ops * 1.02" | bc)" &&
			t_between "$unmaps" "$(echo "$ops * 0.98" | bc)" "$(echo "$ops * 1.02" | bc)"
		t_ok $? "$mode $w: the probes' maps ($maps) and unmaps ($unmaps) are the benchmark's count ($ops) within 2%"
		a=$(answer $mode $w)
		python3 - "$a" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["lent"] is True, r
assert r["driver_before"] == "virtio-pci", r
assert r["driver_after"] == "virtio-pci", r
EOF
		t_ok $? "$mode $w: the device was lent from virtio-pci and is back with it ($a)"
	done
	r1=$(tq $mode dm-t1 "(SELECT printf('%.3f', 1.0 * s.calls / u.calls)
	      FROM probes s JOIN probes u ON u.trial_id = s.trial_id
	      WHERE s.trial_id = t.id AND s.name = 'iotlb_sync'
	      AND u.name = 'unmap' AND u.calls > 0)")
	if [ $mode = strict ]; then
		t_between "$r1" 0.98 1.02
	else
		t_between "$r1" 0 0.01
	fi
	t_ok $? "$mode: IOTLB syncs per unmap $r1"
done

for w in dm-t1 dm-t2; do
	ks=$(metric strict $w unmap_ns) kl=$(metric lazy $w unmap_ns)
	ps=$(per_call strict $w unmap) pl=$(per_call lazy $w unmap)
	[ -n "$ks" ] && [ -n "$kl" ] && [ "$ks" -gt "$kl" ] &&
		[ -n "$ps" ] && [ -n "$pl" ] && [ "$ps" -gt "$pl" ]
	t_ok $? "$w: unmap costs more in strict than in lazy: the kernel's mean $ks against $kl ns, the probes' $ps against $pl ns"
done
t_diag "map_ns strict $(metric strict dm-t1 map_ns)/$(metric strict dm-t2 map_ns), lazy $(metric lazy dm-t1 map_ns)/$(metric lazy dm-t2 map_ns); ops/s strict $(metric strict dm-t1 ops_per_s)/$(metric strict dm-t2 ops_per_s), lazy $(metric lazy dm-t1 ops_per_s)/$(metric lazy dm-t2 ops_per_s)"

t_testbed_gone
t_ok $? "no QEMU and no namespace left after the run"

t_done
