#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# iommu-bench regress, the nightly gate, on databases written through the
# store API: a planted 5% regression fails it, pure noise passes, a step
# in the history is found (and a recovered one reported, not failed),
# JUnit XML parses, and a selection that names nothing is a usage error.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gendb.sh"

B=$IOMMU_BENCH
cd "$T_TMP"

t_gendb --out bad.db --runs 2 --reps 10 --workloads 4 --regress 5 --from 1 &&
	t_gendb --out noise.db --runs 2 --reps 10 --workloads 4 --seed 7 &&
	t_gendb --out one.db --runs 1 --reps 10 &&
	t_gendb --out kern.db --runs 1 --reps 10 --kernels 2 &&
	t_gendb --out step.db --runs 30 --reps 5 --regress 8 --from 20 --no-details &&
	t_gendb --out dip.db --runs 30 --reps 5 --regress 8 --from 12 --until 18 --no-details
t_ok $? "generated the databases"

t_run 1 "$B" --db bad.db regress --junit junit.xml &&
	grep -E '^regression +throughput tcp-rx mode=lazy: 39\.[0-9]+ -> 3[78]\.[0-9]+ Gbit/s -[3-7]\.[0-9]+%' "$T_OUT" >/dev/null &&
	t_grep "$T_OUT" "FAIL" && ! grep -q 'mode=strict' "$T_OUT"
t_ok $? "a planted 5% lazy regression fails the gate (exit 1), strict untouched"

python3 - junit.xml <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites"
suite = root.find("testsuite")
cases = suite.findall("testcase")
failed = [c for c in cases if c.find("failure") is not None]
assert int(suite.get("tests")) == len(cases) == 96, len(cases)
assert int(suite.get("failures")) == len(failed) >= 4, len(failed)
assert all("lazy" in c.get("name") for c in failed)
assert any(c.get("classname") == "iommu-bench.regress.throughput" for c in failed)
PY
t_ok $? "--junit: well-formed JUnit XML, the regressions as failures"

t_run 0 "$B" --db noise.db regress && t_grep "$T_OUT" "0 regressions" &&
	t_grep "$T_OUT" "PASS"
t_ok $? "pure noise across 96 comparisons passes (exit 0)"

t_run 0 "$B" --db noise.db regress --json &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["verdict"] == "pass"; p=d["pairwise"]; assert p["counts"]["regression"] == 0 and len(p["items"]) == 96; assert all(i["p_adjusted"] >= i["p"] for i in p["items"] if i["p"] is not None)' "$T_OUT"
t_ok $? "--json: verdict pass, Holm-adjusted p never below the raw p"

t_run 0 "$B" --db noise.db regress -v && t_grep "$T_OUT" "ok           throughput tcp-rx mode=strict"
t_ok $? "-v lists every comparison"

t_run 0 "$B" --db bad.db regress --metric throughput --threshold throughput=10 &&
	t_grep "$T_OUT" "0 regressions" &&
	t_run 1 "$B" --db bad.db regress --metric throughput --threshold 10 --threshold throughput=2
t_ok $? "a per-metric threshold above the change passes it, one below fails it"

t_run 0 "$B" --db kern.db regress --baseline mainline --candidate skip-sync &&
	t_grep "$T_OUT" "baseline kernel mainline (run 1), candidate kernel skip-sync (run 1); matched on workload, mode" &&
	grep -E '^improvement +cpu_util_pct tcp-rx mode=strict: 7[0-9]\.[0-9]+ -> 6[0-9]\.[0-9]+ %' "$T_OUT" >/dev/null
t_ok $? "kernels as selections: skip-sync's lower CPU is an improvement"

t_run 1 "$B" --db step.db regress --history 30 &&
	grep -E '^REGRESSION +throughput tcp-rx host=sut kernel=mainline mode=lazy: between run 20 and 21, 39\.[0-9]+ -> 36\.[0-9]+ Gbit/s -[78]\.[0-9]+%' "$T_OUT" >/dev/null &&
	t_grep "$T_OUT" "still in effect"
t_ok $? "history: an 8% step at run 21 is a regression still in effect (exit 1)"

