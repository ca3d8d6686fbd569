#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# lava-up.sh STATE_DIR: bring up a LAVA master + worker on this machine,
# without systemd, with one QEMU device, for `make check`.
#
# The worker shares nothing with the controller, as a lab's remote worker
# would: it runs in a network namespace of its own (WORKER_NS), reached
# only through a veth pair (this machine 10.92.0.1, the worker 10.92.0.2),
# and in a mount namespace of its own where /tmp, /run, /root, /home and
# each folder in $IOMMU_BENCH_LAVA_HIDE (the checkout, the tool) are
# empty tmpfs: its jobs' files come over HTTP or not at all. The server
# answers on 127.0.0.1:8000 and, for the worker, on 10.92.0.1:8000.
#
# Idempotent: what already runs and answers is reused, what is missing is
# started, and provisioning only creates what is not there. Only what this
# script starts gets a STATE_DIR/*.pid; lava-down.sh stops exactly those.
#
# Exit status: 0 up; 1 failed (what failed and the tail of its log go to
# stderr); 77 skipped (LAVA not installed, or not root: one `SKIP: why`
# line on stdout, which the caller turns into a TAP skip).
#
# Leaves in STATE_DIR:
#   url          the server's base URL
#   controller   this machine's address as the worker and its devices see it
#   worker_pid   the worker's pid (its /proc/PID/root is the worker's view)
#   device_type  the device type jobs must ask for
#   device       the device's name
#   token        an API token of the superuser (mode 0600; never printed)
#   *.pid, *.out, *.log   the daemons this script started
#
# Reference for the order and the commands: the hand-made setup in
# shared/reference/lava (README.md, p2-services.sh).
#
# Written for bash; the Makefile runs scripts as `sh FILE`.
[ -n "${BASH_VERSION:-}" ] || exec /bin/bash "$0" "$@"
set -u

# A foreign python3 (pyenv, a venv) ahead of Debian's breaks LAVA's tools,
# whose modules only Debian's python3 has.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
unset PYTHONPATH PYTHONHOME PYTHONSTARTUP VIRTUAL_ENV

URL=http://127.0.0.1:8000
API=$URL/api/v0.2
# The worker's own network: a namespace and a veth pair to this machine.
WORKER_NS=iommu-bench-lava
CTL_IP=10.92.0.1
WORKER_IP=10.92.0.2
WORKER_URL=http://$CTL_IP:8000
WS_URL=http://$CTL_IP:8001/ws/
# Where the worker keeps its jobs, token and log: outside what it cannot
# see (STATE_DIR is under /tmp).
WORKER_HOME=/var/lib/iommu-bench-lava-worker
PUBLISHER_PORT=8001
LAVA_USER=iommu-bench
WORKER=iommu-bench-ci
# Two devices of our own device type (bench/host/lava/device-type/), which
# leaves the machine and the NICs to the job: a multinode job's sut and
# peer, or any two single jobs. Both are on the lab's network, which for
# QEMU devices on one worker is a multicast socket.
DEVICE=iommu-bench-vm01
DEVICES="iommu-bench-vm01 iommu-bench-vm02"
LAB_NETWORK=230.0.92.1:9292
# The multinode coordinator the worker's jobs reach (its conf, bound over
# /etc/lava-coordinator/lava-coordinator.conf in the worker's mounts).
COORD_PORT=3079
DEVICE_TYPE=iommu-bench-qemu
DEVICES_DIR=/etc/lava-server/dispatcher-config/devices
TYPES_DIR=/etc/lava-server/dispatcher-config/device-types
TEMPLATE=$(cd "$(dirname "$0")/../../bench/host/lava/device-type" && pwd)/$DEVICE_TYPE.jinja2
# The worker learns of a job scheduled for it at its next ping: 5 s, not
# its 20 s default, for a lab whose jobs are a test's.
PING_S=5
# Seconds any single wait may take; cold start takes a few.
TIMEOUT=${IOMMU_BENCH_LAVA_TIMEOUT:-60}

if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "usage: $0 STATE_DIR" >&2
	exit 2
fi
STATE=$1

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: lava-up needs root (daemons run as lavaserver, devices in /etc)"
	exit 77
