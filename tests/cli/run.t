#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# iommu-bench run, end to end: two namespaces joined by a veth pair,
# real iperf3 between them through the agents, every trial in a fresh
# database; then the bad inputs that must fail clearly.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"

B=$IOMMU_BENCH
DB=$T_TMP/results/run.db
NS_S="ibr-s-$$"
NS_P="ibr-p-$$"
NET=10.198.$(($$ % 250))

cleanup() {
	sshd_stop
	t_netns_del "$NS_S" "$NS_P"
	t_cleanup
}
trap cleanup EXIT INT TERM

t_require_root "network namespaces need root"
t_require ip sqlite3 python3

# matrix FILE NIC_OF_SUT: 2 workloads x 3 repetitions of 2 s, no warmup.
matrix() {
	cat >"$1" <<EOT
$(matrix_run run-t 3 '"current"')

$(t_netns_hosts "$2" "ibr-p$$")

[[workloads]]
name = "tcp-rx"
server = "sut"
client = "peer"
streams = 2
duration = "2s"

[[workloads]]
name = "tcp-tx"
server = "sut"
client = "peer"
streams = 2
duration = "2s"
reverse = true

[collect]
procstat = true
EOT
}

M=$T_TMP/m.toml
matrix "$M" "ibr-s$$"

t_run 0 "$B" --db "$DB" run "$M"
t_ok $? "run of 2 workloads x 3 repetitions exits 0"

t_run 0 "$B" --db "$DB" db info && t_grep "$T_OUT" "trials" &&
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM trials WHERE status = 'ok'")" = 6 ] &&
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM cells")" = 2 ] &&
	[ "$(sqlite3 "$DB" "SELECT status FROM runs")" = done ]
t_ok $? "db info works; 6 trials ok in 2 cells, the run done"

t_run 0 "$B" --db "$DB" export --format csv &&
	python3 - "$T_OUT" <<'EOT'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
tp = {r["trial"]: float(r["value"]) for r in rows
      if r["metric"] == "throughput"}
assert len(tp) == 6, tp
assert all(v > 0 for v in tp.values()), tp
assert {r["effective_mode"] for r in rows} != {""}, "mode not verified"
EOT
t_ok $? "export --format csv: 6 trials with throughput > 0 and a verified mode"

[ "$(sqlite3 "$DB" "SELECT count(*) FROM metrics WHERE name = 'busy_cores'")" -gt 0 ]
t_ok $? "procstat's metrics are stored with the trials"

[ "$(sqlite3 "$DB" "SELECT count(*) FROM metrics WHERE name = 'gbit_per_core' AND value > 0")" = 6 ]
t_ok $? "throughput per busy core is stored for every trial"

[ "$(sqlite3 "$DB" "SELECT count(*) FROM artifacts WHERE kind = 'iperf3.json' AND size > 0")" = 6 ] &&
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM artifacts WHERE kind = 'collectors.json'")" = 6 ] &&
	f=$(sqlite3 "$DB" "SELECT path FROM artifacts WHERE kind = 'iperf3.json' LIMIT 1") &&
	python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["throughput_bps"] > 0' "$f"
t_ok $? "the raw iperf3 and collector JSON of every trial are kept as artifacts"

# A kernel whose expected release is not the one running fails its
# cells loudly, with both releases named, and stores nothing wrong.
M2=$T_TMP/m-release.toml
matrix "$M2" "ibr-s$$"
sed -i 's/^name = "run-t"/name = "run-release"\nrepetitions = 1/; s/^repetitions = 3$//' "$M2"
cat >>"$M2" <<EOT

[[kernels]]
name = "running"
release = "0.0.0-not-this-one"
EOT
t_run 1 "$B" --db "$T_TMP/release.db" run "$M2" &&
	[ "$(sqlite3 "$T_TMP/release.db" "SELECT count(*) FROM trials WHERE status = 'failed' AND error LIKE '%expects release 0.0.0-not-this-one, but $(uname -r) is running%'")" = 2 ] &&
	[ "$(sqlite3 "$T_TMP/release.db" "SELECT count(*) FROM metrics")" = 0 ]
t_ok $? "a kernel whose release is not the running one fails its cells, naming both"

! ip netns list | grep -q -e "$NS_S" -e "$NS_P"
t_ok $? "the namespaces are gone afterwards"

t_run 1 "$B" --db "$DB" run --resume "$M" &&
	t_grep "$T_ERR" "no unfinished run 'run-t'"
t_ok $? "--resume of a run already done is an error naming the run"

