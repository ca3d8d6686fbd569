#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# What the exposure window costs per unmap, beside the unmap probe alone,
# in the testbed (x86 guest, Debian 6.1, TCG, fentry), strict and lazy
# on one boot, both probes on the same trials: the kernel's BPF run-time
# stats ([collect.bpf] cost = true) give each program's time, summed per
# probe. The unmap probe is two programs per unmap (entry, exit); the
# exposure window one at the unmap, one at a strict sync, and a lazy
# flush's walk of the windows it ends, spread over them. The trampolines
# themselves are outside the stats, one or two per unmap on each side.
#
# The ratio is each trial's (both probes ran through the same load), the
# median of them, with their range. The goal (issue 29): at most 1.5x in
# either mode. A ratio over it is marked "!! over the goal", read off,
# not asserted (make bench does not gate); a window that was not
# measured fails the benchmark, since what a probe that measures
# nothing costs is no figure. Under TCG a program run's fixed cost (the
# stats' clock reads, the call) is most of it, so the programs run per
# unmap set the floor: about 1x in strict (two against the unmap
# probe's two), about 0.5x in lazy (one).
#
# Needs root, QEMU, python3 and the testbed kernel; says why and stops
# otherwise. About a minute under TCG.
set -u
GOAL=1.5
tb_tag=x
tb_net=191
. "$(dirname "$0")/testbed.lib"

testbed_matrix bench-exposure '"strict", "lazy"' reps=3 order=interleaved \
	db="$TMP/b.db" probes='"unmap", "exposure"' collect='cost = true' \
	>"$TMP/m.toml"

if ! "$B" -v run "$TMP/m.toml" >"$TMP/out" 2>"$TMP/log"; then
	tb_fail "the run failed"
fi
python3 - "$TMP/b.db" "$TMP" "$GOAL" <<'EOF'
import json, os, sqlite3, statistics, sys
db = sqlite3.connect(sys.argv[1])
goal = float(sys.argv[3])
rows = db.execute(
    "SELECT c.mode, a.path FROM artifacts a JOIN trials t ON t.id = a.trial_id"
    " JOIN cells c ON c.id = t.cell_id WHERE a.path LIKE '%collectors.json'"
    " AND t.status = 'ok' ORDER BY t.id").fetchall()
per, bad = {}, []
for mode, path in rows:
    if not os.path.isabs(path):
        path = os.path.join(sys.argv[2], path)
    b = json.load(open(path))["bpf"]
    unmap = [p for p in b["probes"] if p["name"] == "unmap"][0]
    x = b["exposure"]
    if not unmap.get("runs") or not x.get("runs") or not unmap["calls"]:
        sys.exit("!! no run-time stats in %s" % path)
    # A cost is only worth stating for a window that was measured.
    seen = x.get("windows", 0) + x.get("pending", 0)
    if x.get("state") != "measured" or \
            abs(seen - unmap["calls"]) > unmap["calls"] / 100:
        bad.append("%s: exposure %s, %d windows for %d unmaps" %
                   (mode, x.get("state"), seen, unmap["calls"]))
    u, e = unmap["run_ns"] / unmap["calls"], x["run_ns"] / unmap["calls"]
    per.setdefault(mode, []).append((u, e, e / u))
print("%-7s %22s %22s %8s" % ("mode", "unmap probe ns/unmap",
                              "exposure ns/unmap", "ratio"))
for mode in ("strict", "lazy"):
    if mode not in per:
        continue
    t = per[mode]
    u = statistics.median(a for a, _, _ in t)
    e = statistics.median(b for _, b, _ in t)
    r = statistics.median(c for _, _, c in t)
    line = "%-7s %22.0f %22.0f %7.2fx  (goal: at most %.1fx; trials " \
        "%.2f-%.2f, medians of %d)" % (mode, u, e, r, goal,
                                       min(c for _, _, c in t),
                                       max(c for _, _, c in t), len(t))
    if r > goal:
        line += "  !! over the goal"
    print(line)
for b in bad:
    print("!! not a measured window: " + b)
sys.exit(1 if bad else 0)
EOF
