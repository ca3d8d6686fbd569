#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# iommu-bench export --kcidb: a generated database (a failed trial and a
# mode not in effect planted, tests/gendb.h) with a night's regression
# planted as the robot stores it, exported as one KCIDB v5.3 report and
# validated as kcidb-io validates (JSON Schema Draft 7 and its format
# checker, tests/kcidb/kcidb_schema.py); its content read back against
# the database: each figure the median of the trials, each failed trial
# FAIL or ERROR with its words, the regression an issue with its
# incident. Two exports are the same bytes, and a merged database gives
# the same report. A bad origin is refused before anything is written.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gendb.sh"

B=$IOMMU_BENCH
SRC=${SRCDIR:-$(dirname "$0")/../..}
# kcidb-io's validator is python3-jsonschema.
if ! PY=$(t_python_with jsonschema); then
	echo "1..0 # SKIP python3-jsonschema is not installed"
	exit 0
fi
t_require sqlite3

DB=$T_TMP/g.db
t_gendb --out "$DB" --runs 2 --reps 8 --trouble
t_ok $? "a generated database: 2 runs, a failed trial, a mode not in effect"

# Run 1's kernel a Debian package. What the robot stores: run 2 is
# night 2's, whose kernel 'mainline' is a commit of an https tree on a
# followed branch (its matrix says so); it regressed lazy tcp-rx
# throughput, confirmed and bisected. Beside it an improvement and one
# that did not reproduce: neither an issue.
HEAD=1111111111111111111111111111111111111111
BASE=2222222222222222222222222222222222222222
CULPRIT=3333333333333333333333333333333333333333
sqlite3 "$DB" <<SQL
UPDATE runs SET name = 'nightly-' || id;
UPDATE kernels SET package = 'linux-image-6.12.70+deb13-amd64',
	version = '6.12.70-1', suite = 'trixie' WHERE release = '6.12.70';
UPDATE runs SET config = config || '
[[kernels]]
name = "mainline"
build = { tree = "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git", config = "defconfig" }

[nightly]
follow = { kernel = "mainline", remote = "origin", branch = "master" }
' WHERE id = 2;
INSERT INTO nights (id, series, kernel, head, run_id, stage, verdict, started_at)
VALUES (1, 'nightly', 'mainline', '$BASE', 1, 'done', 'pass', '2026-12-01T02:00:00.000Z'),
       (2, 'nightly', 'mainline', '$HEAD', 2, 'done', 'regression', '2026-12-02T02:00:00.000Z');
INSERT INTO regressions (night_id, series, host, workload, mode, metric,
	improvement, base, head, base_median, head_median, change_pct, pairs,
	reproduced, first_bad, culprit, state, created_at)
VALUES (2, 'nightly', 'sut', 'tcp-rx', 'lazy', 'throughput', 0, '$BASE',
	'$HEAD', 39.8e9, 30.1e9, -24.4, 6, 6, '$CULPRIT', '$CULPRIT',
	'reported', '2026-12-02T04:00:00.000Z'),
       (2, 'nightly', 'sut', 'tcp-tx', 'strict', 'cpu_util_pct', 1, '$BASE',
	'$HEAD', 72, 60, -16.7, 6, 6, NULL, '$HEAD', 'new',
	'2026-12-02T04:00:00.000Z'),
       (2, 'nightly', 'sut', 'tcp-tx', 'lazy', 'throughput', 0, '$BASE',
	'$HEAD', 37e9, 36e9, -2.7, 6, 2, NULL, '$HEAD', 'unconfirmed',
	'2026-12-02T04:00:00.000Z');
SQL
t_ok $? "two nights and three regressions planted, as the robot writes them"

R=$T_TMP/report.json
t_run 0 "$B" --db "$DB" export --kcidb --origin my_lab --run 1 --run 2 -o "$R" &&
	[ ! -s "$T_OUT" ] && [ -s "$R" ]
