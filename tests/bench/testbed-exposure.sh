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
# Figures, not verdicts.
#
# Needs root, QEMU, python3 and the testbed kernel; says why and stops
# otherwise. About a minute under TCG.
set -u
tb_tag=x
tb_net=191
. "$(dirname "$0")/testbed.lib"

testbed_matrix bench-exposure '"strict", "lazy"' reps=3 order=interleaved \
	db="$TMP/b.db" probes='"unmap", "exposure"' collect='cost = true' \
	>"$TMP/m.toml"

if ! "$B" run "$TMP/m.toml" >"$TMP/out" 2>"$TMP/log"; then
	echo "!! the run failed: $(tail -1 "$TMP/log")"
	exit 1
fi
python3 - "$TMP/b.db" "$TMP" <<'EOF'
import json, os, sqlite3, statistics, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute(
    "SELECT c.mode, a.path FROM artifacts a JOIN trials t ON t.id = a.trial_id"
    " JOIN cells c ON c.id = t.cell_id WHERE a.path LIKE '%collectors.json'"
    " AND t.status = 'ok' ORDER BY t.id").fetchall()
per = {}
for mode, path in rows:
    if not os.path.isabs(path):
        path = os.path.join(sys.argv[2], path)
    b = json.load(open(path))["bpf"]
    unmap = [p for p in b["probes"] if p["name"] == "unmap"][0]
    x = b["exposure"]
    if not unmap.get("runs") or not x.get("runs") or not unmap["calls"]:
        sys.exit("!! no run-time stats in %s" % path)
    per.setdefault(mode, []).append(
        (unmap["run_ns"] / unmap["calls"], x["run_ns"] / unmap["calls"]))
print("%-7s %22s %22s %8s" % ("mode", "unmap probe ns/unmap",
                              "exposure ns/unmap", "ratio"))
for mode in ("strict", "lazy"):
    if mode not in per:
        continue
    u = statistics.median(a for a, _ in per[mode])
    e = statistics.median(b for _, b in per[mode])
    print("%-7s %22.0f %22.0f %7.2fx  (medians of %d trials)" %
          (mode, u, e, e / u, len(per[mode])))
EOF
