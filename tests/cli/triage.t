#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# iommu-bench triage on a real store: the robot's regressions listed with
# their states, one shown with its notes, ignored with a note kept,
# reopened to the state its mail left it in, and the bad words refused. The rows are planted as the robot stores them
# (schemas/0007-nightly.sql); that a night writes them, testbed-nightly.t
# shows.
set -eu
. "$(dirname "$0")/lib.sh"

B=$IOMMU_BENCH
DB=$T_TMP/t.db

t_run 1 "$B" --db "$DB" triage && t_grep "$T_ERR" "no such database"
t_ok $? "no store: said, exit 1, nothing created"
t_run 0 "$B" --db "$DB" db migrate &&
	t_run 0 "$B" --db "$DB" triage && t_grep "$T_OUT" "no regressions"
t_ok $? "a store with no nights: no regressions"

HEAD=0123456789abcdef0123456789abcdef01234567
BASE=89abcdef0123456789abcdef0123456789abcdef
sqlite3 "$DB" "PRAGMA foreign_keys = ON;
INSERT INTO nights (series, kernel, head, stage, verdict, started_at)
	VALUES ('tiny', 'next', '$BASE', 'done', 'pass', '2026-12-01T00:00:00Z'),
	       ('tiny', 'next', '$HEAD', 'done', 'regression', '2026-12-02T00:00:00Z');
INSERT INTO regressions (night_id, series, host, workload, mode, metric,
	base, head, change_pct, pairs, reproduced, first_bad, culprit,
	state, mail, created_at)
	VALUES (2, 'tiny', 'guest', 'rx', 'lazy', 'iotlb_sync_per_gb',
		'$BASE', '$HEAD', 412.5, 6, 6, '$HEAD', '$HEAD', 'reported',
		'/srv/nightly/night-2/reg-1.mbox', '2026-12-02T01:00:00Z'),
	       (2, 'tiny', 'guest', 'rx', 'strict', 'throughput',
		'$BASE', '$HEAD', -7.5, 6, 5, NULL, '$HEAD', 'new', NULL,
		'2026-12-02T01:00:00Z');"
t_ok $? "two regressions of one night planted as the robot stores them"

t_run 0 "$B" --db "$DB" triage &&
	grep -q "^   1  reported   night 2 .*guest/rx/lazy iotlb_sync_per_gb +412.5%  0123456789ab$" "$T_OUT" &&
	grep -q "^   2  new .*guest/rx/strict throughput -7.5%" "$T_OUT"
t_ok $? "triage lists both, each with its state, cell, change and culprit"

t_run 0 "$B" --db "$DB" triage show 1 &&
	t_grep "$T_OUT" "reproduced in 6 of 6 interleaved pairs" &&
	t_grep "$T_OUT" "first bad commit: $HEAD" &&
	t_grep "$T_OUT" "mail: /srv/nightly/night-2/reg-1.mbox"
t_ok $? "triage show: the confirmation, the commit and the mail"

t_run 0 "$B" --db "$DB" triage ignore 2 --note "the throughput of TCG moved with the host" &&
	t_grep "$T_OUT" "regression 2 ignored: guest/rx/strict throughput no longer fails a night of tiny (it was new)" &&
	[ "$(sqlite3 "$DB" "SELECT state FROM regressions WHERE id = 2")" = ignored ]
t_ok $? "triage ignore: stored, and said what it means for the gate"

t_run 0 "$B" --db "$DB" triage note 1 "bisected by hand too: same commit" &&
	t_run 0 "$B" --db "$DB" triage show 2 --json &&
	python3 - "$T_OUT" <<'EOF'
import json, sys
o = json.load(open(sys.argv[1]))
assert o["state"] == "ignored" and o["id"] == 2, o
assert len(o["notes"]) == 1 and o["notes"][0].endswith("  the throughput of TCG moved with the host"), o
EOF
t_ok $? "notes kept, oldest first; show --json has them"

t_run 0 "$B" --db "$DB" triage --json --series tiny && python3 - "$T_OUT" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["regressions"]
assert [x["state"] for x in r] == ["reported", "ignored"], r
assert r[0]["reproduced"] == {"of": 6, "in": 6} and r[1]["first_bad"] is None, r
EOF
t_ok $? "triage --json lists them for a script"

t_run 0 "$B" --db "$DB" triage reopen 2 --note "ignored by mistake: the host did not move" &&
	t_grep "$T_OUT" "regression 2 reopened (new): guest/rx/strict throughput fails a night of tiny again while it stays regressed" &&
	[ "$(sqlite3 "$DB" "SELECT state FROM regressions WHERE id = 2")" = new ]
t_ok $? "triage reopen: an ignored regression never mailed is new again, said"
t_run 0 "$B" --db "$DB" triage ignore 1 && t_run 0 "$B" --db "$DB" triage reopen 1 &&
	t_grep "$T_OUT" "regression 1 reopened (reported)" &&
	[ "$(sqlite3 "$DB" "SELECT state FROM regressions WHERE id = 1")" = reported ]
t_ok $? "... one whose mail was written is reported again, so no night mails it twice"
t_run 1 "$B" --db "$DB" triage reopen 1 &&
	t_grep "$T_ERR" "regression 1 is reported, not ignored: nothing to reopen"
t_ok $? "reopening what is not ignored: said, exit 1"

t_run 0 "$B" --db "$DB" triage --series other && t_grep "$T_OUT" "no regressions in other"
t_ok $? "--series another: none"

t_run 1 "$B" --db "$DB" triage ignore 9 && t_grep "$T_ERR" "no regression 9 in $DB"
t_ok $? "an id that is not there: said, exit 1"
t_run 2 "$B" --db "$DB" triage ignore 1x && t_grep "$T_ERR" "'1x' is not a regression's id"
t_ok $? "a word that is not an id: exit 2"
t_run 2 "$B" --db "$DB" triage ignroe 1 && t_grep "$T_ERR" "did you mean 'ignore'?"
t_ok $? "a misspelt subcommand: did you mean"
t_run 2 "$B" --db "$DB" triage note 1 && t_grep "$T_ERR" "note takes a regression id and the text"
t_ok $? "a note without its text: exit 2"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM regression_notes")" = 3 ]
t_ok $? "no refused word changed the store"

t_done