t_ok $? "export --kcidb --origin my_lab --run 1 --run 2 -o FILE: exit 0, the report in FILE"
t_run 0 "$PY" "$SRC/tests/kcidb/kcidb_schema.py" "$R"
st=$?
t_ok $st "the report is valid KCIDB v5.3 (Draft 7 and its format checker)"
[ $st -eq 0 ] || t_diag "$(head -20 "$T_OUT")"

# The validator itself refuses a report that breaks the schema: an id
# without its origin, an unknown status.
"$PY" - "$R" "$T_TMP/broken.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["tests"][0]["status"] = "OK"
r["builds"][0]["id"] = "no origin"
json.dump(r, open(sys.argv[2], "w"))
PY
t_run 1 "$PY" "$SRC/tests/kcidb/kcidb_schema.py" "$T_TMP/broken.json" &&
	t_grep "$T_OUT" "'OK' is not one of" && t_grep "$T_OUT" "builds/0/id"
t_ok $? "and the validator refuses a broken copy of it"

st=0
"$PY" - "$R" "$DB" "$HEAD" "$CULPRIT" >"$T_TMP/content.out" 2>&1 <<'PY' || st=$?
import datetime, json, sqlite3, statistics, sys
r = json.load(open(sys.argv[1]))
db = sqlite3.connect(sys.argv[2])
head, culprit = sys.argv[3], sys.argv[4]
assert r["version"] == {"major": 5, "minor": 3}, r["version"]
ids = [o["id"] for k in ("checkouts", "builds", "tests", "issues", "incidents") for o in r[k]]
assert len(ids) == len(set(ids)), "an id twice"
assert all(i.startswith("my_lab:") for i in ids), "an id without the origin"
co = {c["id"]: c for c in r["checkouts"]}
builds = {b["id"]: b for b in r["builds"]}
assert all(b["checkout_id"] in co for b in builds.values()), "a build of no checkout"
assert all(t["build_id"] in builds for t in r["tests"]), "a test of no build"

# Night 2's kernel: the commit of an https tree on the followed branch;
# night 1's, a package (its version, no commit though the night names one).
git = [c for c in co.values() if c.get("git_commit_hash") == head]
assert len(git) == 1, list(co.values())
assert git[0]["git_repository_url"].startswith("https://git.kernel.org/"), git[0]
assert git[0]["git_repository_branch"] == "master", git[0]
assert git[0]["patchset_hash"] == "", git[0]
pkg = [c for c in co.values() if "package" in c["misc"]]
assert len(pkg) == 1 and not any(k.startswith("git_") for k in pkg[0]), pkg
assert pkg[0]["misc"]["version"] == "6.12.70-1" and pkg[0]["misc"]["suite"] == "trixie", pkg
b1 = [b for b in builds.values() if b["checkout_id"] == pkg[0]["id"]]
assert b1 and b1[0]["architecture"] == "x86_64" and "config_name" not in b1[0], b1
b2 = [b for b in builds.values() if b["checkout_id"] == git[0]["id"]]
assert b2 and b2[0]["config_name"] == "defconfig" and b2[0]["status"] == "PASS", b2

# Each figure: the median of the cell's measured trials, computed here.
vals = {}
for run, cell, metric, v in db.execute(
        "SELECT r.name, c.cell_key, m.name, m.value FROM runs r"
        " JOIN cells c ON c.run_id = r.id JOIN trials t ON t.cell_id = c.id"
        " JOIN metrics m ON m.trial_id = t.id WHERE t.warmup = 0"
        " AND t.profile = 0 AND t.status = 'ok'"
        " AND coalesce(t.effective_mode = t.expected_mode, 1)"):
    vals.setdefault((run, cell, metric), []).append(v)
