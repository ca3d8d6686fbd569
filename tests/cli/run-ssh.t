#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# iommu-bench run end to end over ssh: the SUT is an ssh host at
# 127.0.0.1 behind a throwaway sshd, the peer this machine (local), and
# real iperf3 between them over loopback. The agent must be copied to
# the ssh host, and both trials stored ok with a throughput.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"

B=$IOMMU_BENCH
DB=$T_TMP/results/run-ssh.db
SSHD_PID=

cleanup() {
	if [ -n "$SSHD_PID" ]; then
		kill "$SSHD_PID" 2>/dev/null || :
	fi
	t_cleanup
}
trap cleanup EXIT INT TERM

if ! sshd_usable; then
	echo "1..0 # SKIP sshd needs root and openssh-server"
	exit 0
fi
for tool in sqlite3 iperf3; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "1..0 # SKIP $tool is not installed"
		exit 0
	fi
done
# The SUT's NIC is only watched (collectors), not the data path: any
# real interface does, the one with the default route is one.
NIC=$(ip -o route show default 2>/dev/null | awk '{ print $5; exit }')
if [ -z "$NIC" ]; then
	echo "1..0 # SKIP no interface with a default route to watch"
	exit 0
fi
sshd_start
export IOMMU_BENCH_SSH_CONFIG="$D/ssh_config"
export IOMMU_BENCH_SSH_REMOTE_DIR="$D/remote"
# iperf3 listens in this machine's own namespace: a port of its own,
# so that concurrent tests cannot collide on 5201.
IPORT=$(free_port $((CLOSED + 1)))

M=$T_TMP/m.toml
cat >"$M" <<EOT
[run]
name = "run-ssh-t"
repetitions = 2
warmup = 0
cooldown = "0s"
modes = ["current"]

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

[[workloads]]
name = "tcp"
server = "sut"
client = "peer"
duration = "1s"
port = $IPORT
EOT

t_run 0 timeout 50 "$B" --db "$DB" run "$M"
t_ok $? "a run with an ssh SUT and a local peer exits 0"

[ "$(sqlite3 "$DB" "SELECT count(*) FROM trials")" = 2 ] &&
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM trials WHERE status = 'ok'")" = 2 ] &&
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM metrics WHERE name = 'throughput' AND value > 0")" = 2 ] &&
	[ "$(sqlite3 "$DB" "SELECT status FROM runs")" = done ]
t_ok $? "2 trials ok, each with a throughput > 0, the run done"

[ -x "$D/remote/iommu-bench" ] && cmp -s "$B" "$D/remote/iommu-bench"
st=$?
t_ok $st "the agent (this binary) was copied to the ssh host's remote folder"
[ $st -eq 0 ] || t_diag "$(ls -la "$D/remote")"

t_done
