// SPDX-License-Identifier: GPL-2.0-only
/*
 * One KCIDB v5.3 report of some runs: the runs read in ascending order,
 * each object added once (a kernel two runs measured is one checkout),
 * and nothing in it from the clock: two exports of the same runs are the
 * same bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "kcidb/kcidb-priv.h"
#include "kcidb/kcidb.h"
#include "store/store-query.h"
#include "store/store.h"
#include "toml.h"
#include "util.h"

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The runs asked for, ascending and each once; none: the latest. */
static int runs_of(struct store *st, const struct kcidb_opts *o, int64_t **runs,
		   size_t *nr, char **err)
{
	size_t i, n = 0;
	int64_t latest;
	int ret;

	if (!o->nr_runs) {
		ret = store__run_latest(st, &latest);
		if (ret)
			return errmsg__set(err, ret, "%s: reading its runs",
					   store__path(st));
		if (!latest)
			return errmsg__set(err, -ENOENT, "%s has no runs yet",
					   store__path(st));
		*runs = xcalloc(1, sizeof(**runs));
		(*runs)[0] = latest;
		*nr = 1;
		return 0;
	}
	*runs = xcalloc(o->nr_runs, sizeof(**runs));
	memcpy(*runs, o->runs, o->nr_runs * sizeof(**runs));
	qsort(*runs, o->nr_runs, sizeof(**runs), cmp_id);
	for (i = 0; i < o->nr_runs; i++)
		if (!n || (*runs)[n - 1] != (*runs)[i])
			(*runs)[n++] = (*runs)[i];
	*nr = n;
	return 0;
}

int kcidb__each(struct kcidb_ctx *c, const struct store_query *q,
		struct kcidb_run *run,
		void (*row)(struct kcidb_ctx *c, struct kcidb_run *run,
			    const struct store_rows *r, void *arg),
		void *arg)
{
	struct store_rows *r;
	int ret;

	ret = store__query(c->st, q, STORE_ARGS(STORE_INT(run->id)), &r);
	while (!ret && (ret = store_rows__next(r)) > 0) {
		row(c, run, r, arg);
		ret = 0;
	}
	store_rows__close(r);
	return ret;
}

static void run_release(struct kcidb_run *run)
{
	size_t i;

	for (i = 0; i < run->nr_builds; i++)
		free(run->builds[i].id);
	free(run->builds);
	free(run->name);
	toml_value__free(run->matrix);
	memset(run, 0, sizeof(*run));
}

static int run_read(struct kcidb_ctx *c, int64_t id, struct kcidb_run *run,
		    char **err)
{
	struct store_run sr;
	struct toml_error terr;
	int ret;

	memset(run, 0, sizeof(*run));
	ret = store__run_get(c->st, id, &sr);
	if (ret == -ENOENT)
		return errmsg__set(err, ret, "%s: no run with id %lld",
				   store__path(c->st), (long long)id);
	if (ret)
		return errmsg__set(err, ret, "%s: reading run %lld",
				   store__path(c->st), (long long)id);
	run->id = id;
	run->name = xstrdup(sr.name);
	kcidb__run_ident(sr.name, sr.started_at, sr.config_sha256, run->ident);
	/* A matrix that no longer parses only costs its kernels' source. */
	run->matrix = toml__parse(sr.config, strlen(sr.config), &terr);
	store__run_release(&sr);
	return 0;
}

static int report_run(struct kcidb_ctx *c, int64_t id, char **err)
{
	struct kcidb_run run;
	int ret;

	ret = run_read(c, id, &run, err);
	if (!ret)
		ret = kcidb__kernels(c, &run, err);
	if (!ret)
		ret = kcidb__tests(c, &run, err);
	if (!ret)
		ret = kcidb__issues(c, &run, err);
	run_release(&run);
	return ret;
}

int kcidb__report(struct store *st, const struct kcidb_opts *o, json_t **report,
		  char **err)
{
	struct kcidb_ctx c = { .st = st, .origin = o->origin };
	int64_t *runs = NULL;
	size_t i, nr = 0;
	int ret;

	errmsg__reset(err);
	ret = kcidb__origin_check(o->origin, err);
	if (!ret)
		ret = runs_of(st, o, &runs, &nr, err);
	if (ret)
		return ret;
	c.checkouts = json_array();
	c.builds = json_array();
	c.tests = json_array();
	c.issues = json_array();
	c.incidents = json_array();
	c.seen = json_object();
	for (i = 0; i < nr && !ret; i++)
		ret = report_run(&c, runs[i], err);
	*report = ret ? NULL :
			json_pack("{s:{s:i, s:i}, s:O, s:O, s:O, s:O, s:O}",
				  "version", "major", KCIDB_MAJOR, "minor",
				  KCIDB_MINOR, "checkouts", c.checkouts,
				  "builds", c.builds, "tests", c.tests,
				  "issues", c.issues, "incidents", c.incidents);
	json_decref(c.checkouts);
	json_decref(c.builds);
	json_decref(c.tests);
	json_decref(c.issues);
	json_decref(c.incidents);
	json_decref(c.seen);
	free(runs);
	return ret;
}
