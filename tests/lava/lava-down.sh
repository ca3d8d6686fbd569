#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# lava-down.sh STATE_DIR [--stop-postgres]: stop what lava-up.sh STATE_DIR
# started, by the pids it stored, and nothing else: a LAVA someone else
# started and lava-up.sh reused keeps running.
#
# Idempotent: a missing or stale pid file is skipped. PostgreSQL keeps
# running (restarting it costs more than it saves) unless --stop-postgres
# is given and lava-up.sh is the one that started it.
#
# Exit status: 0 stopped (or nothing to stop), 1 a process group survived
# SIGKILL.
#
# Written for bash; the Makefile runs scripts as `sh FILE`.
[ -n "${BASH_VERSION:-}" ] || exec /bin/bash "$0" "$@"
set -u

PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ -z "$1" ] ||
	{ [ $# -eq 2 ] && [ "$2" != --stop-postgres ]; }; then
	echo "usage: $0 STATE_DIR [--stop-postgres]" >&2
	exit 2
fi
STATE=$1
STOP_PG=${2:-}
[ -d "$STATE" ] || exit 0

since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# stop NAME MARKER SIGNAL: signal the process group lava-up.sh started as
# NAME (setsid: pid == pgid), then SIGKILL what is left after a grace time.
# The pid must still run MARKER and lead its group: a pid reused since by
# something else is left alone.
stop() {
	local name=$1 marker=$2 sig=$3 file=$STATE/$1.pid pid pgid i job g left
	local survived=0 t
	t=$(date +%s.%N)
	[ -s "$file" ] || return 0
	pid=$(cat "$file")
	case $pid in '' | *[!0-9]*)
		rm -f "$file"
		return 0
		;;
	esac
	if ! [ -r "/proc/$pid/cmdline" ] ||
		! tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$marker"; then
		rm -f "$file"
		return 0
	fi
	pgid=$(ps -o pgid= -p "$pid" | tr -d ' ')
	if [ "$pgid" != "$pid" ]; then
		echo "lava-down: $name (pid $pid) does not lead its process group;" \
			"signalling the pid only" >&2
		pgid=
	fi
	# lava-worker starts each job's lava-run in a group of its own (so that
	# jobs outlive a worker restart); a test teardown must not leave QEMU
	# behind, so those groups go too. lava-run cancels its job on SIGTERM.
	local groups=${pgid:+-$pgid}
	[ -n "$pgid" ] || groups=$pid
	if [ "$name" = lava-worker ]; then
		for job in $(ps -o pid= --ppid "$pid"); do
			[ "$(ps -o pgid= -p "$job" | tr -d ' ')" = "$job" ] &&
				groups="$groups -$job"
		done
	fi
	# shellcheck disable=SC2086 # one argument per group
	kill -s "$sig" -- $groups 2>/dev/null
	for i in $(seq 1 100); do
		left=
		for g in $groups; do
			kill -0 -- "$g" 2>/dev/null && left="$left $g"
		done
		[ -z "$left" ] && break
		# 10 s: gunicorn's graceful stop and lava-run's cancel fit in it.
		[ "$i" -lt 100 ] && sleep 0.1
	done
	if [ -n "$left" ]; then
		echo "lava-down: $name did not stop on SIG$sig; SIGKILL" >&2
		# shellcheck disable=SC2086 # one argument per group
		kill -s KILL -- $left 2>/dev/null
		sleep 0.5
		for g in $left; do
			if kill -0 -- "$g" 2>/dev/null; then
				echo "lava-down: $name: group ${g#-} survived SIGKILL" >&2
				survived=1
			fi
		done
	fi
	rm -f "$file"
	echo "lava-down: stopped $name (pid $pid) in $(since "$t")s"
	return $survived
}

rc=0
# The worker (and its jobs) first, so that no job is handed out while the
# server goes away; then the server's three and the coordinator at once: the publisher alone
# takes 5 s to drain.
stop lava-worker lava-worker TERM || rc=1
stop scheduler lava-scheduler TERM &
p1=$!
# lava-publisher ignores SIGTERM; it stops on SIGINT.
stop publisher lava-publisher INT &
p2=$!
stop gunicorn gunicorn TERM &
p3=$!
stop coordinator lava-coordinator TERM &
p4=$!
for p in $p1 $p2 $p3 $p4; do
	wait "$p" || rc=1
done

# The worker's network, only when this state dir made it.
if [ -s "$STATE/netns.created" ]; then
	ip netns del "$(cat "$STATE/netns.created")" 2>/dev/null
	ip link del ibl0 2>/dev/null
	rm -f "$STATE/netns.created"
fi

if [ "$STOP_PG" = --stop-postgres ] && [ -s "$STATE/postgres.started" ]; then
	# shellcheck disable=SC2046 # "VERSION CLUSTER"
	pg_ctlcluster $(cat "$STATE/postgres.started") stop &&
		rm -f "$STATE/postgres.started"
fi
exit $rc
