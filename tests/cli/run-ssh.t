#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# iommu-bench run end to end over ssh: the SUT is an ssh host at
# 127.0.0.1 behind a throwaway sshd, the peer this machine (local), and
# real iperf3 between them over loopback. The agent must be copied to
# the ssh host, and both trials stored ok with a throughput. With perf
# on, each trial's perf.data is written on the ssh host, in the agent's
# artifact folder, and must come home to results/<run>/<trial>/, the
# stored JSON naming it there and the host's folder removed.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"

B=$IOMMU_BENCH
DB=$T_TMP/results/run-ssh.db

cleanup() {
	sshd_stop
	t_cleanup
}
trap cleanup EXIT INT TERM

if ! sshd_usable; then
	echo "1..0 # SKIP sshd needs root and openssh-server"
	exit 0
fi
t_require sqlite3 iperf3
# The SUT's NIC is only watched (collectors), not the data path: any
# real interface does, the one with the default route is one.
NIC=$(ip -o route show default 2>/dev/null | awk '{ print $5; exit }')
if [ -z "$NIC" ]; then
	echo "1..0 # SKIP no interface with a default route to watch"
	exit 0
fi
# perf where it can record system-wide (root, perf installed); else
# the run goes on without it and the perf checks are skipped.
PERF=
if command -v perf >/dev/null 2>&1 &&
	perf record -q -e cpu-clock -a -o "$T_TMP/probe.data" -- true \
		>/dev/null 2>&1; then
	PERF=1
fi

# t_skip REASON: a check that cannot run here.
t_skip() {
	T_N=$((T_N + 1))
	echo "ok $T_N # SKIP $1"
}

sshd_start
export IOMMU_BENCH_SSH_CONFIG="$D/ssh_config"
export IOMMU_BENCH_SSH_REMOTE_DIR="$D/remote"
# iperf3 listens in this machine's own namespace: a port of its own,
# so that concurrent tests cannot collide on 5201.
IPORT=$(free_port $((CLOSED + 1)))

M=$T_TMP/m.toml
cat >"$M" <<EOT
$(matrix_run run-ssh-t 2 '"current"')

[hosts.sut]
transport = "ssh"
role = "sut"
address = "127.0.0.1"
data_address = "127.0.0.1"
user = "root"
nic = "$NIC"

[hosts.peer]
transport = "local"
role = "peer"

$(t_tcp_workload)
port = $IPORT
EOT
if [ -n "$PERF" ]; then
	cat >>"$M" <<EOT

[collect.perf]
enabled = true
event = "cpu-clock"
# Both trials sample, so that both have a perf.data to fetch (profile
# trials of their own, the default, are run.t's).
record = "every"
EOT
fi

# -v: the controller names every file it fetched, and from where.
t_run 0 timeout 50 "$B" -v --db "$DB" run "$M"
t_ok $? "a run with an ssh SUT and a local peer exits 0"
cp "$T_ERR" "$T_TMP/run.err"

[ "$(sqlite3 "$DB" "SELECT count(*) FROM trials")" = 2 ] &&
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM trials WHERE status = 'ok'")" = 2 ] &&
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM metrics WHERE name = 'throughput' AND value > 0")" = 2 ] &&
	[ "$(sqlite3 "$DB" "SELECT status FROM runs")" = done ]
t_ok $? "2 trials ok, each with a throughput > 0, the run done"

# The agent's folder is named by its bundle: this binary and its libraries.
AGENT=$(ls -d "$D"/remote/agent-* 2>/dev/null | head -1)
[ -n "$AGENT" ] && [ -x "$AGENT/iommu-bench" ] &&
	cmp -s "$B" "$AGENT/iommu-bench" && ls "$AGENT"/libjansson.so.* >/dev/null 2>&1
st=$?
t_ok $st "the agent (this binary) and its libraries were copied to the ssh host's remote folder"
[ $st -eq 0 ] || t_diag "$(ls -la "$D/remote")"

if [ -z "$PERF" ]; then
	for i in 1 2 3 4 5; do
		t_skip "perf cannot record system-wide here"
	done
	t_done
	exit
fi

# perf_file F: a whole perf.data, as perf itself reads it.
perf_file() {
	[ -s "$1" ] && [ "$(head -c 8 "$1")" = PERFILE2 ] &&
		perf report -i "$1" --stdio >/dev/null 2>&1
}

TRIALS=$(sqlite3 "$DB" "SELECT t.id, c.run_id FROM trials t JOIN cells c ON c.id = t.cell_id WHERE t.status = 'ok'")
st=0
for row in $TRIALS; do
	f="$T_TMP/results/${row#*|}/${row%|*}/perf.data"
	perf_file "$f" || { st=1; t_diag "not a perf.data: $f"; }
done
[ -n "$TRIALS" ] || st=1
t_ok $st "every trial's perf.data is on the controller in results/<run>/<trial>/, and perf reads it"

st=0
for row in $TRIALS; do
	tid=${row%|*}
	f="$T_TMP/results/${row#*|}/$tid/perf.data"
	j=$(sqlite3 "$DB" "SELECT path FROM artifacts WHERE trial_id = $tid AND kind = 'collectors.json'")
	got=$(sqlite3 :memory: "SELECT json_extract(readfile('$j'), '\$.perf.perf_data')")
	[ "$got" = "$f" ] || { st=1; t_diag "trial $tid: perf_data is '$got', want '$f'"; }
done
t_ok $st "the stored collector JSON names the local perf.data, not the host's"

st=0
for row in $TRIALS; do
	tid=${row%|*}
	f="$T_TMP/results/${row#*|}/$tid/perf.data"
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM artifacts WHERE trial_id = $tid AND kind = 'perf.data' AND path = '$f' AND sha256 = '$(sha256sum "$f" | cut -d' ' -f1)'")" = 1 ] ||
		{ st=1; t_diag "trial $tid: perf.data is not one artifact row with its sha256"; }
done
t_ok $st "each fetched perf.data is one artifact of its trial, with its sha256"

# What the controller fetched, and from where: "fetched REMOTE into LOCAL".
sed -n 's/.*host sut: fetched \(.*\) into .*/\1/p' "$T_TMP/run.err" >"$T_TMP/remote"
st=0
[ "$(wc -l <"$T_TMP/remote")" = 2 ] || st=1
while read -r r; do
	case $r in
	*/iommu-bench-artifacts/*/perf.data) ;;
	*) st=1 ;;
	esac
	[ ! -e "$(dirname "$r")" ] || { st=1; t_diag "left on the host: $(dirname "$r")"; }
done <"$T_TMP/remote"
t_ok $st "both perf.data came from the agent's artifact folders, now removed"
[ $st -eq 0 ] || t_diag "$(grep -i -e fetch -e artifact "$T_TMP/run.err")"

! find "$T_TMP/results" -name '*.part' | grep -q .
t_ok $? "no partial file is left in results/"

t_done
