#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# iommu-bench trace against this kernel: the IOMMU set (which has nothing
# to count on a machine without an IOMMU, and must say so), the attach
# chain's reasons, real counts from iperf3 traffic between two network
# namespaces and from a command's own syscalls, the JSON, bad events,
# -d, Ctrl-C and the command's exit status.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netns.sh"

t_require_root "loading BPF programs needs root"
if [ ! -r /sys/kernel/btf/vmlinux ]; then
	echo "1..0 # SKIP no kernel BTF (CONFIG_DEBUG_INFO_BTF)"
	exit 0
fi
t_require python3 iperf3 ss
t_netns_pair || exit 0
B="$IOMMU_BENCH"

# json FILE PYTHON-EXPR: the expression, over d = the parsed file, holds.
json() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
ok = eval(sys.argv[2])
if not ok:
    print("# not true: " + sys.argv[2])
sys.exit(0 if ok else 1)' "$1" "$2"
}

now() {
	python3 -c 'import time; print(time.monotonic())'
}

# ---- usage errors: exit 2, the value named ----

t_run 0 "$B" trace --help && t_grep "$T_OUT" "usage: iommu-bench trace"
t_ok $? "trace --help shows the usage"

t_run 2 "$B" trace -d 1 -e 'fn:foo;rm' && t_grep "$T_ERR" "'fn:foo;rm'" &&
	t_grep "$T_ERR" "[A-Za-z0-9_.]"
t_ok $? "a function name with a ';' is refused, naming it and the rule"

t_run 2 "$B" trace -d 1 -e unmpa && t_grep "$T_ERR" "did you mean 'unmap'?"
t_ok $? "a misspelt probe suggests the right one"

t_run 2 "$B" trace -d 1 -e tp:nosuchcat:nosuchtp &&
	t_grep "$T_ERR" "no tracepoint 'nosuchcat:nosuchtp'"
t_ok $? "a tracepoint this kernel lacks is an error"

t_run 2 "$B" trace -d 1 -e fn:no_such_function_here &&
	t_grep "$T_ERR" "no kernel function 'no_such_function_here'"
t_ok $? "a function this kernel lacks is an error"

t_run 2 "$B" trace -d 1 -e tp:tcp && t_grep "$T_ERR" "tp:CATEGORY:NAME"
t_ok $? "a tracepoint without a name says the form"

t_run 2 "$B" trace -d abc && t_grep "$T_ERR" "-d 'abc'"
t_ok $? "-d needs a number of seconds"

t_run 2 "$B" trace -d 0
t_ok $? "-d 0 is refused"

t_run 2 "$B" trace -d 1 --device 'eth0;reboot' &&
	t_grep "$T_ERR" "'eth0;reboot'"
t_ok $? "a bad --device is refused, naming it"

t_run 2 "$B" trace -d 1 -- /nonexistent/cmd && t_grep "$T_ERR" "cannot run"
t_ok $? "a command that cannot run is a usage error"

# ---- the IOMMU set, -d ----

start=$(now)
t_run 0 "$B" trace -d 1
st=$?
end=$(now)
t_ok $st "trace -d 1 exits 0"
python3 -c "import sys; sys.exit(0 if 0.9 <= $end - $start <= 5 else 1)"
st=$?
[ $st -eq 0 ] || t_diag "took $(python3 -c "print($end - $start)") s"
t_ok $st "-d 1 ends in about a second"
t_grep "$T_OUT" "Traced 11 probes for 1.0"
t_ok $? "the default set is the 11 default probes"
t_grep "$T_OUT" "PROBE" && t_grep "$T_OUT" "P99" && t_grep "$T_OUT" "unmap"
t_ok $? "a table of probes with percentiles"
if [ -z "$(ls /sys/class/iommu 2>/dev/null)" ]; then
	t_grep "$T_OUT" "this machine has no IOMMU registered"
	t_ok $? "no IOMMU here: said plainly, not as an error"
	[ ! -s "$T_ERR" ]
	t_ok $? "and nothing on stderr"
fi

t_run 0 "$B" trace --json -d 1 && cp "$T_OUT" "$T_TMP/set.json" &&
	json "$T_TMP/set.json" 'all(k in p for p in d["probes"] for k in ("name", "target", "attach", "calls", "total_ns", "hist"))'
