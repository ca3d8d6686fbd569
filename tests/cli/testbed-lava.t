#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# transport = "lava" against a real LAVA master and worker on this
# machine (tests/lava/lava-up.sh: Debian's lava-server, lava-dispatcher
# and PostgreSQL, started without systemd; two qemu devices, TCG): no fake
# lab and no recorded answers. The worker shares nothing with us: its
# own network namespace (reached by IP only) and its own mounts, where
# this checkout, the tool, /tmp, /run and /root are empty. Its jobs
# fetch the kernel and the agent's whole root from our artifact server,
# and the agent dials us and proves the job's secret.
#
#   - the worker's view: none of our files, another network; each job
#     names its files by http:// URL and sha256 (no file://, no 9p, no
#     socket of ours); the job's secret in no definition, log, message
#     or the store; an agent with a wrong secret refused, nothing stored;
#   - bad input is refused before any trial, in words: a lab that does
#     not answer, a token it refuses (and the token never printed), a
#     device type it lacks (did you mean), a job it refuses (its own
#     message), a token written into the matrix, a device type whose
#     template the matrix names wrong;
#   - strict and lazy, two trials each, on the testbed's Debian 6.1
#     booted by one LAVA job per mode on our device type (virtio-net
#     behind the intel vIOMMU): iperf3 from the LAVA guest to this
#     machine through user-mode networking, the probes in the guest.
#     The run is killed with SIGKILL while its first job runs and
#     resumed: the job is adopted, not submitted again (two jobs in all,
#     in the store and in LAVA's own list), both Complete; the modes are
#     verified inside the guest, throughput and probe counts are > 0,
#     strict syncs the IOTLB per unmap and lazy defers it;
#   - a job whose worker cannot reach our artifact server fails its boot,
#     in words (nothing fetched), once half the boot timeout has passed
#     (LAVA itself would retry for ten minutes), and no second boot;
#   - a mode whose kernel cannot boot (rdinit= names no init: a panic,
#     QEMU exits) has
#     its job end Incomplete, and only its trials fail, with LAVA's
#     reason;
#   - SIGINT while a job is queued cancels it in LAVA;
#   - the worker's link to us down during a trial's iperf3: that trial
#     fails, and the run goes on once the agent dials in again;
#   - the workload's peer as a device of the lab: a LAVA multinode job
#     (roles sut and peer, both essential) boots the SUT and a peer
#     device together, tx and rx run between them on the lab's network
#     (the device type's lab_network), both agents on the channel; a
#     peer device that never comes up (its agent never answers) has the
#     multinode job canceled and the trials of that boot fail with the
#     reason.
#
# Needs root, QEMU, the testbed's kernel and LAVA (scripts/install-deps.sh
# installs it unless IOMMU_BENCH_NO_LAVA=1); skipped with the reason
# otherwise. About 6 minutes.
set -eu
. "$(dirname "$0")/lib.sh"

B=$IOMMU_BENCH
G=tbl-$$
# LAVA's daemons write there as the lavaserver user: not under $T_TMP,
# which is 0700.
LAVA=$(mktemp -d /tmp/iommu-bench-lava.XXXXXX)
chmod 755 "$LAVA"
DB=$T_TMP/lava.db
PORT=$((20000 + $$ % 20000))
RUN_PID=
LINK_CUT=

cleanup() {
	# Still our child (RUN_PID is cleared once it is reaped): no other
	# process can have its PID.
	[ -z "$RUN_PID" ] || kill -9 "$RUN_PID" 2>/dev/null
	# The worker's link, if a check failed while it was down.
	[ -z "$LINK_CUT" ] || ip link set ibl0 up 2>/dev/null
	# What lava-up started for this test, and nothing else.
	bash "$SRCDIR/tests/lava/lava-down.sh" "$LAVA" >/dev/null 2>&1
	rm -rf "$LAVA"
	rm -rf "/run/iommu-bench/lava-$G" 2>/dev/null
	t_cleanup
}
trap cleanup EXIT
# A signal ends the test: cleanup alone would return into its loops.
trap 'exit 1' INT TERM

