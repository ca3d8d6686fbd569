#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# iommu-bench export: a database filled with the sqlite3 CLI, so that
# every value (and every odd one) is known to the byte, exported as CSV
# and JSON and compared exactly. tests/unit/test-store.c round-trips
# through the C API, run.t through a real run.
set -eu
. "$(dirname "$0")/lib.sh"

B=$IOMMU_BENCH
DB=$T_TMP/results.db
export IOMMU_BENCH_DB=$DB
sha() { sha256sum "$1" | cut -d' ' -f1; }
# same GOT WANT: byte-exact, with the difference shown on a miss.
same() {
	cmp -s "$1" "$2" && return 0
	t_diag "$(diff "$1" "$2" | tr -d '\r')"
	return 1
}
Z=0000000000000000000000000000000000000000000000000000000000000000

"$B" db migrate >/dev/null
t_run 0 "$B" export && [ "$(cat "$T_OUT")" = "$(printf 'run,run_name,cell,host,kernel,kernel_release,requested_mode,effective_mode,workload,trial,repetition,warmup,status,metric,value,unit,better,started_at,profile\r')" ]
t_ok $? "an empty database exports the CSV header alone"
t_run 0 "$B" export --json && [ "$(cat "$T_OUT")" = "[]" ]
t_ok $? "and an empty JSON array"

sqlite3 "$DB" <<EOF
PRAGMA foreign_keys = ON;
INSERT INTO runs (id, name, config, config_sha256, tool_version, started_at, status)
VALUES (1, 'seed', 'c1', '$Z', 'test', '2025-01-01T00:00:00.000Z', 'done'),
       (2, 'nightly, "quoted"', 'c2', '$Z', 'test', '2025-01-02T00:00:00.000Z', 'running');
INSERT INTO hosts (id, name, identity, first_seen)
VALUES (1, 'sut', 'machine-id:1', '2025-01-01T00:00:00.000Z');
INSERT INTO kernels (id, name, release, build_id)
VALUES (1, 'debian-6.1', '6.1.0-57-amd64', 'abc');
INSERT INTO boots (id, host_id, boot_id, kernel_release, cmdline, first_seen)
VALUES (1, 1, 'b1', '6.1.0-57-amd64', 'quiet', '2025-01-01T00:00:00.000Z');
INSERT INTO cells (id, run_id, host_id, kernel_id, mode, workload, cell_key)
VALUES (1, 1, 1, 1, 'strict', 'iperf3', 'sut/debian-6.1/strict/iperf3'),
       (2, 1, 1, 1, 'lazy', 'iperf3', 'sut/debian-6.1/lazy/iperf3'),
       (3, 2, 1, 1, 'lazy', 'iperf3, "8 streams"', 'k3');
INSERT INTO trials (id, cell_id, repetition, warmup, requested_mode, effective_mode, boot_id, status, error, started_at)
VALUES (1, 1, 0, 1, 'strict', 'strict', 1, 'ok', NULL, '2025-01-01T00:00:01.000Z'),
       (2, 1, 0, 0, 'strict', 'strict', 1, 'ok', NULL, '2025-01-01T00:00:02.000Z'),
       (3, 2, 0, 0, 'lazy', 'lazy', 1, 'ok', NULL, '2025-01-01T00:00:03.000Z'),
       (4, 2, 1, 0, 'lazy', NULL, NULL, 'failed', 'boot timed out', NULL),
       (5, 3, 0, 0, 'lazy', 'lazy', 1, 'ok', NULL, '2025-01-02T00:00:05.000Z');
INSERT INTO trials (id, cell_id, repetition, warmup, profile, requested_mode, effective_mode, boot_id, status, started_at, collectors)
VALUES (6, 1, 1, 0, 1, 'strict', 'strict', 1, 'ok', '2025-01-01T00:00:06.000Z', '{"perf":{"record":true}}');
INSERT INTO metrics (trial_id, name, value, unit, better)
VALUES (1, 'throughput', 14.0, 'Gbit/s', 'higher'),
       (2, 'throughput', 14.9, 'Gbit/s', 'higher'),
       (2, 'cpu', 72.5, '%', 'lower'),
       (3, 'throughput', 39.8, 'Gbit/s', 'higher'),
       (4, 'throughput', 0.5, 'Gbit/s', 'higher'),
       (5, 'throughput', 40000000000, 'bit/s', 'higher'),
       (6, 'throughput', 11.2, 'Gbit/s', 'higher');
