#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The ssh transport against a real sshd on 127.0.0.1 with throwaway keys:
# the agent is copied when missing and left alone when current, it
# answers over ssh, and an unreachable host fails quickly. The checks
# are tests/unit/test-host-ssh.c; this script is its server.
set -eu
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP sshd needs root here"
	exit 0
fi
if [ ! -x /usr/sbin/sshd ] || ! command -v ssh-keygen >/dev/null; then
	echo "1..0 # SKIP openssh-server is not installed"
	exit 0
fi
# The sanitizer build keeps its tests next to its binary.
PROG="$(dirname "$IOMMU_BENCH")/tests/test-host-ssh"
[ -x "$PROG" ] || PROG="$SRCDIR/.output/obj/tests/test-host-ssh"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi

SSHD_PID=
cleanup() {
	if [ -n "$SSHD_PID" ]; then
		kill "$SSHD_PID" 2>/dev/null || :
	fi
	t_cleanup
}
trap cleanup EXIT INT TERM

# A port nothing listens on, from a range the kernel does not hand out.
free_port() {
	p=$1
	while ss -Htln "sport = :$p" | grep -q .; do
		p=$((p + 1))
	done
	echo "$p"
}
PORT=$(free_port $((20000 + $$ % 5000)))
CLOSED=$(free_port $((PORT + 1)))

D="$T_TMP/ssh"
mkdir -p "$D/remote" /run/sshd
chmod 700 "$D"
ssh-keygen -q -t ed25519 -N '' -f "$D/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$D/user_key"
cp "$D/user_key.pub" "$D/authorized_keys"
cat >"$D/sshd_config" <<EOF2
Port $PORT
ListenAddress 127.0.0.1
HostKey $D/host_key
PidFile $D/sshd.pid
AuthorizedKeysFile $D/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
UsePAM no
StrictModes no
Subsystem sftp /usr/lib/openssh/sftp-server
EOF2
cat >"$D/ssh_config" <<EOF2
Host *
	IdentityFile $D/user_key
	IdentitiesOnly yes
	UserKnownHostsFile /dev/null
	StrictHostKeyChecking no
	Port $PORT
	LogLevel ERROR
EOF2

/usr/sbin/sshd -D -e -f "$D/sshd_config" 2>"$D/sshd.log" &
SSHD_PID=$!
i=0
while ! ss -Htln "sport = :$PORT" | grep -q . && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
ss -Htln "sport = :$PORT" | grep -q .
t_ok $? "sshd listens on 127.0.0.1:$PORT"

IOMMU_BENCH_SSH_CONFIG="$D/ssh_config" \
	IOMMU_BENCH_SSH_REMOTE_DIR="$D/remote" SSH_TEST_CLOSED_PORT="$CLOSED" \
	timeout 50 "$PROG" >"$D/prog.out" 2>"$D/prog.err"
status=$?
# Relay the program's own checks as ours, numbered on.
while IFS= read -r line; do
	case "$line" in
	"ok "*) t_ok 0 "${line#ok [0-9]* - }" ;;
	"not ok "*) t_ok 1 "${line#not ok [0-9]* - }" ;;
	"#"*) echo "$line" ;;
	esac
done <"$D/prog.out"
[ "$status" -eq 0 ]
t_ok $? "test-host-ssh exits 0 (status $status)"
[ "$status" -eq 0 ] || t_diag "$(tail -20 "$D/prog.err")" "$(tail -5 "$D/sshd.log")"

t_done
