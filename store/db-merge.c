// SPDX-License-Identifier: GPL-2.0-only
/*
 * The databases of a sharded run (or of any runs) combined into OUT
 * (iommu-bench db merge OUT IN...), each IN in one transaction, so that a
 * merge repeated or interrupted never duplicates a row: runs match by
 * name and config sha256, cells by key, trials by (cell key, warmup, profile,
 * repetition); hosts, kernels and boots by their UNIQUE keys. A trial
 * OUT already has 'ok' stays; one OUT has in any other state yields to
 * an 'ok' one from IN.
 *
 * The robot's history comes along, so that a merged database shows the
 * nights and exports their regressions: finished nights match by series
 * and start (an unfinished one is its controller's to resume, and stays
 * there), regressions by their UNIQUE key (OUT's triage state stands
 * where both have one), notes by their words and time. A LAVA run's
 * lab_jobs are its resume state on its own controller: not copied.
 *
 * IN is ATTACHed to OUT and copied with INSERT ... SELECT, row ids
 * mapped through TEMP tables. The caller has opened both through the
 * store first, so that only databases of this schema version meet here.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stddef.h>

#include "log.h"
#include "store/db-merge.h"

/* Run in order inside the transaction; the ids of IN mapped to OUT's. */
static const char *const merge_sql[] = {
	"CREATE TEMP TABLE m_run (s INTEGER PRIMARY KEY, d INTEGER)",
	"CREATE TEMP TABLE m_host (s INTEGER PRIMARY KEY, d INTEGER)",
	"CREATE TEMP TABLE m_kernel (s INTEGER PRIMARY KEY, d INTEGER)",
	"CREATE TEMP TABLE m_boot (s INTEGER PRIMARY KEY, d INTEGER)",
	"CREATE TEMP TABLE m_cell (s INTEGER PRIMARY KEY, d INTEGER)",
	"CREATE TEMP TABLE m_trial (s INTEGER PRIMARY KEY, d INTEGER)",
	"CREATE TEMP TABLE m_night (s INTEGER PRIMARY KEY, d INTEGER)",
	"CREATE TEMP TABLE m_reg (s INTEGER PRIMARY KEY, d INTEGER)",
	/* runs */
	"INSERT INTO main.runs (name, config, config_sha256, tool_version, "
	"started_at, finished_at, status) SELECT name, config, config_sha256, "
	"tool_version, started_at, finished_at, status FROM src.runs r WHERE "
	"NOT EXISTS (SELECT 1 FROM main.runs m WHERE m.name = r.name AND "
	"m.config_sha256 = r.config_sha256) ORDER BY id",
	"INSERT INTO m_run SELECT r.id, (SELECT min(m.id) FROM main.runs m "
	"WHERE m.name = r.name AND m.config_sha256 = r.config_sha256) FROM "
	"src.runs r",
	/* hosts, kernels, boots: shared, matched by their UNIQUE keys */
	"INSERT OR IGNORE INTO main.hosts (name, identity, first_seen) SELECT "
	"name, identity, first_seen FROM src.hosts ORDER BY id",
	"INSERT INTO m_host SELECT s.id, m.id FROM src.hosts s JOIN main.hosts "
	"m USING (name, identity)",
	"INSERT OR IGNORE INTO main.kernels (name, release, build_id, "
	"image_path, recipe, package, version, suite) SELECT name, release, "
	"build_id, image_path, recipe, package, version, suite FROM "
	"src.kernels ORDER BY id",
	"INSERT INTO m_kernel SELECT s.id, m.id FROM src.kernels s JOIN "
	"main.kernels m USING (name, release, build_id, version)",
	"INSERT OR IGNORE INTO main.boots (host_id, boot_id, kernel_release, "
	"kernel_build_id, cmdline, facts, first_seen) SELECT h.d, b.boot_id, "
	"b.kernel_release, b.kernel_build_id, b.cmdline, b.facts, b.first_seen "
	"FROM src.boots b JOIN m_host h ON h.s = b.host_id ORDER BY b.id",
	"INSERT INTO m_boot SELECT b.id, m.id FROM src.boots b JOIN m_host h "
	"ON h.s = b.host_id JOIN main.boots m ON m.host_id = h.d AND "
	"m.boot_id = b.boot_id",
	/* cells by (run, key) */
	"INSERT OR IGNORE INTO main.cells (run_id, host_id, kernel_id, mode, "
	"workload, cell_key) SELECT r.d, h.d, k.d, c.mode, c.workload, "
	"c.cell_key FROM src.cells c JOIN m_run r ON r.s = c.run_id JOIN "
	"m_host h ON h.s = c.host_id JOIN m_kernel k ON k.s = c.kernel_id "
	"ORDER BY c.id",
	"INSERT INTO m_cell SELECT c.id, m.id FROM src.cells c JOIN m_run r ON "
	"r.s = c.run_id JOIN main.cells m ON m.run_id = r.d AND m.cell_key = "
	"c.cell_key",
	/* trials: OUT's non-ok ones give way to IN's ok ones */
	"DELETE FROM main.trials WHERE status <> 'ok' AND id IN (SELECT m.id "
	"FROM src.trials t JOIN m_cell c ON c.s = t.cell_id JOIN main.trials "
	"m ON m.cell_id = c.d AND m.warmup = t.warmup AND m.profile = "
	"t.profile AND m.repetition = t.repetition WHERE t.status = 'ok')",
	"INSERT INTO m_trial (s) SELECT t.id FROM src.trials t JOIN m_cell c "
	"ON c.s = t.cell_id WHERE NOT EXISTS (SELECT 1 FROM main.trials m "
	"WHERE m.cell_id = c.d AND m.warmup = t.warmup AND m.profile = "
	"t.profile AND m.repetition = t.repetition)",
	"INSERT INTO main.trials (cell_id, repetition, warmup, profile, "
	"requested_mode, effective_mode, expected_mode, boot_id, status, "
	"error, started_at, finished_at, collectors) SELECT c.d, "
	"t.repetition, t.warmup, t.profile, t.requested_mode, "
	"t.effective_mode, t.expected_mode, b.d, t.status, "
	"t.error, t.started_at, t.finished_at, t.collectors "
	"FROM src.trials t JOIN m_trial x ON x.s = t.id JOIN m_cell c ON c.s = "
	"t.cell_id LEFT JOIN m_boot b ON b.s = t.boot_id ORDER BY t.id",
	"UPDATE m_trial SET d = (SELECT m.id FROM src.trials t JOIN m_cell c "
	"ON c.s = t.cell_id JOIN main.trials m ON m.cell_id = c.d AND "
	"m.warmup = t.warmup AND m.profile = t.profile AND m.repetition = "
	"t.repetition WHERE t.id = m_trial.s)",
	/* what the copied trials measured */
	"INSERT INTO main.metrics (trial_id, name, value, unit, better) SELECT "
	"x.d, name, value, unit, better FROM src.metrics JOIN m_trial x ON x.s "
	"= trial_id ORDER BY id",
	"INSERT INTO main.probes (trial_id, name, target, attach, calls, "
	"total_ns, hist, self_ns, nested) SELECT x.d, name, target, attach, "
	"calls, total_ns, hist, self_ns, nested FROM src.probes JOIN m_trial "
	"x ON x.s = trial_id ORDER BY id",
	"INSERT INTO main.profile (trial_id, event, symbol, dso, overhead, "
	"samples) SELECT x.d, event, symbol, dso, overhead, samples FROM "
	"src.profile JOIN m_trial x ON x.s = trial_id ORDER BY id",
	"INSERT INTO main.intervals (trial_id, metric, t_start, t_end, value, "
	"unit) SELECT x.d, metric, t_start, t_end, value, unit FROM "
	"src.intervals JOIN m_trial x ON x.s = trial_id ORDER BY id",
	"INSERT INTO main.artifacts (run_id, trial_id, path, kind, sha256, "
	"size) SELECT r.d, x.d, a.path, a.kind, a.sha256, a.size FROM "
	"src.artifacts a JOIN m_run r ON r.s = a.run_id LEFT JOIN m_trial x ON "
	"x.s = a.trial_id WHERE (a.trial_id IS NULL AND NOT EXISTS (SELECT 1 "
	"FROM main.artifacts m WHERE m.run_id = r.d AND m.trial_id IS NULL AND "
	"m.path = a.path)) OR x.d IS NOT NULL ORDER BY a.id",
	/* the robot's finished nights, their regressions and notes */
	"INSERT INTO main.nights (series, kernel, head, head_subject, package, "
	"run_id, stage, verdict, summary, started_at, finished_at) SELECT "
	"n.series, n.kernel, n.head, n.head_subject, n.package, r.d, n.stage, "
	"n.verdict, n.summary, n.started_at, n.finished_at FROM src.nights n "
	"LEFT JOIN m_run r ON r.s = n.run_id WHERE n.stage = 'done' AND NOT "
	"EXISTS (SELECT 1 FROM main.nights m WHERE m.series = n.series AND "
	"m.started_at = n.started_at) ORDER BY n.id",
	"INSERT INTO m_night SELECT n.id, m.id FROM src.nights n JOIN "
	"main.nights m ON m.series = n.series AND m.started_at = n.started_at "
	"WHERE n.stage = 'done'",
	"UPDATE main.nights SET base_night_id = (SELECT b.d FROM m_night x "
	"JOIN src.nights n ON n.id = x.s JOIN m_night b ON b.s = "
	"n.base_night_id WHERE x.d = main.nights.id) WHERE base_night_id IS "
	"NULL AND id IN (SELECT d FROM m_night)",
	"INSERT OR IGNORE INTO main.regressions (night_id, series, host, "
	"workload, mode, metric, improvement, base, head, base_median, "
	"head_median, change_pct, confirm_run_id, pairs, reproduced, "
	"first_bad, no_commit, culprit, state, mail, message_id, "
	"fixed_night_id, fixed_by, created_at) SELECT n.d, g.series, g.host, "
	"g.workload, g.mode, g.metric, g.improvement, g.base, g.head, "
	"g.base_median, g.head_median, g.change_pct, c.d, g.pairs, "
	"g.reproduced, g.first_bad, g.no_commit, g.culprit, g.state, g.mail, "
	"g.message_id, f.d, g.fixed_by, g.created_at FROM src.regressions g "
	"JOIN m_night n ON n.s = g.night_id LEFT JOIN m_run c ON c.s = "
	"g.confirm_run_id LEFT JOIN m_night f ON f.s = g.fixed_night_id "
	"ORDER BY g.id",
	"INSERT INTO m_reg SELECT g.id, m.id FROM src.regressions g JOIN "
	"main.regressions m USING (series, culprit, host, workload, mode, "
	"metric, improvement)",
	"INSERT INTO main.regression_notes (regression_id, note, created_at) "
	"SELECT x.d, t.note, t.created_at FROM src.regression_notes t JOIN "
	"m_reg x ON x.s = t.regression_id WHERE NOT EXISTS (SELECT 1 FROM "
	"main.regression_notes m WHERE m.regression_id = x.d AND m.note = "
	"t.note AND m.created_at = t.created_at) ORDER BY t.id",
	"DROP TABLE m_run",
	"DROP TABLE m_host",
	"DROP TABLE m_kernel",
	"DROP TABLE m_boot",
	"DROP TABLE m_cell",
	"DROP TABLE m_trial",
	"DROP TABLE m_night",
	"DROP TABLE m_reg",
	NULL,
};

