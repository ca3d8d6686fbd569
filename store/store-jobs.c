// SPDX-License-Identifier: GPL-2.0-only
/*
 * lab_jobs: what a run submitted to a lab, so that a resumed run adopts
 * the job still booted for it instead of submitting it again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store-priv.h"
#include "store.h"
#include "util.h"

int store__lab_job_add(struct store *st, int64_t run_id,
		       const struct store_lab_job *j)
{
	static const char sql[] =
		"INSERT INTO lab_jobs (run_id, host, server, job_id,"
		" definition_sha256, kernel, cmdline, submitted_at)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, " STORE_NOW ")";

	return store__exec(
		st, sql,
		STORE_ARGS(STORE_INT(run_id), STORE_TEXT(j->host),
			   STORE_TEXT(j->server), STORE_INT(j->job_id),
			   STORE_TEXT(j->sha256), STORE_TEXT(j->kernel),
			   STORE_TEXT(j->cmdline)),
		"adding a lab job");
}

int store__lab_job_set(struct store *st, const struct store_lab_job *j)
{
	/* Times are the first seen: a state said twice keeps its time. */
	static const char sql[] =
		"UPDATE lab_jobs SET state = ?3,"
		" health = coalesce(?4, health), device = coalesce(?5, device),"
		" error = coalesce(?6, error),"
		" started_at = CASE WHEN ?3 != 'submitted' AND started_at IS"
		" NULL THEN " STORE_NOW " ELSE started_at END,"
		" ended_at = CASE WHEN ?3 = 'ended' AND ended_at IS NULL THEN"
		" " STORE_NOW " ELSE ended_at END"
		" WHERE server = ?1 AND job_id = ?2";

	return store__exec(
		st, sql,
		STORE_ARGS(STORE_TEXT(j->server), STORE_INT(j->job_id),
			   STORE_TEXT(j->state), STORE_TEXT(j->health),
			   STORE_TEXT(j->device), STORE_TEXT(j->error)),
		"updating a lab job");
}

int store__lab_jobs_open(struct store *st, int64_t run_id, const char *host,
			 struct store_lab_job **out, size_t *nr)
{
	static const char sql[] =
		"SELECT server, job_id, definition_sha256, kernel, cmdline,"
		" state, device, run_id FROM lab_jobs WHERE host = ?2"
		" AND state != 'ended' ORDER BY run_id != ?1, id";
	struct store_lab_job *v = NULL;
	sqlite3_stmt *stmt;
	size_t n = 0;
	int err, rc;

	*out = NULL;
	*nr = 0;
	err = store__prepare(st, sql,
			     STORE_ARGS(STORE_INT(run_id), STORE_TEXT(host)),
			     &stmt);
	if (err)
		return err;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct store_lab_job *j;

		v = xrealloc(v, (n + 1) * sizeof(*v));
		j = &v[n++];
		memset(j, 0, sizeof(*j));
		j->host = xstrdup(host);
		j->server = store__column_dup(stmt, 0);
		j->job_id = sqlite3_column_int64(stmt, 1);
		j->sha256 = store__column_dup(stmt, 2);
		j->kernel = store__column_dup(stmt, 3);
		j->cmdline = store__column_dup(stmt, 4);
		j->state = store__column_dup(stmt, 5);
		j->device = store__column_dup(stmt, 6);
		j->run_id = sqlite3_column_int64(stmt, 7);
	}
	sqlite3_reset(stmt);
	if (rc != SQLITE_DONE) {
		store_lab_jobs__free(v, n);
		return store__sqlerr(st, rc, "reading lab jobs");
	}
	*out = v;
	*nr = n;
	return 0;
}

void store_lab_jobs__free(struct store_lab_job *v, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free_all(v[i].host, v[i].server, v[i].sha256, v[i].kernel,
			 v[i].cmdline, v[i].state, v[i].health, v[i].device,
			 v[i].error);
	free(v);
}