t_run 0 "$B" --db dip.db regress --history 30 --junit dip.xml &&
	grep -E '^recovered +throughput tcp-rx .*between run 12 and 13' "$T_OUT" >/dev/null &&
	grep -E '^improvement +throughput tcp-rx .*between run 18 and 19' "$T_OUT" >/dev/null &&
	python3 -c 'import sys,xml.etree.ElementTree as E; s=E.parse(sys.argv[1]).getroot().find("testsuite"); assert s.get("failures") == "0"; assert any("recovered" in (c.findtext("system-out") or "") for c in s)' dip.xml
t_ok $? "history: a regression that recovered is reported, not failed"

t_run 0 "$B" --db noise.db regress --history 2 &&
	t_grep "$T_ERR" "change points need at least 6"
t_ok $? "history too short for change points: said so"

t_run 2 "$B" --db one.db regress && t_grep "$T_ERR" "--baseline previous: the database has 1 run"
t_ok $? "no previous run: a usage error that says why"

t_run 2 "$B" --db kern.db regress --baseline mainlin --candidate skip-sync &&
	t_grep "$T_ERR" "did you mean 'mainline'?"
t_ok $? "a misspelt kernel suggests the right one"

t_run 2 "$B" --db bad.db regress --baseline 2 --candidate latest &&
	t_grep "$T_ERR" "select the same trials"
t_ok $? "baseline and candidate the same run: a usage error"

t_run 2 "$B" --db bad.db regress --threshold throughput=fast &&
	t_grep "$T_ERR" "--threshold throughput= wants a number"
t_ok $? "a bad threshold names the metric and the value"

t_run 2 "$B" --db bad.db regress --run 1
t_ok $? "an unknown option is a usage error"

# --- a gate with power, and honest when it has none
t_gendb --out cap.db --runs 2 --reps 6 --workloads 4 --regress 94 --from 1 &&
	t_gendb --out few.db --runs 2 --reps 3 --workloads 2
t_ok $? "generated a 94% drop at 6 trials, and a run of 3 trials"

t_run 1 "$B" --db cap.db regress &&
	grep -E '^regression +throughput tcp-rx mode=lazy: 39\.[0-9]+ -> 2\.[0-9]+ Gbit/s -9[0-9]\.[0-9]+% \[' "$T_OUT" >/dev/null &&
	t_grep "$T_OUT" "gated (throughput): 12 compared, 4 regressions" && t_grep "$T_OUT" "FAIL"
t_ok $? "a 94% drop at 6 trials a side fails the gate: 12 gated comparisons, Holm over them"

t_run 1 "$B" --db cap.db regress --metric throughput --metric retransmits \
	--metric cpu_util_pct --metric cpu_user_pct --metric gbit_per_core \
	--metric cpu_softirq_pct --metric cpu_sys_pct &&
	t_grep "$T_ERR" "cannot judge 84 of 84 gated comparisons: 6 trials a side, where 84 at alpha 0.05 (Holm) need at least 7 a side"
t_ok $? "gating every metric at 6 trials cannot judge: said, exit 1, not PASS"

t_run 1 "$B" --db few.db regress && t_grep "$T_ERR" "need at least 5 a side" &&
	t_grep "$T_OUT" "FAIL" &&
	t_run 0 "$B" --db few.db regress --inconclusive pass &&
	t_grep "$T_ERR" "not a failure" && t_grep "$T_OUT" "PASS"
t_ok $? "3 trials a side: the gate fails for want of power; --inconclusive pass lets it pass"

t_run 0 "$B" --db noise.db regress --json &&
	python3 - "$T_OUT" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["pairwise"]
assert p["gated_metrics"] == ["throughput"] and p["cannot_judge"] is None
gated = [i for i in p["items"] if i["gated"]]
assert len(gated) == 12 and all(i["metric"] == "throughput" for i in gated)
# Each interval at its Holm level: excludes no change <=> adjusted p < 0.05.
for i in p["items"]:
    if i["delta_ci_pct"] and i["p_adjusted"] is not None:
        lo, hi = i["delta_ci_pct"]
        assert (lo > 0 or hi < 0) == (i["p_adjusted"] < 0.05), i
