// SPDX-License-Identifier: GPL-2.0-only
/* Reading the store back: runs, and the rows export prints. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "strvec.h"
#include "store/store-priv.h"
#include "util.h"

/* "" for SQL NULL, so that row fields are always printable. */
static const char *column_str(sqlite3_stmt *stmt, int col)
{
	const unsigned char *s = sqlite3_column_text(stmt, col);

	return s ? (const char *)s : "";
}

int store__run_get(struct store *st, int64_t run_id, struct store_run *run)
{
	static const char sql[] =
		"SELECT id, name, config, config_sha256, tool_version,"
		" started_at, finished_at, status FROM runs WHERE id = ?1";
	sqlite3_stmt *stmt;
	int rc, err;

	memset(run, 0, sizeof(*run));
	err = store__prepare(st, sql, STORE_ARGS(STORE_INT(run_id)), &stmt);
	if (err)
		return err;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_DONE) {
		err = -ENOENT;
		goto out;
	}
	if (rc != SQLITE_ROW) {
		err = store__sqlerr(st, rc, "reading a run");
		goto out;
	}
	run->id = sqlite3_column_int64(stmt, 0);
	run->name = store__column_dup(stmt, 1);
	run->config = store__column_dup(stmt, 2);
	run->config_sha256 = store__column_dup(stmt, 3);
	run->tool_version = store__column_dup(stmt, 4);
	run->started_at = store__column_dup(stmt, 5);
	run->finished_at = store__column_dup(stmt, 6);
	/* The schema's CHECK allows only the words the parser knows. */
	store__run_status_parse(column_str(stmt, 7), &run->status);
out:
	sqlite3_reset(stmt);
	return err;
}

void store__run_release(struct store_run *run)
{
	free_all(run->name, run->config, run->config_sha256, run->tool_version,
		 run->started_at, run->finished_at);
	memset(run, 0, sizeof(*run));
}

int store__run_latest(struct store *st, int64_t *run_id)
{
	/* An aggregate always has its row: 0 when there is no run. */
	static const char sql[] = "SELECT coalesce(max(id), 0) FROM runs";

	return store__select_id(st, sql, NULL, "finding the latest run",
				run_id);
}

struct store_export {
	struct store *st;
	sqlite3_stmt *stmt;
};

int store__export_open(struct store *st, int64_t run_id, unsigned int flags,
		       struct store_export **out)
{
	/*
	 * Ordered by ids rather than names: the order the run made things
	 * in, which is the plan's order, and stable across exports.
	 */
	static const char sql[] =
		"SELECT run, run_name, cell, host, kernel, kernel_release,"
		" requested_mode, effective_mode, workload, trial, repetition,"
		" warmup, status, metric, value, unit, better, started_at,"
		" profile FROM trial_metrics WHERE (?1 = 0 OR run = ?1) AND"
		" (?2 OR (warmup = 0 AND profile = 0 AND status = 'ok'))"
		" ORDER BY run, cell_id, warmup DESC, profile, repetition, trial,"
		" metric";
	struct store_export *it;
	int rc, err;

	*out = NULL;
	it = xcalloc(1, sizeof(*it));
	it->st = st;
	/* Not cached: an iterator may outlive the next cached use. */
	rc = sqlite3_prepare_v2(st->db, sql, -1, &it->stmt, NULL);
	if (rc != SQLITE_OK) {
		free(it);
		return store__sqlerr(st, rc, "reading trial metrics");
	}
	err = store__bind(st, it->stmt,
			  STORE_ARGS(STORE_INT(run_id),
				     STORE_INT(!!(flags & STORE_EXPORT_ALL))));
	if (err) {
		store__export_close(it);
		return err;
	}
	*out = it;
	return 0;
}