fi
for pkg in postgresql lava-server lava-dispatcher lava-coordinator lavacli; do
	if ! dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null |
		grep -q ' installed$'; then
		echo "SKIP: $pkg is not installed (scripts/install-deps.sh installs it)"
		exit 77
	fi
done
for cmd in curl pg_lsclusters pg_ctlcluster pg_isready gunicorn3 lava-server \
	lava-worker lava-coordinator /usr/bin/python3 ss pgrep ip unshare; do
	if ! command -v "$cmd" >/dev/null 2>&1; then
		echo "SKIP: $cmd not found"
		exit 77
	fi
done

mkdir -p "$STATE" || exit 1
STATE=$(cd "$STATE" && pwd) || exit 1
# gunicorn writes its log there as lavaserver: a folder under a 0700 one
# (mktemp -d's) starts the server, which then never answers.
if ! runuser -u lavaserver -- test -w "$STATE" 2>/dev/null &&
	! { chown lavaserver "$STATE" &&
		runuser -u lavaserver -- test -w "$STATE" 2>/dev/null; }; then
	echo "lava-up: $STATE must be reachable and writable by the lavaserver" \
		"user (is a folder above it mode 0700?)" >&2
	exit 1
fi

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
T_ALL=$(now)
SUMMARY=

note() { SUMMARY="$SUMMARY$*
"; }

# Logs may quote a token back (a rejected one, a request line): mask both.
redact() {
	local t w
	t=$(cat "$STATE/token" 2>/dev/null)
	w=$(cat "$STATE/worker-token" 2>/dev/null)
	sed -e "s/${t:-@@none@@}/<token>/g" -e "s/${w:-@@none@@}/<worker-token>/g"
}

# die MESSAGE [LOG...]: say what failed, with the end of each log that
# could tell why.
die() {
	local msg=$1 log
	shift
	echo "lava-up: FAILED: $msg" >&2
	for log in "$@"; do
		[ -s "$log" ] || continue
		echo "lava-up: --- last lines of $log" >&2
		tail -n 25 "$log" | redact >&2
	done
	exit 1
}

manage() { lava-server manage "$@"; }

server_answers() {
	curl -sf -m 5 -o /dev/null "$API/system/version/"
}

# rest_get PATH KEY...: the KEYs of the JSON object at PATH, tab-separated,
# or nothing (status 1) when it does not exist.
rest_get() {
	local path=$1
	shift
	curl -sf -m 10 "$API/$path" 2>/dev/null |
		/usr/bin/python3 2>/dev/null -c '
import json, sys
d = json.load(sys.stdin)
print("\t".join(str(d.get(k) if d.get(k) is not None else "") for k in sys.argv[1:]))
' "$@"
}

# A stored pid counts only while it is alive and still runs what we started
# (pids are reused).
pid_alive() {
	local file=$STATE/$1.pid what=$2 pid
	[ -s "$file" ] || return 1
	pid=$(cat "$file")
	case $pid in '' | *[!0-9]*) return 1 ;; esac
	[ -r "/proc/$pid/cmdline" ] || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$what"
}

# launch NAME CMD...: run CMD in its own session (lava-down.sh kills the
# whole group), stdin from /dev/null, output in STATE/NAME.out. Inherited
# descriptors above 2 are closed first: a daemon holding the pipe of a
# caller (make, a TAP harness) would keep it from ever seeing EOF.
launch() {
	local name=$1
	shift
	rm -f "$STATE/$name.pid"
	# shellcheck disable=SC2016 # expanded by the inner bash
	setsid bash -c '
		for fd in /proc/$$/fd/*; do
			n=${fd##*/}
			[ "$n" -gt 2 ] && eval "exec $n>&-"
		done
		echo $$ >"$0.pid"
		exec "$@"' "$STATE/$name" "$@" >"$STATE/$name.out" 2>&1 </dev/null &
	# setsid forks when we lead a process group, so $! may not be the
	# daemon: the daemon writes its own pid.
	for _ in $(seq 1 50); do
		[ -s "$STATE/$name.pid" ] && return 0
		sleep 0.1
	done
	die "$name did not start" "$STATE/$name.out"
}