EOF
t_ok $? "fill the database with the sqlite3 CLI"
dbsha=$(sha "$DB")

H='run,run_name,cell,host,kernel,kernel_release,requested_mode,effective_mode,workload,trial,repetition,warmup,status,metric,value,unit,better,started_at,profile'
R1='1,seed,sut/debian-6.1/strict/iperf3,sut,debian-6.1,6.1.0-57-amd64,strict,strict,iperf3,2,0,0,ok,cpu,72.5,%,lower,2025-01-01T00:00:02.000Z,0'
R2='1,seed,sut/debian-6.1/strict/iperf3,sut,debian-6.1,6.1.0-57-amd64,strict,strict,iperf3,2,0,0,ok,throughput,14.9,Gbit/s,higher,2025-01-01T00:00:02.000Z,0'
R3='1,seed,sut/debian-6.1/lazy/iperf3,sut,debian-6.1,6.1.0-57-amd64,lazy,lazy,iperf3,3,0,0,ok,throughput,39.8,Gbit/s,higher,2025-01-01T00:00:03.000Z,0'
R4='2,"nightly, ""quoted""",k3,sut,debian-6.1,6.1.0-57-amd64,lazy,lazy,"iperf3, ""8 streams""",5,0,0,ok,throughput,40000000000,bit/s,higher,2025-01-02T00:00:05.000Z,0'
W='1,seed,sut/debian-6.1/strict/iperf3,sut,debian-6.1,6.1.0-57-amd64,strict,strict,iperf3,1,0,1,ok,throughput,14,Gbit/s,higher,2025-01-01T00:00:01.000Z,0'
P='1,seed,sut/debian-6.1/strict/iperf3,sut,debian-6.1,6.1.0-57-amd64,strict,strict,iperf3,6,1,0,ok,throughput,11.2,Gbit/s,higher,2025-01-01T00:00:06.000Z,1'
F='1,seed,sut/debian-6.1/lazy/iperf3,sut,debian-6.1,,lazy,,iperf3,4,1,0,failed,throughput,0.5,Gbit/s,higher,,0'

printf '%s\r\n' "$H" "$R1" "$R2" "$R3" "$R4" >"$T_TMP/want-all.csv"
t_run 0 "$B" export --format csv && same "$T_OUT" "$T_TMP/want-all.csv"
t_ok $? "export --format csv: header and rows exactly, RFC 4180 quoting, CRLF"

t_run 0 "$B" export && same "$T_OUT" "$T_TMP/want-all.csv"
t_ok $? "CSV is the default format"

python3 - "$T_TMP/want-all.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert rows[3]["run_name"] == 'nightly, "quoted"', rows[3]
assert rows[3]["workload"] == 'iperf3, "8 streams"', rows[3]
assert float(rows[3]["value"]) == 4e10 and len(rows) == 4
EOF
t_ok $? "Python's csv module reads the quoted fields back"

printf '%s\r\n' "$H" "$R1" "$R2" "$R3" >"$T_TMP/want-1.csv"
t_run 0 "$B" export --run 1 && same "$T_OUT" "$T_TMP/want-1.csv"
t_ok $? "--run 1 exports only run 1"
printf '%s\r\n' "$H" "$R4" >"$T_TMP/want-2.csv"
t_run 0 "$B" export --run=2 && same "$T_OUT" "$T_TMP/want-2.csv"
t_ok $? "--run=2 exports only run 2"

printf '%s\r\n' "$H" "$W" "$R1" "$R2" "$P" "$R3" "$F" >"$T_TMP/want-1all.csv"
t_run 0 "$B" export --run 1 --all && same "$T_OUT" "$T_TMP/want-1all.csv"
t_ok $? "--all adds warmup, profile and failed trials, unknowns empty"

t_run 0 "$B" export --json --all &&
	python3 - "$T_OUT" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1]))
