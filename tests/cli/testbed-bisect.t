#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# iommu-bench bisect, for real: a scratch history of 4 commits on top of
# Debian's linux-source-6.1 (the tree kernel-build.t prepares), one of
# which breaks the flush queue (__iommu_dma_unmap stops queueing: the
# group still reads DMA-FQ, so lazy trials verify, but every unmap now
# syncs the IOTLB), the others adding a line to a file compiled in. Each
# step is the bootable tinyconfig kernel (configs/kbuild/testbed-guest-
# tiny.config) built in a kept worktree shared with kernel-build.t, which
# leaves it primed: the builds here are incremental. Each step boots in
# the testbed's x86 guest (intel-iommu) and runs a 2 s iperf3 in lazy,
# iotlb_sync counted by kprobe or fentry.
#
# Asserted: the bad inputs refused before any build; the bisection, once
# killed (SIGKILL, in a step's run) and resumed, names the breaking
# commit with at most ceil(log2(5)) + 1 = 4 builds, stores each step as a
# run whose kernel is the commit, never measures a commit twice; bisect
# log, compare --by kernel over the steps. Needs root, QEMU, the kernel
# source and a compiler; skipped with the reason otherwise. About 4
# minutes after kernel-build.t (3 builds of about 70 s), 15 alone on a
# fresh machine.
set -eu
. "$(dirname "$0")/lib.sh"

t_testbed_names b 194
DB=$T_TMP/bisect.db
STATE=$DB-bisect.json
JOBS=$(nproc 2>/dev/null || echo 2)
BISECT_PID=
cleanup() {
	[ -z "$BISECT_PID" ] || kill -9 "$BISECT_PID" 2>/dev/null
	t_testbed_cleanup
}
trap cleanup EXIT INT TERM

t_skip() {
	T_N=$((T_N + 1))
	echo "ok $T_N # SKIP $1"
}

t_testbed_require linux-image-6.1.0-57-amd64 qemu-system-x86_64 ip sqlite3 \
	iperf3 pgrep python3 git make gcc bc flex bison
# Usage errors that need no tree.
t_run 2 "$B" bisect && t_grep "$T_ERR" "which matrix file?"
t_ok $? "bisect without a matrix is exit 2"
t_run 2 "$B" --db "$DB" bisect log && t_grep "$T_ERR" "no bisection in $DB"
t_ok $? "bisect log without one is exit 2, naming the database"
t_run 2 "$B" --db "$DB" bisect --resume &&
	t_grep "$T_ERR" "no bisection in progress"
t_ok $? "--resume without one is exit 2"

# kernel-build.t builds HEAD in the worktree WD: the steps here only
# recompile what each commit changed.
t_tiny_tree
HEAD=$(git -C "$KSRC" rev-parse HEAD)

P=$HEAD
i=0
for f in kernel/panic.c kernel/sys.c drivers/iommu/dma-iommu.c lib/string.c; do
	i=$((i + 1))
	if [ "$f" = drivers/iommu/dma-iommu.c ]; then
		P=$(t_tree_commit "$P" "$f" "iommu/dma: stop queueing unmaps (breaks the flush queue)" "$T_BREAK_FQ")
		FIRST_BAD=$P
	else
		P=$(t_tree_commit "$P" "$f" "scratch $i: a line in $f")
	fi
	eval "C$i=\$P"
done
BAD=$P
[ "$(git -C "$KSRC" rev-list --count "$HEAD..$BAD")" -eq 4 ] &&
	git -C "$KSRC" show "$FIRST_BAD" -- drivers/iommu/dma-iommu.c |
	grep -q '^+.*iotlb_gather.queued = false;'
t_ok $? "4 scratch commits on HEAD, the 3rd breaking the flush queue"

# matrix FILE [EXTRA]: the bisection's matrix, EXTRA TOML appended.
matrix() {
	tiny=$(cat <<EOT
[[kernels]]
name = "tiny"
build = { tree = "$KSRC", config = "tinyconfig", fragments = ["$SRCDIR/configs/kbuild/testbed-guest-tiny.config"] }
EOT
	)
	{
		testbed_matrix tb-bisect '"lazy"' reboot= kernels="$tiny" \
			duration=2s probes='"unmap", "iotlb_sync"'
		printf '%s\n' "${2:-}"
	} >"$1"
}
M=$T_TMP/bisect.toml
matrix "$M"
bis() {
	"$B" --db "$DB" bisect "$@"
}

# Bad input: refused before any build, nothing stored.
t_run 2 bis "$M" --good "$BAD" --bad "$HEAD" --probe iotlb_sync &&
	t_grep "$T_ERR" "is a descendant of --bad $HEAD: swapped?"