done = [t for t in r["tests"] if t["status"] == "DONE"]
assert len(done) == len(vals), (len(done), len(vals))
for t in done:
    m = t["misc"]
    want = vals[(m["run"], m["cell"], m["metric"])]
    assert t["number"]["value"] == statistics.median(want), (t, want)
    assert m["n"] == len(want), (m, len(want))
    parts = t["path"].split(".")
    assert len(parts) == 4 and parts[0] == "iommu_bench", t["path"]
    assert m["ci_low"] is None or m["ci_low"] <= t["number"]["value"] <= m["ci_high"], m
    # RFC 3339, which this jsonschema checks only with rfc3339-validator.
    assert datetime.datetime.fromisoformat(t["start_time"].replace("Z", "+00:00")).tzinfo
lazy = [t for t in done if t["path"] == "iommu_bench.tcp-rx.lazy.throughput"]
assert len(lazy) == 2, len(lazy)
for t in lazy:
    assert t["number"]["unit"] == "bit/s" and t["number"]["prefix"] == "metric", t
    assert 36e9 < t["number"]["value"] < 44e9, t["number"]
    assert t["misc"]["effective_mode"] == "lazy" and t["misc"]["n"] == 7, t["misc"]
    assert t["environment"]["comment"] == "sut", t
assert any(t["path"] == "iommu_bench.tcp-rx.strict.cpu_util_pct_cpu0" for t in done)

# The failed trial: FAIL with its words; the mode not in effect: ERROR.
fail = [t for t in r["tests"] if t["status"] == "FAIL"]
assert len(fail) == 4, fail
assert all(t["path"].endswith(".passthrough") for t in fail), fail
assert all('unable to connect to <server> & "10.0.0.2"' in t["comment"] for t in fail), fail
err = [t for t in r["tests"] if t["status"] == "ERROR"]
assert len(err) == 4 and all("mode lazy asked for, the host reported strict" in t["comment"] for t in err), err

# The regression: one issue, its incident on night 2's test.
assert len(r["issues"]) == 1, r["issues"]
i = r["issues"][0]
assert i["version"] == 1 and i["culprit"]["code"] is True, i
assert culprit[:12] in i["report_subject"] and "throughput" in i["report_subject"], i
assert culprit in i["comment"] and "-24.4%" in i["comment"], i["comment"]
assert len(r["incidents"]) == 1, r["incidents"]
inc = r["incidents"][0]
t = {t["id"]: t for t in r["tests"]}[inc["test_id"]]
assert inc["issue_id"] == i["id"] and inc["issue_version"] == 1 and inc["present"] is True
assert t["path"] == "iommu_bench.tcp-rx.lazy.throughput" and t["misc"]["run"] == "nightly-2", t
assert builds[t["build_id"]]["checkout_id"] == git[0]["id"], "the incident's test is not night 2's kernel's"
print("# %d checkouts, %d builds, %d tests (%d DONE), %d issue, %d incident" % (
    len(co), len(builds), len(r["tests"]), len(done), len(r["issues"]), len(r["incidents"])))
PY
t_ok $st "its content: each figure the median of its trials, the failed trial FAIL with its words, a mode not in effect ERROR, the regression an issue with its incident"
if [ $st -eq 0 ]; then
	head -1 "$T_TMP/content.out"
else
	t_diag "$(tail -15 "$T_TMP/content.out")"
fi

t_run 0 "$B" --db "$DB" export --kcidb --origin my_lab --run 2 --run 1 &&
	cmp -s "$T_OUT" "$R"
t_ok $? "exported again, the runs named in another order, to stdout: the same bytes"

# A merged database renumbers the runs: the ids stay, and the robot's
# nights, regressions and notes come along with them (another shard's
# runs first, without a robot), once however often it is merged.
cp "$DB" "$T_TMP/other.db"
sqlite3 "$T_TMP/other.db" "UPDATE runs SET name = 'other-' || id; DELETE FROM nights"
sqlite3 "$DB" "INSERT INTO regression_notes (regression_id, note, created_at)
	SELECT id, 'seen on the lab''s box too', '2026-12-03T09:00:00.000Z'
	FROM regressions WHERE state = 'reported';
	UPDATE nights SET base_night_id = 1 WHERE id = 2"
