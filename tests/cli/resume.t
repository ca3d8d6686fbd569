#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A run killed (SIGKILL, by PID) resumes, wherever the kill fell: (a)
# during a trial, while iperf3 runs; (b) between trials, in the
# cooldown; (c) inside a trial's transaction, right before its commit
# (the test-only IOMMU_BENCH_TEST_PAUSE=commit hook stops it there).
# Each time: exactly the planned trials in the end, none twice, the
# database sound, and the namespaces the dead run left behind coped
# with and removed. Then [run] until: rounds added while the cell's
# interval is wider than asked, none once it is narrow enough, and a
# run killed inside an added round resumes inside it.
set -eu
. "$(dirname "$0")/lib.sh"

B=$IOMMU_BENCH
NS_S="ibs-s-$$"
NS_P="ibs-p-$$"
NET=10.197.$(($$ % 250))
RUN_PID=

cleanup() {
	[ -n "$RUN_PID" ] && kill -9 "$RUN_PID" 2>/dev/null
	t_netns_del "$NS_S" "$NS_P"
	t_cleanup
}
trap cleanup EXIT INT TERM

t_require_root "network namespaces need root"
t_require ip sqlite3

# matrix FILE COOLDOWN [REPETITIONS [UNTIL]]: 1 s trials, 3 of them.
matrix() {
	cat >"$1" <<EOT
$(matrix_run resume-t "${3:-3}" '"current"' "$2")
${4:+until = $4}

$(t_netns_hosts "ibs-s$$" "ibs-p$$")

$(t_tcp_workload)
EOT
}

ok_trials() {
	sqlite3 "$DB" "SELECT count(*) FROM trials WHERE status = 'ok'" 2>/dev/null
}

# iperf3's data connection is up in the SUT's namespace.
iperf3_running() {
	ip netns exec "$NS_S" ss -Htn state established 2>/dev/null | grep -q .
}

stopped() {
	[ "$(ps -o stat= -p "$RUN_PID" 2>/dev/null | cut -c1)" = T ]
}

# at_point WHERE: true once the controller stands where WHERE says.
at_point() {
	case "$1" in
	trial) [ "$(ok_trials)" = 1 ] && iperf3_running ;;
	cooldown) [ "$(ok_trials)" = 1 ] && ! iperf3_running ;;
	commit) stopped ;;
	esac
}

# scenario WHERE COOLDOWN [ENV=VALUE]: start, SIGKILL at WHERE, resume.
scenario() {
	where=$1
	DB=$T_TMP/results/resume-$where.db
	matrix "$T_TMP/m.toml" "$2"
	env ${3:-} "$B" --db "$DB" run "$T_TMP/m.toml" \
		>"$T_TMP/out1" 2>"$T_TMP/err1" &
	RUN_PID=$!
	# Poll until the controller stands there; 40 s at most.
	t_poll 400 0.1 "$RUN_PID" at_point "$where"
	at_point "$where" && kill -9 "$RUN_PID"
	st=$?
	t_ok $st "($where) the controller is killed by PID at that point"
	[ $st -eq 0 ] || t_diag "$(tail -5 "$T_TMP/err1")"
	wait "$RUN_PID" 2>/dev/null
	RUN_PID=
	case "$where" in
	commit) want=0 ;;
	*) want=1 ;;
	esac
	[ "$(ok_trials)" = $want ] &&
		[ "$(sqlite3 "$DB" "PRAGMA integrity_check")" = ok ]
	t_ok $? "($where) $want trial(s) stored before the kill, the database sound"

	t_run 0 timeout 40 "$B" --db "$DB" run "$T_TMP/m.toml" &&
		t_grep "$T_ERR" "resuming run 1"
	t_ok $? "($where) the re-run resumes the killed run (and copes with its namespaces)"

	[ "$(sqlite3 "$DB" "SELECT count(*) FROM trials")" = 3 ] &&
		[ "$(ok_trials)" = 3 ] &&
		[ "$(sqlite3 "$DB" "SELECT count(*) FROM runs")" = 1 ] &&
		[ "$(sqlite3 "$DB" "SELECT status FROM runs")" = done ]
	t_ok $? "($where) exactly the 3 planned trials, all ok, in the one run, done"

	[ -z "$(sqlite3 "$DB" "SELECT cell_id, warmup, repetition FROM trials GROUP BY cell_id, warmup, repetition HAVING count(*) > 1")" ] &&
		[ "$(sqlite3 "$DB" "SELECT count(*) FROM metrics WHERE name = 'throughput'")" = 3 ]
	t_ok $? "($where) no trial twice, no metric twice"

	[ "$(sqlite3 "$DB" "PRAGMA integrity_check")" = ok ] &&
		[ "$(sqlite3 "$DB" "PRAGMA foreign_key_check")" = "" ]
	t_ok $? "($where) integrity_check and foreign_key_check pass"

	! ip netns list | grep -q -e "$NS_S" -e "$NS_P"
	t_ok $? "($where) no namespace is left behind"
}