t_ok $? "good and bad swapped: exit 2, saying so"
ORPHAN=$(echo orphan | git -C "$KSRC" -c user.name=x -c user.email=x@x \
	commit-tree "$(git -C "$KSRC" rev-parse "$HEAD^{tree}")")
t_run 2 bis "$M" --good "$ORPHAN" --bad "$BAD" --probe iotlb_sync &&
	t_grep "$T_ERR" "they are unrelated"
t_ok $? "ends without common history: exit 2, unrelated"
t_run 2 bis "$M" --good "$HEAD" --bad no-such-rev --probe iotlb_sync &&
	t_grep "$T_ERR" "no-such-rev"
t_ok $? "a revision the tree does not have: exit 2, named"
t_run 2 bis "$M" --good "$HEAD" --bad "$BAD" --metric througput &&
	t_grep "$T_ERR" "did you mean 'throughput'?"
t_ok $? "a metric no collector stores: exit 2, did you mean"
t_run 2 bis "$M" --good "$HEAD" --bad "$BAD" --probe iotlb_snyc &&
	t_grep "$T_ERR" "the matrix counts no probe 'iotlb_snyc'" &&
	t_grep "$T_ERR" "did you mean 'iotlb_sync'?"
t_ok $? "a probe the matrix does not count: exit 2, did you mean"
t_run 2 bis "$M" --good "$HEAD" --bad "$BAD" --metric throughput \
	--threshold 30 && t_grep "$T_ERR" "judged by the Mann-Whitney test"
t_ok $? "--threshold on a noisy metric: exit 2"
t_run 2 bis "$M" --good "$HEAD" --bad "$BAD" --probe iotlb_sync --mode strict &&
	t_grep "$T_ERR" "--mode 'strict': the matrix runs no such mode"
t_ok $? "a mode the matrix does not run: exit 2"
matrix "$T_TMP/two.toml" "$(printf '[[kernels]]\nname = "stock"\npackage = "linux-image-6.1.0-57-amd64"\n')"
t_run 2 bis "$T_TMP/two.toml" --good "$HEAD" --bad "$BAD" --probe iotlb_sync &&
	t_grep "$T_ERR" "has 2 kernels: bisect wants exactly one"
t_ok $? "a matrix with two kernels: exit 2"
sed 's|^build = .*|package = "linux-image-6.1.0-57-amd64"|' "$M" >"$T_TMP/pkg.toml"
t_run 2 bis "$T_TMP/pkg.toml" --good "$HEAD" --bad "$BAD" --probe iotlb_sync &&
	t_grep "$T_ERR" "has no build recipe"
t_ok $? "a kernel without a build recipe: exit 2"
DIRTY=$T_TMP/dirty
git init -q "$DIRTY" && echo a >"$DIRTY/f" && git -C "$DIRTY" add f &&
	git -C "$DIRTY" -c user.name=x -c user.email=x@x commit -qm one &&
	echo b >"$DIRTY/f"
sed "s|tree = \"$KSRC\"|tree = \"$DIRTY\"|" "$M" >"$T_TMP/dirty.toml"
t_run 2 bis "$T_TMP/dirty.toml" --good HEAD --bad HEAD --probe iotlb_sync &&
	t_grep "$T_ERR" "has uncommitted changes to tracked files"
t_ok $? "a dirty tree: exit 2"
[ ! -e "$STATE" ] && [ ! -e "$DB" ]
t_ok $? "none of them left a state or a database"

# The bisection, killed in the middle of a step's run and resumed.
start=$(date +%s)
# The command itself in the background (not a function: $! would be a
# subshell, and the kill would miss it).
"$B" --db "$DB" bisect "$M" --good "$HEAD" --bad "$BAD" --probe iotlb_sync \
	--workdir "$WD" -j "$JOBS" >"$T_TMP/first.out" 2>"$T_TMP/first.err" &
BISECT_PID=$!
# a step past the ends whose run has begun and not ended
in_step() {
	python3 - "$STATE" <<'EOF'
import json, sys
try:
    s = json.load(open(sys.argv[1]))
except Exception:
    sys.exit(1)
st = s["steps"][2:]
sys.exit(0 if st and st[-1]["run"] and st[-1]["verdict"] == "unknown" else 1)
EOF
}
killed=no
while kill -0 "$BISECT_PID" 2>/dev/null; do
	if in_step; then
		kill -9 "$BISECT_PID"
		killed=yes
		break
	fi
	[ $(($(date +%s) - start)) -lt 3000 ] || break
	sleep 1