int store__export_next(struct store_export *it, struct store_export_row *row)
{
	sqlite3_stmt *s = it->stmt;
	int rc = sqlite3_step(s);

	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return store__sqlerr(it->st, rc, "reading trial metrics");
	row->run = sqlite3_column_int64(s, 0);
	row->run_name = column_str(s, 1);
	row->cell = column_str(s, 2);
	row->host = column_str(s, 3);
	row->kernel = column_str(s, 4);
	row->kernel_release = column_str(s, 5);
	row->requested_mode = column_str(s, 6);
	row->effective_mode = column_str(s, 7);
	row->workload = column_str(s, 8);
	row->trial = sqlite3_column_int64(s, 9);
	row->repetition = sqlite3_column_int(s, 10);
	row->warmup = sqlite3_column_int(s, 11);
	row->status = column_str(s, 12);
	row->metric = column_str(s, 13);
	row->value = sqlite3_column_double(s, 14);
	row->unit = column_str(s, 15);
	row->better = column_str(s, 16);
	row->started_at = column_str(s, 17);
	row->profile = sqlite3_column_int(s, 18);
	return 1;
}

void store__export_close(struct store_export *it)
{
	if (!it)
		return;
	sqlite3_finalize(it->stmt);
	free(it);
}

int store__run_kernel_seen(struct store *st, int64_t run_id, int64_t host_id,
			   const char *kernel_name, int64_t *kernel_id,
			   char **release, char **build_id)
{
	/* The boot of the host's first trial of that kernel in the run. */
	static const char sql[] =
		"SELECT k.id, b.kernel_release, b.kernel_build_id"
		" FROM cells c JOIN kernels k ON k.id = c.kernel_id"
		" LEFT JOIN trials t ON t.cell_id = c.id AND t.boot_id IS NOT NULL"
		" LEFT JOIN boots b ON b.id = t.boot_id"
		" WHERE c.run_id = ?1 AND c.host_id = ?2 AND k.name = ?3"
		" ORDER BY t.id IS NULL, t.id LIMIT 1";
	sqlite3_stmt *stmt;
	int err;

	*release = *build_id = NULL;
	err = store__select_row(st, sql,
				STORE_ARGS(STORE_INT(run_id),
					   STORE_INT(host_id),
					   STORE_TEXT(kernel_name)),
				"finding a kernel", &stmt);
	if (err)
		return err;
	*kernel_id = sqlite3_column_int64(stmt, 0);
	*release = store__column_dup(stmt, 1);
	*build_id = store__column_dup(stmt, 2);
	if (*build_id && !**build_id) {
		free(*build_id);
		*build_id = NULL;
	}
	sqlite3_reset(stmt);
	return 0;
}

int store__cell_values(struct store *st, int64_t run_id, const char *mode,
		       const char *workload, const char *metric, double **v,
		       size_t *n, char **error)
{
	return store__kernel_cell_values(st, run_id, NULL, mode, workload,
					 metric, v, n, error);
}

int store__kernel_cell_values(struct store *st, int64_t run_id,
			      const char *kernel, const char *mode,
			      const char *workload, const char *metric,
			      double **v, size_t *n, char **error)
{
	/* Measured trials only: warmups and profile trials bend figures. */
	static const char sql[] =
		"SELECT t.status, m.value, t.error FROM trials t"
		" JOIN cells c ON c.id = t.cell_id"
		" LEFT JOIN metrics m ON m.trial_id = t.id AND m.name = ?4"
		" WHERE c.run_id = ?1 AND c.mode = ?2 AND c.workload = ?3"
		" AND (?5 IS NULL OR c.kernel_id IN"
		" (SELECT id FROM kernels WHERE name = ?5))"
		" AND t.warmup = 0 AND t.profile = 0 AND t.status <> 'pending'"
		" ORDER BY t.repetition";
	sqlite3_stmt *stmt;
	size_t alloc = 0;
	int rc, err;

	*v = NULL;
	*n = 0;
	if (error)
		*error = NULL;
	err = store__prepare(st, sql,
			     STORE_ARGS(STORE_INT(run_id), STORE_TEXT(mode),
					STORE_TEXT(workload),
					STORE_TEXT(metric), STORE_TEXT(kernel)),
			     &stmt);
	if (err)
		return err;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		bool ok = !strcmp(column_str(stmt, 0), "ok");

		if (ok && sqlite3_column_type(stmt, 1) != SQLITE_NULL) {
			ALLOC_GROW(*v, *n + 1, alloc);
			(*v)[(*n)++] = sqlite3_column_double(stmt, 1);
		} else if (error && !*error) {
			*error = ok ? xasprintf("trial stored without %s",
						metric) :
				      xstrdup(*column_str(stmt, 2) ?
						      column_str(stmt, 2) :
						      column_str(stmt, 0));
		}
	}
	if (rc != SQLITE_DONE)
		err = store__sqlerr(st, rc, "reading a cell's values");
	sqlite3_reset(stmt);
	if (err) {
		free(*v);
		*v = NULL;
		*n = 0;
	}
	return err;
}

