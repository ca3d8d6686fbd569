# SPDX-License-Identifier: GPL-2.0-only
#
# Sourced by the shell tests (tests/cli/*.t, through lib.sh) and the
# testbed benchmarks (tests/bench/testbed-*.sh, through testbed.lib): the
# TOML their matrices share, written once: the [run] table, the testbed's
# two hosts, and whole testbed matrices.

# matrix_run NAME REPETITIONS MODES [COOLDOWN [ORDER]]: a [run] table with
# no warmup; MODES is the items of the TOML list ('"strict", "lazy"'),
# COOLDOWN "0s" by default, no order line without ORDER.
matrix_run() {
	printf '[run]\nname = "%s"\nrepetitions = %s\nwarmup = 0\ncooldown = "%s"\n' \
		"$1" "$2" "${4:-0s}"
	[ -z "${5:-}" ] || printf 'order = "%s"\n' "$5"
	printf 'modes = [%s]\n' "$3"
}

# testbed_hosts [QEMU_LINES [HOST_LINES]]: the guest $G (QEMU, TCG, 1 GB,
# 2 vCPUs, x86 unless QEMU_LINES says arch = "arm64") at $NET.2 and its
# peer in the namespace $NS behind the tap $TAP at $NET.1; QEMU_LINES
# and HOST_LINES are TOML lines added to [hosts.$G.qemu] and [hosts.$G].
# $BOOT_TIMEOUT, if set, replaces the 90 s a boot may take, and
# $QEMU_CPUS the 2 vCPUs.
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
cpus = ${QEMU_CPUS:-2}
${1:-}

[hosts.peer]
transport = "netns"
role = "peer"
netns = "$NS"
address = "$NET.1/24"
nic = "$TAP"
EOT
}

# testbed_kernel NAME PACKAGE: a [[kernels]] table of a Debian package.
testbed_kernel() {
	printf '[[kernels]]\nname = "%s"\npackage = "%s"\n' "$1" "$2"
}

# testbed_matrix NAME MODES [KNOB=VALUE...]: a matrix of the testbed's
# guest and its peer on stdout, its tables a blank line apart: [run]
# (matrix_run's, no cooldown), the modes that boot, the hosts, the
# kernels, one workload into the guest, what is collected. The knobs are
# what the tests vary:
#
#   reps=N            repetitions (1)
#   order=ORDER       [run] order (none)
#   db=PATH           [run] db (none)
#   reboot="MODE..."  the modes given a table of their own, method =
#                     "reboot" ("strict"; empty: none)
#   modes=TOML        more [modes.*] tables after those
#   qemu=TOML host=TOML boot=DURATION cpus=N
#                     testbed_hosts's QEMU_LINES and HOST_LINES, its
#                     boot timeout (90s) and the guest's vCPUs (2)
#   kernels=TOML      the [[kernels]] tables (testbed_kernel debian-6.1
#                     $PKG)
#   workload=rx|udp64 iperf3 into the guest: TCP (rx), or 64-byte UDP
#                     datagrams at 4 Mbit/s (udp64)
#   workloads=TOML    [[workloads]] tables instead of that one (a dma_map
#                     workload's, say)
#   duration=D omit=D its length ("3s") and what iperf3 omits ("0s";
#                     empty: no omit line)
#   bitrate=B         rx only: iperf3's -b, the rate TCP is held to (none)
#   client_cpu=CPU    the host CPU the peer's iperf3 is pinned to (the
#                     workload's affinity; none)
#   probes=LIST       a [collect.bpf] table of the probes (none)
#   collect=TOML      lines after it (none)
#
# Every knob's value is written as it is: the caller's TOML.
testbed_matrix() {
	tm_name=$1
	tm_modes=$2
	shift 2
	tm_reps=1 tm_reboot=strict tm_workload=rx tm_duration=3s tm_omit=0s
	tm_order='' tm_db='' tm_more='' tm_qemu='' tm_host='' tm_boot=''
	tm_kernels='' tm_probes='' tm_collect='' tm_cpus='' tm_client=''
	tm_bitrate='' tm_workloads=''
	for tm_kv; do
		tm_v=${tm_kv#*=}
		case $tm_kv in
		reps=*) tm_reps=$tm_v ;;
		order=*) tm_order=$tm_v ;;
		db=*) tm_db=$tm_v ;;
		reboot=*) tm_reboot=$tm_v ;;
		modes=*) tm_more=$tm_v ;;
		qemu=*) tm_qemu=$tm_v ;;
		host=*) tm_host=$tm_v ;;
		boot=*) tm_boot=$tm_v ;;
		cpus=*) tm_cpus=$tm_v ;;
		kernels=*) tm_kernels=$tm_v ;;
		workload=rx | workload=udp64) tm_workload=$tm_v ;;
		workloads=*) tm_workloads=$tm_v ;;
		duration=*) tm_duration=$tm_v ;;
		omit=*) tm_omit=$tm_v ;;
		bitrate=*) tm_bitrate=$tm_v ;;
		client_cpu=*) tm_client=$tm_v ;;
		probes=*) tm_probes=$tm_v ;;
		collect=*) tm_collect=$tm_v ;;
		*)
			echo "testbed_matrix: no knob '$tm_kv'" >&2
			return 2
			;;
		esac
	done
	[ -n "$tm_kernels" ] || tm_kernels=$(testbed_kernel debian-6.1 "$PKG")

	matrix_run "$tm_name" "$tm_reps" "$tm_modes" 0s "$tm_order"
	[ -z "$tm_db" ] || printf 'db = "%s"\n' "$tm_db"
	echo
	if [ -n "$tm_reboot$tm_more" ]; then
		for tm_m in $tm_reboot; do
			printf '[modes.%s]\nmethod = "reboot"\n' "$tm_m"
		done
		[ -z "$tm_more" ] || printf '%s\n' "$tm_more"
		echo
	fi
	(
		[ -z "$tm_boot" ] || BOOT_TIMEOUT=$tm_boot
		[ -z "$tm_cpus" ] || QEMU_CPUS=$tm_cpus
		testbed_hosts "$tm_qemu" "$tm_host"
	)
	echo
	printf '%s\n\n' "$tm_kernels"
	if [ -n "$tm_workloads" ]; then
		printf '%s\n' "$tm_workloads"
	else
		printf '[[workloads]]\nname = "%s"\nserver = "%s"\nclient = "peer"\n' \
			"$tm_workload" "$G"
		[ "$tm_workload" = rx ] ||
			printf 'protocol = "udp"\nlength = 64\nbitrate = "4M"\n'
		[ -z "$tm_bitrate" ] || printf 'bitrate = "%s"\n' "$tm_bitrate"
		printf 'duration = "%s"\n' "$tm_duration"
		[ -z "$tm_omit" ] || printf 'omit = "%s"\n' "$tm_omit"
		[ -z "$tm_client" ] ||
			printf 'affinity = { client = %s }\n' "$tm_client"
	fi
	[ -z "$tm_probes$tm_collect" ] || echo
	[ -z "$tm_probes" ] || printf '[collect.bpf]\nprobes = [%s]\n' "$tm_probes"
	[ -z "$tm_collect" ] || printf '%s\n' "$tm_collect"
}
