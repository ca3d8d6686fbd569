#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# What a profile trial costs in the testbed, as a ratio to a bare one on
# the same boot: an e1000e guest at MTU 9000 (Debian 6.1, TCG), 64-byte
# UDP into it for 5 s, the probes and perf's counters on every trial,
# perf record in the profile trials only (the guest records, the
# controller reports: docs/matrix.md). Wall time per trial from run
# --json; each cell's first trial carries its boot and is left out. The
# goal, read off and not asserted: a profile trial at most 2x a bare one.
#
# Needs root, QEMU, python3 and the testbed kernel; says why and stops
# otherwise. About 2 minutes under TCG.
set -u
tb_tag=p
tb_net=193
. "$(dirname "$0")/testbed.lib"

testbed_matrix bench-profile '"strict"' reps=4 db="$TMP/b.db" \
	qemu='nic = "e1000e"
mtu = 9000' workload=udp64 duration=5s omit= collect='[collect]
bpf = { probes = ["sync_cpu", "sync_device", "map", "unmap"] }

[collect.perf]
record = "separate"
profile_trials = 3
event = "cpu-clock"' >"$TMP/m.toml"

if ! "$B" -v run --json "$TMP/m.toml" >"$TMP/events" 2>"$TMP/log"; then
	tb_fail "the run failed"
fi
# The fix for the trial this benchmark lost (bench/agent/agent-keys.c):
# every boot's agent held perf's keys, so no trial patched __schedule.
if ! grep -q "the agent holds 5 of perf's static keys" "$TMP/log" ||
	grep "the agent holds [0-4] of perf's static keys" "$TMP/log"; then
	tb_fail "the guest's agent did not hold perf's static keys"
fi
python3 - "$TMP/events" <<'EOF'
import json, statistics, sys
bare, prof = [], []
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("event") != "trial" or e.get("status") != "ok":
        continue
    if e["profile"]:
        prof.append(e["wall_ms"] / 1000)
    elif e["repetition"] > 1:
        bare.append(e["wall_ms"] / 1000)
if not bare or not prof:
    sys.exit("!! no trials to compare")
b, p = statistics.median(bare), statistics.median(prof)
print("bare trial     %5.1f s  (median of %d, each %s)" %
      (b, len(bare), " ".join("%.1f" % x for x in bare)))
print("profile trial  %5.1f s  (median of %d, each %s)" %
      (p, len(prof), " ".join("%.1f" % x for x in prof)))
print("ratio          %5.2f x  (goal: at most 2)" % (p / b))
EOF
