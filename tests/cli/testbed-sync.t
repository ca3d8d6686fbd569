#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The second seed in the testbed: DMA_F_CAN_SKIP_SYNC ("iommu/dma: skip
# sync ops for non-SWIOTLB buffers", 6.10) seen by the probes. An e1000e
# NIC at MTU 9000 receives small packets through its packet-split path,
# which syncs the buffer for the CPU and back for the device instead of
# unmapping it: 64-byte UDP datagrams into the guest make exactly two
# sync calls a packet on Debian's 6.1 and none on 6.12, through the same
# driver function. virtio-net, the testbed's default NIC, never makes
# these calls on either kernel, which is why the NIC is a matrix key.
#
# And the second DMA path the seed's profile showed: an NVMe disk, whose
# scatter-gather lists are mapped and synced once per I/O, counted
# against fio's own I/O count.
#
# Needs root, QEMU, fio and both testbed kernels (downloaded once);
# skipped with the reason otherwise. About two and a half minutes under
# TCG.
set -eu
. "$(dirname "$0")/lib.sh"

PKG61=linux-image-6.1.0-57-amd64
PKG612=linux-image-6.12.117+deb12-amd64
t_testbed_names s 194
trap t_testbed_cleanup EXIT INT TERM

t_testbed_require "$PKG61" qemu-system-x86_64 ip sqlite3 iperf3 pgrep fio
t_testbed_require "$PKG612"

DB=$T_TMP/s.db
M=$T_TMP/s.toml
# 4 Mbit/s of 64-byte datagrams (7800 a second): what a TCG guest takes
# without dropping any at the NIC, so that every datagram iperf3 counts
# went through the driver once, and none it did not count did.
testbed_matrix tb-sync '"strict"' qemu='nic = "e1000e"
mtu = 9000' \
	kernels="$(testbed_kernel debian-6.1 "$PKG61")

$(testbed_kernel debian-6.12 "$PKG612")" \
	workload=udp64 probes='"sync_cpu", "sync_device", "map", "unmap"' \
	collect="
# A profile trial per kernel, sampled often enough that 6.1's sync
# functions show (tens of samples) where 6.12 has none to show.
[collect.perf]
record = \"separate\"
event = \"cpu-clock\"
frequency = 4999" >"$M"

t_run_ok 0 600 "4 trials, 0 failed" \
	"e1000e at MTU 9000 on 6.1 and 6.12: 2 trials + 2 profiles, none failed" \
	"$B" --db "$DB" run "$M"
# The guest's console holds what its agent said (a channel that lost a
# wakeup, say): printed whichever way the run went.
t_diag "$(grep 'agent' "/run/iommu-bench/qemu-$G/console.log" 2>/dev/null | tail -5)"

# kq KERNEL SQL-EXPR: the expression over the kernel's measured trial (t).
kq() {
	t_q "SELECT $2 FROM trials t JOIN cells c ON c.id = t.cell_id
	     JOIN kernels k ON k.id = c.kernel_id WHERE k.name = '$1'
	     AND t.profile = 0"
}
calls() {
	kq "$1" "(SELECT p.calls FROM probes p WHERE p.trial_id = t.id
	          AND p.name = '$2' AND p.attach <> 'none')"
}
metric() {
	kq "$1" "(SELECT m.value FROM metrics m WHERE m.trial_id = t.id
	          AND m.name = '$2')"
}

facts() {
	kq "$1" "(SELECT json_extract(b.facts, '$2') FROM boots b
	          WHERE b.id = t.boot_id)"
}
[ "$(facts debian-6.1 '$.nics[0].driver')" = e1000e ] &&
	[ "$(facts debian-6.1 '$.nics[0].mtu')" = 9000 ] &&
	[ "$(facts debian-6.12 '$.nics[0].mtu')" = 9000 ]
t_ok $? "the guests' eth0 is an e1000e at MTU 9000 (the kernel's own word)"
[ "$(facts debian-6.1 '$.testbed.nic')" = e1000e ]
t_ok $? "the boot's facts record the NIC model the VM was given"