t_run 0 "$B" db merge "$T_TMP/merged.db" "$T_TMP/other.db" "$DB" &&
	t_run 0 "$B" db merge "$T_TMP/merged.db" "$DB" &&
	[ "$(sqlite3 "$T_TMP/merged.db" "SELECT group_concat(id) FROM runs WHERE name LIKE 'nightly-%'")" = "3,4" ] &&
	[ "$(sqlite3 "$T_TMP/merged.db" "SELECT group_concat(n.id || ':' || r.name || ':' || ifnull(n.base_night_id, '-'), ' ') FROM nights n JOIN runs r ON r.id = n.run_id")" = "1:nightly-1:- 2:nightly-2:1" ] &&
	[ "$(sqlite3 "$T_TMP/merged.db" "SELECT count(*) || ' ' || sum(night_id = 2) FROM regressions")" = "3 3" ] &&
	[ "$(sqlite3 "$T_TMP/merged.db" "SELECT count(*) FROM regression_notes")" = 1 ] &&
	[ "$(sqlite3 "$T_TMP/merged.db" "SELECT version FROM kernels WHERE release = '6.12.70'")" = 6.12.70-1 ]
st=$?
t_ok $st "db merge, twice, after another shard's runs: runs 1 and 2 are 3 and 4, their nights, regressions, note and package version once"
[ $st -eq 0 ] || t_diag "$(sqlite3 "$T_TMP/merged.db" "SELECT id, run_id, base_night_id, stage FROM nights; SELECT id, night_id, state FROM regressions")"
t_run 0 "$B" --db "$T_TMP/merged.db" export --kcidb --origin my_lab --run 3 --run 4 -o "$T_TMP/merged.json" &&
	"$PY" - "$R" "$T_TMP/merged.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ta = {t["id"]: (t["path"], t.get("number")) for t in a["tests"]}
tb = {t["id"]: (t["path"], t.get("number")) for t in b["tests"]}
assert ta == tb, set(ta) ^ set(tb)
assert a == b, [k for k in a if a[k] != b.get(k)]
PY
t_ok $? "exported from the merged database: the same report, the same ids, its issue and incidents too"

# A database the run wrote with a recipe: night 2's kernel as the run
# now stores it (kernels.recipe from the build cache's result.json),
# built at a commit the nights do not name, with two patches and
# tinyconfig where the matrix says defconfig: its checkout and build
# are the recipe's, not the matrix's and nights' reading.
RDB=$T_TMP/recipe.db
RC=4444444444444444444444444444444444444444
P1=$(printf 'one\n' | sha256sum | cut -c-64)
P2=$(printf 'two\n' | sha256sum | cut -c-64)
cp "$DB" "$RDB" && sqlite3 "$RDB" <<SQL
UPDATE kernels SET recipe = json('{"tree":
	"https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git",
	"base": "origin/master", "base_commit": "$RC", "patches": [
	{"file": "/home/me/p/0001-one.patch", "sha256": "$P1"},
	{"file": "/home/me/p/0002-two.patch", "sha256": "$P2"}],
	"config": {"target": "tinyconfig"}, "fragments": [], "arch": "x86_64",
	"cross_compile": null, "compiler": "gcc (Debian 12.2.0-14) 12.2.0",
	"jobs": 16, "key": "$(printf k | sha256sum | cut -c-64)",
	"elapsed_s": 421.5, "built_at": "2026-12-02T02:10:00Z"}')
	WHERE release = '6.12.71';
SQL
t_ok $? "night 2's kernel given the recipe its run would store"
t_run 0 "$B" --db "$RDB" export --kcidb --origin my_lab --run 1 --run 2 \
	-o "$T_TMP/recipe.json" &&
	"$PY" "$SRC/tests/kcidb/kcidb_schema.py" "$T_TMP/recipe.json" >/dev/null &&
	"$PY" - "$T_TMP/recipe.json" "$RC" "$P1" "$P2" "$HEAD" <<'PY'
