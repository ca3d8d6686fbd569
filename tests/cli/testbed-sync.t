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
# Needs root, QEMU and both testbed kernels (downloaded once); skipped
# with the reason otherwise. About a minute and a half under TCG.
set -eu
. "$(dirname "$0")/lib.sh"

B=$IOMMU_BENCH
PKG61=linux-image-6.1.0-57-amd64
PKG612=linux-image-6.12.117+deb12-amd64
NET=10.194.$(($$ % 250))
G=tbs-$$
NS=ibs-$$
TAP=ts$$

QEMU=qemu-system-x86_64
trap t_testbed_cleanup EXIT INT TERM

t_testbed_require "$PKG61" qemu-system-x86_64 ip sqlite3 iperf3 pgrep python3
t_testbed_require "$PKG612"

DB=$T_TMP/s.db
M=$T_TMP/s.toml
# 4 Mbit/s of 64-byte datagrams (7800 a second): what a TCG guest takes
# without dropping any at the NIC, so that every datagram iperf3 counts
# went through the driver once, and none it did not count did.
cat >"$M" <<EOT
[run]
name = "tb-sync"
repetitions = 1
warmup = 0
cooldown = "0s"
modes = ["strict"]

[modes.strict]
method = "reboot"

[hosts.$G]
transport = "qemu"
role = "sut"
address = "$NET.2/24"
link = "peer"
boot_timeout = "90s"

[hosts.$G.qemu]
memory = "1G"
cpus = 2
nic = "e1000e"
mtu = 9000

[hosts.peer]
transport = "netns"
role = "peer"
netns = "$NS"
address = "$NET.1/24"
nic = "$TAP"

[[kernels]]
name = "debian-6.1"
package = "$PKG61"

[[kernels]]
name = "debian-6.12"
package = "$PKG612"

[[workloads]]
name = "udp64"
server = "$G"
client = "peer"
protocol = "udp"
length = 64
bitrate = "4M"
duration = "3s"
omit = "0s"

[collect.bpf]
probes = ["sync_cpu", "sync_device", "map", "unmap"]
EOT

t_run 0 timeout 600 "$B" --db "$DB" run "$M" &&
	t_grep "$T_ERR" "2 trials, 0 failed"
st=$?
t_ok $st "e1000e at MTU 9000 on 6.1 and 6.12: 2 trials, none failed"
[ $st -eq 0 ] || t_diag "$(tail -30 "$T_ERR")"

# kq KERNEL SQL-EXPR: the expression over the kernel's one trial (t).
kq() {
	t_q "SELECT $2 FROM trials t JOIN cells c ON c.id = t.cell_id
	     JOIN kernels k ON k.id = c.kernel_id WHERE k.name = '$1'"
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
t_between "$r" 1.96 2.04
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
t_between "$r" 0.9 1.1
t_ok $? "6.12: the same packets went through the IOMMU ($r unmaps a packet)"

m=$(metric debian-6.1 sync_cpu_per_gb)
b=$(metric debian-6.1 bytes)
c=$(calls debian-6.1 sync_cpu)
awk -v m="${m:-0}" -v b="${b:-0}" -v c="${c:-0}" \
	'BEGIN { exit !(b > 0 && m > 1.5e7 && m < 1.62e7 &&
	               m - c * 1e9 / b < 1 && c * 1e9 / b - m < 1) }'
t_ok $? "6.1: sync_cpu_per_gb is stored as a metric, ~1.56e7 ($m)"
[ "$(metric debian-6.12 sync_cpu_per_gb)" = 0.0 ]
t_ok $? "6.12: sync_cpu_per_gb is 0, a figure, not a missing one"

t_run 0 "$B" --db "$DB" compare --by kernel --only metric=sync_cpu_per_gb &&
	t_grep "$T_OUT" "sync_cpu_per_gb"
t_ok $? "compare shows the sync rate by kernel"

t_testbed_cleanup
t_testbed_gone
t_ok $? "no QEMU and no namespace left"
t_done