# wait_for SECONDS WHAT CMD...: poll CMD until it succeeds.
wait_for() {
	local secs=$1 what=$2 end
	shift 2
	end=$(($(date +%s) + secs))
	while ! "$@"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.5
	done
}

close_fds_run() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	bash -c '
		for fd in /proc/$$/fd/*; do
			n=${fd##*/}
			[ "$n" -gt 2 ] && eval "exec $n>&-"
		done
		exec "$@"' bash "$@"
}

# --- PostgreSQL -----------------------------------------------------------
t=$(now)
# The cluster lava-server's postinst configured: Debian 12's is 15/main;
# ask rather than assume.
read -r PG_VER PG_NAME PG_PORT PG_STATUS _ < <(pg_lsclusters -h |
	awk '$2 == "main" { print; found = 1; exit }
		END { if (!found) exit 1 }' || pg_lsclusters -h | head -n 1)
[ -n "${PG_VER:-}" ] || die "no PostgreSQL cluster (pg_lsclusters is empty)"
PG_LOG=/var/log/postgresql/postgresql-$PG_VER-$PG_NAME.log
if [ "$PG_STATUS" != online ]; then
	# postgres outlives us: it must not hold our caller's descriptors.
	if ! close_fds_run pg_ctlcluster "$PG_VER" "$PG_NAME" start \
		>"$STATE/postgres.out" 2>&1 </dev/null; then
		grep -qi 'already running' "$STATE/postgres.out" ||
			die "pg_ctlcluster $PG_VER $PG_NAME start" \
				"$STATE/postgres.out" "$PG_LOG"
	fi
	# lava-down.sh --stop-postgres stops only a cluster we started.
	echo "$PG_VER $PG_NAME" >"$STATE/postgres.started"
	pg_note=started
else
	pg_note=running
fi
wait_for "$TIMEOUT" postgres pg_isready -q -h /var/run/postgresql -p "$PG_PORT" ||
	die "PostgreSQL $PG_VER/$PG_NAME not ready after ${TIMEOUT}s" "$PG_LOG"
note "postgres   $(since "$t")s ($PG_VER/$PG_NAME $pg_note)"

# --- The worker's network --------------------------------------------------
t=$(now)
ns_ready() {
	ip netns exec "$WORKER_NS" ip -4 addr show dev ibl1 2>/dev/null |
		grep -q "inet $WORKER_IP/" &&
		ip -4 addr show dev ibl0 2>/dev/null | grep -q "inet $CTL_IP/"
}
if ns_ready; then
	ns_note=reused
else
	ip netns del "$WORKER_NS" 2>/dev/null
	ip link del ibl0 2>/dev/null
	{
		ip netns add "$WORKER_NS" &&
			ip link add ibl0 type veth peer name ibl1 &&
			ip link set ibl1 netns "$WORKER_NS" &&
			ip addr add "$CTL_IP/24" dev ibl0 &&
			ip link set ibl0 up &&
			ip -n "$WORKER_NS" addr add "$WORKER_IP/24" dev ibl1 &&
			ip -n "$WORKER_NS" link set ibl1 up &&
			ip -n "$WORKER_NS" link set lo up &&
			ip -n "$WORKER_NS" route add default via "$CTL_IP"
	} >"$STATE/netns.out" 2>&1 || die "the worker's network namespace" \
		"$STATE/netns.out"
	# lava-down.sh removes only what this state dir made.
	echo "$WORKER_NS" >"$STATE/netns.created"
	ns_note=made
fi
note "network    $(since "$t")s (netns $WORKER_NS $ns_note: worker $WORKER_IP, this machine $CTL_IP)"

# --- Server: gunicorn, publisher, scheduler -------------------------------
# Each is started only if nothing serves its role yet: one instance per
# machine is enough, whoever started it.
t=$(now)
started=
# Events (a job submitted, a device Idle) go from the server through the
# publisher to the scheduler, which then schedules at once instead of at
# its next 20 s pass: every job of a test starts that much sooner.
LAVA_YAML_SETTINGS_EVENT_NOTIFICATION=true
export LAVA_YAML_SETTINGS_EVENT_NOTIFICATION
if ! server_answers && ! pid_alive gunicorn gunicorn; then
	# The packaged unit's command line, on loopback only, 2 workers for 2
	# CPUs (the unit's 4 thrash here).
	# Django answers only the host names it is told of: the worker's
	# requests name 10.92.0.1.
	ALLOWED_HOSTS=$CTL_IP launch gunicorn /usr/bin/gunicorn3 \
		lava_server.wsgi --log-level DEBUG \
		--log-file "$STATE/gunicorn.log" -u lavaserver -g lavaserver \
		--worker-class eventlet --workers 2 --bind 127.0.0.1:8000 \
		--bind "$CTL_IP:8000"
	started="$started gunicorn"
fi
publisher_listens() {
	[ -n "$(ss -Hltn "sport = :$PUBLISHER_PORT" 2>/dev/null)" ]
}
if ! publisher_listens && ! pid_alive publisher lava-publisher; then
	launch publisher /usr/bin/lava-server manage lava-publisher \
		--level DEBUG --log-file "$STATE/publisher.log" \
		--host "$CTL_IP" --port "$PUBLISHER_PORT"
	started="$started publisher"
fi
# The scheduler has no port to probe: look for its command line.
if ! pid_alive scheduler lava-scheduler &&
	! pgrep -f 'lava-server manage lava-scheduler' >/dev/null; then
	launch scheduler /usr/bin/lava-server manage lava-scheduler \
		--level DEBUG --log-file "$STATE/scheduler.log"
	started="$started scheduler"
fi
wait_for "$TIMEOUT" gunicorn server_answers ||
	die "$URL does not answer after ${TIMEOUT}s" \
		"$STATE/gunicorn.out" "$STATE/gunicorn.log"
# A server someone else started on loopback alone is of no use to a
# worker that reaches it only by IP.
worker_reaches() {
	ip netns exec "$WORKER_NS" curl -sf -m 5 -o /dev/null \
		"$WORKER_URL/api/v0.2/system/version/"
}
wait_for "$TIMEOUT" "the worker's view" worker_reaches ||
	die "the worker's namespace does not reach $WORKER_URL (a server" \
		"started elsewhere, on 127.0.0.1 only?)" "$STATE/gunicorn.log"
wait_for "$TIMEOUT" publisher publisher_listens ||
	die "nothing listens on :$PUBLISHER_PORT after ${TIMEOUT}s" \
		"$STATE/publisher.out" "$STATE/publisher.log"
# The multinode coordinator: sub-jobs of one multinode job pass their
# messages (lava-send, lava-wait) through it. It listens on every address;
# the worker is told 10.92.0.1.
coordinator_listens() {
	[ -n "$(ss -Hltn "sport = :$COORD_PORT" 2>/dev/null)" ]
}
if ! coordinator_listens && ! pid_alive coordinator lava-coordinator; then
	printf '{"port": %d, "blocksize": 4096, "poll_delay": 3, "coordinator_hostname": "%s"}\n' \
		"$COORD_PORT" "$CTL_IP" >"$STATE/coordinator.conf"
	launch coordinator /usr/bin/lava-coordinator --loglevel DEBUG \
		--logfile "$STATE/coordinator.log" --config "$STATE/coordinator.conf"
	started="$started coordinator"
fi
wait_for "$TIMEOUT" coordinator coordinator_listens ||
	die "lava-coordinator does not listen on :$COORD_PORT after ${TIMEOUT}s" \
		"$STATE/coordinator.out" "$STATE/coordinator.log"
# A scheduler that cannot reach the database dies at once: catch it here,
# not as a job that never starts.
case $started in *scheduler*)
	sleep 1
	pid_alive scheduler lava-scheduler ||
		die "lava-scheduler exited" "$STATE/scheduler.out" "$STATE/scheduler.log"
	;;
