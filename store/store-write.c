// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writing to the store: runs, where trials ran, and the trials
 * themselves. What a trial measured is in store-measure.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "sha256.h"
#include "store/store-priv.h"
#include "util.h"
#include "version.h"

static const char *const run_status_names[] = {
	[STORE_RUN_RUNNING] = "running",
	[STORE_RUN_DONE] = "done",
	[STORE_RUN_FAILED] = "failed",
	[STORE_RUN_INTERRUPTED] = "interrupted",
};

static const char *const trial_status_names[] = {
	[STORE_TRIAL_PENDING] = "pending", [STORE_TRIAL_RUNNING] = "running",
	[STORE_TRIAL_OK] = "ok",	   [STORE_TRIAL_FAILED] = "failed",
	[STORE_TRIAL_SKIPPED] = "skipped",
};

const char *store__run_status_name(enum store_run_status s)
{
	return (unsigned int)s < ARRAY_SIZE(run_status_names) ?
		       run_status_names[s] :
		       NULL;
}

const char *store__trial_status_name(enum store_trial_status s)
{
	return (unsigned int)s < ARRAY_SIZE(trial_status_names) ?
		       trial_status_names[s] :
		       NULL;
}

static int parse_word(const char *s, const char *const *names, size_t n)
{
	size_t i;

	for (i = 0; s && i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -EINVAL;
}

int store__run_status_parse(const char *s, enum store_run_status *out)
{
	int i = parse_word(s, run_status_names, ARRAY_SIZE(run_status_names));

	if (i < 0)
		return i;
	*out = i;
	return 0;
}

int store__trial_status_parse(const char *s, enum store_trial_status *out)
{
	int i = parse_word(s, trial_status_names,
			   ARRAY_SIZE(trial_status_names));

	if (i < 0)
		return i;
	*out = i;
	return 0;
}

/*
 * Run one statement that changes a row known by id; -ENOENT when no
 * row had that id, which is a caller's bug worth a clear message.
 */
static int update_one(struct store *st, const char *sql,
		      const struct store_arg *args, const char *what,
		      int64_t id)
{
	int err = store__exec(st, sql, args, what);

	if (!err && sqlite3_changes(st->db) == 0) {
		pr_err("%s: %s: no row with id %lld", st->path, what,
		       (long long)id);
		err = -ENOENT;
	}
	return err;
}

int store__run_begin(struct store *st, const char *name, const char *config,
		     size_t config_len, int64_t *run_id)
{
	static const char sql[] =
		"INSERT INTO runs (name, config, config_sha256, tool_version,"
		" started_at) VALUES (?1, ?2, ?3, ?4, " STORE_NOW ")";
	char sha[SHA256_HEX_SIZE];

	sha256__hex(config, config_len, sha);
	return store__insert(
		st, sql,
		STORE_ARGS(STORE_TEXT(name), STORE_TEXT_LEN(config, config_len),
			   STORE_TEXT(sha), STORE_TEXT(iommu_bench_version)),
		"starting a run", run_id);
}

static int run_set_status(struct store *st, int64_t run_id,
			  enum store_run_status status)
{
	static const char sql[] =
		"UPDATE runs SET status = ?2, finished_at = CASE WHEN ?2 ="
		" 'running' THEN NULL ELSE " STORE_NOW " END WHERE id = ?1";

	return update_one(
		st, sql,
		STORE_ARGS(STORE_INT(run_id),
			   STORE_TEXT(store__run_status_name(status))),
		"setting run status", run_id);
}

int store__run_finish(struct store *st, int64_t run_id,
		      enum store_run_status status)
{
	if (status == STORE_RUN_RUNNING || !store__run_status_name(status))
		return -EINVAL;
	return run_set_status(st, run_id, status);
}

int store__run_resume(struct store *st, int64_t run_id)
{
	return run_set_status(st, run_id, STORE_RUN_RUNNING);
}

int store__run_find_resumable(struct store *st, const char *name,
			      const char *config_sha256, int64_t *run_id)
{
	static const char sql[] =
		"SELECT id FROM runs WHERE name = ?1 AND config_sha256 = ?2"
		" AND status <> 'done' ORDER BY id DESC LIMIT 1";

	return store__select_id(st, sql,
				STORE_ARGS(STORE_TEXT(name),
					   STORE_TEXT(config_sha256)),
				"finding a run to resume", run_id);
}

int store__host_upsert(struct store *st, const char *name, const char *identity,
		       int64_t *host_id)
{
	/* The no-op update makes RETURNING answer for an existing row too. */
	static const char sql[] =
		"INSERT INTO hosts (name, identity, first_seen)"
		" VALUES (?1, ?2, " STORE_NOW ") ON CONFLICT (name, identity)"
		" DO UPDATE SET name = excluded.name RETURNING id";

	return store__select_id(
		st, sql, STORE_ARGS(STORE_TEXT(name), STORE_TEXT(identity)),
		"adding a host", host_id);
}

int store__boot_upsert(struct store *st, int64_t host_id,
		       const struct store_boot *b, int64_t *boot_row_id)
{
	/* Facts may come after the boot is first seen; never lose them. */
	static const char sql[] =
		"INSERT INTO boots (host_id, boot_id, kernel_release,"
		" kernel_build_id, cmdline, facts, first_seen)"
		" VALUES (?1, ?2, ?3, coalesce(?4, ''), ?5, ?6, " STORE_NOW ")"
		" ON CONFLICT (host_id, boot_id) DO UPDATE SET"
		" facts = coalesce(excluded.facts, facts) RETURNING id";

	return store__select_id(
		st, sql,
		STORE_ARGS(STORE_INT(host_id), STORE_TEXT(b->boot_id),
			   STORE_TEXT(b->kernel_release),
			   STORE_TEXT(b->kernel_build_id),
			   STORE_TEXT(b->cmdline), STORE_TEXT(b->facts_json)),
		"adding a boot", boot_row_id);
}

int store__kernel_upsert(struct store *st, const struct store_kernel *k,
			 int64_t *kernel_id)
{
	static const char sql[] =
		"INSERT INTO kernels (name, release, build_id, image_path,"
		" recipe, package, version, suite) VALUES (?1, coalesce(?2, ''),"
		" coalesce(?3, ''), ?4, ?5, coalesce(?6, ''), coalesce(?7, ''),"
		" coalesce(?8, ''))"
		" ON CONFLICT (name, release, build_id, version) DO UPDATE SET"
		" image_path = coalesce(excluded.image_path, image_path),"
		" recipe = coalesce(excluded.recipe, recipe),"
		" package = coalesce(nullif(excluded.package, ''), package),"
		" suite = coalesce(nullif(excluded.suite, ''), suite) RETURNING id";

	return store__select_id(
		st, sql,
		STORE_ARGS(STORE_TEXT(k->name), STORE_TEXT(k->release),
			   STORE_TEXT(k->build_id), STORE_TEXT(k->image_path),
			   STORE_TEXT(k->recipe_json), STORE_TEXT(k->package),
			   STORE_TEXT(k->version), STORE_TEXT(k->suite)),
		"adding a kernel", kernel_id);
}

int store__cell_upsert(struct store *st, const struct store_cell *c,
		       int64_t *cell_id)
{
	static const char ins[] =
		"INSERT INTO cells (run_id, host_id, kernel_id, mode, workload,"
		" cell_key) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
		" ON CONFLICT (run_id, cell_key) DO NOTHING";
	static const char sel[] =
		"SELECT id, host_id = ?2 AND kernel_id = ?3 AND mode = ?4 AND"
		" workload = ?5 FROM cells WHERE run_id = ?1 AND cell_key = ?6";
	const struct store_arg *args =
		STORE_ARGS(STORE_INT(c->run_id), STORE_INT(c->host_id),
			   STORE_INT(c->kernel_id), STORE_TEXT(c->mode),
			   STORE_TEXT(c->workload), STORE_TEXT(c->key));
	sqlite3_stmt *stmt;
	int err;

	err = store__exec(st, ins, args, "adding a cell");
	if (!err)
		err = store__select_row(st, sel, args, "finding a cell", &stmt);
	if (err)
		return err;
	*cell_id = sqlite3_column_int64(stmt, 0);
	if (!sqlite3_column_int(stmt, 1)) {
		pr_err("%s: cell '%s' of run %lld is stored with another host, "
		       "kernel, mode or workload: the matrix changed since the "
		       "run started",
		       st->path, c->key, (long long)c->run_id);
		err = -EEXIST;
	}
	sqlite3_reset(stmt);
	return err;
}

int store__trial_find_or_insert(struct store *st, int64_t cell_id,
				unsigned int repetition,
				enum store_trial_kind kind, int64_t *trial_id,
				enum store_trial_status *status)
{
	/* "WHERE" before "ON CONFLICT" keeps SQLite's parser unambiguous. */
	static const char ins[] =
		"INSERT INTO trials (cell_id, repetition, warmup, profile,"
		" requested_mode) SELECT id, ?2, ?3, ?4, mode FROM cells"
		" WHERE id = ?1"
		" ON CONFLICT (cell_id, warmup, profile, repetition) DO NOTHING";
	static const char sel[] =
		"SELECT id, status FROM trials WHERE cell_id = ?1 AND"
		" repetition = ?2 AND warmup = ?3 AND profile = ?4";
	const struct store_arg *args =
		STORE_ARGS(STORE_INT(cell_id), STORE_INT(repetition),
			   STORE_INT(kind == STORE_TRIAL_WARMUP),
			   STORE_INT(kind == STORE_TRIAL_PROFILE));
	enum store_trial_status s;
	sqlite3_stmt *stmt;
	int rc, err;

	err = store__exec(st, ins, args, "adding a trial");
	if (!err)
		err = store__prepare(st, sel, args, &stmt);
	if (err)
		return err;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		*trial_id = sqlite3_column_int64(stmt, 0);
		err = store__trial_status_parse(
			(const char *)sqlite3_column_text(stmt, 1), &s);
		if (!err && status)
			*status = s;
	} else if (rc == SQLITE_DONE) {
		pr_err("%s: adding a trial: no cell with id %lld", st->path,
		       (long long)cell_id);
		err = -ENOENT;
	} else {
		err = store__sqlerr(st, rc, "finding a trial");
	}
	sqlite3_reset(stmt);
	return err;
}

