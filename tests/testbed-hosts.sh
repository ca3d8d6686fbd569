# SPDX-License-Identifier: GPL-2.0-only
#
# Sourced by the testbed tests (tests/cli/testbed*.t) and benchmarks
# (tests/bench/testbed-*.sh): the TOML of their two hosts, written once.
#
# testbed_hosts [QEMU_LINES [HOST_LINES]]: the guest $G (QEMU, TCG, 1 GB,
# 2 vCPUs, x86 unless QEMU_LINES says arch = "arm64") at $NET.2 and its
# peer in the namespace $NS behind the tap $TAP at $NET.1; QEMU_LINES
# and HOST_LINES are TOML lines added to [hosts.$G.qemu] and [hosts.$G].
# $BOOT_TIMEOUT, if set, replaces the 90 s a boot may take.
testbed_hosts() {
	cat <<EOT
[hosts.$G]
transport = "qemu"
role = "sut"
address = "$NET.2/24"
link = "peer"
boot_timeout = "${BOOT_TIMEOUT:-90s}"
${2:-}

[hosts.$G.qemu]
memory = "1G"
cpus = 2
${1:-}

[hosts.peer]
transport = "netns"
role = "peer"
netns = "$NS"
address = "$NET.1/24"
nic = "$TAP"
EOT
}
