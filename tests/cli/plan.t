#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# iommu-bench plan: every shipped config plans, --json agrees with the
# matrix, and every broken config in tests/configs/bad/ fails at the
# position and with the message its "# expect:" line gives.
set -eu
. "$(dirname "$0")/lib.sh"

B=$IOMMU_BENCH
cd "$SRCDIR"

# --- the shipped configs
# A lab machine that does not run yet is a warning that says how to
# start it, never an error: the config plans all the same.
if [ ! -e /run/iommu-bench/labvm/lab64 ]; then
	t_run 0 "$B" plan configs/lab-vm-arm64.toml &&
		t_grep "$T_ERR" "labvm: no lab machine 'lab64' runs yet: \`iommu-bench labvm start lab64\` (with --arch arm64 for an arm64 machine)"
	t_ok $? "plan of a lab machine not started: a warning with the command that starts it"
else
	T_N=$((T_N + 1))
	echo "ok $T_N # SKIP a lab machine named lab64 runs here"
fi

for f in configs/*.toml configs/ci/*.toml; do
	t_run 0 "$B" plan "$f" && t_grep "$T_OUT" "summary" &&
		t_grep "$T_OUT" "estimated" && ! grep -q "error:" "$T_ERR" &&
		! grep -q "(null)" "$T_OUT"
	t_ok $? "plan $f: valid, with a summary"

	t_run 0 "$B" plan --json "$f" && python3 - "$T_OUT" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
run, cells, s = d["run"], d["cells"], d["summary"]
kernels, modes = len(d["kernels"]), len(run["modes"])
want_cells = kernels * modes * len(d["workloads"])
rec = [c for c in cells if not c["warmup"] and not c["profile"]]
prof = [c for c in cells if c["profile"]]
assert len(prof) == s["profile_trials"] == want_cells * d["collect"]["perf"]["profile_trials"], s
assert s["cells"] == want_cells, (s["cells"], want_cells)
assert s["trials"] == len(rec) == want_cells * run["repetitions"], s
assert s["warmup_trials"] == len(cells) - len(rec) - len(prof), s
assert [c["index"] for c in cells] == list(range(len(cells)))
assert len({(c["key"], c["repetition"]) for c in rec}) == len(rec)
assert len({c["key"] for c in cells}) == s["cells"]
for c in cells:
    assert c["key"] == "host=%s/kernel=%s/mode=%s/workload=%s" % (
        c["host"], c["kernel"], c["mode"], c["workload"]), c
    assert c["apply"] in ("none", "sysfs", "kexec", "grub", "restart"), c
    assert 1 <= c["repetition"] <= max(run["repetitions"], run["warmup"],
                                       d["collect"]["perf"]["profile_trials"])
assert s["reboots"] == sum(c["reboot_before"] for c in cells), s
assert s["mode_switches"] == sum(c["mode_switch"] for c in cells), s
assert s["estimated_seconds"] > 0
EOF
	t_ok $? "plan --json $f: cells = kernels x modes x workloads x repetitions"
done

t_run 0 "$B" plan --json configs/graviton-strict-vs-lazy.toml &&
	python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
assert (s["cells"], s["trials"], s["reboots"], s["mode_switches"]) == (2, 20, 2, 2), s' "$T_OUT"
t_ok $? "graviton: 2 cells, 20 trials, a kexec per mode"

t_run 0 "$B" plan configs/demo-netns.toml &&
	t_grep "$T_OUT" "0 reboots, 0 mode switches" &&
	t_grep "$T_OUT" "1 warmup + reps 1-6"
t_ok $? "demo: no reboots, no switches, repetitions on one line"

t_run 0 "$B" plan configs/skip-sync-patch.toml &&
	t_grep "$T_ERR" "warning: kernel 'skip-sync': patch 'configs/patches/"
t_ok $? "a missing patch is a warning, its path resolved from the matrix"

t_run 0 "$B" --db "$T_TMP/x.db" plan configs/demo-netns.toml &&
	t_grep "$T_OUT" "db       $T_TMP/x.db"
t_ok $? "--db names the database the run would use"

# --- every broken config: exit 2, at its position, with its message
for f in tests/configs/bad/*.toml; do
	expect=$(sed -n 's/^# expect: //p' "$f")
	loc=${expect%%: *}
	frag=${expect#*: }
	t_run 2 "$B" plan "$f" &&
		grep -F "$f:$loc: error: " "$T_ERR" | grep -qF -- "$frag"
	st=$?
	[ $st -eq 0 ] || t_diag "want $f:$loc: error: $frag" "got:" "$(cat "$T_ERR")"
	t_ok $st "bad/$(basename "$f"): $loc"
done

n=$(ls tests/configs/bad/*.toml | wc -l)
[ "$n" -ge 12 ]
t_ok $? "at least a dozen broken configs ($n)"

# --- files and arguments
t_run 1 "$B" plan "$T_TMP/none.toml" && t_grep "$T_ERR" "cannot read"
t_ok $? "a missing file: exit 1"

t_run 2 "$B" plan && t_grep "$T_ERR" "which matrix file?"
t_ok $? "no file: usage error"

t_run 2 "$B" plan a.toml b.toml
t_ok $? "two files: usage error"

# lab_hosts: two ssh hosts, the SUT and its peer, that plan never reaches.
lab_hosts() {
	cat <<'EOF'
[hosts.sut]
transport = "ssh"
role = "sut"
address = "sut.lab"
nic = "eth1"
[hosts.peer]
transport = "ssh"
address = "peer.lab"
EOF
}

# --- all errors at once, sorted, and capped
{
	cat <<'EOF'
[[workloads]]
name = "w"
server = "sut"
client = "peer"
streams = 0
[run]
warmup = -1
repetitons = 3
EOF
	lab_hosts
} >"$T_TMP/three.toml"
t_run 2 "$B" plan "$T_TMP/three.toml" &&
	[ "$(grep -c ': error: ' "$T_ERR")" -eq 3 ] &&
	grep ': error: ' "$T_ERR" | cut -d: -f2 | sort -nc &&
	t_grep "$T_ERR" "3 errors"
t_ok $? "three mistakes, three errors, in file order"

{
	for i in $(seq 1 60); do echo "key$i = 1"; done
} >"$T_TMP/many.toml"
t_run 2 "$B" plan "$T_TMP/many.toml" &&
	[ "$(grep -c ': error: ' "$T_ERR")" -eq 50 ] &&
	t_grep "$T_ERR" "more errors not shown"
t_ok $? "errors past 50 are counted, not printed"

# A terminal escape in a name must not reach the terminal.
printf '[hosts."a\\u001b[31m"]\ntransport = "ssh"\n' >"$T_TMP/esc.toml"
t_run 2 "$B" plan "$T_TMP/esc.toml" && ! grep -q "$(printf '\033')" "$T_ERR" &&
	t_grep "$T_ERR" "is not a safe name"
t_ok $? "control characters in messages are neutralised"

# --- order and size
{
	cat <<'EOF'
[run]
order = "random"
seed = 7
repetitions = 20
EOF
	lab_hosts
	cat <<'EOF'
[[workloads]]
name = "a"
server = "sut"
client = "peer"
[[workloads]]
name = "b"
server = "peer"
client = "sut"
EOF
} >"$T_TMP/big.toml"
t_run 0 "$B" plan "$T_TMP/big.toml" && t_grep "$T_OUT" "more steps (--all" &&
	[ "$(wc -l <"$T_OUT")" -lt 80 ]
t_ok $? "a long plan is cut to its head and tail"

t_run 0 "$B" plan --all "$T_TMP/big.toml" && ! grep -q "more steps" "$T_OUT"
t_ok $? "--all lists every step"

"$B" plan --json "$T_TMP/big.toml" >"$T_TMP/a.json" &&
	"$B" plan --json "$T_TMP/big.toml" >"$T_TMP/b.json" &&
	cmp -s "$T_TMP/a.json" "$T_TMP/b.json"
t_ok $? "random order with a seed is the same every time"

sed 's/seed = 7/seed = 8/' "$T_TMP/big.toml" >"$T_TMP/big8.toml"
"$B" plan --json "$T_TMP/big8.toml" >"$T_TMP/c.json" &&
	! cmp -s "$T_TMP/a.json" "$T_TMP/c.json"
t_ok $? "another seed, another order"

# --- the gate's power: what the nightly regress can tell from these runs
t_run 0 "$B" plan "$T_TMP/big.toml" &&
	t_grep "$T_OUT" "throughput: 6 comparisons (every cell), 20 trials a side" &&
	grep -E '^  detects 8 times in 10 a change of 1\.[0-9] standard deviations' "$T_OUT" >/dev/null
t_ok $? "plan: what the gate can detect with 20 repetitions"

sed 's/repetitions = 20/repetitions = 3/' "$T_TMP/big.toml" >"$T_TMP/three.toml"
t_run 0 "$B" plan "$T_TMP/three.toml" &&
	t_grep "$T_OUT" "detects no change, however large: 3 a side reach at best p = 0.1" &&
	t_grep "$T_OUT" "it needs at least 5 repetitions" &&
	t_grep "$T_ERR" "the gate cannot detect any change with 3 repetitions over 6 comparisons"
t_ok $? "plan: too few repetitions for the gate are flagged, with how many it needs"

sed 's/^seed = 7/seed = 7\nuntil = { ci_width = "5%", max_repetitions = 8 }/' \
	"$T_TMP/three.toml" >"$T_TMP/until.toml"
t_run 0 "$B" plan "$T_TMP/until.toml" &&
	t_grep "$T_OUT" "until    rounds of repetitions until every headline interval is within 5%," &&
	t_grep "$T_OUT" "up to 8 repetitions (up to 2.7x the trials' time below)" &&
	grep -E '^  where until adds rounds up to 8 a side: a change of [0-9.]+ standard deviations$' "$T_OUT" >/dev/null &&
	t_run 0 "$B" plan --json "$T_TMP/until.toml" &&
	python3 -c 'import json,sys; u = json.load(open(sys.argv[1]))["run"]["until"]; assert u == {"ci_width_pct": 5.0, "max_repetitions": 8}, u' "$T_OUT"
t_ok $? "plan: [run] until, its cap, and what the gate could detect at the cap"

printf '[regress]\nmetrics = ["throughput", "retransmits", "cpu_util_pct", "busy_cores"]\n' |
	cat "$T_TMP/big.toml" - | sed 's/repetitions = 20/repetitions = 5/' >"$T_TMP/four.toml"
t_run 0 "$B" plan --json "$T_TMP/four.toml" &&
	python3 - "$T_OUT" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))["gate"]
assert g["metrics"] == ["throughput", "retransmits", "cpu_util_pct", "busy_cores"], g
assert g["comparisons"] == 24 and g["trials"] == 5 and not g["can_detect"], g
assert g["trials_needed"] == 7 and g["smallest_change_sd"] is None, g
assert abs(g["min_p"] - 2 / 252) < 1e-12, g
PY
t_ok $? "plan --json: [regress] metrics set the gate; 24 comparisons need 7 a side"

printf '[regress]\nmetric = ["throughput"]\n' | cat "$T_TMP/big.toml" - >"$T_TMP/typo.toml"
t_run 2 "$B" plan "$T_TMP/typo.toml" && t_grep "$T_ERR" "did you mean 'metrics'?"
t_ok $? "[regress]: a misspelt key is an error with a suggestion"

sed 's/repetitions = 20/repetitions = 10000/' "$T_TMP/big.toml" |
	sed 's/^seed = 7/seed = 7\nwarmup = 100/' >"$T_TMP/huge.toml"
t_run 2 "$B" plan "$T_TMP/huge.toml" && t_grep "$T_ERR" "split it"
t_ok $? "a plan past a million trials is refused"

t_done