# packets KERNEL: datagrams the guest received, its bytes / 64.
packets() {
	kq "$1" "(SELECT printf('%.0f', m.value / 64) FROM metrics m
	          WHERE m.trial_id = t.id AND m.name = 'bytes')"
}
pk=$(packets debian-6.1)
c=$(calls debian-6.1 sync_cpu)
d=$(calls debian-6.1 sync_device)
r=$(awk -v c="${c:-0}" -v d="${d:-0}" -v p="${pk:-0}" \
	'BEGIN { if (p > 0) printf "%.4f", (c + d) / p }')
# A datagram the NIC received but the guest's socket dropped (a loaded
# host: CI's clean-clone run saw it) is synced and not counted as
# received: the ratio can rise above 2, never fall below it.
t_between "$r" 1.96 2.5
t_ok $? "6.1: two sync calls per packet received ($c + $d for $pk packets: $r)"
[ "${c:-0}" -gt 0 ] && [ "$c" = "$d" ]
t_ok $? "6.1: one for the CPU and one back for the device ($c, $d)"

pk=$(packets debian-6.12)
c=$(calls debian-6.12 sync_cpu)
d=$(calls debian-6.12 sync_device)
u=$(calls debian-6.12 unmap)
[ "$c" = 0 ] && [ "$d" = 0 ]
t_ok $? "6.12: no sync call at all (sync_cpu $c, sync_device $d; attached)"
r=$(awk -v u="${u:-0}" -v p="${pk:-0}" \
	'BEGIN { if (p > 0) printf "%.3f", u / p }')
# About one: the driver unmaps every packet it takes, and a datagram the
# guest's socket drops on a loaded host (CI) was unmapped but never
# counted by iperf3, so above one, never far below.
t_diag "6.12: $u unmaps for $pk packets ($r)"
t_between "$r" 0.9 1.5
t_ok $? "6.12: the same packets went through the IOMMU ($r unmaps a packet)"

m=$(metric debian-6.1 sync_cpu_per_gb)
b=$(metric debian-6.1 bytes)
c=$(calls debian-6.1 sync_cpu)
awk -v m="${m:-0}" -v b="${b:-0}" -v c="${c:-0}" \
	'BEGIN { exit !(b > 0 && m > 1.5e7 && m < 1.95e7 &&
	               m - c * 1e9 / b < 1 && c * 1e9 / b - m < 1) }'
t_ok $? "6.1: sync_cpu_per_gb is stored as a metric, ~1.56e7 and never below ($m)"
[ "$(metric debian-6.12 sync_cpu_per_gb)" = 0.0 ]
t_ok $? "6.12: sync_cpu_per_gb is 0, a figure, not a missing one"

t_run 0 "$B" --db "$DB" compare --by kernel --only metric=sync_cpu_per_gb &&
	t_grep "$T_OUT" "sync_cpu_per_gb"
t_ok $? "compare shows the sync rate by kernel"

# The profile trials: perf record in the guest, perf report here.
prof() {
	t_q "SELECT count(*) FROM profile pr JOIN trials t ON t.id = pr.trial_id
	     JOIN cells c ON c.id = t.cell_id JOIN kernels k ON k.id = c.kernel_id
	     WHERE k.name = '$1' AND t.profile = 1 AND pr.symbol $2"
}
[ "$(prof debian-6.1 "= 'e1000_clean_rx_irq_ps'")" = 1 ] &&
	[ "$(prof debian-6.12 "= 'e1000_clean_rx_irq_ps'")" = 1 ]
t_ok $? "both profiles name the driver's packet-split path (kernel symbols from the guest's kallsyms)"
[ "$(prof debian-6.1 "LIKE 'iommu_dma_sync_single_for_%'")" -ge 1 ] &&
	[ "$(prof debian-6.12 "LIKE 'iommu_dma_sync_single_for_%'")" = 0 ]
t_ok $? "6.1's profile has iommu_dma_sync_single_for_*, 6.12's has none"
t_q "SELECT a.path FROM artifacts a JOIN trials t ON t.id = a.trial_id
     WHERE t.profile = 1 AND a.kind = 'perf.data'" >"$T_TMP/pd"
[ "$(wc -l <"$T_TMP/pd")" = 2 ] && [ -s "$(head -1 "$T_TMP/pd")" ]
t_ok $? "each profile trial's perf.data came back as an artifact"

