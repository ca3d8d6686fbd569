#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The QEMU testbed end to end: a real guest with an emulated Intel
# IOMMU, its own kernel driver, iperf3 over a tap to a namespace, the
# probes counting inside the guest. What only a real VM can show:
#
#   A. strict by boot, lazy by sysfs on that same boot, passthrough by
#      another boot, each verified, and the probes telling them apart
#      (an IOTLB flush per unmap, batched flushes, no DMA-API calls);
#   B. caching mode, where the driver refuses lazy: the trial fails with
#      the evidence; a guest that panics fails its trial, not the run;
#   C. the controller SIGKILLed mid-trial takes its QEMU with it, and
#      the run resumes to the end;
#   D. QEMU SIGKILLed mid-trial: the run says the VM is gone, the trial
#      fails, and the next trial boots a VM afresh;
#   E. QEMU crashing (SIGSEGV) while it boots: the emulator's fault, so
#      the boot is tried once more and the trial runs;
#   F. a guest that hangs: its kernel is asked for its CPUs' backtraces
#      (sysrq-l), and the boot's error says where they were.
#
# Needs root, QEMU and the testbed kernel (downloaded once into the
# testbed cache); skipped with the reason otherwise. 5 to 6 minutes
# under TCG.
set -eu
. "$(dirname "$0")/lib.sh"

PKG=linux-image-6.1.0-57-amd64
t_testbed_names q 196
# The guest's name is older than the tag.
G=tbg-$$
RUN_PID=
LEFT_PIDS=

# alive PID: running, not a zombie its new parent has yet to reap.
alive() {
	case $(ps -o stat= -p "$1" 2>/dev/null) in
	'' | Z*) return 1 ;;
	esac
	return 0
}

cleanup() {
	[ -n "$RUN_PID" ] && kill -9 "$RUN_PID" 2>/dev/null
	for p in $LEFT_PIDS; do
		alive "$p" && kill "$p" 2>/dev/null
	done
	t_testbed_cleanup
}
trap cleanup EXIT INT TERM

t_testbed_require "$PKG" qemu-system-x86_64 ip sqlite3 iperf3 pgrep python3

# matrix CASE MODES CACHING_MODE BPF: the case's database $DB and its
# matrix $M, named tb-CASE: one guest, one rx workload (the guest
# receives: an unmap per packet), one repetition per mode in file order.
# Custom modes are appended by the caller.
matrix() {
	DB=$T_TMP/$1.db
	M=$T_TMP/$1.toml
	testbed_matrix "tb-$1" "$2" order=interleaved \
		reboot="strict passthrough" qemu="caching_mode = $3" boot=60s \
		collect="[collect]
bpf = $4" >"$M"
}

# --- A. strict by boot, lazy by sysfs on it, passthrough by boot ------
matrix a '"strict", "lazy", "passthrough"' false true

t_run 0 "$B" --db "$DB" plan --json "$M" && python3 - "$T_OUT" <<'EOF'
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
got = [(c["mode"], c["apply"], c["reboot_before"]) for c in cells]
assert got == [("strict", "restart", True), ("lazy", "sysfs", False),
               ("passthrough", "restart", True)], got
EOF
t_ok $? "(A) plan: strict by a boot, lazy by sysfs on it, passthrough by a boot"

t_run_ok 0 300 "3 trials, 0 failed" \
	"(A) the run finishes, 3 trials, none failed" "$B" --db "$DB" run "$M"

[ "$(t_trial strict status)/$(t_trial strict effective_mode)" = ok/strict ]
t_ok $? "(A) strict: ok, strict in effect"
n=$(t_calls strict unmap)
[ "${n:-0}" -gt 0 ] &&
	[ -n "$(t_q "SELECT 1 FROM probes p JOIN trials t ON t.id = p.trial_id
		   JOIN cells c ON c.id = t.cell_id WHERE c.mode = 'strict'
		   AND p.name = 'unmap' AND p.attach IN ('fentry', 'kprobe')")" ]
