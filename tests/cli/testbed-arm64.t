#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The testbed's Arm guest end to end: Debian's own arm64 kernel under
# qemu-system-aarch64 (TCG) on the virt machine with an emulated SMMUv3,
# the cross-built arm64 agent run from this machine's root, iperf3 over a
# tap to a namespace, and the probes counting inside the guest by kprobe
# (fentry is refused on arm64 before 6.4). What it shows:
#
#   - the stock kernel's own default (mode default: no iommu argument)
#     is strict, the seed's complaint, with the kernel's evidence, and
#     compare says so ("default on kernel ...: strict");
#   - strict by boot, lazy by sysfs on that boot, passthrough by another
#     boot, each verified from inside the guest;
#   - the SMMU's command-queue submissions: about one per unmap in
#     strict, batched in lazy, none in passthrough.
#
# Needs root, qemu-system-aarch64, the arm64 agent (make agent-arm64)
# and the arm64 testbed kernel (downloaded once); skipped with the
# reason otherwise. About a minute under TCG.
set -eu
. "$(dirname "$0")/lib.sh"

PKG=linux-image-6.1.0-57-arm64
t_testbed_names a 195
AGENT=$(dirname "$B")/.output/arm64/iommu-bench

QEMU=qemu-system-aarch64
trap t_testbed_cleanup EXIT INT TERM

if [ "$(id -u)" -eq 0 ] && command -v qemu-system-aarch64 >/dev/null &&
	[ ! -x "$AGENT" ]; then
	echo "1..0 # SKIP no arm64 agent at $AGENT: make agent-arm64" \
		"(needs gcc-aarch64-linux-gnu and the arm64 libraries of" \
		"scripts/install-deps.sh)"
	exit 0
fi
t_testbed_require "$PKG" qemu-system-aarch64 ip sqlite3 iperf3 pgrep python3

DB=$T_TMP/a.db
M=$T_TMP/a.toml
testbed_matrix tb-arm64 '"default", "strict", "lazy", "passthrough"' \
	order=interleaved reboot="strict passthrough" qemu='arch = "arm64"' \
	kernels="$(testbed_kernel debian-6.1-arm64 "$PKG")" \
	probes='"unmap", "hw_flush", "fq_flush"' >"$M"

t_run 0 "$B" --db "$DB" plan --json "$M" && python3 - "$T_OUT" <<'EOF'
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
got = [(c["mode"], c["apply"]) for c in cells]
assert got == [("default", "restart"), ("strict", "restart"),
               ("lazy", "sysfs"), ("passthrough", "restart")], got
EOF
t_ok $? "plan: default and strict by a boot each, lazy by sysfs, passthrough by a boot"

t_run_ok 0 600 "4 trials, 0 failed" \
	"the arm64 run finishes, 4 trials, none failed" "$B" --db "$DB" run "$M"

[ "$(t_boot strict kernel_release)" = 6.1.0-57-arm64 ] &&
	[ "$(t_boot strict "json_extract(facts, '\$.kernel.arch')")" = \
		aarch64 ]
t_ok $? "the boots ran Debian's arm64 kernel on an aarch64 machine"
t_boot strict facts | grep -q '"arm-smmu-v3"'
t_ok $? "the guest's facts name its IOMMU: an Arm SMMUv3"

[ "$(t_trial default status)/$(t_trial default effective_mode)" = ok/strict ]
t_ok $? "stock kernel, no iommu argument: strict is its default"
! t_boot default cmdline | grep -q 'iommu\.'
t_ok $? "... and its command line has no iommu argument"
t_boot default facts | grep -q "policy: strict mode *'" &&
	! t_boot default facts | grep -q "strict mode (set via"
t_ok $? "... and its kernel log says strict, not set via the command line"
t_run 0 "$B" --db "$DB" compare --by mode --only metric=throughput &&
	t_grep "$T_OUT" "default on kernel debian-6.1-arm64: strict"
t_ok $? "compare says what mode default was in effect"

[ "$(t_trial strict status)/$(t_trial strict effective_mode)" = ok/strict ]
t_ok $? "strict: ok, strict in effect"
t_q "SELECT p.attach FROM probes p JOIN trials t ON t.id = p.trial_id
   JOIN cells c ON c.id = t.cell_id WHERE c.mode = 'strict'
   AND p.name = 'unmap'" | grep -qx kprobe
t_ok $? "the probes attached by kprobe (fentry is refused on arm64 6.1)"
n=$(t_calls strict unmap)
[ "${n:-0}" -gt 0 ]
t_ok $? "strict: the guest's unmap probe fired ($n calls)"
r=$(t_flush_ratio strict)
t_between "$r" 0.5 3
t_ok $? "strict: an SMMU command submission per unmap (hw_flush/unmap = $r)"

[ "$(t_trial lazy status)/$(t_trial lazy effective_mode)" = ok/lazy ] &&
	[ "$(t_trial lazy boot_id)" = "$(t_trial strict boot_id)" ]
t_ok $? "lazy: ok, lazy in effect, on the strict boot (sysfs)"
r=$(t_flush_ratio lazy)
t_between "$r" 0 0.1
t_ok $? "lazy: submissions batched (hw_flush/unmap = $r)"
n=$(t_calls lazy fq_flush)
[ "${n:-0}" -gt 0 ]
t_ok $? "lazy: the flush queue flushed ($n times)"

[ "$(t_trial passthrough status)/$(t_trial passthrough effective_mode)" = \
	ok/passthrough ]
t_ok $? "passthrough: ok, passthrough in effect"
[ "$(t_calls passthrough unmap)" = 0 ]
t_ok $? "passthrough: no iommu_dma_unmap calls"

t_testbed_gone
t_ok $? "no QEMU and no namespace left after the run"

t_done