import hashlib, json, sys
r = json.load(open(sys.argv[1]))
rc, p1, p2, head = sys.argv[2:6]
git = [c for c in r["checkouts"] if "git_commit_hash" in c]
assert len(git) == 1 and git[0]["git_commit_hash"] == rc, git
c = git[0]
# KCIDB's patchset_hash: sha256sum *.patch | cut -c-64 | sha256sum
want = hashlib.sha256(("%s\n%s\n" % (p1, p2)).encode()).hexdigest()
assert c["patchset_hash"] == want, (c, want)
assert c["misc"]["patches"] == ["0001-one.patch", "0002-two.patch"], c
assert c["git_repository_url"].startswith("https://git.kernel.org/"), c
assert c["git_repository_branch"] == "master", c
assert head not in json.dumps(r["checkouts"]), "the night's head guessed"
b = [b for b in r["builds"] if b["checkout_id"] == c["id"]]
assert len(b) == 1, b
b = b[0]
assert b["compiler"] == "gcc (Debian 12.2.0-14) 12.2.0", b
assert b["duration"] == 421.5 and b["config_name"] == "tinyconfig", b
assert b["architecture"] == "x86_64" and b["status"] == "PASS", b
assert b["misc"]["built_at"] == "2026-12-02T02:10:00Z", b
# It ended at built_at, 421.5 s after it began.
assert b["start_time"] == "2026-12-02T02:02:58.500Z", b
PY
t_ok $? "a recipe: the commit built, the patchset's hash, the config, the compiler, the build's duration and start are its"

# A bad origin: refused in words, exit 2, nothing written.
BAD=$T_TMP/bad.json
t_run 2 "$B" --db "$DB" export --kcidb --origin my-lab -o "$BAD" &&
	t_grep "$T_ERR" "origin 'my-lab'" &&
	t_grep "$T_ERR" "did you mean 'my_lab'?" && [ ! -e "$BAD" ] && [ ! -s "$T_OUT" ]
t_ok $? "--origin my-lab: exit 2, did you mean 'my_lab', no file written"
t_run 2 "$B" --db "$DB" export --kcidb --origin My-Lab.2 -o "$BAD" &&
	t_grep "$T_ERR" "did you mean 'my_lab_2'?" && [ ! -e "$BAD" ]
t_ok $? "--origin My-Lab.2: did you mean 'my_lab_2'"
t_run 2 "$B" --db "$DB" export --kcidb -o "$BAD" &&
	t_grep "$T_ERR" "--kcidb wants --origin NAME" && [ ! -e "$BAD" ]
t_ok $? "--kcidb without --origin: exit 2, nothing written"
t_run 2 "$B" --db "$DB" export --origin my_lab -o "$BAD" &&
	t_grep "$T_ERR" "go with --kcidb" && [ ! -e "$BAD" ]
t_ok $? "--origin without --kcidb: exit 2"
t_run 2 "$B" --db "$DB" export --kcidb --origin my_lab --run 9 -o "$BAD" &&
	t_grep "$T_ERR" "no run with id 9 (the newest is 2)" && [ ! -e "$BAD" ]
t_ok $? "a run the database lacks: exit 2, nothing written"
t_run 2 "$B" --db "$DB" export --run 1 --run 2
t_ok $? "several --run without --kcidb: exit 2"

# --submit: the same report to a stand-in of kcidb-ng's REST service on
# 127.0.0.1 that drops the first connection: retried, polled through
# ready to processed, the body the service validated the report's bytes.
. "$(dirname "$0")/kcidb.sh"
kcidb_standin svc --drop-first
SVC=$URL
[ -n "$SVC" ]
t_ok $? "a kcidb-ng stand-in listens on 127.0.0.1 ($SVC)"
[ -n "$SVC" ] || t_diag "$(cat "$KCIDB_D/svc.err")"
TOK=$KCIDB_D/token
LOG=$KCIDB_D/svc.log
t_run 0 "$B" --db "$DB" export --kcidb --origin my_lab --run 1 --run 2 \
	--submit "$SVC" --token-file "$TOK" -o "$T_TMP/sent.json" &&
	t_grep "$T_ERR" "retrying in 1 s" &&
	grep -Eq "^kcidb: processed, id [A-Za-z0-9]{32}: " "$T_ERR" &&
	cmp -s "$R" "$T_TMP/sent.json" &&
	[ "$(grep -c 'POST /submit auth=ok dropped' "$LOG")" -eq 1 ] &&
	grep -q 'POST /submit auth=ok submitted [A-Za-z0-9]* valid' "$LOG" &&
	grep -q 'GET /status?id=.* auth=ok ready' "$LOG" &&
	grep -q 'GET /status?id=.* auth=ok processed' "$LOG"
