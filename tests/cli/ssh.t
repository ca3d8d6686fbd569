#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The ssh transport against a real sshd on 127.0.0.1 with throwaway keys:
# the agent is copied when missing and left alone when current, it
# answers over ssh, and an unreachable host fails quickly. The checks
# are tests/unit/test-host-ssh.c; this script is its server.
set -eu
. "$(dirname "$0")/lib.sh"

t_require_root "sshd needs root here"
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

. "$(dirname "$0")/sshd.sh"
cleanup() {
	sshd_stop
	t_cleanup
}
trap cleanup EXIT INT TERM

sshd_start

IOMMU_BENCH_SSH_CONFIG="$D/ssh_config" \
	IOMMU_BENCH_SSH_REMOTE_DIR="$D/remote" SSH_TEST_CLOSED_PORT="$CLOSED" \
	timeout 50 "$PROG" >"$D/prog.out" 2>"$D/prog.err"
status=$?
t_relay "$D/prog.out"
[ "$status" -eq 0 ]
t_ok $? "test-host-ssh exits 0 (status $status)"
[ "$status" -eq 0 ] || t_diag "$(tail -20 "$D/prog.err")" "$(tail -5 "$D/sshd.log")"

t_done