t_run 2 "$B" --db "$DB" run --only mode=turbo "$M" &&
	t_grep "$T_ERR" "no mode named 'turbo'"
t_ok $? "--only naming no such mode is a usage error naming it"

t_run 2 "$B" --db "$DB" run --shard 3/2 "$M" && t_grep "$T_ERR" "'3/2'"
t_ok $? "--shard K/N with K > N is a usage error naming the value"

# Two shards into two databases, merged: every trial once, twice merged.
sed -e 's/^duration = "2s"/duration = "1s"/' -e 's/^name = "run-t"/name = "shards"/' \
	"$M" >"$T_TMP/shard.toml"
"$B" --db "$T_TMP/s1.db" run -q --shard 1/2 "$T_TMP/shard.toml" 2>"$T_TMP/s1.err" &&
	"$B" --db "$T_TMP/s2.db" run -q --shard 2/2 "$T_TMP/shard.toml" 2>"$T_TMP/s2.err" &&
	[ "$(sqlite3 "$T_TMP/s1.db" "SELECT count(*) FROM cells")" = 1 ] &&
	[ "$(sqlite3 "$T_TMP/s2.db" "SELECT count(*) FROM cells")" = 1 ]
t_ok $? "--shard 1/2 and 2/2 each run one of the two cells"

t_run 0 "$B" db merge "$T_TMP/all.db" "$T_TMP/s1.db" "$T_TMP/s2.db" &&
	t_run 0 "$B" db merge "$T_TMP/all.db" "$T_TMP/s2.db" &&
	[ "$(sqlite3 "$T_TMP/all.db" "SELECT count(*) FROM runs")" = 1 ] &&
	[ "$(sqlite3 "$T_TMP/all.db" "SELECT count(*) FROM cells")" = 2 ] &&
	[ "$(sqlite3 "$T_TMP/all.db" "SELECT count(*) FROM trials WHERE status = 'ok'")" = 6 ] &&
	[ "$(sqlite3 "$T_TMP/all.db" "SELECT count(*) FROM metrics WHERE name = 'throughput'")" = 6 ] &&
	[ "$(sqlite3 "$T_TMP/all.db" "SELECT count(*) FROM metrics")" = \
		"$(($(sqlite3 "$T_TMP/s1.db" "SELECT count(*) FROM metrics") + $(sqlite3 "$T_TMP/s2.db" "SELECT count(*) FROM metrics")))" ] &&
	[ "$(sqlite3 "$T_TMP/all.db" "PRAGMA integrity_check")" = ok ] &&
	[ "$(sqlite3 "$T_TMP/all.db" "PRAGMA foreign_key_check")" = "" ]
t_ok $? "db merge: one run, 2 cells, 6 trials, every metric once, even merged twice"

t_run 1 "$B" db merge "$T_TMP/all.db" "$T_TMP/m.toml" &&
	t_grep "$T_ERR" "m.toml"
t_ok $? "db merge of a file that is not a database is an error naming it"

# [collect.perf]: measured trials count, one profile trial per cell
# samples; the statistics leave it out and the report sets its
# throughput beside the measured ones.
if command -v perf >/dev/null 2>&1 &&
	perf record -q -e cpu-clock -a -o "$T_TMP/probe.data" -- true \
		>/dev/null 2>&1; then
	PDB=$T_TMP/prof.db
	sed -e 's/^duration = "2s"/duration = "1s"/' -e 's/^name = "run-t"/name = "prof"/' \
		-e 's/^repetitions = 3/repetitions = 2/' "$M" >"$T_TMP/prof.toml"
	printf '\n[collect.perf]\nevent = "cpu-clock"\nfrequency = 199\n' >>"$T_TMP/prof.toml"
	t_run 0 "$B" --db "$PDB" run "$T_TMP/prof.toml" &&
		t_grep "$T_ERR" "tcp-rx profile 1: ok" &&
		[ "$(sqlite3 "$PDB" "SELECT group_concat(profile || ':' || json_extract(collectors, '$.perf.record'), ' ') FROM (SELECT * FROM trials ORDER BY id)")" = "0:0 0:0 1:1 0:0 0:0 1:1" ] &&
		[ "$(sqlite3 "$PDB" "SELECT count(DISTINCT t.id) FROM profile p JOIN trials t ON t.id = p.trial_id WHERE t.profile = 1")" = 2 ] &&
		[ "$(sqlite3 "$PDB" "SELECT count(*) FROM profile p JOIN trials t ON t.id = p.trial_id WHERE t.profile = 0")" = 0 ]
	t_ok $? "perf record: one profile trial per cell samples, the measured ones only count"

	t_run 0 "$B" --db "$PDB" export --json &&
		python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); t = {x["trial"] for x in r}; assert len(t) == 4 and not any(x["profile"] for x in r), t' "$T_OUT" &&
		t_run 0 "$B" --db "$PDB" export --json --all &&
		python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); assert len({x["trial"] for x in r if x["profile"]}) == 2' "$T_OUT" &&
		t_run 0 "$B" --db "$PDB" compare --json &&
		python3 -c 'import json,sys; j = json.load(open(sys.argv[1])); n = {c["n"] for m in j["metrics"] for r in m["rows"] for c in r["cells"] if c}; assert n == {2}, n' "$T_OUT"
	st=$?
	t_ok $st "export and compare leave the profile trials out (export --all has them)"
	[ $st -eq 0 ] || t_diag "$(head -c 600 "$T_OUT")"

	# The cost is a ratio of two 1 s trials' throughput on a shared
	# machine: its size is not asserted (make bench measures it), but
	# each cell's figure must be the one its stored trials give.
	t_run 0 "$B" --db "$PDB" report -o "$T_TMP/prof.html" &&
		python3 - "$T_TMP/prof.html" "$PDB" >"$T_TMP/prof.py.out" 2>&1 <<'PY'