esac
note "server     $(since "$t")s (${started:+started:}${started:-reused})"

# --- Provisioning ---------------------------------------------------------
t=$(now)
PLOG=$STATE/provision.log
: >"$PLOG"
# manage_ok EXISTS_RE ARGS...: run a manage command; failing because the
# object exists already (its error matches EXISTS_RE, if not empty) is
# success. Its stdout is dropped: `workers add` prints the worker's token,
# `users add` a password.
manage_ok() {
	local re=$1 out rc
	shift
	out=$(manage "$@" 2>&1 >/dev/null)
	rc=$?
	printf '%s\n' "+ manage $*" "$out" >>"$PLOG"
	[ $rc -eq 0 ] && return 0
	[ -n "$re" ] && printf '%s\n' "$out" | grep -q "$re" && return 0
	die "lava-server manage $*" "$PLOG"
}

# The worker. `workers add` prints its token: never to our output.
IFS=$'\t' read -r w_health _ < <(rest_get "workers/$WORKER/" health)
if [ -z "${w_health:-}" ]; then
	manage_ok 'already exists' workers add "$WORKER" \
		--description "iommu-bench make check"
	w_health=Active
fi
if [ "$w_health" != Active ]; then
	manage_ok '' workers update --health ACTIVE "$WORKER"