done
wait "$BISECT_PID" 2>/dev/null
BISECT_PID=
[ "$killed" = yes ]
st=$?
t_ok $st "killed (SIGKILL) while a step's trial ran"
[ $st -eq 0 ] || t_diag "$(tail -15 "$T_TMP/first.err")"
# Its QEMU dies with it (PR_SET_PDEATHSIG), not at once.
i=0
while [ -n "$(t_qemu_pids)" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -z "$(t_qemu_pids)" ]
t_ok $? "its QEMU went with it"
ENDS_BEFORE=$(python3 -c 'import json, sys
s = json.load(open(sys.argv[1])); print(s["steps"][0]["run"], s["steps"][1]["run"])' "$STATE")

t_run 0 bis --resume "$M" --json
st=$?
t_ok $st "bisect --resume ends, exit 0 (found)"
[ $st -eq 0 ] || t_diag "$(tail -25 "$T_ERR")"
t_diag "bisection: $(($(date +%s) - start)) s in all"
cp "$T_OUT" "$T_TMP/result.json"
cp "$T_ERR" "$T_TMP/resume.err"
python3 - "$T_TMP/result.json" "$FIRST_BAD" "$HEAD" "$BAD" "$ENDS_BEFORE" \
	<<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
first_bad, good, bad, ends = sys.argv[2:6]
assert r["status"] == "found", r["status"]
assert r["first_bad"] == first_bad, (r["first_bad"], first_bad)
assert r["subject"].startswith("iommu/dma: stop queueing"), r["subject"]
steps = r["steps"]
assert [s["commit"] for s in steps[:2]] == [good, bad], steps[:2]
assert "%d %d" % (steps[0]["run"], steps[1]["run"]) == ends, "ends re-run"
commits = [s["commit"] for s in steps]
assert len(commits) == len(set(commits)), "a commit measured twice"
assert len(steps) - 2 <= 2, "more than ceil(log2(4)) steps"
c = r["cost"]
assert c["builds"] + c["cached"] <= 4, c
before, after = r["before"]["median"], r["after"]["median"]
assert before < 1000 and after > 10000, (before, after)
EOF
st=$?
t_ok $st "the breaking commit named, within 4 builds, each commit once, ends kept"
python3 - "$T_TMP/result.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["cost"]
print("# builds %d (first %s s, incremental median %s s), from the cache %d,"
      " boots %d, steps %d" % (c["builds"], c["first_build_s"],
      c["incremental_build_s"], c["cached"], c["boots"], c["steps"]))
for s in r["steps"]:
    print("#   %s %-7s %s build %s s" % (s["commit"][:12], s["verdict"],
          s["values"], round(s["build_s"])))
print("# iotlb_sync per GB: %g before, %g at the first bad commit" %
      (r["before"]["median"], r["after"]["median"]))
EOF

# Every step a run of its own, its kernel named by the commit.
python3 - "$DB" "$T_TMP/result.json" <<'EOF'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
r = json.load(open(sys.argv[2]))
runs = db.execute("SELECT id FROM runs WHERE name = 'tb-bisect-bisect'").fetchall()
assert len(runs) == len(r["steps"]), (runs, len(r["steps"]))
for s in r["steps"]:
    k = db.execute("SELECT DISTINCT k.name FROM cells c JOIN kernels k"
                   " ON k.id = c.kernel_id WHERE c.run_id = ?",
                   (s["run"],)).fetchall()
    assert k == [(s["commit"][:12],)], (k, s["commit"])
EOF
t_ok $? "each step a run named tb-bisect-bisect, its kernel the commit's 12 hex"
t_run 0 "$B" --db "$DB" bisect log &&
	t_grep "$T_OUT" "git bisect good $HEAD" &&
	t_grep "$T_OUT" "git bisect bad $BAD" &&
	t_grep "$T_OUT" "# first bad commit: [$FIRST_BAD] iommu/dma: stop queueing" &&
	t_grep "$T_OUT" "iotlb_sync_per_gb"
t_ok $? "bisect log: git bisect log's lines, each step's figure"
t_run 0 "$B" --db "$DB" compare --by kernel --run name:tb-bisect-bisect \
	--only metric=iotlb_sync_per_gb &&
	t_grep "$T_OUT" "$(echo "$FIRST_BAD" | cut -c1-12)" &&
	t_grep "$T_OUT" "$(echo "$HEAD" | cut -c1-12)"
t_ok $? "compare --by kernel --run name:... shows the steps side by side"
t_run 2 bis --resume "$M" && t_grep "$T_ERR" "has ended (found)"
t_ok $? "--resume after the end: exit 2"
t_testbed_gone
t_ok $? "no QEMU or namespace left"
t_done