PY
t_ok $? "--json: the gated metrics, and every interval agreeing with its adjusted p"

t_run 2 "$B" --db cap.db regress --metric thruput &&
	t_grep "$T_ERR" "--metric: no metric 'thruput' here"
t_ok $? "a gated metric that names nothing is a usage error"

cp cap.db cfg.db
sqlite3 cfg.db "UPDATE runs SET config = config || char(10) || '[regress]' || char(10) || 'metrics = [\"cpu_util_pct\"]' || char(10) WHERE id = 2"
t_run 0 "$B" --db cfg.db regress && t_grep "$T_OUT" "gated (cpu_util_pct): 12 compared"
t_ok $? "the candidate run's matrix names the gated metrics ([regress] metrics)"

# A kernel that follows its suite: run 2 measured a newer upload of the
# same kernel name. The gate names both versions beside its verdict.
cp noise.db moved.db &&
	sqlite3 moved.db "UPDATE kernels SET
		package = 'linux-image-7.3.4+deb13-amd64',
		version = '7.3.4-1~bpo13+1', suite = 'trixie-backports';
	INSERT INTO kernels (name, release, package, version, suite)
		SELECT name, release, 'linux-image-7.3.5+deb13-amd64',
		'7.3.5-1~bpo13+1', suite FROM kernels;
	UPDATE cells SET kernel_id = (SELECT max(id) FROM kernels)
		WHERE run_id = 2;"
k=$(sqlite3 moved.db "SELECT name FROM kernels LIMIT 1")
t_run 0 "$B" --db moved.db regress &&
	t_grep "$T_OUT" "kernel $k: 7.3.4-1~bpo13+1 -> 7.3.5-1~bpo13+1"
t_ok $? "a kernel that moved: regress names both versions"
t_run 0 "$B" --db moved.db regress --json && python3 - "$T_OUT" <<'PY'
import json, sys
k = json.load(open(sys.argv[1]))["pairwise"]["kernels"]
assert [x["baseline"] for x in k] == ["linux-image-7.3.4+deb13-amd64 7.3.4-1~bpo13+1"], k
assert [x["candidate"] for x in k] == ["linux-image-7.3.5+deb13-amd64 7.3.5-1~bpo13+1"], k
PY
t_ok $? "... and --json carries both, package and version"
t_run 0 "$B" --db moved.db report -o moved.html --no-plots &&
	grep -q '(7.3.5-1~bpo13+1)' moved.html
t_ok $? "... and the report shows the version the run booted"
t_run 0 "$B" --db noise.db regress && ! grep -q '^kernel ' "$T_OUT"
t_ok $? "no package kernel: no kernel line"

# A nightly that follows a kernel: the followed kernel night to night
# (its version named when it moved) and against the pinned one, as
# iommu-bench nightly judges it and says it.
t_gendb --out follow.db --runs 2 --reps 10 --kernels 2 --seed 11 &&
	sqlite3 follow.db "UPDATE kernels SET package = 'linux-image-amd64',
		version = CASE WHEN release LIKE '6.12.70%' THEN '7.3.4-1'
		ELSE '7.3.5-1' END WHERE name = 'skip-sync'"
t_ok $? "generated a database of a pinned and a followed kernel"
st=0
"$B" --db follow.db regress --baseline 1 --candidate 2 \
	--only kernel=skip-sync >"$T_TMP/follow.txt" 2>&1 || st=$?
"$B" --db follow.db regress --baseline kernel:mainline \
	--candidate kernel:skip-sync >>"$T_TMP/follow.txt" 2>&1
[ $st -le 1 ] && t_grep "$T_TMP/follow.txt" "kernel skip-sync: 7.3.4-1 -> 7.3.5-1" &&
	t_grep "$T_TMP/follow.txt" "baseline kernel mainline (run 2), candidate kernel skip-sync (run 2)" &&
	! grep -q "mode=.* kernel=mainline" "$T_TMP/follow.txt"
t_ok $? "a followed kernel: night to night with its versions, then against the pinned one"

t_done
