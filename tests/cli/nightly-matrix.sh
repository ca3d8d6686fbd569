# SPDX-License-Identifier: GPL-2.0-only
#
# The testbed matrix the nightly tests give the robot: a guest on QEMU
# and its peer in a network namespace, the kernels, one workload, and
# the [nightly] table under test last. Source after lib.sh:
#
#	. "$(dirname "$0")/nightly-matrix.sh"
#	nightly_matrix FILE NET NS REPS DURATION KERNELS [NIGHTLY]
#
# NET is the third number of the link's 10.79.NET.0/24 and NS the
# namespace's and tap's suffix: each test its own, so that two files
# running side by side never share a name. KERNELS is the [[kernels]]
# tables' text.

nightly_matrix() {
	cat >"$1" <<EOT
[run]
name = "robot"
repetitions = $4
modes = ["lazy"]

[hosts.guest]
transport = "qemu"
role = "sut"
address = "10.79.$2.2/24"
link = "peer"

[hosts.peer]
transport = "netns"
netns = "iommu-bench-$3"
address = "10.79.$2.1/24"
nic = "tap-$3"

$6

[[workloads]]
name = "rx"
server = "guest"
client = "peer"
duration = "$5"

${7-}
EOT
}
