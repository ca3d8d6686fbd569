# SPDX-License-Identifier: GPL-2.0-only
#
# TAP helpers for the command-line tests. Sourced by tests/cli/*.t, which
# run from the repo root with $IOMMU_BENCH set to the binary under test.
# Every test gets its own scratch directory, removed on exit however the
# test ends.

: "${IOMMU_BENCH:?set IOMMU_BENCH to the binary under test}"
: "${SRCDIR:=$(pwd)}"

# A failed check must print "not ok" and let the rest run, so errexit,
# which the scripts may have set, is off from here on.
set +e

# testbed_hosts: the testbed tests' two hosts, in one place.
. "$SRCDIR/tests/testbed-hosts.sh"

T_N=0
T_FAILED=0
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/iommu-bench-test.XXXXXX")
trap 't_cleanup' EXIT INT TERM
# Never let a test touch the user's results/ database by accident.
export IOMMU_BENCH_DB="$T_TMP/default.db"

# T_KEEP=1: the scratch folder (databases, logs) stays, for a look after.
t_cleanup() {
	if [ -n "${T_KEEP:-}" ]; then
		echo "# kept $T_TMP"
		return
	fi
	rm -rf "$T_TMP"
}

# ok COND-EXIT-STATUS DESCRIPTION
t_ok() {
	T_N=$((T_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $T_N - $2"
	else
		echo "not ok $T_N - $2"
		T_FAILED=$((T_FAILED + 1))
	fi
}

t_diag() {
	printf '%s\n' "$@" | sed 's/^/# /'
}

# t_run WANT_STATUS CMD ARGS...: runs CMD, stdout to $T_OUT, stderr to
# $T_ERR; returns 0 when the exit status is WANT_STATUS.
t_run() {
	want=$1
	shift
	T_OUT="$T_TMP/out"
	T_ERR="$T_TMP/err"
	"$@" >"$T_OUT" 2>"$T_ERR"
	T_STATUS=$?
	if [ "$T_STATUS" -ne "$want" ]; then
		t_diag "command: $*" "exit status $T_STATUS, want $want" \
			"stderr:" "$(head -20 "$T_ERR")"
		return 1
	fi
	return 0
}

# t_grep FILE PATTERN: fixed-string search, with a diagnostic on a miss.
t_grep() {
	if grep -qF -- "$2" "$1"; then
		return 0
	fi
	t_diag "'$2' not found in:" "$(head -20 "$1")"
	return 1
}

# t_relay FILE: a driven C test's TAP output (FILE) relayed as our own
# checks, numbered on, its diagnostics passed through.
t_relay() {
	while IFS= read -r line; do
		case "$line" in
		"ok "*) t_ok 0 "${line#ok [0-9]* - }" ;;
		"not ok "*) t_ok 1 "${line#not ok [0-9]* - }" ;;
		"#"*) echo "$line" ;;
		esac
	done <"$1"
}

t_done() {
	echo "1..$T_N"
	[ "$T_FAILED" -eq 0 ]
}

# t_require_root WHY: root, or a SKIP saying WHY and exit.
t_require_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "1..0 # SKIP $1"
		exit 0
	fi
}

# t_require TOOL...: every TOOL on the PATH, or a SKIP naming the first
# one missing and exit.
t_require() {
	for tool in "$@"; do
		if ! command -v "$tool" >/dev/null 2>&1; then
			echo "1..0 # SKIP $tool is not installed"
			exit 0
		fi
	done
}

# t_python_with MODULE: print the python3 that imports MODULE, Debian's
# first (Debian's python3-MODULE is Debian's python's: a python3 of
# another origin first on the PATH would not see it); false when none.
t_python_with() {
	for py in /usr/bin/python3 python3; do
		if "$py" -c "import $1" 2>/dev/null; then
			echo "$py"
			return 0
		fi
	done
	return 1
}

# t_testbed_require [--suite SUITE] PKG TOOL...: root, the tools and the
# testbed's guest kernel PKG (from SUITE when given; downloaded once into
# its cache), or a SKIP with the reason and exit.
t_testbed_require() {
	suite=
	if [ "$1" = --suite ]; then
		suite=$2
		shift 2
	fi
	pkg=$1
	shift
	t_require_root "the testbed needs root (a namespace, a tap)"
	t_require "$@"
	if ! "$IOMMU_BENCH" testbed build --kernel "$pkg" \
		${suite:+--suite "$suite"} \
		>"$T_TMP/build.out" 2>"$T_TMP/build.err"; then
		echo "1..0 # SKIP no testbed kernel: $(grep -m1 . "$T_TMP/build.err")"
		exit 0
	fi
}

# t_netns_del NS...: each namespace's processes ended, then the namespace.
t_netns_del() {
	for ns in "$@"; do
		for p in $(ip netns pids "$ns" 2>/dev/null); do
			kill "$p" 2>/dev/null
		done
		ip netns del "$ns" 2>/dev/null
	done
}

