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
	int err;

	memset(r, 0, sizeof(*r));
	err = store__open(path, STORE_READONLY, &r->st);
	if (err)
		return err;
	r->path = xstrdup(path);
	return 0;
}

void rdb__close(struct rdb *r)
{
	if (r->st)
		store__close(r->st);
	free(r->path);
	memset(r, 0, sizeof(*r));
}

int rdb__query(struct rdb *r, const struct store_query *q,
	       const struct store_arg *args, struct store_rows **out)
{
	return store__query(r->st, q, args, out);
}

int rdb__query_runs_and(struct rdb *r, const struct store_query *q,
			const int64_t *runs, size_t nr_runs,
			struct store_arg third, struct store_rows **out)
{
	return store__query(r->st, q,
			    STORE_ARGS(STORE_INT(runs[0]),
				       STORE_INT(runs[nr_runs - 1]), third),
			    out);
}

int rdb__query_runs(struct rdb *r, const struct store_query *q,
		    const int64_t *runs, size_t nr_runs,
		    struct store_rows **out)
{
	return rdb__query_runs_and(r, q, runs, nr_runs,
				   STORE_ARG(STORE_ARG_END), out);
}

int rdb__runs(struct rdb *r, struct rdb_runs *runs)
{
	struct store_rows *s;
	struct rdb_run *run;
	int rc, err;

	memset(runs, 0, sizeof(*runs));
	err = rdb__query(r, &store_q_runs, NULL, &s);
	if (err)
		return err;
	while ((rc = store_rows__next(s)) > 0) {
		ALLOC_GROW(runs->v, runs->nr + 1, runs->alloc);
		run = &runs->v[runs->nr++];
		run->id = store_rows__int(s, 0);
		run->name = xstrdup(store_rows__str(s, 1));
		run->status = xstrdup(store_rows__str(s, 2));
		run->started_at = xstrdup(store_rows__str(s, 3));
		run->finished_at = xstrdup(store_rows__str(s, 4));
		run->tool_version = xstrdup(store_rows__str(s, 5));
	}
	store_rows__close(s);
	return rc;
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