fi

# Our device type, as a lab's admin installs it (docs/lava.md).
[ -r "$TEMPLATE" ] || die "no device type template at $TEMPLATE"
if ! cmp -s "$TEMPLATE" "$TYPES_DIR/$DEVICE_TYPE.jinja2"; then
	install -D -o lavaserver -g lavaserver -m 644 "$TEMPLATE" \
		"$TYPES_DIR/$DEVICE_TYPE.jinja2" ||
		die "installing $TYPES_DIR/$DEVICE_TYPE.jinja2"
fi

# Each device's dictionary: QEMU without KVM (the template otherwise adds
# -accel kvm, which hangs here), on the lab's network.
provision_device() {
	local dev=$1 dict d_type d_health d_worker
	dict=$(mktemp)
	cat >"$dict" <<EOF
{% extends '$DEVICE_TYPE.jinja2' %}
{% set no_kvm = True %}
{% set memory = 1024 %}
{% set lab_network = '$LAB_NETWORK' %}
EOF
	if ! cmp -s "$dict" "$DEVICES_DIR/$dev.jinja2"; then
		install -o lavaserver -g lavaserver -m 644 "$dict" \
			"$DEVICES_DIR/$dev.jinja2" ||
			{ rm -f "$dict"; die "installing $DEVICES_DIR/$dev.jinja2"; }
	fi
	rm -f "$dict"
	# The REST API hides what it will not show anonymously (a retired
	# device): `add` saying it exists sends us to `update` anyway.
	IFS=$'\t' read -r d_type d_health d_worker _ < \
		<(rest_get "devices/$dev/" device_type health worker_host)
	if [ -z "${d_type:-}" ]; then
		manage_ok 'already exists' device-types add "$DEVICE_TYPE"
		manage_ok 'already exists' devices add --device-type "$DEVICE_TYPE" \
			--worker "$WORKER" "$dev"
		IFS=$'\t' read -r d_type d_health d_worker _ < \
			<(rest_get "devices/$dev/" device_type health worker_host)
	fi
	if [ -n "${d_type:-}" ] && [ "$d_type" != "$DEVICE_TYPE" ]; then
		die "device $dev exists with type $d_type, not $DEVICE_TYPE"
	fi
	if [ "${d_health:-}" != Good ] || [ "${d_worker:-}" != "$WORKER" ]; then
		manage_ok '' devices update --health GOOD --worker "$WORKER" "$dev"
	fi
}
for dev in $DEVICES; do
	provision_device "$dev"
done
# A device type with no device: a job for it is one LAVA refuses, which
# the lava test needs to see refused with LAVA's own words.
manage_ok 'already exists' device-types add iommu-bench-empty