t_ok $? "(A) strict: the guest's unmap probe fired ($n calls) by fentry or kprobe"
r=$(t_flush_ratio strict)
t_between "$r" 0.5 3
t_ok $? "(A) strict: one IOTLB flush per unmap (hw_flush/unmap = $r)"
t_q "SELECT cmdline FROM boots WHERE id = $(t_trial strict boot_id)" |
	grep -q 'iommu\.strict=1'
t_ok $? "(A) strict: its boot's command line has iommu.strict=1"

[ "$(t_trial lazy status)/$(t_trial lazy effective_mode)" = ok/lazy ]
t_ok $? "(A) lazy: ok, lazy in effect"
[ -n "$(t_trial lazy boot_id)" ] &&
	[ "$(t_trial lazy boot_id)" = "$(t_trial strict boot_id)" ]
t_ok $? "(A) lazy: on the strict trial's boot (a sysfs switch, no reboot)"
r=$(t_flush_ratio lazy)
t_between "$r" 0 0.2
t_ok $? "(A) lazy: flushes batched (hw_flush/unmap = $r)"

[ "$(t_trial passthrough status)/$(t_trial passthrough effective_mode)" = \
	ok/passthrough ]
t_ok $? "(A) passthrough: ok, passthrough in effect"
[ -n "$(t_trial passthrough boot_id)" ] &&
	[ -n "$(t_q "SELECT 1 FROM boots a, boots b
		   WHERE a.id = $(t_trial strict boot_id)
		   AND b.id = $(t_trial passthrough boot_id)
		   AND a.boot_id <> b.boot_id")" ]
t_ok $? "(A) passthrough: a new boot (another boot_id)"
[ "$(t_calls passthrough unmap)" = 0 ]
t_ok $? "(A) passthrough: no iommu_dma_unmap calls ($(t_calls passthrough unmap))"

t_testbed_gone
t_ok $? "(A) no QEMU and no namespace left after the run"

# --- B. caching mode refuses lazy; a panicking guest; the run goes on -
matrix b '"lazyboot", "panic", "strict"' true false
cat >>"$M" <<EOT

[modes.lazyboot]
cmdline = ["iommu.strict=0"]
method = "reboot"
group_type = "DMA-FQ"

# No such init: the kernel panics, panic=-1 and -no-reboot end QEMU.
[modes.panic]
cmdline = ["rdinit=/nonexistent"]
method = "reboot"
EOT

t_run_ok 1 300 "3 trials, 2 failed" \
	"(B) the run ends, exit 1: 3 trials, 2 failed" "$B" --db "$DB" run "$M"

E=$T_TMP/b.err
t_trial lazyboot error >"$E"
[ "$(t_trial lazyboot status)/$(t_trial lazyboot effective_mode)" = \
	failed/strict ] &&
	t_grep "$E" "mode 'lazyboot' asked for, but 'strict' is in effect"
t_ok $? "(B) caching mode: lazy asked for, strict in effect, the trial failed"
t_grep "$E" "reports caching mode" &&
	t_grep "$E" "IOMMU batching disallowed due to virtualization"
t_ok $? "(B) its error carries the evidence: caching mode, batching disallowed"

t_trial panic error >"$E"
[ "$(t_trial panic status)" = failed ] &&
	t_grep "$E" "host $G: boot 2 (kernel 'debian-6.1') failed" &&
	t_grep "$E" "QEMU exited" && t_grep "$E" "Kernel panic - not syncing"
st=$?
t_ok $st "(B) panic: the trial failed, naming the boot, the console's panic"
[ $st -eq 0 ] || t_diag "$(cat "$E")"
# A trial whose boot never came up ran on no boot, not the previous VM's.
[ -z "$(t_trial panic boot_id)" ]
t_ok $? "(B) panic: the failed trial is not filed under an earlier boot"

[ "$(t_trial strict status)/$(t_trial strict effective_mode)" = ok/strict ] &&
	[ "$(t_trial strict boot_id)" != "$(t_trial lazyboot boot_id)" ]
t_ok $? "(B) the run goes on: the next mode boots afresh and its trial is ok"

t_testbed_gone
t_ok $? "(B) no QEMU and no namespace left after the run"

# --- C. SIGKILL the controller mid-trial, then resume ----------------
matrix c '"strict", "lazy"' false false