t_ok $? "--submit: the dropped connection retried, ready then processed, said; -o has the report sent"
! grep -q "tok3n" "$LOG" "$T_ERR" "$T_OUT"
t_ok $? "the token is in no request's URL and nothing the tool said"

# A report the service fails: a kept one, planted invalid (a test id
# of another origin's spelling), sent again with --from.
"$PY" - "$R" "$T_TMP/invalid.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["tests"][0]["id"] = "my-lab:" + r["tests"][0]["id"]
json.dump(r, open(sys.argv[2], "w"))
PY
n0=$(wc -l <"$LOG")
t_run 1 "$B" export --kcidb --origin my_lab --submit "$SVC" \
	--token-file "$TOK" --from "$T_TMP/invalid.json" &&
	grep -Eq "^kcidb: failed, id [A-Za-z0-9]{32}: .*tests/0/id" "$T_ERR" &&
	t_grep "$T_ERR" "the report is kept at $T_TMP/invalid.json" &&
	tail -n +"$((n0 + 1))" "$LOG" | grep -q 'auth=ok failed'
t_ok $? "a schema-invalid report: the service says failed, the tool says so, exit 1, kept"

# The token refused: 401 said, no retry, the report kept on disk.
printf 'not-the-token\n' >"$T_TMP/wrong"
n0=$(wc -l <"$LOG")
t_run 1 "$B" --db "$DB" export --kcidb --origin my_lab --run 2 \
	--submit "$SVC" --token-file "$T_TMP/wrong" -o "$T_TMP/k401.json" &&
	t_grep "$T_ERR" "refused the token (HTTP 401" &&
	t_grep "$T_ERR" "the report is kept at $T_TMP/k401.json" &&
	"$PY" "$SRC/tests/kcidb/kcidb_schema.py" "$T_TMP/k401.json" >/dev/null &&
	[ "$(tail -n +"$((n0 + 1))" "$LOG" | wc -l)" -eq 1 ]
t_ok $? "a wrong token: HTTP 401 said, one request, exit 1, the report kept"

# Refused before anything is sent: the stand-in hears nothing.
n0=$(wc -l <"$LOG")
t_run 2 "$B" --db "$DB" export --kcidb --origin my_lab \
	--submit "ftp://${SVC#http://}" --token-file "$TOK" &&
	t_grep "$T_ERR" "expected an http(s) URL, got 'ftp://"
t_ok $? "--submit ftp://...: exit 2, expected an http(s) URL"
t_run 2 "$B" --db "$DB" export --kcidb --origin my_lab --submit "$SVC" \
	--token-file "$T_TMP/nosuch" &&
	t_grep "$T_ERR" "cannot read the token file $T_TMP/nosuch: No such file"
t_ok $? "an unreadable token file: exit 2, named with its errno"
t_run 2 "$B" --db "$DB" export --kcidb --origin my_lab --submit "$SVC" &&
	t_grep "$T_ERR" "go together"
t_ok $? "--submit without --token-file: exit 2 (never a token on the command line)"
t_run 2 "$B" --db "$DB" export --kcidb --origin my-lab --submit "$SVC" \
	--token-file "$TOK" && t_grep "$T_ERR" "did you mean 'my_lab'"
t_ok $? "a bad origin with --submit: exit 2 before anything is sent"
[ "$(wc -l <"$LOG")" -eq "$n0" ]
t_ok $? "the stand-in heard no request from the four refused"
t_done
