// SPDX-License-Identifier: GPL-2.0-only
/* The read-only connection, and runs by id, "latest" or "previous". */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "rdb.h"
#include "store/store.h"
#include "util.h"

int rdb__open(const char *path, struct rdb *r)
{
	struct store *st;
	int rc, err;

	memset(r, 0, sizeof(*r));
	err = store__open(path, STORE_READONLY, &st);
	if (err) {
		if (err == -ENOENT)
			pr_err("%s: no such database (run a matrix first, or "
			       "give --db PATH)",
			       path);
		return err;
	}
	store__close(st);
	rc = sqlite3_open_v2(path, &r->db,
			     SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		pr_err("%s: %s", path,
		       r->db ? sqlite3_errmsg(r->db) : sqlite3_errstr(rc));
		sqlite3_close(r->db);
		r->db = NULL;
		return -EIO;
	}
	/* A running matrix may be checkpointing: wait rather than fail. */
	sqlite3_busy_timeout(r->db, 10000);
	r->path = xstrdup(path);
	return 0;
}

void rdb__close(struct rdb *r)
{
	if (r->db)
		sqlite3_close(r->db);
	free(r->path);
	memset(r, 0, sizeof(*r));
}

int rdb__error(struct rdb *r, int rc, const char *what)
{
	pr_err("%s: %s: %s", r->path, what,
	       rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE ?
		       "unexpected result" :
		       sqlite3_errmsg(r->db));
	return -EIO;
}

int rdb__prepare(struct rdb *r, const char *sql, sqlite3_stmt **stmt)
{
	int rc = sqlite3_prepare_v2(r->db, sql, -1, stmt, NULL);

	if (rc != SQLITE_OK)
		return rdb__error(r, rc, "preparing a query");
	return 0;
}

int rdb__prepare_runs(struct rdb *r, const char *sql, const int64_t *runs,
		      size_t nr_runs, sqlite3_stmt **stmt)
{
	int err = rdb__prepare(r, sql, stmt);

	if (err)
		return err;
	sqlite3_bind_int64(*stmt, 1, runs[0]);
	sqlite3_bind_int64(*stmt, 2, runs[nr_runs - 1]);
	return 0;
}

static char *col_dup(sqlite3_stmt *s, int col)
{
	const unsigned char *t = sqlite3_column_text(s, col);

	return xstrdup(t ? (const char *)t : "");
}

int rdb__runs(struct rdb *r, struct rdb_runs *runs)
{
	static const char sql[] =
		"SELECT id, name, status, started_at, finished_at, tool_version"
		" FROM runs ORDER BY id";
	struct rdb_run *run;
	sqlite3_stmt *s;
	int rc, err;

	memset(runs, 0, sizeof(*runs));
	err = rdb__prepare(r, sql, &s);
	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		ALLOC_GROW(runs->v, runs->nr + 1, runs->alloc);
		run = &runs->v[runs->nr++];
		run->id = sqlite3_column_int64(s, 0);
		run->name = col_dup(s, 1);
		run->status = col_dup(s, 2);
		run->started_at = col_dup(s, 3);
		run->finished_at = col_dup(s, 4);
		run->tool_version = col_dup(s, 5);
	}
	if (rc != SQLITE_DONE)
		err = rdb__error(r, rc, "reading runs");
	sqlite3_finalize(s);
	return err;
}

const struct rdb_run *rdb__run_find(const struct rdb_runs *runs, int64_t id)
{
	size_t i;

	for (i = 0; i < runs->nr; i++)
		if (runs->v[i].id == id)
			return &runs->v[i];
	return NULL;
}

void rdb__runs_release(struct rdb_runs *runs)
{
	size_t i;

	for (i = 0; i < runs->nr; i++)
		free_all(runs->v[i].name, runs->v[i].status,
			 runs->v[i].started_at, runs->v[i].finished_at,
			 runs->v[i].tool_version);
	free(runs->v);
	memset(runs, 0, sizeof(*runs));
}

int rdb__run_resolve(const struct rdb_runs *runs, const char *what,
		     const char *arg, int64_t *id)
{
	long long v;
	char *end;

	if (!strcmp(arg, "latest") || !strcmp(arg, "previous")) {
		size_t back = !strcmp(arg, "previous");

		if (runs->nr <= back) {
			pr_err("%s %s: the database has %zu run%s", what, arg,
			       runs->nr, runs->nr == 1 ? "" : "s");
			return -ENOENT;
		}
		*id = runs->v[runs->nr - 1 - back].id;
		return 0;
	}
	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || v <= 0) {
		pr_err("%s wants a run id (a positive integer), 'latest' or "
		       "'previous', got '%s'",
		       what, arg);
		return -EINVAL;
	}
	if (!rdb__run_find(runs, v)) {
		if (runs->nr)
			pr_err("%s %lld: no such run (the newest is %lld)",
			       what, v, (long long)runs->v[runs->nr - 1].id);
		else
			pr_err("%s %lld: no such run (the database has no "
			       "runs yet)",
			       what, v);
		return -ENOENT;
	}
	*id = v;
	return 0;
}