# iperf3's data connection is up: the peer's client reaches the guest.
iperf3_running() {
	ip netns exec "$NS" ss -Htn state established \
		"( dport = :5201 )" 2>/dev/null | grep -q .
}

# run_until_iperf3 TAG: run $M into $DB in the background (RUN_PID,
# output in TAG.out and TAG.err), back once iperf3's data connection is
# up or the run has ended.
run_until_iperf3() {
	"$B" --db "$DB" run "$M" >"$T_TMP/$1.out" 2>"$T_TMP/$1.err" &
	RUN_PID=$!
	t_poll 1200 0.1 "$RUN_PID" iperf3_running
}

# wait_run: st, the exit status of the run $RUN_PID, once it has ended
# (300 s at most).
wait_run() {
	timeout 300 sh -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done' sh \
		"$RUN_PID"
	wait "$RUN_PID"
	st=$?
	RUN_PID=
}

run_until_iperf3 c
QPID=$(t_qemu_pids)
[ -n "$QPID" ] && [ "$(ps -o ppid= -p "$QPID" | tr -d ' ')" = "$RUN_PID" ] &&
	iperf3_running && kill -9 "$RUN_PID"
st=$?
t_ok $st "(C) mid-trial (iperf3 running), QEMU (PID $QPID) a child of the controller (PID $RUN_PID), which is SIGKILLed"
[ $st -eq 0 ] || t_diag "$(tail -10 "$T_TMP/c.err")"
wait "$RUN_PID" 2>/dev/null || :
RUN_PID=
# The dead controller's agent in the peer's namespace and its iperf3
# client outlive it until their own timeout: ours to end at exit.
LEFT_PIDS=$(ip netns pids "$NS" 2>/dev/null || :)

# PR_SET_PDEATHSIG: QEMU is killed with its parent, at once.
i=0
while [ $i -lt 50 ] && alive "${QPID:-0}"; do
	sleep 0.1
	i=$((i + 1))
done
[ -n "$QPID" ] && ! alive "$QPID" && [ -z "$(t_qemu_pids)" ]
t_ok $? "(C) the dead controller's QEMU is gone too"

[ "$(t_q "SELECT count(*) FROM trials WHERE status = 'ok'")" = 0 ] &&
	[ "$(t_q "PRAGMA integrity_check")" = ok ]
t_ok $? "(C) nothing stored for the killed trial, the database sound"

t_run_ok 0 300 "resuming run 1" \
	"(C) run --resume resumes the killed run (and copes with its namespace and tap)" \
	"$B" --db "$DB" run --resume "$M"

[ "$(t_q "SELECT count(*) FROM trials")" = 2 ] &&
	[ "$(t_q "SELECT count(*) FROM trials WHERE status = 'ok'")" = 2 ] &&
	[ "$(t_q "SELECT count(*) FROM runs")" = 1 ] &&
	[ "$(t_q "SELECT status FROM runs")" = "done" ] &&
	[ "$(t_trial strict effective_mode)/$(t_trial lazy effective_mode)" = \
		strict/lazy ]
t_ok $? "(C) both planned trials ok, verified, in the one run, done"

t_testbed_gone
t_ok $? "(C) no QEMU and no namespace left after the resumed run"

# --- D. QEMU dies mid-trial; the next trial boots afresh ---------------
matrix d '"strict", "lazy"' false false
run_until_iperf3 d
# A second run of a VM of the same name would share its sockets.
"$B" --db "$T_TMP/d2.db" run "$M" >"$T_TMP/d2.out" 2>"$T_TMP/d2.err"
[ $? -eq 1 ] &&
	t_grep "$T_TMP/d2.err" "/qemu-$G is in use by another run"
st=$?
t_ok $st "(D) a second run with a VM of the same name is refused, exit 1"
[ $st -eq 0 ] || t_diag "$(tail -5 "$T_TMP/d2.err")"
QPID=$(t_qemu_pids)
[ -n "$QPID" ] && iperf3_running && kill -9 "$QPID"
st=$?
t_ok $st "(D) mid-trial (iperf3 running), QEMU (PID $QPID) is SIGKILLed"
[ $st -eq 0 ] || t_diag "$(tail -10 "$T_TMP/d.err")"
wait_run
[ $st -eq 1 ] && t_grep "$T_TMP/d.err" "2 trials, 1 failed" &&
	t_grep "$T_TMP/d.err" "QEMU exited (signal 9)"
