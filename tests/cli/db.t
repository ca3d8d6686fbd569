#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# iommu-bench db info | migrate, and the store's refusals as a user meets
# them: a missing database, a file that is not one, a newer schema.
set -eu
. "$(dirname "$0")/lib.sh"

B=$IOMMU_BENCH
latest=$("$B" version --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["schema"])')
sha() { sha256sum "$1" | cut -d' ' -f1; }

# --- a missing database
t_run 1 "$B" --db "$T_TMP/sub/missing.db" db info &&
	t_grep "$T_ERR" "no such database" &&
	t_grep "$T_ERR" "iommu-bench --db $T_TMP/sub/missing.db db migrate"
t_ok $? "db info on a missing database fails (exit 1) and says how to create one"
[ ! -e "$T_TMP/sub" ]
t_ok $? "and creates neither the database nor its directory"

# --- migrate creates and reports
DB=$T_TMP/sub/new.db
t_run 0 "$B" --db "$DB" db migrate &&
	t_grep "$T_OUT" "created $DB" &&
	t_grep "$T_OUT" "applied 0001-initial" &&
	t_grep "$T_OUT" "schema version 0 -> $latest"
t_ok $? "db migrate creates the database (and its directory) and reports the version"
[ "$(sqlite3 "$DB" 'PRAGMA user_version')" = "$latest" ]
t_ok $? "user_version is the newest migration ($latest)"

t_run 0 "$B" db migrate --db "$DB" && t_grep "$T_OUT" "schema version $latest, up to date"
t_ok $? "migrating again is a no-op that says so"

t_run 0 "$B" db migrate --db "$DB" --json &&
	python3 - "$T_OUT" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["applied"] == [] and d["from"] == d["to"] and d["created"] is False, d
EOF
t_ok $? "db migrate --json"

# --- info
t_run 0 "$B" --db "$DB" db info --json &&
	python3 - "$T_OUT" "$latest" "$DB" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == int(sys.argv[2]), d
assert d["latest_schema_version"] == int(sys.argv[2]), d
assert d["pending_migrations"] == 0, d
assert d["path"] == sys.argv[3], d
assert d["sqlite_version"].startswith("3."), d
assert d["file_size"] > 0, d
for t in ("runs", "hosts", "boots", "kernels", "cells", "trials", "metrics",
          "probes", "profile", "intervals", "artifacts"):
    assert d["counts"][t] == 0, (t, d)
EOF
t_ok $? "db info --json parses and has the schema version and counts"

sqlite3 "$DB" "INSERT INTO runs (name, config, config_sha256, tool_version, started_at)
	VALUES ('r', '', '$(printf '' | sha256sum | cut -d' ' -f1)', 't', 'now')"
t_run 0 "$B" --db "$DB" db info &&
	t_grep "$T_OUT" "schema version  $latest" &&
	grep -q '^runs  *1$' "$T_OUT" && grep -q '^metrics  *0$' "$T_OUT"
t_ok $? "db info prints the version and counts rows"

# --- which database: --db over $IOMMU_BENCH_DB over results/
IOMMU_BENCH_DB=$T_TMP/env.db t_run 0 "$B" db migrate && [ -f "$T_TMP/env.db" ]
t_ok $? "\$IOMMU_BENCH_DB names the database"
IOMMU_BENCH_DB=$T_TMP/env.db t_run 1 "$B" db info --db "$T_TMP/flag.db" &&
	t_grep "$T_ERR" "$T_TMP/flag.db: no such database"
t_ok $? "--db wins over \$IOMMU_BENCH_DB"
IOMMU_BENCH_DB=$T_TMP/env.db t_run 0 "$B" --db "$DB" db info --json &&
	python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["counts"]["runs"] == 1' "$T_OUT"
t_ok $? "--db before the command wins too"

mkdir "$T_TMP/cwd"
(cd "$T_TMP/cwd" && env -u IOMMU_BENCH_DB "$B" db migrate >/dev/null 2>&1) &&
	[ -f "$T_TMP/cwd/results/iommu-bench.db" ]
t_ok $? "without either, results/iommu-bench.db is made, results/ too"

# --- files that are not (our) databases are refused and left alone
TXT=$T_TMP/notes.txt
printf 'my notes\nnot a database\n' >"$TXT"
before=$(sha "$TXT")
t_run 1 "$B" --db "$TXT" db info && t_grep "$T_ERR" "not a SQLite database"
t_ok $? "db info on a text file fails (exit 1) and says why"
t_run 1 "$B" --db "$TXT" db migrate && t_grep "$T_ERR" "not a SQLite database"
t_ok $? "db migrate refuses it too"
[ "$(sha "$TXT")" = "$before" ] && [ ! -e "$TXT-wal" ] && [ ! -e "$TXT-journal" ]
t_ok $? "the text file is byte-for-byte unchanged, nothing beside it"