# t_tcp_workload [SERVER CLIENT]: the tests' 1 s iperf3 workload "tcp",
# from CLIENT (peer) to SERVER (sut).
t_tcp_workload() {
	printf '[[workloads]]\nname = "tcp"\nserver = "%s"\nclient = "%s"\nduration = "1s"\n' \
		"${1:-sut}" "${2:-peer}"
}

# t_netns_hosts SUT_NIC PEER_NIC: the TOML of a SUT in the namespace
# $NS_S at $NET.1 and its peer in $NS_P at $NET.2, the veth pair's ends
# named SUT_NIC and PEER_NIC.
t_netns_hosts() {
	cat <<EOT
[hosts.sut]
transport = "netns"
role = "sut"
netns = "$NS_S"
address = "$NET.1/24"
nic = "$1"
link = "peer"

[hosts.peer]
transport = "netns"
role = "peer"
netns = "$NS_P"
address = "$NET.2/24"
nic = "$2"
EOT
}

# t_run_ok STATUS SECONDS SUMMARY DESCRIPTION CMD...: one check that CMD,
# within SECONDS, exits STATUS with SUMMARY on its stderr (a run's "3
# trials, 0 failed"); the tail of that stderr when it does not.
t_run_ok() {
	t_want=$1 t_secs=$2 t_said=$3 t_what=$4
	shift 4
	t_run "$t_want" timeout "$t_secs" "$@" && t_grep "$T_ERR" "$t_said"
	t_st=$?
	t_ok $t_st "$t_what"
	[ $t_st -eq 0 ] || t_diag "$(tail -30 "$T_ERR")"
	return $t_st
}

# t_poll TRIES INTERVAL PID CMD...: every INTERVAL seconds, until CMD
# succeeds, PID has ended or TRIES tries have passed; leaves $i, the
# tries it waited.
t_poll() {
	t_tries=$1 t_every=$2 t_pid=$3
	shift 3
	i=0
	while [ $i -lt "$t_tries" ] && ! "$@"; do
		kill -0 "$t_pid" 2>/dev/null || break
		sleep "$t_every"
		i=$((i + 1))
	done
}

# The testbed tests name their guest $G (QEMU's -name, its state folder)
# and the peer's namespace $NS, both with the test's PID, so that a
# concurrent run (make demo) is never mistaken for theirs; $QEMU is the
# guest's QEMU binary and $DB the test's database.

# t_testbed_names TAG OCTET: $B the binary under test, and the test's
# own names, TAG its letter: the guest $G (tbTAG-PID), the namespace
# $NS (ibTAG-PID), the tap $TAP (tTAG and the PID), the network $NET
# (10.OCTET.x); $QEMU the x86 guest's.
t_testbed_names() {
	B=$IOMMU_BENCH
	G=tb$1-$$
	NS=ib$1-$$
	TAP=t$1$$
	NET=10.$2.$(($$ % 250))
	QEMU=qemu-system-x86_64
}

# QEMU processes of the guest $G, whoever their parent is now.
t_qemu_pids() {
	pgrep -f "^$QEMU -name iommu-bench-$G,debug-threads=on " 2>/dev/null || :
}

# The guest's QEMU, the namespace's processes and the namespace itself,
# the VM's state folder, then the test's own files.
t_testbed_cleanup() {
	for p in $(t_qemu_pids); do
		kill -9 "$p" 2>/dev/null
	done
	t_netns_del "$NS"
	rm -rf "/run/iommu-bench/qemu-$G" 2>/dev/null
	t_cleanup
}

# No QEMU of the guest and no namespace of the test left.
t_testbed_gone() {
	[ -z "$(t_qemu_pids)" ] && ! ip netns list | grep -qw "$NS"
}

# t_q SQL: a query on $DB.
t_q() {
	sqlite3 "$DB" "$1" 2>/dev/null
}

# t_trial MODE COLUMN: a column of the mode's one measured trial.
t_trial() {
	t_q "SELECT ifnull(t.$2, '') FROM trials t JOIN cells c ON c.id = t.cell_id
	     WHERE c.mode = '$1' AND t.warmup = 0 AND t.profile = 0"
}

# t_calls MODE PROBE: the probe's call count in the mode's trial.
t_calls() {
	t_q "SELECT p.calls FROM probes p JOIN trials t ON t.id = p.trial_id
	     JOIN cells c ON c.id = t.cell_id
	     WHERE c.mode = '$1' AND t.warmup = 0 AND t.profile = 0
	     AND p.name = '$2'"
}

# t_ratio MODE PROBE PER: PROBE's calls per call of PER in the mode's
# trial, 3 decimals; empty when PER was never called.
t_ratio() {
	t_q "SELECT printf('%.3f', 1.0 * h.calls / u.calls)
	     FROM probes h JOIN probes u ON u.trial_id = h.trial_id
	     JOIN trials t ON t.id = h.trial_id JOIN cells c ON c.id = t.cell_id
	     WHERE c.mode = '$1' AND t.warmup = 0 AND t.profile = 0
	     AND h.name = '$2' AND u.name = '$3' AND u.calls > 0"
}

# t_flush_ratio MODE: the driver's IOTLB flushes per unmap.
t_flush_ratio() {
	t_ratio "$1" hw_flush unmap
}