assert isinstance(rows, list) and len(rows) == 7, rows
keys = ["run", "run_name", "cell", "host", "kernel", "kernel_release",
        "requested_mode", "effective_mode", "workload", "trial", "repetition",
        "warmup", "status", "metric", "value", "unit", "better", "started_at",
        "profile"]
assert all(list(r) == keys for r in rows), list(rows[0])
by = {(r["trial"], r["metric"]): r for r in rows}
assert by[(2, "throughput")]["value"] == 14.9
assert by[(2, "cpu")]["value"] == 72.5 and by[(2, "cpu")]["better"] == "lower"
assert by[(3, "throughput")]["value"] == 39.8
assert by[(5, "throughput")]["value"] == 40000000000
assert by[(5, "throughput")]["run_name"] == 'nightly, "quoted"'
assert by[(1, "throughput")]["warmup"] is True
assert by[(2, "throughput")]["warmup"] is False
assert by[(6, "throughput")]["profile"] is True
assert by[(2, "throughput")]["profile"] is False
f = by[(4, "throughput")]
assert f["status"] == "failed" and f["effective_mode"] is None
assert f["kernel_release"] is None and f["started_at"] is None
assert by[(3, "throughput")]["effective_mode"] == "lazy"
assert by[(3, "throughput")]["repetition"] == 0 and by[(4, "throughput")]["repetition"] == 1
EOF
t_ok $? "export --json --all parses with the right values and nulls"

t_run 0 "$B" export --json && cp "$T_OUT" "$T_TMP/a.json" &&
	t_run 0 "$B" export --format json && same "$T_OUT" "$T_TMP/a.json" &&
	python3 -c 'import json,sys; assert len(json.load(open(sys.argv[1]))) == 4' "$T_OUT"
t_ok $? "--json is --format json, without --all four rows"
grep -q '"value": 14.9,' "$T_OUT" && grep -q '"value": 39.8,' "$T_OUT"
t_ok $? "JSON values print in their shortest exact form (39.8, not 39.799999999999997)"

t_run 0 "$B" --json export --run 2 &&
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert [x["trial"] for x in r] == [5], r' "$T_OUT"
t_ok $? "the global --json before the command works too"

t_run 0 "$B" export --run 1 -o "$T_TMP/out.csv" && [ ! -s "$T_OUT" ] &&
	same "$T_TMP/out.csv" "$T_TMP/want-1.csv"
t_ok $? "-o FILE writes the file, nothing on stdout"
[ -z "$(find "$T_TMP" -name 'out.csv.*' -o -name '.tmp-out.csv.*')" ]
t_ok $? "and leaves no temporary file"

# --- errors
t_run 2 "$B" export --run 99 -o "$T_TMP/never.csv" &&
	t_grep "$T_ERR" "no run with id 99 (the newest is 2)" && [ ! -e "$T_TMP/never.csv" ]
t_ok $? "an unknown run id is a usage error (exit 2) and writes no file"
t_run 2 "$B" export --run abc && t_grep "$T_ERR" "--run wants a run id"
t_ok $? "a run id that is not a number is a usage error"
t_run 2 "$B" export --run 0
t_ok $? "run id 0 is a usage error"
t_run 2 "$B" export --format xml && t_grep "$T_ERR" "unknown format 'xml'"
t_ok $? "an unknown format is a usage error"
t_run 2 "$B" export --json --format csv && t_grep "$T_ERR" "--json contradicts --format csv"
t_ok $? "--json with --format csv is a usage error"
t_run 2 "$B" export extra
t_ok $? "export takes no argument"
t_run 1 "$B" export --db "$T_TMP/missing.db" && t_grep "$T_ERR" "no such database" &&
	[ ! -e "$T_TMP/missing.db" ]
t_ok $? "a missing database fails (exit 1) and is not created"
t_run 1 "$B" export -o "$T_TMP/nodir/x.csv" && t_grep "$T_ERR" "$T_TMP/nodir/x.csv"
t_ok $? "an output file that cannot be written fails (exit 1)"

[ "$(sha "$DB")" = "$dbsha" ]
t_ok $? "export never changed the database"

t_run 0 "$B" export --help && t_grep "$T_OUT" "run run_name cell host kernel" &&
	t_grep "$T_OUT" "RFC 4180"
t_ok $? "export --help documents the columns"

t_done