FOREIGN=$T_TMP/foreign.db
sqlite3 "$FOREIGN" "CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('x')"
before=$(sha "$FOREIGN")
t_run 1 "$B" --db "$FOREIGN" db migrate && t_grep "$T_ERR" "not an iommu-bench one" &&
	[ "$(sha "$FOREIGN")" = "$before" ]
t_ok $? "another program's SQLite database is refused and unchanged"

# --- a newer schema than this binary knows
NEWER=$T_TMP/newer.db
"$B" --db "$NEWER" db migrate >/dev/null
sqlite3 "$NEWER" "PRAGMA user_version = $((latest + 1))"
before=$(sha "$NEWER")
t_run 1 "$B" --db "$NEWER" db info &&
	t_grep "$T_ERR" "database schema version $((latest + 1)) is newer than this iommu-bench supports ($latest)" &&
	t_grep "$T_ERR" "$NEWER: upgrade iommu-bench"
t_ok $? "a newer schema is refused by db info (exit 1)"
t_run 1 "$B" --db "$NEWER" db migrate && t_grep "$T_ERR" "upgrade iommu-bench"
t_ok $? "and by db migrate"
[ "$(sha "$NEWER")" = "$before" ]
t_ok $? "and left unchanged"

# --- pending migrations: info shows them, export refuses, migrate applies
OLD=$T_TMP/old.db
sqlite3 "$OLD" "CREATE TABLE t (x); DROP TABLE t"
t_run 0 "$B" --db "$OLD" db info && t_grep "$T_OUT" "migrations pending: run 'iommu-bench db migrate'"
t_ok $? "db info on an old schema shows the pending migration"
t_run 0 "$B" --db "$OLD" db info --json &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema_version"] == 0 and d["pending_migrations"] >= 1 and d["counts"] is None, d' "$T_OUT" &&
	[ "$(sqlite3 "$OLD" 'PRAGMA user_version')" = 0 ]
t_ok $? "db info --json too, and it does not migrate"
t_run 1 "$B" --db "$OLD" export && t_grep "$T_ERR" "db migrate"
t_ok $? "export refuses a database with pending migrations (exit 1)"
t_run 0 "$B" --db "$OLD" db migrate && t_grep "$T_OUT" "schema version 0 -> $latest"
t_ok $? "db migrate brings it up"

# --- zero-length: not yet a database; migrate makes it one
EMPTY=$T_TMP/empty.db
: >"$EMPTY"
t_run 1 "$B" --db "$EMPTY" db info && t_grep "$T_ERR" "empty file, not a database yet"
t_ok $? "db info on a zero-length file fails"
t_run 0 "$B" --db "$EMPTY" db migrate &&
	[ "$(sqlite3 "$EMPTY" 'PRAGMA user_version')" = "$latest" ]
t_ok $? "db migrate turns a zero-length file into a database"

# --- first use by several processes at once (a CI job's parallel steps)
bad=0
for round in $(seq 1 20); do
	P=$T_TMP/race-$round.db
	pids=
	for i in 1 2 3 4; do
		"$B" --db "$P" db migrate >"$T_TMP/race-$round-$i.out" \
			2>"$T_TMP/race-$round-$i.err" &
		pids="$pids $!"
	done
	for p in $pids; do
		wait "$p" || bad=$((bad + 1))
	done
	n=$(cat "$T_TMP"/race-$round-*.out | grep -c "^applied 0001-initial" || :)
	[ "$n" = 1 ] || bad=$((bad + 1))
	[ "$(sqlite3 "$P" 'PRAGMA user_version')" = "$latest" ] ||
		bad=$((bad + 1))
done
[ "$bad" = 0 ]
st=$?
t_ok $st "4 db migrate at once on a new path, 20 times: all succeed, the schema applied once each time"
[ $st -eq 0 ] || t_diag "$(cat "$T_TMP"/race-*.err | sort | uniq -c | head -5)"

# --- usage
t_run 2 "$B" db inof && t_grep "$T_ERR" "did you mean 'info'?"
t_ok $? "a misspelt subcommand suggests (exit 2)"
t_run 2 "$B" db frobnicate && t_grep "$T_ERR" "'frobnicate' is not a db subcommand"
t_ok $? "an unknown subcommand is a usage error"
t_run 2 "$B" db && t_grep "$T_ERR" "usage: iommu-bench db"
t_ok $? "db without a subcommand shows the usage"
t_run 2 "$B" db info extra
t_ok $? "db info takes no argument"
t_run 0 "$B" db --help && t_grep "$T_OUT" "iommu-bench db migrate"
t_ok $? "db --help"

t_done