t_testbed_require linux-image-6.1.0-57-amd64 qemu-system-x86_64 sqlite3 \
	iperf3 curl python3

up=$(IOMMU_BENCH_LAVA_HIDE="$SRCDIR $(dirname "$B") $T_TMP" \
	bash "$SRCDIR/tests/lava/lava-up.sh" "$LAVA" 2>"$T_TMP/lava-up.err")
st=$?
if [ $st -eq 77 ]; then
	echo "1..0 # SKIP ${up#SKIP: }"
	exit 0
fi
[ $st -eq 0 ] || t_diag "$up" "$(grep '^lava-up' "$T_TMP/lava-up.err")" \
	"$(tail -20 "$T_TMP/lava-up.err")"
t_ok $st "a LAVA master and worker are up (lava-up.sh)"
t_diag "$up"
[ $st -eq 0 ] || { t_done; exit 1; }
URL=$(cat "$LAVA/url")
DEVICE_TYPE=$(cat "$LAVA/device_type")
TOKEN_FILE=$LAVA/token
CTL=$(cat "$LAVA/controller")
WPID=$(cat "$LAVA/worker_pid")
HTTP_PORT=$((PORT + 1))
AGENT_PORT=$((PORT + 2))

# What the worker sees: its own root view and network, none of ours.
seen=
for f in "$B" "$SRCDIR/Makefile" "$T_TMP" "$HOME/.cache/iommu-bench"; do
	[ -e "/proc/$WPID/root$f" ] && seen="$seen $f"
done
[ -n "$WPID" ] && [ -z "$seen" ] &&
	[ "$(readlink "/proc/$WPID/ns/net")" != "$(readlink /proc/self/ns/net)" ]
t_ok $? "the worker (pid $WPID) has a network of its own and sees none of our files${seen:+ (it sees:$seen)}"

# matrix FILE [LAVA_LINES] [MODES]: the LAVA guest and this machine;
# LAVA_LINES replace [hosts.$G.lava]'s (the lab up here by default).
matrix() {
	lab=${2:-}
	# (a default with quotes cannot be written inside the here-document)
	[ -n "$lab" ] || lab=$(printf 'server = "%s"\ntoken_file = "%s"\ndevice_type = "%s"' \
		"$URL" "$TOKEN_FILE" "$DEVICE_TYPE")
	case $lab in
	*controller*) ;;
	*) lab=$(printf '%s\ncontroller = "%s"' "$lab" "$CTL") ;;
	esac
	case $lab in
	*template*) ;;
	*) lab=$(printf '%s\ntemplate = "iommu-bench"' "$lab") ;;
	esac
	lab=$(printf '%s\nhttp_port = %s\nagent_port = %s' \
		"$lab" "$HTTP_PORT" "$AGENT_PORT")
	cat >"$1" <<EOT
[run]
name = "tb-lava"
repetitions = 2
warmup = 0
cooldown = "0s"
order = "grouped"
modes = [${3:-"\"strict\", \"lazy\""}]

[modes.strict]
method = "reboot"
[modes.lazy]
method = "reboot"
# A kernel whose initramfs has no such init finds no root either, and
# panics; QEMU exits (-no-reboot) and LAVA ends the job Incomplete.
[modes.broken]
method = "reboot"
group_type = "DMA"
cmdline = ["iommu.strict=1", "rdinit=/no-such-init"]

[hosts.$G]
transport = "lava"
role = "sut"
boot_timeout = "4m"

[hosts.$G.lava]
$lab

# Our device type: virtio-net behind the intel vIOMMU.
[hosts.$G.qemu]
nic = "virtio"

[hosts.peer]
transport = "local"
role = "peer"
address = "127.0.0.1"

[[kernels]]
name = "debian-6.1"
package = "linux-image-6.1.0-57-amd64"

[[workloads]]
name = "tx"
server = "peer"
client = "$G"
duration = "2s"
omit = "0s"
port = $PORT

[collect.bpf]
probes = ["map", "unmap", "iotlb_sync"]
EOT
}

# --- bad input, each refused before a trial runs -----------------------