# The API token. A token left by an earlier run is kept while it still
# logs in as our user: no pile of tokens from warm re-runs.
# The token goes to curl on stdin (printf is a builtin): an argument
# would show in ps.
whoami() {
	printf 'header = "Authorization: Token %s"\n' "$(cat "$STATE/token")" |
		curl -sf -m 10 -K - "$API/system/whoami/" 2>/dev/null |
		/usr/bin/python3 2>/dev/null -c \
			'import json, sys; print(json.load(sys.stdin)["user"])'
}
if [ ! -s "$STATE/token" ] || [ "$(whoami)" != "$LAVA_USER" ]; then
	if ! manage users list 2>>"$PLOG" | grep -qx "\* $LAVA_USER"; then
		# The random password it prints is dropped: the token is how we
		# log in.
		manage_ok 'already exists' users add "$LAVA_USER" --superuser \
			--staff --email "$LAVA_USER@localhost"
	fi
	rm -f "$STATE/token"
	(
		umask 077
		manage tokens add --user "$LAVA_USER" \
			--description "iommu-bench make check" \
			>"$STATE/token.new" 2>>"$PLOG" &&
			tr -d '[:space:]' <"$STATE/token.new" >"$STATE/token"
	) || { rm -f "$STATE/token.new"; die "tokens add --user $LAVA_USER" "$PLOG"; }
	rm -f "$STATE/token.new"
	[ "$(whoami)" = "$LAVA_USER" ] ||
		die "the new token does not log in as $LAVA_USER" "$PLOG"
fi
note "provision  $(since "$t")s (user $LAVA_USER, worker $WORKER, devices $DEVICES)"

# --- Worker daemon --------------------------------------------------------
t=$(now)
# Online is only as fresh as the last ping: the server keeps saying Online
# for a while after a worker died, so also require a live process.
worker_fresh() {
	local state ping age
	IFS=$'\t' read -r state ping < <(rest_get "workers/$WORKER/" state last_ping)
	[ "${state:-}" = Online ] && [ -n "${ping:-}" ] || return 1
	age=$(($(date +%s) - $(date -d "$ping" +%s)))
	[ "$age" -le 60 ]
}
worker_pids() {
	pgrep -f "lava-worker .*--name $WORKER( |\$)"
}
w_note=reused
if pid_alive lava-worker lava-worker && worker_fresh; then
	:
elif ! pid_alive lava-worker lava-worker && worker_pids >/dev/null &&
	wait_for "$TIMEOUT" worker worker_fresh; then
	# Another state dir's worker serves our device: fine.
	:
elif worker_pids >/dev/null && ! pid_alive lava-worker lava-worker; then
	die "a lava-worker named $WORKER runs (pid $(worker_pids | tr '\n' ' '))" \
		"but is not online; not ours to stop"
