#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A night of a matrix without [nightly] (configs/demo-netns.toml's
# kind, as iommu-bench-nightly@.service runs it): the robot watches this
# machine, following its running kernel. The first night passes and is
# stored with `uname -r` as its head; --send, which the unit always
# passes, sends nothing and is not refused. A night whose throughput
# fell (iperf3 held to a bitrate) is judged a regression on its own run
# (the running kernel has no other end to boot), stored open with why
# no commit is named, mailed to nobody, and the night exits 1, as a
# failed unit. (A matrix without [nightly] whose host is not this
# machine is refused: nightly.t.)
set -eu
. "$(dirname "$0")/lib.sh"

t_require_root "network namespaces need root"
t_require ip sqlite3 iperf3

B=$IOMMU_BENCH
DB=$T_TMP/watch.db
NS_S="ibw-s-$$" NS_P="ibw-p-$$" NET=10.198.$(($$ % 250))

cleanup() {
	t_netns_del "$NS_S" "$NS_P"
	t_cleanup
}
trap cleanup EXIT INT TERM

# matrix FILE [BITRATE]: demo-netns's shape, 1 s trials, 4 of each.
matrix() {
	cat >"$1" <<EOT
[run]
name = "watch-t"
repetitions = 4
warmup = 0
modes = ["current"]

$(t_netns_hosts "ibw-s$$" "ibw-p$$")

[[workloads]]
name = "tcp-rx"
server = "sut"
client = "peer"
streams = 2
duration = "1s"
${2:+bitrate = \"$2\"}
EOT
}

matrix "$T_TMP/m.toml"
t_run_ok 0 120 "4 trials, 0 failed" "a matrix without [nightly]: its first night passes" \
	"$B" --db "$DB" nightly --send "$T_TMP/m.toml" ||
	t_diag "$(cat "$T_OUT")"
t_grep "$T_OUT" "night 1 of watch-t (running $(uname -r)): pass"
t_ok $? "... said with the running kernel's release whole, not cut to 12"

[ "$(t_q "SELECT kernel || '|' || head || '|' || head_subject || '|' || verdict || '|' || stage FROM nights")" = \
	"running|$(uname -r)|$(uname -v)|pass|done" ]
t_ok $? "stored: the kernel 'running' at uname -r, its build line as the subject, pass, done"

# Two streams held to 200 Mbit/s each, against tens of Gbit/s unheld.
matrix "$T_TMP/m.toml" 200M
t_run 1 timeout 120 "$B" --db "$DB" nightly --send "$T_TMP/m.toml"
st=$?
t_grep "$T_OUT" "judged on tonight's run alone, the running kernel has no other end to measure" &&
	t_grep "$T_OUT" "not mailed, the matrix has no [nightly] table" &&
	t_grep "$T_OUT" "night 2 of watch-t (running $(uname -r)): regression"
t_ok $(($st + $?)) "throughput held down: a regression, judged on its own run, mailed to nobody, exit 1"
[ $st -eq 0 ] || t_diag "$(tail -20 "$T_OUT" "$T_ERR")"

[ "$(t_q "SELECT metric || '|' || state || '|' || (change_pct < -50) FROM regressions")" = "throughput|new|1" ] &&
	t_q "SELECT no_commit FROM regressions" | grep -q "follows this machine's running kernel ($(uname -r), the last good night $(uname -r)): nothing to measure again or bisect"
t_ok $? "stored open (new), throughput down by more than half, why no commit is named"

t_done