M=$T_TMP/m.toml
bad() {
	matrix "$T_TMP/bad.toml" "server = \"$URL\"
$1"
	"$B" run "$T_TMP/bad.toml" --db "$T_TMP/bad.db" >"$T_TMP/bad.out" \
		2>"$T_TMP/bad.err"
	BAD_STATUS=$?
}

matrix "$T_TMP/bad.toml" "server = \"http://127.0.0.1:9\"
token_file = \"$TOKEN_FILE\""
"$B" run "$T_TMP/bad.toml" --db "$T_TMP/bad.db" >"$T_TMP/bad.out" \
	2>"$T_TMP/bad.err"
[ $? -eq 1 ] && t_grep "$T_TMP/bad.err" \
	"cannot reach LAVA at http://127.0.0.1:9: "
t_ok $? "a lab that does not answer: 'cannot reach LAVA at URL', exit 1"

SECRET=bad-token-$$-do-not-print
printf '%s\n' "$SECRET" >"$T_TMP/bad.token"
chmod 600 "$T_TMP/bad.token"
bad "token_file = \"$T_TMP/bad.token\""
[ $BAD_STATUS -eq 1 ] && t_grep "$T_TMP/bad.err" "refused the token (HTTP 40" &&
	! grep -q -- "$SECRET" "$T_TMP/bad.err" "$T_TMP/bad.out" &&
	! sqlite3 "$T_TMP/bad.db" .dump | grep -q -- "$SECRET"
t_ok $? "a token LAVA refuses: its status and words, the token itself nowhere"

unset IOMMU_BENCH_TEST_NO_TOKEN
bad "token_env = \"IOMMU_BENCH_TEST_NO_TOKEN\""
[ $BAD_STATUS -eq 1 ] &&
	t_grep "$T_TMP/bad.err" "token_env: \$IOMMU_BENCH_TEST_NO_TOKEN is not set"
t_ok $? "token_env naming an unset variable is said"

bad "token_file = \"$TOKEN_FILE\"
device_type = \"${DEVICE_TYPE}u\""
[ $BAD_STATUS -eq 1 ] && t_grep "$T_TMP/bad.err" \
	"has no device type '${DEVICE_TYPE}u'; did you mean '$DEVICE_TYPE'?"
t_ok $? "a device type the lab lacks: did you mean"

bad "token_file = \"$TOKEN_FILE\"
device_type = \"iommu-bench-empty\""
[ $BAD_STATUS -eq 1 ] && t_grep "$T_TMP/bad.err" \
	"refused the request: Devices unavailable"
t_ok $? "a job LAVA refuses: its own message (no device of that type)"
n=$(sqlite3 "$T_TMP/bad.db" "SELECT count(*) FROM lab_jobs")
[ "$n" = 0 ]
t_ok $? "a refused job is not stored as submitted ($n rows)"

# (LAVA's stock template takes an e1000e only.)
matrix "$T_TMP/bad.toml" "server = \"$URL\"
token_file = \"$TOKEN_FILE\"
device_type = \"$DEVICE_TYPE\"
template = \"qemu\""
sed -i 's/^nic = "virtio"$/nic = "e1000e"/' "$T_TMP/bad.toml"
"$B" run "$T_TMP/bad.toml" --db "$T_TMP/bad.db" >"$T_TMP/bad.out" \
	2>"$T_TMP/bad.err"
BAD_STATUS=$?
[ $BAD_STATUS -eq 1 ] && t_grep "$T_TMP/bad.err" \
	"device type '$DEVICE_TYPE' at $URL extends iommu-bench's template" &&
	t_grep "$T_TMP/bad.err" 'set template = "iommu-bench"'
t_ok $? "a device type whose template the matrix names wrong: refused before any job"
[ $BAD_STATUS -eq 1 ] || t_diag "$(tail -3 "$T_TMP/bad.err")"

bad "token = \"$SECRET\"
device_type = \"$DEVICE_TYPE\""
[ $BAD_STATUS -eq 2 ] &&
	t_grep "$T_TMP/bad.err" "token: the API token never goes in the matrix" &&
	! grep -q -- "$SECRET" "$T_TMP/bad.err"
t_ok $? "a token written into the matrix is refused, and not echoed"