static int exec1(sqlite3 *db, const char *sql, const char *bind,
		 const char *what)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc == SQLITE_OK && bind)
		rc = sqlite3_bind_text(st, 1, bind, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_DONE || rc == SQLITE_ROW)
			rc = SQLITE_OK;
	}
	if (rc != SQLITE_OK)
		pr_err("merge %s: %s", what, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? 0 : -EIO;
}

static int merge_one(sqlite3 *db, const char *in)
{
	size_t i;
	int ret;

	ret = exec1(db, "ATTACH DATABASE ?1 AS src", in, in);
	if (ret)
		return ret;
	ret = exec1(db, "BEGIN IMMEDIATE", NULL, in);
	for (i = 0; !ret && merge_sql[i]; i++)
		ret = exec1(db, merge_sql[i], NULL, in);
	if (!ret)
		ret = exec1(db, "COMMIT", NULL, in);
	if (ret)
		exec1(db, "ROLLBACK", NULL, in);
	exec1(db, "DETACH DATABASE src", NULL, in);
	return ret;
}

int store__merge(const char *out, const char *in)
{
	sqlite3 *db = NULL;
	int ret;

	if (sqlite3_open_v2(out, &db, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK) {
		pr_err("%s: %s", out, sqlite3_errmsg(db));
		sqlite3_close(db);
		return -EIO;
	}
	sqlite3_busy_timeout(db, 10000);
	ret = exec1(db, "PRAGMA foreign_keys = ON", NULL, out);
	if (!ret)
		ret = merge_one(db, in);
	sqlite3_close(db);
	return ret;
}