else
	if pid_alive lava-worker lava-worker; then
		# Ours but not online (a bad token?): start it afresh.
		pgid=$(cat "$STATE/lava-worker.pid")
		kill -TERM -- "-$pgid" 2>/dev/null
		group_gone() { ! kill -0 -- "-$pgid" 2>/dev/null; }
		wait_for 10 "worker exit" group_gone ||
			kill -KILL -- "-$pgid" 2>/dev/null
	fi
	rm -rf "$WORKER_HOME"
	mkdir -p -m 0700 "$WORKER_HOME" || die "mkdir $WORKER_HOME"
	(
		umask 077
		manage workers details "$WORKER" 2>>"$PLOG" |
			sed -n 's/^token *: *//p' >"$WORKER_HOME/token"
	)
	[ -s "$WORKER_HOME/token" ] ||
		die "no token in \`workers details $WORKER\`" "$PLOG"
	cp "$WORKER_HOME/token" "$STATE/worker-token" # for redact()
	# Its own job database: the default one is shared with any other
	# worker on this machine, which would then claim our jobs.
	# tmp/ too: a cancel the server sends at once (a job a killed worker
	# left) makes the worker create its folder there, and it dies without.
	mkdir -p "$WORKER_HOME/jobs/tmp" /var/log/lava-dispatcher
	ln -sf "$WORKER_HOME/lava-worker.log" "$STATE/lava-worker.log"
	# Where its multinode jobs find the coordinator: this machine, as the
	# worker reaches it (the dispatcher reads only the system's path).
	printf '{"port": %d, "blocksize": 4096, "poll_delay": 3, "coordinator_hostname": "%s"}\n' \
		"$COORD_PORT" "$CTL_IP" >"$WORKER_HOME/coordinator.conf"
	[ -f /etc/lava-coordinator/lava-coordinator.conf ] ||
		die "no /etc/lava-coordinator/lava-coordinator.conf (is lava-coordinator installed?)"
	hide="/tmp /run /root /home"
	for d in ${IOMMU_BENCH_LAVA_HIDE:-}; do
		case $d in /*) [ -d "$d" ] && hide="$hide $d" ;; esac
	done
	t_start=$(date +%s)
	# Its network first (ip netns exec needs /run/netns), then its own
	# mounts: everything of ours it could read is hidden under tmpfs.
	# shellcheck disable=SC2016 # expanded by the inner sh
	launch lava-worker ip netns exec "$WORKER_NS" \
		unshare --mount --propagation private sh -c '
			hide=$1
			conf=$2
			shift 2
			mount --bind "$conf" /etc/lava-coordinator/lava-coordinator.conf ||
				exit 1
			for d in $hide; do
				# Gone already: under a folder hidden before it.
				[ -d "$d" ] || continue
				mount -t tmpfs -o mode=0755 hidden "$d" || exit 1
			done
			exec "$@"' sh "$hide" "$WORKER_HOME/coordinator.conf" \
		/usr/bin/lava-worker --level DEBUG \
		--name "$WORKER" --url "$WORKER_URL/" --ws-url "$WS_URL" \
		--token-file "$WORKER_HOME/token" \
		--worker-dir "$WORKER_HOME/jobs" --ping-interval "$PING_S" \
		--log-file "$WORKER_HOME/lava-worker.log"
	worker_pinged() {
		local state ping
		IFS=$'\t' read -r state ping < <(rest_get "workers/$WORKER/" state last_ping)
		[ "${state:-}" = Online ] && [ -n "${ping:-}" ] &&
			[ "$(date -d "$ping" +%s)" -ge "$t_start" ]
	}
	wait_for "$TIMEOUT" worker worker_pinged ||
		die "worker $WORKER not online after ${TIMEOUT}s" \
			"$STATE/lava-worker.out" "$STATE/lava-worker.log"
	w_note=started
fi
# A job cut short (lava-down.sh mid-job, a crash) leaves the device
# Unknown once the worker reports it gone; with no health check defined
# for qemu nothing would ever make it Good again. A QEMU device has no
# hardware to be in doubt about: declare it Good.
# Busy is ready too on a worker we reused: that is another client's job,
# and ours queue behind it. On a worker we just started it is a job that
# died with the old one, which the new one reports gone within a ping.
device_ready() {
	local dev=$1 health
	IFS=$'\t' read -r DEV_STATE health < <(rest_get "devices/$dev/" state health)
	if [ "${DEV_STATE:-}" = Idle ]; then
		[ "${health:-}" = Good ] && return 0
		manage devices update --health GOOD --worker "$WORKER" "$dev" \
			>>"$PLOG" 2>&1
		return 1
	fi
	[ "$w_note" = reused ] || return 1
	case ${DEV_STATE:-}/${health:-} in
	Reserved/Good | Reserved/Unknown | Running/Good | Running/Unknown) return 0 ;;
	esac
	return 1
}
for dev in $DEVICES; do
	if ! wait_for "$TIMEOUT" device device_ready "$dev"; then
		IFS=$'\t' read -r d_state d_health < <(rest_get "devices/$dev/" state health)
		die "device $dev is ${d_state:-?}/${d_health:-?}, not Idle/Good, after ${TIMEOUT}s" \
			"$STATE/scheduler.log" "$STATE/lava-worker.log"
	fi
done
note "worker     $(since "$t")s ($w_note; device $DEV_STATE)"

echo "$URL" >"$STATE/url"
echo "$CTL_IP" >"$STATE/controller"
pgrep -f "lava-worker .*--name $WORKER( |\$)" | head -n 1 >"$STATE/worker_pid"
echo "$DEVICE_TYPE" >"$STATE/device_type"
echo "$DEVICE" >"$STATE/device"

printf '%s' "$SUMMARY" | sed 's/^/lava-up: /'
echo "lava-up: up in $(since "$T_ALL")s: $URL, devices $DEVICES ($DEVICE_TYPE), token in $STATE/token"