# --- strict and lazy through LAVA, killed and resumed ------------------

matrix "$M" "" '"strict", "lazy", "broken"'
"$B" run "$M" --db "$DB" >"$T_TMP/run1.out" 2>"$T_TMP/run1.err" &
RUN_PID=$!
# While the job's guest boots, an agent that knows another secret dials
# in: refused by the controller, and it says so itself. (grep -s: the
# first look may come before the background run's shell made its log.)
t_poll 120 1 "$RUN_PID" grep -qs "LAVA job [0-9]* running on" "$T_TMP/run1.err"
printf '%064d\n' 7 >"$T_TMP/wrong.secret"
chmod 600 "$T_TMP/wrong.secret"
timeout 60 "$B" agent connect "$CTL:$AGENT_PORT" --secret-file \
	"$T_TMP/wrong.secret" --give-up 20 >/dev/null 2>"$T_TMP/wrong.err"
st=$?
[ $st -eq 3 ] && t_grep "$T_TMP/wrong.err" "did not prove the job's secret" &&
	grep -q "refused an agent at $CTL:[0-9]*: wrong secret" "$T_TMP/run1.err"
t_ok $? "an agent with a wrong secret is refused (exit $st), and the run says so"
[ $st -eq 3 ] || t_diag "$(cat "$T_TMP/wrong.err")" "$(tail -5 "$T_TMP/run1.err")"
t_poll 300 1 "$RUN_PID" grep -qs "answered" "$T_TMP/run1.err"
grep -q "answered" "$T_TMP/run1.err"
t_ok $? "the first LAVA job booted the guest and its agent answered (${i} s)"
grep -q "answered" "$T_TMP/run1.err" || t_diag "$(tail -20 "$T_TMP/run1.err")"
# The job's secret, read where the run keeps it for a resume (0600), to
# look for it everywhere it must not be.
JOB_SECRET=$(cat /run/iommu-bench/lava-$G/boot-*.secret 2>/dev/null | head -n 1)
[ ${#JOB_SECRET} -eq 64 ] &&
	[ "$(stat -c %a /run/iommu-bench/lava-$G/boot-*.secret | head -n 1)" = 600 ]
t_ok $? "the job's secret is kept 0600 in the host's state folder, for a resume"
# Into the first trial, then SIGKILL: nothing of ours can cancel the job.
sleep 3
kill -9 "$RUN_PID"
wait "$RUN_PID" 2>/dev/null
RUN_PID=
first=$(t_q "SELECT job_id || ' ' || state FROM lab_jobs")
case $first in
*" running") st=0 ;;
*) st=1 ;;
esac
t_ok $st "the killed run's job is stored, running: $first"
JOB1=${first%% *}

"$B" run "$M" --db "$DB" >"$T_TMP/run2.out" 2>"$T_TMP/run2.err"
st=$?
[ $st -eq 1 ] || t_diag "$(tail -30 "$T_TMP/run2.err")"
[ $st -eq 1 ]
t_ok $? "the resumed run finishes, exit 1 for the broken mode's trials"
t_grep "$T_TMP/run2.err" "LAVA job $JOB1, submitted before the run was stopped, is still running: adopted"
t_ok $? "the resumed run adopts job $JOB1"
grep -E "running on .* after [0-9]+ s in the queue" "$T_TMP/run2.err" \
	>/dev/null
t_ok $? "queueing time is shown in the progress"
t_diag "$(grep "host $G" "$T_TMP/run1.err" "$T_TMP/run2.err" |
	sed "s|$T_TMP/||")"