# t_boot MODE COLUMN: a column of the boot the mode's trial ran on.
t_boot() {
	t_q "SELECT $2 FROM boots WHERE id = $(t_trial "$1" boot_id)"
}

# t_modes_ok WHAT MODE...: each mode's trial ok and the mode in effect,
# as the guest itself reported it.
t_modes_ok() {
	what=$1
	shift
	for mode; do
		[ "$(t_trial "$mode" status)/$(t_trial "$mode" effective_mode)" = \
			"ok/$mode" ]
		t_ok $? "$what $mode: ok, $mode in effect (verified in the guest)"
	done
}

# t_relations WHAT: what must hold on every kernel and every IOMMU, on
# the run in $DB, whose strict and lazy trials counted unmap, iotlb_sync,
# hw_flush and fq_flush (and passthrough's, when it has one, map): strict
# makes one IOTLB sync per unmap and the driver's invalidations show;
# lazy makes none, and its flush queue flushes at least an order of
# magnitude less often than it unmaps (under TCG the guest unmaps slowly
# enough that the queue's 10 ms timer, not its size, sets the pace);
# passthrough maps nothing. WHAT names them in the test's words.
t_relations() {
	r=$(t_ratio strict iotlb_sync unmap)
	t_between "$r" 0.9 1.1
	t_ok $? "$1 strict: one IOTLB sync per unmap (iotlb_sync/unmap = $r)"
	n=$(t_calls strict hw_flush)
	[ "${n:-0}" -gt 0 ]
	t_ok $? "$1 strict: the driver's invalidation commands counted ($n)"
	r=$(t_ratio lazy iotlb_sync unmap)
	t_between "$r" 0 0.01
	t_ok $? "$1 lazy: no IOTLB sync per unmap (iotlb_sync/unmap = $r)"
	r=$(t_ratio lazy fq_flush unmap)
	n=$(t_calls lazy fq_flush)
	[ "${n:-0}" -gt 0 ] && t_between "$r" 0 0.1
	t_ok $? "$1 lazy: the flush queue flushed $n times, far fewer than the unmaps (fq_flush/unmap = $r)"
	[ -z "$(t_trial passthrough id)" ] && return
	[ "$(t_calls passthrough map)" = 0 ] &&
		[ "$(t_calls passthrough unmap)" = 0 ]
	t_ok $? "$1 passthrough: no map and no unmap calls"
}

# t_between X LO HI: LO <= X <= HI, X a decimal.
t_between() {
	[ -n "$1" ] && awk -v x="$1" -v lo="$2" -v hi="$3" \
		'BEGIN { exit !(x >= lo && x <= hi) }'
}

# The scratch kernel tree (KSRC) and the kept tinyconfig worktree (WD)
# that testbed-nightly.t and testbed-cost.t build in after kernel-build.t
# primed it: the tree made ready, or the test skipped when Debian's
# linux-source-6.1 is not there. Needs $B.
# t_tree_commit PARENT FILE MESSAGE [SED]: a commit of $KSRC on PARENT
# whose FILE gets a line more (a symbol named after $i), or SED applied,
# through git's plumbing: the tree's own checkout and index are never
# touched. Prints the commit's id.
t_tree_commit() {
	GIT_INDEX_FILE=$T_TMP/index sh -ec '
		git -C "$1" read-tree "$2"
		blob=$(git -C "$1" show "$2:$3" | if [ -n "$5" ]; then
				sed "$5"
			else
				cat
				echo "const char iommu_bench_bisect_$6[] = \"$4\";"
			fi | git -C "$1" hash-object -w --stdin)
		git -C "$1" update-index --cacheinfo "100644,$blob,$3"
		echo "$4" | git -C "$1" -c user.name=iommu-bench \
			-c user.email=iommu-bench@localhost \
			commit-tree "$(git -C "$1" write-tree)" -p "$2"' \
		sh "$KSRC" "$1" "$2" "$3" "${4:-}" "$i"
}

# The edit of drivers/iommu/dma-iommu.c that breaks the flush queue:
# __iommu_dma_unmap stops queueing, so every unmap in lazy syncs the
# IOTLB while the group still reads DMA-FQ.
T_BREAK_FQ='s/iotlb_gather.queued = READ_ONCE(cookie->fq_domain);/iotlb_gather.queued = false;/'

t_tiny_tree() {
	TARBALL=${IOMMU_BENCH_KERNEL_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
	KPATH=$("$B" kernel path)
	KSRC=$(dirname "$KPATH")/kernel-src/linux-6.1
	WD=$(dirname "$KPATH")/bisect/test-tiny-x86_64
	if [ ! -r "$TARBALL" ] && [ ! -d "$KSRC/.git" ]; then
		echo "1..0 # SKIP no $TARBALL (apt-get install linux-source-6.1)"
		exit 0
	fi
	IOMMU_BENCH_KERNEL_SOURCE=$TARBALL sh "$SRCDIR/scripts/linux-source-tree.sh" \
		"$KSRC" >/dev/null
	t_ok $? "the scratch tree $KSRC is ready"
}