int store__trial_start(struct store *st, int64_t trial_id, int64_t boot_row_id,
		       const char *effective_mode, const char *expected_mode)
{
	static const char sql[] =
		"UPDATE trials SET status = 'running', boot_id = ?2,"
		" effective_mode = ?3, expected_mode = ?4, error = NULL,"
		" started_at = " STORE_NOW ","
		" finished_at = NULL WHERE id = ?1";

	return update_one(st, sql,
			  STORE_ARGS(STORE_INT(trial_id), STORE_ID(boot_row_id),
				     STORE_TEXT(effective_mode),
				     STORE_TEXT(expected_mode)),
			  "starting a trial", trial_id);
}

int store__trial_collectors(struct store *st, int64_t trial_id,
			    const char *json)
{
	static const char sql[] =
		"UPDATE trials SET collectors = ?2 WHERE id = ?1";

	return update_one(st, sql,
			  STORE_ARGS(STORE_INT(trial_id), STORE_TEXT(json)),
			  "recording a trial's collectors", trial_id);
}

int store__trial_finish(struct store *st, int64_t trial_id,
			enum store_trial_status status, const char *error)
{
	static const char sql[] = "UPDATE trials SET status = ?2, error = ?3,"
				  " finished_at = " STORE_NOW " WHERE id = ?1";