st=$?
t_ok $st "(D) the run ends, exit 1: the killed trial failed, the run said QEMU exited"
[ $st -eq 0 ] || t_diag "$(tail -20 "$T_TMP/d.err")"
[ "$(t_trial strict status)" = failed ] &&
	[ "$(t_trial lazy status)/$(t_trial lazy effective_mode)" = ok/lazy ] &&
	[ "$(t_trial lazy boot_id)" != "$(t_trial strict boot_id)" ] &&
	[ "$(t_q "SELECT count(*) FROM boots b JOIN hosts h
		ON h.id = b.host_id WHERE h.name = '$G'")" = 2 ]
st=$?
t_ok $st "(D) the next trial ran on a VM booted afresh, its mode verified"
[ $st -eq 0 ] || t_diag "$(t_q "SELECT c.mode, t.status, t.effective_mode,
	t.boot_id, t.error FROM trials t JOIN cells c ON c.id = t.cell_id")
boots: $(t_q "SELECT b.id, h.name FROM boots b JOIN hosts h
	ON h.id = b.host_id")"

t_testbed_gone
t_ok $? "(D) no QEMU and no namespace left after the run"

# --- E. QEMU crashes while booting: booted again ----------------------
matrix e '"strict"' false false
"$B" --db "$DB" run "$M" >"$T_TMP/e.out" 2>"$T_TMP/e.err" &
RUN_PID=$!
qemu_up() {
	[ -n "$(t_qemu_pids)" ]
}
t_poll 600 0.1 "$RUN_PID" qemu_up
QPID=$(t_qemu_pids)
# Before the guest's agent can answer (seconds under TCG).
[ -n "$QPID" ] && ! grep -q "answered" "$T_TMP/e.err" && kill -SEGV "$QPID"
st=$?
t_ok $st "(E) QEMU (PID $QPID) booting is sent SIGSEGV, as if it crashed"
wait_run
[ $st -eq 0 ] && t_grep "$T_TMP/e.err" "1 trials, 0 failed" &&
	t_grep "$T_TMP/e.err" "QEMU crashed (signal 11) while booting" &&
	[ "$(t_trial strict status)/$(t_trial strict effective_mode)" = \
		ok/strict ]
st=$?
t_ok $st "(E) the crash is said, the boot tried again, the trial ok"
[ $st -eq 0 ] || t_diag "$(tail -20 "$T_TMP/e.err")"

t_testbed_gone
t_ok $? "(E) no QEMU and no namespace left after the run"

# --- F. a guest that hangs: asked where its CPUs are -------------------
# A kernel whose init is a shell reading a console that nothing types
# on: it boots, idles, and never starts the agent. The run's first boot
# fails, and so does the plain boot tried after it (the kernel's own
# line holds the hang): the run fails before any trial, each boot
# after its 12 s timeout, asked where its CPUs were.
DB=$T_TMP/f.db
M=$T_TMP/f.toml
testbed_matrix tb-f '"strict"' boot=12s kernels="$(testbed_kernel debian-6.1 "$PKG")
cmdline = [\"rdinit=/bin/sh\"]" >"$M"
t_run 1 timeout 120 "$B" --db "$DB" run "$M"
st=$?
[ $st -eq 0 ] && [ "$(grep -c "did not answer within 12000 ms" "$T_ERR")" -ge 2 ] &&
	[ "$(grep -c "its CPUs then, by sysrq-l: cpu 0 at " "$T_ERR")" -ge 2 ] &&
	grep -Eq "cpu [01] (idle )?at [a-z_]+\+0x" "$T_ERR" &&
	t_grep "$T_ERR" "trying a boot without the mode's cmdline" &&
	! grep -q "booting again" "$T_ERR"
st=$?
t_ok $st "(F) a guest that never answers: each boot's error says where its CPUs were (sysrq-l through QEMU's monitor), none booted again"
[ $st -eq 0 ] || t_diag "$(tail -30 "$T_ERR")"

t_testbed_gone
t_ok $? "(F) no QEMU and no namespace left after the run"

t_done