import re, sqlite3, sys
s = open(sys.argv[1]).read()
html = s[s.index('id="collectors"'):]
html = html[:html.index("<h2")]
sec = re.sub(r"<[^>]+>", " ", html)
assert re.search(r"\b4\s+measured\s+perf counters, procstat", sec), sec
assert re.search(r"\b2\s+profile, not in the statistics\s+perf record \(cpu-clock, 199 Hz, fp call graphs\)", sec), sec
rows = [re.sub(r"<[^>]+>", " ", r).split() for r in re.findall(r"<tr>(.*?)</tr>", html)]
got = {r[3]: r[-1] for r in rows if len(r) > 4 and r[-1].endswith("x")}
db = sqlite3.connect(sys.argv[2])
def tp(wl, profile):
    return sorted(v for (v,) in db.execute(
        "SELECT m.value FROM trials t JOIN cells c ON c.id = t.cell_id"
        " JOIN metrics m ON m.trial_id = t.id WHERE c.workload = ?"
        " AND m.name = 'throughput' AND t.status = 'ok' AND t.warmup = 0"
        " AND t.profile = ?", (wl, profile)))
def median(v):
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2
for wl in ("tcp-rx", "tcp-tx"):
    m, p = tp(wl, 0), tp(wl, 1)
    want = median(p) / median(m)
    assert wl in got and re.fullmatch(r"\d+\.\d\dx", got[wl]), (wl, got, sec)
    assert abs(float(got[wl][:-1]) - want) <= 0.005 + 1e-9, (wl, got[wl], want, m, p)
print("costs", got)
assert "ran perf record" not in s
PY
	st=$?
	t_ok $st "the report says which trials carried which collectors, and what profiling cost per cell, as its trials give it"
	t_diag "$(tail -c 1500 "$T_TMP/prof.py.out")"

	sed 's/^frequency = 199/frequency = 199\nrecord = "every"/' "$T_TMP/prof.toml" >"$T_TMP/every.toml"
	t_run 0 "$B" --db "$T_TMP/every.db" run -q "$T_TMP/every.toml" &&
		[ "$(sqlite3 "$T_TMP/every.db" "SELECT count(*) FROM trials WHERE profile = 0 AND json_extract(collectors, '$.perf.record') = 1")" = 4 ] &&
		t_run 0 "$B" --db "$T_TMP/every.db" report -o "$T_TMP/every.html" &&
		grep -q "4 measured trials ran perf record" "$T_TMP/every.html"
	t_ok $? "record = \"every\": every measured trial samples, and the report warns that its numbers carry the cost"
else
	for i in 1 2 3 4; do
		T_N=$((T_N + 1))
		echo "ok $T_N # SKIP perf cannot record system-wide here"
	done
fi

cat >"$T_TMP/ssh.toml" <<EOT
[run]
name = "unreachable"
repetitions = 1
warmup = 0
modes = ["current"]

[hosts.sut]
transport = "ssh"
role = "sut"
address = "ibr-nowhere.invalid"
user = "root"
nic = "eth0"

[hosts.peer]
transport = "ssh"
address = "ibr-nowhere2.invalid"

$(t_tcp_workload)
EOT
t_run 1 timeout 60 "$B" --db "$DB" run "$T_TMP/ssh.toml" &&
	t_grep "$T_ERR" "ibr-nowhere" &&
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM trials WHERE status = 'ok'")" = 6 ] &&
	[ "$(sqlite3 "$DB" "PRAGMA integrity_check")" = ok ]