t_ok $? "--json: every probe has name, target, attach, calls, total_ns, hist"
json "$T_TMP/set.json" '0.9 < d["duration_s"] < 2 and d["kernel"] == "'"$(uname -r)"'"'
t_ok $? "--json: the duration and the kernel release"
json "$T_TMP/set.json" '[p["name"] for p in d["probes"]] == ["map", "unmap", "map_sg", "unmap_sg", "sync_cpu", "sync_device", "sync_sg_cpu", "sync_sg_device", "iotlb_sync", "fq_flush", "hw_flush"]'
t_ok $? "--json: the default probes, in order"
json "$T_TMP/set.json" 'all(p["attach"] != "none" or (p["calls"] == 0 and p["target"] == "" and (p["missing"] or any(t["failed"] for t in p["targets"]))) for p in d["probes"])'
t_ok $? "--json: a probe not attached has 0 calls and says why"

# ---- the attach chain for a function ----

t_run 0 "$B" trace --json -d 0.2 -e fn:vfs_read && cp "$T_OUT" "$T_TMP/fn.json"
t_ok $? "fn:vfs_read traces"
if json "$T_TMP/fn.json" 'd["probes"][0]["targets"][0]["attach"] == "none"'; then
	json "$T_TMP/fn.json" '[(f["rung"], f["stage"], f["error"]) for f in d["probes"][0]["targets"][0]["failed"]][0] in (("fentry", "load", "EPERM"), ("fentry", "load", "ENOTSUPP"))'
	t_ok $? "fentry failed at load, with its errno"
	if json "$T_TMP/fn.json" 'not d["kprobes"]'; then
		json "$T_TMP/fn.json" '[(f["rung"], f["stage"], f["error"]) for f in d["probes"][0]["targets"][0]["failed"]][1] == ("kprobe", "attach", "ENOENT") and "CONFIG_KPROBES" in d["probes"][0]["targets"][0]["failed"][1]["reason"]'
		t_ok $? "no kprobes here: kprobe attach failed ENOENT, and why"
	fi
	json "$T_TMP/fn.json" 'd["probes"][0]["attach"] == "none" and d["probes"][0]["calls"] == 0'
	t_ok $? "the result says not attached"
	t_run 0 "$B" trace -d 0.2 -e fn:vfs_read &&
		t_grep "$T_OUT" "Rungs of the attach chain that failed" &&
		t_grep "$T_OUT" "fentry load failed"
	t_ok $? "the text says which rungs failed and why"
else
	json "$T_TMP/fn.json" 'd["probes"][0]["attach"] in ("fentry", "kprobe") and d["probes"][0]["latency"]'
	t_ok $? "a function rung works here: it attached, with latency"
fi

if grep -q ' iommu_dma_map_phys$' /proc/kallsyms && [ -d /sys/kernel/tracing/events/dma ]; then
	t_run 0 "$B" trace --json -d 0.2 -e fn:iommu_dma_map_phys &&
		json "$T_OUT" 'd["probes"][0]["attach"] in ("fentry", "kprobe") or d["probes"][0]["target"] == "dma:dma_map_phys"'
	t_ok $? "a DMA function falls back on its tracepoint"
fi

# ---- real counts: a command's own syscalls, timed by a pair ----

t_run 0 "$B" trace --json -e tp:syscalls:sys_enter_getppid:sys_exit_getppid \
	-- python3 -c 'import os
for i in range(3000): os.getppid()' && cp "$T_OUT" "$T_TMP/pair.json"
t_ok $? "a begin:end pair around a command"
json "$T_TMP/pair.json" 'd["probes"][0]["calls"] >= 3000 and d["probes"][0]["latency"]'
t_ok $? "counts the command's 3000 getppid() calls, with latency"
json "$T_TMP/pair.json" 'sum(d["probes"][0]["hist"]) + d["probes"][0]["untimed"] == d["probes"][0]["calls"] and sum(d["probes"][0]["hist"]) >= 3000'
t_ok $? "the histogram holds every timed call"
json "$T_TMP/pair.json" 'd["exit_status"] == 0 and d["command"][0] == "python3"'
t_ok $? "--json records the command and its exit status"

# ---- self time: a softirq nested in the syscall that raised it ----

# UDP to loopback: the receive softirq runs in the sender's sendto(),
# on its way out, on the same task.
t_run 0 "$B" trace --json -e tp:syscalls:sys_enter_sendto:sys_exit_sendto \
	-e tp:irq:softirq_entry:softirq_exit -e tp:syscalls:sys_enter_getppid \
	-- python3 -c 'import socket
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
r.bind(("127.0.0.1", 0))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(2000):
    s.sendto(b"x" * 64, r.getsockname())
    r.recv(100)' && cp "$T_OUT" "$T_TMP/self.json"
