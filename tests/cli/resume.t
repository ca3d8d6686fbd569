#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A run killed (SIGKILL, by PID) after its first stored trial resumes:
# exactly the planned trials in the end, none twice, the database sound,
# and the namespaces the dead run left behind coped with and removed.
set -eu
. "$(dirname "$0")/lib.sh"

B=$IOMMU_BENCH
DB=$T_TMP/results/resume.db
NS_S="ibs-s-$$"
NS_P="ibs-p-$$"
NET=10.197.$(($$ % 250))
RUN_PID=

kill_ns_pids() {
	for ns in "$NS_S" "$NS_P"; do
		for p in $(ip netns pids "$ns" 2>/dev/null); do
			kill "$p" 2>/dev/null
		done
	done
}

cleanup() {
	[ -n "$RUN_PID" ] && kill -9 "$RUN_PID" 2>/dev/null
	kill_ns_pids
	ip netns del "$NS_S" 2>/dev/null
	ip netns del "$NS_P" 2>/dev/null
	t_cleanup
}
trap cleanup EXIT INT TERM

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP network namespaces need root"
	exit 0
fi
for tool in ip sqlite3; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "1..0 # SKIP $tool is not installed"
		exit 0
	fi
done

M=$T_TMP/m.toml
cat >"$M" <<EOT
[run]
name = "resume-t"
repetitions = 4
warmup = 0
cooldown = "0s"
modes = ["current"]

[hosts.sut]
transport = "netns"
role = "sut"
netns = "$NS_S"
address = "$NET.1/24"
nic = "ibs-s$$"
link = "peer"

[hosts.peer]
transport = "netns"
role = "peer"
netns = "$NS_P"
address = "$NET.2/24"
nic = "ibs-p$$"

[[workloads]]
name = "tcp"
server = "sut"
client = "peer"
duration = "2s"
EOT

ok_trials() {
	sqlite3 "$DB" "SELECT count(*) FROM trials WHERE status = 'ok'" 2>/dev/null
}

"$B" --db "$DB" run "$M" >"$T_TMP/out1" 2>"$T_TMP/err1" &
RUN_PID=$!
# Poll the database until the first trial is stored; 40 s at most.
i=0
while [ $i -lt 200 ] && [ "$(ok_trials)" != 1 ]; do
	if ! kill -0 "$RUN_PID" 2>/dev/null; then
		break
	fi
	sleep 0.2
	i=$((i + 1))
done
if grep -q "not supported by this build" "$T_TMP/err1"; then
	echo "1..0 # SKIP the netns transport is not built yet"
	exit 0
fi
[ "$(ok_trials)" = 1 ] && kill -9 "$RUN_PID"
t_ok $? "the controller is killed by PID right after its first trial"
wait "$RUN_PID" 2>/dev/null
RUN_PID=
[ "$(ok_trials)" -ge 1 ] && [ "$(sqlite3 "$DB" "PRAGMA integrity_check")" = ok ]
t_ok $? "what was stored before the kill is there, the database sound"

t_run 0 timeout 60 "$B" --db "$DB" run "$M" &&
	t_grep "$T_ERR" "resuming run 1"
t_ok $? "the re-run resumes the killed run (and copes with its namespaces)"

[ "$(sqlite3 "$DB" "SELECT count(*) FROM trials")" = 4 ] &&
	[ "$(ok_trials)" = 4 ] &&
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM runs")" = 1 ] &&
	[ "$(sqlite3 "$DB" "SELECT status FROM runs")" = done ]
t_ok $? "exactly the 4 planned trials, all ok, in the one run, done"

[ -z "$(sqlite3 "$DB" "SELECT cell_id, warmup, repetition FROM trials GROUP BY cell_id, warmup, repetition HAVING count(*) > 1")" ] &&
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM metrics WHERE name = 'throughput'")" = 4 ]
t_ok $? "no trial twice, no metric twice"

[ "$(sqlite3 "$DB" "PRAGMA integrity_check")" = ok ] &&
	[ "$(sqlite3 "$DB" "PRAGMA foreign_key_check")" = "" ]
t_ok $? "integrity_check and foreign_key_check pass"

! ip netns list | grep -q -e "$NS_S" -e "$NS_P"
t_ok $? "no namespace is left behind"

t_done