t_ok $? "an unreachable ssh host is a clear error; nothing stored is lost"

# ssh_local FILE NAME MODE SSH_ROLE: a local host and an ssh host at
# 127.0.0.1 (the test sshd), 1 trial of 1 s, the iperf3 server on the
# ssh host (a local host has no data address); the SUT's nic is $NIC.
ssh_local() {
	if [ "$4" = sut ]; then
		sut_t=ssh
		peer_t=local
		server=sut
		client=peer
	else
		sut_t=local
		peer_t=ssh
		server=peer
		client=sut
	fi
	ssh_keys='address = "127.0.0.1"
user = "root"
data_address = "127.0.0.1"'
	cat >"$1" <<EOT
[modes.strict]
method = "sysfs"

$(matrix_run "$2" 1 "\"$3\"")

[hosts.sut]
transport = "$sut_t"
role = "sut"
nic = "$NIC"
$([ $sut_t = ssh ] && echo "$ssh_keys")

[hosts.peer]
transport = "$peer_t"
role = "peer"
$([ $peer_t = ssh ] && echo "$ssh_keys")

$(t_tcp_workload "$server" "$client")
EOT
}

# The NIC is only watched here, never switched (see below): any real
# interface does, the one with the default route is one.
NIC=$(ip -o route show default 2>/dev/null | awk '{ print $5; exit }')
if ! sshd_usable || [ -z "$NIC" ]; then
	T_N=$((T_N + 2))
	echo "ok $((T_N - 1)) # SKIP no sshd or no NIC for the ssh cases"
	echo "ok $T_N # SKIP no sshd or no NIC for the ssh cases"
else
	sshd_start
	export IOMMU_BENCH_SSH_CONFIG="$D/ssh_config"
	# A host that refuses the agent: its folder cannot be made, as a
	# regular file stands where a parent directory should be.
	: >"$T_TMP/not-a-dir"
	ssh_local "$T_TMP/refuse.toml" refuse current sut
	IOMMU_BENCH_SSH_REMOTE_DIR="$T_TMP/not-a-dir/sub" \
		t_run 1 timeout 50 "$B" --db "$DB" run "$T_TMP/refuse.toml" &&
		t_grep "$T_ERR" "host sut" && t_grep "$T_ERR" "not-a-dir" &&
		[ "$(sqlite3 "$DB" "SELECT count(*) FROM trials WHERE status = 'ok'")" = 6 ] &&
		[ "$(sqlite3 "$DB" "PRAGMA integrity_check")" = ok ]
	st=$?
	t_ok $st "a host whose agent cannot be copied is a clear error; nothing stored is lost"
	[ $st -eq 0 ] || t_diag "$(cat "$T_ERR")"

	# A mode this kernel cannot do: strict through sysfs on a NIC with
	# no IOMMU group. Where there are IOMMU groups it would really
	# switch the machine's own NIC, so the case needs a machine without.
	T_N=$((T_N + 1))
	if ls /sys/kernel/iommu_groups/ 2>/dev/null | grep -q .; then
		echo "ok $T_N # SKIP this machine has an IOMMU: strict would switch $NIC"
	else
		T_N=$((T_N - 1))
		IOMMU_BENCH_SSH_REMOTE_DIR="$D/remote"
		export IOMMU_BENCH_SSH_REMOTE_DIR
		ssh_local "$T_TMP/strict.toml" strict strict peer
		t_run 1 timeout 50 "$B" --db "$DB" run "$T_TMP/strict.toml" &&
			t_grep "$T_ERR" "IOMMU group" &&
			[ "$(sqlite3 "$DB" "SELECT count(*) FROM trials t JOIN cells c ON c.id = t.cell_id WHERE c.mode = 'strict' AND t.status = 'failed' AND t.error LIKE '%IOMMU group%'")" = 1 ] &&
			[ "$(sqlite3 "$DB" "SELECT count(*) FROM trials WHERE status = 'ok'")" = 6 ] &&
			[ "$(sqlite3 "$DB" "PRAGMA integrity_check")" = ok ]
		st=$?
		t_ok $st "strict through sysfs without an IOMMU group: the trial is stored failed with the evidence, exit 1"
		[ $st -eq 0 ] || t_diag "$(cat "$T_ERR")"
	fi
fi

! ip netns list | grep -q -e "$NS_S" -e "$NS_P"
t_ok $? "no namespace is left behind after the failures either"

t_done