scenario trial 0s
scenario cooldown 3s
scenario commit 0s IOMMU_BENCH_TEST_PAUSE=commit

# until: a width no trial of veth throughput is as narrow as (a
# millionth) takes the cell from 2 repetitions to the cap of 4, a
# round at a time; a width every interval is narrower than stops at 2.
DB=$T_TMP/results/until-wide.db
matrix "$T_TMP/m.toml" 0s 2 '{ ci_width = "1000%", max_repetitions = 4 }'
t_run 0 timeout 40 "$B" --db "$DB" run "$T_TMP/m.toml" &&
	[ "$(ok_trials)" = 2 ] &&
	t_grep "$T_ERR" "until: all 1 headline comparison is within 1000% at 2 repetitions"
t_ok $? "(until) an interval narrower than asked: no round added"

DB=$T_TMP/results/until-narrow.db
matrix "$T_TMP/m.toml" 0s 2 '{ ci_width = "0.0001%", max_repetitions = 4 }'
t_run 0 timeout 60 "$B" --db "$DB" run "$T_TMP/m.toml" &&
	[ "$(ok_trials)" = 4 ] &&
	[ "$(sqlite3 "$DB" "SELECT group_concat(repetition) FROM (SELECT repetition FROM trials ORDER BY repetition)")" = 1,2,3,4 ] &&
	t_grep "$T_ERR" "until: 1 of 1 headline comparisons wider than 0.0001%" &&
	t_grep "$T_ERR" "round 3 of at most 4" &&
	t_grep "$T_ERR" "round 4 of at most 4" &&
	[ "$(sqlite3 "$DB" "SELECT status FROM runs")" = done ]
t_ok $? "(until) wider than asked: rounds 3 and 4 added, then the cap"

# Killed while round 3's trial runs; the resume finishes round 3 and
# adds round 4, each once.
DB=$T_TMP/results/until-kill.db
"$B" --db "$DB" run "$T_TMP/m.toml" >"$T_TMP/out1" 2>"$T_TMP/err1" &
RUN_PID=$!
# Round 3's trial: the first two stored, iperf3 running.
in_round3() {
	[ "$(ok_trials)" = 2 ] && iperf3_running
}
t_poll 400 0.1 "$RUN_PID" in_round3
in_round3 && kill -9 "$RUN_PID" &&
	t_grep "$T_TMP/err1" "round 3 of at most 4"
t_ok $? "(until) the controller is killed inside round 3"
wait "$RUN_PID" 2>/dev/null
RUN_PID=
t_run 0 timeout 60 "$B" --db "$DB" run "$T_TMP/m.toml" &&
	t_grep "$T_ERR" "resuming run 1" &&
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM trials")" = 4 ] &&
	[ "$(ok_trials)" = 4 ] &&
	[ -z "$(sqlite3 "$DB" "SELECT repetition FROM trials GROUP BY cell_id, repetition HAVING count(*) > 1")" ] &&
	[ "$(sqlite3 "$DB" "SELECT status FROM runs")" = done ]
t_ok $? "(until) the resume runs round 3 and round 4 once each, and is done"
! ip netns list | grep -q -e "$NS_S" -e "$NS_P"
t_ok $? "(until) no namespace is left behind"

t_done