	if (status == STORE_TRIAL_PENDING || status == STORE_TRIAL_RUNNING ||
	    !store__trial_status_name(status))
		return -EINVAL;
	return update_one(
		st, sql,
		STORE_ARGS(STORE_INT(trial_id),
			   STORE_TEXT(store__trial_status_name(status)),
			   STORE_TEXT(error)),
		"finishing a trial", trial_id);
}

int store__trial_reset(struct store *st, int64_t trial_id)
{
	static const char *const sql[] = {
		"DELETE FROM metrics WHERE trial_id = ?1",
		"DELETE FROM probes WHERE trial_id = ?1",
		"DELETE FROM profile WHERE trial_id = ?1",
		"DELETE FROM intervals WHERE trial_id = ?1",
		"DELETE FROM artifacts WHERE trial_id = ?1",
		"UPDATE trials SET status = 'pending', effective_mode = NULL,"
		" boot_id = NULL, error = NULL, started_at = NULL,"
		" finished_at = NULL WHERE id = ?1",
	};
	const struct store_arg *args = STORE_ARGS(STORE_INT(trial_id));
	bool own_tx = sqlite3_get_autocommit(st->db);
	size_t i;
	int err = 0;

	/* All or nothing, inside the caller's transaction or our own. */
	if (own_tx && (err = store__begin(st)))
		return err;
	for (i = 0; i < ARRAY_SIZE(sql) && !err; i++) {
		if (i == ARRAY_SIZE(sql) - 1)
			err = update_one(st, sql[i], args, "resetting a trial",
					 trial_id);
		else
			err = store__exec(st, sql[i], args,
					  "resetting a trial");
	}
	if (!own_tx)
		return err;
	if (err) {
		store__rollback(st);
		return err;
	}
	return store__commit(st);
}