t_run 0 "$B" --db "$DB" report --by kernel --output "$T_TMP/r.html" &&
	t_grep "$T_TMP/r.html" "debian-6.12 no longer calls iommu_dma_sync_single_for_cpu on this path" &&
	t_grep "$T_TMP/r.html" "0, never called"
t_ok $? "the report says in words that 6.12 no longer calls the sync function"

# NVMe: fio on a scratch disk of the guest. With SGLs off
# (nvme.sgl_threshold=0, passed to the module by the initramfs as
# modprobe would), every I/O larger than two pages is mapped as a
# scatter-gather list, and its list synced, once per I/O. Lazy is booted,
# not switched by sysfs: that would reach the NIC's group, not the disk's.
DB=$T_TMP/n.db
M=$T_TMP/n.toml
cat >"$M" <<EOT
[run]
name = "tb-nvme"
repetitions = 1
warmup = 0
cooldown = "0s"
modes = ["strict", "lazy"]

[modes.strict]
method = "reboot"

[hosts.$G]
transport = "qemu"
role = "sut"
boot_timeout = "90s"

[hosts.$G.qemu]
memory = "1G"
cpus = 2
cmdline = ["nvme.sgl_threshold=0"]
disks = [{ name = "scratch0", model = "nvme", size = "256M" }]

[[kernels]]
name = "debian-6.1"
package = "$PKG61"

[[workloads]]
name = "randread"
type = "fio"
host = "$G"
target = "scratch0"
rw = "randread"
bs = "64K"
iodepth = 4
duration = "3s"

[collect.bpf]
probes = ["map_sg", "unmap_sg", "sync_sg_cpu", "iotlb_sync"]
EOT
t_run_ok 0 300 "2 trials, 0 failed" \
	"fio on the guest's NVMe disk, strict and lazy: 2 trials, none failed" \
	"$B" --db "$DB" run "$M"
# mq MODE SQL-EXPR: over the mode's trial (t).
mq() {
	t_q "SELECT $2 FROM trials t JOIN cells c ON c.id = t.cell_id
	     WHERE c.mode = '$1'"
}
ios=$(mq strict "(SELECT m.value FROM metrics m WHERE m.trial_id = t.id
                 AND m.name = 'fio_ios')")
sg=$(t_calls strict map_sg)
r=$(awk -v s="${sg:-0}" -v i="${ios:-0}" \
	'BEGIN { if (i > 0) printf "%.4f", s / i }')
t_between "$r" 0.98 1.02
t_ok $? "one map_sg per fio I/O ($sg for ${ios%.*} I/Os: $r)"
[ "$(t_calls strict sync_sg_cpu)" = "$sg" ] &&
	[ "$(t_calls strict unmap_sg)" = "$sg" ]
t_ok $? "and its list unmapped and synced for the CPU once each"
b=$(mq strict "(SELECT m.value FROM metrics m WHERE m.trial_id = t.id
               AND m.name = 'bytes')")
awk -v b="${b:-0}" -v i="${ios:-0}" 'BEGIN { exit !(i > 0 && b == i * 65536) }'
t_ok $? "fio's bytes are its I/Os x 64K ($b), what calls per GB divide by"
s_r=$(awk -v f="$(t_calls strict iotlb_sync)" -v u="$(t_calls strict unmap_sg)" \
	'BEGIN { if (u > 0) printf "%.3f", f / u }')
l_r=$(awk -v f="$(t_calls lazy iotlb_sync)" -v u="$(t_calls lazy unmap_sg)" \
	'BEGIN { if (u > 0) printf "%.3f", f / u }')
t_between "$s_r" 0.9 1.1 && t_between "$l_r" 0 0.1 &&
	[ "$(mq lazy effective_mode)" = lazy ] &&
	[ "$(mq lazy boot_id)" != "$(mq strict boot_id)" ]
t_ok $? "the disk's own group: an IOTLB flush per unmap in strict ($s_r), batched in lazy ($l_r), lazy booted"
[ -z "$(find /run/iommu-bench/qemu-$G -name 'disk-*' 2>/dev/null)" ]
t_ok $? "the scratch image is gone with the run"

t_testbed_cleanup
t_testbed_gone
t_ok $? "no QEMU and no namespace left"
t_done
