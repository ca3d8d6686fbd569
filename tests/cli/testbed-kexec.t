#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A testbed VM that boots like a lab host (reboot = "kexec"): one VM,
# started once; every later boot is the guest's own kexec into a kernel
# the controller sent it over the agent's connection (kernel.stage,
# kernel.install), which is the path a build takes to an ssh host. What
# only a real guest shows:
#
#   A. strict on the VM's first boot, lazy by sysfs on it, passthrough by
#      a kexec into the sent kernel: a new boot of the same VM, verified,
#      its command line the old one with the mode's arguments swapped;
#   B. a kexec into a kernel that panics fails its trial with the
#      console's evidence, and the next trial starts a fresh VM.
#
# Needs root, QEMU and the testbed kernel; skipped with the reason
# otherwise. About 3 minutes under TCG.
set -eu
. "$(dirname "$0")/lib.sh"

PKG=linux-image-6.1.0-57-amd64
t_testbed_names k 197
T_LOG=

trap t_testbed_cleanup EXIT INT TERM

t_testbed_require "$PKG" qemu-system-x86_64 kexec ip sqlite3 iperf3 pgrep python3

# matrix CASE MODES: the case's database $DB and its matrix $M, named
# tk-CASE: one VM that kexecs, one rx workload, one repetition per mode
# in file order.
matrix() {
	DB=$T_TMP/$1.db
	M=$T_TMP/$1.toml
	testbed_matrix "tk-$1" "$2" order=interleaved \
		reboot="strict passthrough" host='reboot = "kexec"' modes='# No such init: the kernel panics, panic=-1 and -no-reboot end QEMU.
[modes.panic]
cmdline = ["rdinit=/nonexistent"]
method = "reboot"
[modes.strict2]
cmdline = ["iommu.strict=1"]
method = "reboot"
group_type = "DMA"' >"$M"
}

boot_of() {
	t_q "SELECT b.$2 FROM boots b WHERE b.id = (SELECT t.boot_id FROM trials t
	   JOIN cells c ON c.id = t.cell_id WHERE c.mode = '$1'
	   AND t.warmup = 0)"
}

# --- A. one VM: strict booted, lazy by sysfs, passthrough by kexec ----
matrix a '"strict", "lazy", "passthrough"'

t_run 0 "$B" --db "$DB" plan --json "$M" && python3 - "$T_OUT" <<'EOF'
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
got = [(c["mode"], c["apply"]) for c in cells]
assert got == [("strict", "kexec"), ("lazy", "sysfs"),
               ("passthrough", "kexec")], got
EOF
t_ok $? "(A) plan: strict and passthrough by kexec, lazy by sysfs"

t_run_ok 0 400 "3 trials, 0 failed" \
	"(A) the run finishes, 3 trials, none failed" "$B" -v --db "$DB" run "$M"
cp "$T_ERR" "$T_TMP/a.err"
E=$T_TMP/a.err

[ "$(t_trial strict status)/$(t_trial strict effective_mode)" = ok/strict ] &&
	[ "$(t_trial lazy status)/$(t_trial lazy effective_mode)" = ok/lazy ] &&
	[ "$(t_trial lazy boot_id)" = "$(t_trial strict boot_id)" ]
t_ok $? "(A) strict on the first boot, lazy by sysfs on that same boot"

[ "$(grep -c "booting debian-6.1:" "$E")" = 1 ]
t_ok $? "(A) QEMU started the VM once"

t_grep "$E" "sending kernel debian-6.1 (" &&
	t_grep "$E" "to /run/iommu-bench/kernels/6.1.0-57-amd64-" &&
	t_grep "$E" "kernel debian-6.1 installed in" &&
	t_grep "$E" "(initrd: staged)" &&
	t_grep "$E" "rebooting (kexec) into debian-6.1, mode passthrough" &&
	t_grep "$E" "boot 2 (kexec) answered"
st=$?
t_ok $st "(A) passthrough: the kernel sent, installed, kexec'd into, answered"
[ $st -eq 0 ] || t_diag "$(grep -i "kernel\|kexec\|boot" "$E" | tail -12)"

[ "$(t_trial passthrough status)/$(t_trial passthrough effective_mode)" = \
	ok/passthrough ] &&
	[ "$(boot_of passthrough boot_id)" != "$(boot_of strict boot_id)" ] &&
	[ "$(boot_of passthrough host_id)" = "$(boot_of strict host_id)" ]
t_ok $? "(A) passthrough: ok and verified, a new boot of the same host"

C=$(boot_of passthrough cmdline)
case $C in
*iommu.passthrough=1*) ;;
*) false ;;
esac && case $C in
*iommu.strict=*) false ;;
*"iommu_bench.ip=$NET.2/24"*) ;;
*) false ;;
esac
t_ok $? "(A) the kexec'd command line: the mode's argument swapped, the guest's kept ($C)"

t_testbed_gone
t_ok $? "(A) no QEMU and no namespace left after the run"

# --- B. a kexec that panics; the next trial starts a fresh VM --------
matrix b '"strict", "panic", "strict2"'

t_run_ok 1 400 "3 trials, 1 failed" \
	"(B) the run ends, exit 1: 3 trials, 1 failed" "$B" -v --db "$DB" run "$M"
cp "$T_ERR" "$T_TMP/b.err"

t_trial panic error >"$T_TMP/b.terr"
[ "$(t_trial panic status)" = failed ] &&
	t_grep "$T_TMP/b.terr" "no new boot after the kexec" &&
	t_grep "$T_TMP/b.terr" "Kernel panic - not syncing"
st=$?
t_ok $st "(B) panic: the trial failed with the console's panic as evidence"
[ $st -eq 0 ] || t_diag "$(cat "$T_TMP/b.terr")"
[ -z "$(t_trial panic boot_id)" ]
t_ok $? "(B) panic: the failed trial is filed under no boot"

[ "$(t_trial strict2 status)/$(t_trial strict2 effective_mode)" = ok/strict ] &&
	[ "$(grep -c "booting debian-6.1:" "$T_TMP/b.err")" = 2 ]
t_ok $? "(B) the next trial starts a fresh VM and is ok"

t_testbed_gone
t_ok $? "(B) no QEMU and no namespace left after the run"

t_done