t_ok $? "a syscall pair and the softirq pair around 2000 sendto() calls"
json "$T_TMP/self.json" 'd["probes"][0]["calls"] >= 2000 and d["probes"][0]["nested"] == 0 and 0 < d["probes"][0]["self_ns"] < d["probes"][0]["total_ns"]'
t_ok $? "sendto: nested in nothing, its self time less than its total"
json "$T_TMP/self.json" '1000 <= d["probes"][1]["nested"] <= d["probes"][1]["calls"] and 0 < d["probes"][1]["self_ns"] <= d["probes"][1]["total_ns"]'
st=$?
t_diag "sendto $(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["probes"]
print("calls %d total_ns %d self_ns %d; softirq calls %d nested %d total_ns %d" % (d[0]["calls"], d[0]["total_ns"], d[0]["self_ns"], d[1]["calls"], d[1]["nested"], d[1]["total_ns"]))' "$T_TMP/self.json")"
t_ok $st "the softirqs: most nested in a sendto (a probe of the same trace)"
json "$T_TMP/self.json" 'd["probes"][0]["total_ns"] - d["probes"][0]["self_ns"] <= d["probes"][1]["total_ns"]'
t_ok $? "what sendto's self time leaves out is softirq time"
json "$T_TMP/self.json" 'd["probes"][2]["self_ns"] is None and d["probes"][2]["nested"] is None'
t_ok $? "one tracepoint, no duration: self_ns and nested are null"

# ---- real counts: iperf3 between two namespaces ----

pids_before=$T_NETNS_PIDS
ip netns exec "$NS_B" iperf3 -s -B "$ADDR_B" >/dev/null 2>&1 &
server=$!
t_netns_track $server
i=0
while ! ip netns exec "$NS_B" ss -ltn 2>/dev/null | grep -q ':5201 '; do
	i=$((i + 1))
	[ $i -lt 50 ] || break
	sleep 0.1
done
t_run 0 "$B" trace --json -e tp:tcp:tcp_sendmsg_locked -- \
	ip netns exec "$NS_A" iperf3 -c "$ADDR_B" -k 2000 -l 64K &&
	cp "$T_OUT" "$T_TMP/tcp.json"
t_ok $? "tcp:tcp_sendmsg_locked while iperf3 sends 2000 blocks"
json "$T_TMP/tcp.json" 'd["probes"][0]["calls"] >= 2000'
t_ok $? "at least one call per block sent"
json "$T_TMP/tcp.json" 'd["probes"][0]["hist"] == [] and not d["probes"][0]["latency"] and d["probes"][0]["total_ns"] == 0'
t_ok $? "one tracepoint: calls only, no histogram, no latency"
json "$T_TMP/tcp.json" 'd["probes"][0]["attach"] in ("raw_tp", "tracepoint")'
t_ok $? "attached by a tracepoint rung"
t_run 0 "$B" trace -e tp:tcp:tcp_sendmsg_locked -- \
	ip netns exec "$NS_A" iperf3 -c "$ADDR_B" -k 100 -l 64K &&
	t_grep "$T_OUT" "Latency n/a"
t_ok $? "the text says why latency is n/a"
kill $server
wait $server 2>/dev/null
T_NETNS_PIDS=$pids_before

# ---- the command's exit status ----

t_run 1 "$B" trace -e tp:syscalls:sys_enter_getppid -- false &&
	t_grep "$T_ERR" "'false' exited with status 1" && t_grep "$T_OUT" "Traced 1 probe"
t_ok $? "-- false: exit 1, the results printed all the same"

t_run 0 "$B" trace -e tp:syscalls:sys_enter_getppid -- true
t_ok $? "-- true: exit 0"

start=$(now)
t_run 0 "$B" trace -d 1 -e tp:syscalls:sys_enter_getppid -- sleep 30
st=$?
end=$(now)
python3 -c "import sys; sys.exit(0 if $st == 0 and $end - $start < 5 else 1)"
t_ok $? "-d ends a longer command, and that is not its failure"

# ---- Ctrl-C ----

pids_before=$T_NETNS_PIDS
"$B" trace --json -d 60 -e tp:syscalls:sys_enter_getppid \
	>"$T_TMP/int.json" 2>"$T_TMP/int.err" &
pid=$!
t_netns_track $pid
sleep 1
start=$(now)
kill -INT $pid
wait $pid
st=$?
end=$(now)
T_NETNS_PIDS=$pids_before
[ $st -eq 0 ] && json "$T_TMP/int.json" 'd["interrupted"] and d["duration_s"] < 30'
t_ok $? "SIGINT ends tracing cleanly: exit 0, the maps read"
python3 -c "import sys; sys.exit(0 if $end - $start < 5 else 1)"
t_ok $? "and promptly"

t_done