int store__metric_names(struct store *st, struct strvec *out)
{
	static const char sql[] = "SELECT DISTINCT name FROM metrics";
	sqlite3_stmt *stmt;
	int rc, err;

	err = store__stmt(st, sql, &stmt);
	if (err)
		return err;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
		strvec__push(out, column_str(stmt, 0));
	if (rc != SQLITE_DONE)
		err = store__sqlerr(st, rc, "reading metric names");
	sqlite3_reset(stmt);
	return err;
}

int store__run_kernel_package(struct store *st, int64_t run_id,
			      const char *kernel_name, char **package,
			      char **version)
{
	static const char sql[] =
		"SELECT k.package, k.version FROM cells c"
		" JOIN kernels k ON k.id = c.kernel_id"
		" WHERE c.run_id = ?1 AND k.name = ?2 AND k.version <> ''"
		" ORDER BY c.id LIMIT 1";
	sqlite3_stmt *stmt;
	int err;

	*package = *version = NULL;
	err = store__select_row(
		st, sql, STORE_ARGS(STORE_INT(run_id), STORE_TEXT(kernel_name)),
		"reading a run's kernel", &stmt);
	if (err)
		return err;
	*package = store__column_dup(stmt, 0);
	*version = store__column_dup(stmt, 1);
	sqlite3_reset(stmt);
	return 0;
}

int store__profile_shares(struct store *st, int64_t run_id, const char *host,
			  const char *kernel, const char *mode,
			  const char *workload, struct store_share **out,
			  size_t *nr)
{
	static const char sql[] =
		"WITH tr AS (SELECT DISTINCT t.id FROM trials t"
		" JOIN cells c ON c.id = t.cell_id"
		" JOIN hosts h ON h.id = c.host_id"
		" JOIN kernels k ON k.id = c.kernel_id"
		" WHERE c.run_id = ?1 AND h.name = ?2 AND k.name = ?3"
		" AND c.mode = ?4 AND c.workload = ?5 AND t.status = 'ok'"
		" AND EXISTS (SELECT 1 FROM profile p WHERE p.trial_id = t.id))"
		" SELECT p.event, p.symbol,"
		" sum(p.overhead) / (SELECT count(*) FROM tr) FROM profile p"
		" WHERE p.trial_id IN (SELECT id FROM tr)"
		" GROUP BY p.event, p.symbol ORDER BY 3 DESC, 2";
	sqlite3_stmt *stmt;
	size_t alloc = 0;
	int rc, err;

	*out = NULL;
	*nr = 0;
	err = store__prepare(st, sql,
			     STORE_ARGS(STORE_INT(run_id), STORE_TEXT(host),
					STORE_TEXT(kernel), STORE_TEXT(mode),
					STORE_TEXT(workload)),
			     &stmt);
	if (err)
		return err;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		ALLOC_GROW(*out, *nr + 1, alloc);
		(*out)[(*nr)++] = (struct store_share){
			.event = store__column_dup(stmt, 0),
			.symbol = store__column_dup(stmt, 1),
			.share = sqlite3_column_double(stmt, 2),
		};
	}
	if (rc != SQLITE_DONE)
		err = store__sqlerr(st, rc, "reading a cell's profile");
	sqlite3_reset(stmt);
	if (err) {
		store_shares__free(*out, *nr);
		*out = NULL;
		*nr = 0;
	}
	return err;
}

void store_shares__free(struct store_share *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free_all(v[i].event, v[i].symbol);
	free(v);
}