jobs=$(t_q "SELECT count(*), count(DISTINCT job_id),
	sum(state = 'ended' AND health = 'Complete'),
	sum(state = 'ended' AND health = 'Incomplete') FROM lab_jobs")
[ "$jobs" = "3|3|2|1" ]
t_ok $? "three jobs in the store, one per mode: 2 Complete, 1 Incomplete ($jobs)"
failed=$(t_q "SELECT count(*) FROM trials t JOIN cells c ON c.id = t.cell_id
	WHERE c.mode = 'broken' AND t.status = 'failed'
	AND t.error LIKE '%LAVA job % ended Incomplete: Infrastructure%'")
[ "$failed" = 2 ]
t_ok $? "the Incomplete job fails its own 2 trials, with LAVA's reason"
[ "$failed" = 2 ] || t_diag "$(t_q "SELECT c.mode, t.status, t.error FROM
	trials t JOIN cells c ON c.id = t.cell_id")"
# LAVA's own list: every job whose name is this host's.
listed=$(curl -s -H "Authorization: Token $(cat "$TOKEN_FILE")" \
	"$URL/api/v0.2/jobs/?limit=200&ordering=-id" |
	python3 -c "import json, sys
print(sum(1 for j in json.load(sys.stdin)['results']
	  if j['description'].startswith('iommu-bench: host $G,')))")
[ "$listed" = 3 ]
t_ok $? "LAVA itself lists three jobs of this host: none submitted twice ($listed)"

# Every job's definition, as LAVA keeps it, and its log.
defs=$T_TMP/definitions
: >"$defs"
for id in $(t_q "SELECT job_id FROM lab_jobs"); do
	for what in "" logs/; do
		curl -s -H "Authorization: Token $(cat "$TOKEN_FILE")" \
			"$URL/api/v0.2/jobs/$id/$what" >>"$defs"
	done
done
n=$(grep -o "http://$CTL:$HTTP_PORT/sha256/[0-9a-f]\{64\}" "$defs" | sort -u | wc -l)
[ "$n" -ge 2 ] && ! grep -q -e 'file://' -e 'virtio-9p' -e 'chardev socket' "$defs"
t_ok $? "the jobs name their files by URL and sha256 ($n distinct), no file://, 9p or socket of ours"
leaks=
[ -n "$JOB_SECRET" ] || leaks=" (no secret was read)"
for f in "$defs" "$T_TMP/run1.out" "$T_TMP/run1.err" "$T_TMP/run2.out" \
	"$T_TMP/run2.err"; do
	grep -q -- "${JOB_SECRET:-none}" "$f" && leaks="$leaks ${f##*/}"
done
sqlite3 "$DB" .dump | grep -q -- "${JOB_SECRET:-none}" && leaks="$leaks the-store"
[ -z "$leaks" ]
t_ok $? "the job's secret is in no definition, LAVA log, message or the store$leaks"
left=$(ls /run/iommu-bench/lava-$G/ 2>/dev/null | grep -c '\.secret$')
[ "$left" = 0 ]
t_ok $? "no job's secret is kept once its job ended ($left left)"

ok=$(t_q "SELECT count(*) FROM trials WHERE status = 'ok'
	AND effective_mode = requested_mode")
[ "$ok" = 4 ]
t_ok $? "4 trials ok, each in the mode verified inside the LAVA guest ($ok)"
[ "$ok" = 4 ] || t_diag "$(t_q "SELECT requested_mode, effective_mode,
	status, error FROM trials")"
low=$(t_q "SELECT count(*) FROM metrics WHERE name = 'throughput'
	AND value > 0")
[ "$low" = 4 ]
t_ok $? "throughput > 0 in every trial ($low of 4)"
unmaps=$(t_q "SELECT count(*) FROM probes WHERE name = 'unmap' AND calls > 0")
[ "$unmaps" = 4 ]
t_ok $? "unmap probe counts > 0 in every trial ($unmaps of 4)"
# iotlb_sync per unmap: strict syncs each one, lazy queues them.
ratio() {
	t_q "SELECT printf('%.3f', 1.0 * sum(s.calls) / sum(u.calls))
	     FROM probes s JOIN probes u ON u.trial_id = s.trial_id
	     JOIN trials t ON t.id = s.trial_id
	     WHERE t.effective_mode = '$1' AND s.name = 'iotlb_sync'
	     AND u.name = 'unmap'"
}
strict=$(ratio strict)
lazy=$(ratio lazy)
t_between "$strict" 0.98 1.02 && t_between "$lazy" 0 0.05
t_ok $? "IOTLB syncs per unmap: strict $strict, lazy $lazy"
facts=$(t_q "SELECT count(*) FROM boots b WHERE json_extract(b.facts,
	'\$.testbed.lava.job') IN (SELECT job_id FROM lab_jobs)")
[ "${facts:-0}" -ge 2 ]
t_ok $? "each boot's facts name its LAVA job ($facts boots)"

# --- SIGINT while queued: the job is canceled in LAVA -------------------

matrix "$M"
"$B" run "$M" --db "$DB" --new >"$T_TMP/run3.out" 2>"$T_TMP/run3.err" &
RUN_PID=$!
t_poll 60 1 "$RUN_PID" grep -qs "submitted:" "$T_TMP/run3.err"
kill -INT "$RUN_PID"
wait "$RUN_PID"
st=$?
RUN_PID=
JOB3=$(sed -n 's/.*LAVA job \([0-9]*\) submitted:.*/\1/p' "$T_TMP/run3.err" |
	head -1)
state=$(curl -s -H "Authorization: Token $(cat "$TOKEN_FILE")" \
	"$URL/api/v0.2/jobs/${JOB3:-0}/" |
	python3 -c "import json, sys; j = json.load(sys.stdin)
print(j.get('state'), j.get('health'))")
case $state in
"Canceling "* | "Finished Canceled") st=0 ;;
*) st=1 ;;
esac
t_ok $st "SIGINT cancels the queued job $JOB3 in LAVA ($state)"
[ $st -eq 0 ] || t_diag "$(tail -10 "$T_TMP/run3.err")"
stored=$(t_q "SELECT state || ' ' || health FROM lab_jobs
	WHERE job_id = ${JOB3:-0}")
[ "$stored" = "ended Canceled" ]
t_ok $? "and the store says so ($stored)"

# --- the workload's peer as a device of the lab: multinode jobs ---------

# mn_matrix FILE [PEER_LINES]: the LAVA SUT and a LAVA peer device, booted
# together as one multinode job (roles sut and peer) on the lab's network
# (the device type's lab_network), tx and rx between them there.
mn_matrix() {
	cat >"$1" <<EOT
[run]
name = "tb-lava-multinode"
repetitions = 1
warmup = 0
cooldown = "0s"
modes = ["strict"]
[modes.strict]
method = "reboot"

[hosts.$G]
transport = "lava"
role = "sut"
boot_timeout = "4m"
address = "10.93.0.1/24"
[hosts.$G.lava]
server = "$URL"
token_file = "$TOKEN_FILE"
device_type = "$DEVICE_TYPE"
controller = "$CTL"
template = "iommu-bench"
http_port = $HTTP_PORT
agent_port = $AGENT_PORT
[hosts.$G.qemu]
nic = "virtio"

[hosts.$G-peer]
transport = "lava"
role = "peer"
boot_timeout = "${3:-4m}"
address = "10.93.0.2/24"
[hosts.$G-peer.lava]
server = "$URL"
token_file = "$TOKEN_FILE"
device_type = "$DEVICE_TYPE"
controller = "$CTL"
template = "iommu-bench"
http_port = $((PORT + 3))
agent_port = $((PORT + 4))
# A peer generates load: no vIOMMU to emulate.
[hosts.$G-peer.qemu]
nic = "virtio"
iommu = "none"
${2:-}

[[kernels]]
name = "debian-6.1"
package = "linux-image-6.1.0-57-amd64"

[[workloads]]
name = "tx"
server = "$G-peer"
client = "$G"
duration = "2s"
omit = "0s"
port = $PORT
[[workloads]]
name = "rx"
server = "$G-peer"
client = "$G"
duration = "2s"
omit = "0s"
port = $PORT
reverse = true

[collect.bpf]
probes = ["map", "unmap", "iotlb_sync"]
EOT
}

MN_DB=$T_TMP/multinode.db
mn_matrix "$T_TMP/mn.toml"
t0=$(date +%s)
"$B" run "$T_TMP/mn.toml" --db "$MN_DB" >"$T_TMP/mn.out" 2>"$T_TMP/mn.err"
st=$?
[ $st -eq 0 ] || t_diag "$(tail -15 "$T_TMP/mn.err")"
t_ok $st "a multinode job (sut and peer): the run passes ($(($(date +%s) - t0)) s)"
jobs=$(sqlite3 "$MN_DB" "SELECT group_concat(host || ' ' || state || ' ' ||
	health, ', ') FROM (SELECT * FROM lab_jobs ORDER BY host)")
[ "$jobs" = "$G ended Complete, $G-peer ended Complete" ]
t_ok $? "one job per role, both Complete ($jobs)"
MN_SUT_JOB=$(sqlite3 "$MN_DB" "SELECT job_id FROM lab_jobs WHERE host = '$G'")
MN_PEER_JOB=$(sqlite3 "$MN_DB" "SELECT job_id FROM lab_jobs WHERE host = '$G-peer'")
roles=
for id in "$MN_SUT_JOB" "$MN_PEER_JOB"; do
	roles="$roles $(curl -s -H "Authorization: Token $(cat "$TOKEN_FILE")" \
		"$URL/api/v0.2/jobs/${id:-0}/" | python3 -c "import json, re, sys
d = json.load(sys.stdin)['definition']
print(re.search(r'role: (\w+)', d).group(1) + ':' +
      re.search(r'target_group: (\S+)', d).group(1))")"
done
set -- $roles
[ "${1%%:*}" = sut ] && [ "${2%%:*}" = peer ] && [ "${1#*:}" = "${2#*:}" ]
t_ok $? "LAVA ran them as one group, roles sut (job $MN_SUT_JOB) and peer (job $MN_PEER_JOB)"
ok=$(sqlite3 "$MN_DB" "SELECT group_concat(c.workload, ' ') FROM trials t
	JOIN cells c ON c.id = t.cell_id WHERE t.status = 'ok'
	AND t.effective_mode = 'strict' AND EXISTS (SELECT 1 FROM metrics m
	WHERE m.trial_id = t.id AND m.name = 'throughput' AND m.value > 0)
	ORDER BY c.workload")
[ "$ok" = "rx tx" ] || [ "$ok" = "tx rx" ]
t_ok $? "tx and rx between the two devices, strict verified in the SUT: $ok"
[ "$ok" = "rx tx" ] || [ "$ok" = "tx rx" ] || t_diag "$(sqlite3 "$MN_DB" \
	"SELECT status, error FROM trials")"
# Both agents answered on the channel (the facts are the guests' own,
# their /proc/cmdline with each NIC under test's lab address); the SUT
# reached 10.93.0.2 on the lab's network, its only route there.
facts=$(sqlite3 "$MN_DB" "SELECT group_concat(h.name, ' ') FROM boots b
	JOIN hosts h ON h.id = b.host_id WHERE (h.name = '$G' AND
	instr(b.facts, 'iommu_bench.ip=10.93.0.1/24 ')) OR (h.name =
	'$G-peer' AND instr(b.facts, 'iommu_bench.ip=10.93.0.2/24 '))")
[ "$facts" = "$G $G-peer" ] || [ "$facts" = "$G-peer $G" ]
t_ok $? "both devices' agents answered, each booted at its lab address ($facts)"
strict=$(sqlite3 "$MN_DB" "SELECT printf('%.3f', 1.0 * sum(s.calls) /
	sum(u.calls)) FROM probes s JOIN probes u ON u.trial_id = s.trial_id
	WHERE s.name = 'iotlb_sync' AND u.name = 'unmap'")
t_between "$strict" 0.98 1.02
t_ok $? "the SUT's NIC on the lab's network is behind its vIOMMU: syncs per unmap $strict"

# The peer device never comes up: it boots, but its agent never answers
# (its command line names no agent). The multinode job is canceled and
# the trials of that boot fail with the reason; the run goes on.
mn_matrix "$T_TMP/mn-down.toml" \
	'cmdline = ["iommu_bench.exe=/usr/bin/no-such-agent"]' 20s
t0=$(date +%s)
"$B" run "$T_TMP/mn-down.toml" --db "$T_TMP/mn-down.db" >"$T_TMP/mn-down.out" \
	2>"$T_TMP/mn-down.err"
st=$?
failed=$(sqlite3 "$T_TMP/mn-down.db" "SELECT count(*) FROM trials
	WHERE status = 'failed' AND error LIKE
	'%its peer device, host $G-peer (LAVA job %), did not come up: %'")
[ $st -eq 1 ] && [ "$failed" = 2 ]
t_ok $? "a peer device that never comes up: both trials fail with the reason, exit $st ($(($(date +%s) - t0)) s)"
[ "$failed" = 2 ] || t_diag "$(tail -8 "$T_TMP/mn-down.err")"
jobs=$(sqlite3 "$T_TMP/mn-down.db" "SELECT group_concat(host || ' ' ||
	health, ', ') FROM (SELECT * FROM lab_jobs ORDER BY host)")
[ "$jobs" = "$G Canceled, $G-peer Canceled" ] &&
	grep -q "host $G-peer: LAVA job [0-9]* canceled" "$T_TMP/mn-down.err"
t_ok $? "and its multinode job is canceled, both roles ($jobs)"

# --- a worker that loses the controller mid-trial ----------------------

# The worker's link to this machine (the veth's end here) goes down while
# the first trial's iperf3 runs: that call gets no answer and the trial
# fails; the link is back 40 s later, within the run's tries to reach the
# agent again (the guest's /init dials anew), and the next trial runs.
# Under a minute: LAVA keeps the worker online meanwhile.
matrix "$T_TMP/cut.toml" "" '"strict"'
"$B" run "$T_TMP/cut.toml" --db "$T_TMP/cut.db" --new >"$T_TMP/cut.out" \
	2>"$T_TMP/cut.err" &
RUN_PID=$!
# iperf3's data from the guest reaching the peer here: the client runs.
t_poll 1500 0.2 "$RUN_PID" sh -c "ss -Htn state established \
	'( sport = :$PORT )' | grep -q '10\.92\.0\.2'"
LINK_CUT=1
ip link set ibl0 down
sleep 40
ip link set ibl0 up
LINK_CUT=
wait "$RUN_PID"
st=$?
RUN_PID=
trials=$(sqlite3 "$T_TMP/cut.db" "SELECT group_concat(status, ' ') FROM
	(SELECT status FROM trials ORDER BY id)")
lost=$(sqlite3 "$T_TMP/cut.db" "SELECT count(*) FROM trials WHERE
	status = 'failed' AND error LIKE '%did not answer iperf3.client%'")
[ $st -eq 1 ] && [ "$trials" = "failed ok" ] && [ "$lost" = 1 ]
t_ok $? "the worker loses us mid-trial: that trial fails, the run goes on ($trials, exit $st)"
[ "$lost" = 1 ] || t_diag "$(sqlite3 "$T_TMP/cut.db" "SELECT status, error
	FROM trials")" "$(tail -8 "$T_TMP/cut.err")"

# --- our artifact server out of the worker's reach ---------------------

# 127.0.0.1 is ours to listen on, and the worker's own loopback to it.
# Last: LAVA retries the download for ten minutes and cancels the job
# only then, and lava-down ends it at cleanup. The boot fails half its
# boot_timeout after the job started, with nothing fetched.
matrix "$T_TMP/unreach.toml" "server = \"$URL\"
token_file = \"$TOKEN_FILE\"
device_type = \"$DEVICE_TYPE\"
controller = \"127.0.0.1\"" '"strict"'
sed -i 's/^boot_timeout = "4m"/boot_timeout = "1m"/' "$T_TMP/unreach.toml"
"$B" run "$T_TMP/unreach.toml" --db "$T_TMP/unreach.db" --new \
	>"$T_TMP/unreach.out" 2>"$T_TMP/unreach.err"
st=$?
[ $st -eq 1 ] && grep -q "has fetched nothing from http://127.0.0.1:$HTTP_PORT/ in its first 30 s: can the lab's workers reach" \
	"$T_TMP/unreach.err" && ! grep -q "trying a boot without" "$T_TMP/unreach.err"
t_ok $? "an artifact server the worker cannot reach: the boot fails in words, no second boot (exit $st)"
[ $st -eq 1 ] || t_diag "$(tail -8 "$T_TMP/unreach.err")"

t_done
