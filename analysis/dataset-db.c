// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loading trial metrics from the store. Two queries, not one join: the
 * trials of the selected runs first (a hundred thousand rows at most,
 * each checked once for its verified mode), then their metrics by trial
 * id range, read in table order when the range is most of the table.
 * On a 100k-trial history that is 0.4 s of SQLite where the three-way
 * join through indexes took 1 s.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "dataset.h"
#include "log.h"
#include "util.h"

static enum store_better better_parse(const char *s)
{
	if (!strcmp(s, "higher"))
		return STORE_BETTER_HIGHER;
	if (!strcmp(s, "lower"))
		return STORE_BETTER_LOWER;
	return STORE_BETTER_NONE;
}

static bool run_selected(const int64_t *runs, size_t nr, int64_t id)
{
	return ds__find_id(runs, nr, id) >= 0;
}

static void see(struct dataset *ds, int key, const char *value)
{
	uint32_t k[2] = { key, intern__id(&ds->str, value) };

	keymap__id(&ds->seen, k, NULL);
}

int dataset__check_filter(const struct dataset *ds, const struct ds_filter *f)
{
	const char **names, *what;
	size_t i, j, nr;
	char *given;
	int64_t id;

	for (i = 0; f && i < f->nr; i++) {
		id = intern__find(&ds->str, f->v[i].value);
		if (id >= 0 &&
		    keymap__find(&ds->seen, (uint32_t[]){ f->v[i].key, id }) >=
			    0)
			continue;
		names = xcalloc(ds->seen.nr + 1, sizeof(*names));
		for (j = nr = 0; j < ds->seen.nr; j++) {
			const uint32_t *k = keymap__key(&ds->seen, j);

			if ((int)k[0] == f->v[i].key)
				names[nr++] = ds__str(ds, k[1]);
		}
		what = f->v[i].key == DS_FILTER_METRIC ?
			       "metric" :
			       ds_dim_names[f->v[i].key];
		given = xasprintf("--only %s=%s", what, f->v[i].value);
		report_unknown_value(given, what, f->v[i].value, names);
		free(given);
		free(names);
		return -EINVAL;
	}
	return 0;
}

bool dataset__row_cell(struct dataset *ds, struct store_rows *s,
		       const int64_t *runs, size_t nr_runs,
		       const struct ds_filter *f, const char *val[DS_NR_DIMS],
		       char run[DS_RUN_TEXT])
{
	bool keep = true;
	int d;

	if (!run_selected(runs, nr_runs, store_rows__int(s, 1)))
		return false;
	snprintf(run, DS_RUN_TEXT, "%lld", (long long)store_rows__int(s, 1));
	val[DS_RUN] = run;
	for (d = DS_HOST; d <= DS_WORKLOAD; d++)
		val[d] = store_rows__str(s, d + 1);
	val[DS_LABEL] = "";
	for (d = 0; d < DS_NR_DIMS; d++) {
		keep = keep && ds_filter__match(f, d, val[d]);
		if (f && f->nr)
			see(ds, d, val[d]);
	}
	return keep;
}

/* The cells of the selected runs that pass @f, as dims by cell id. */
struct cell_dims {
	uint32_t (*dim)[DS_NR_DIMS];
	bool *keep;
	size_t nr; /* highest cell id + 1 */
};

static void keep_cell(struct dataset *ds, struct cell_dims *cd, size_t *alloc,
		      int64_t id, const char *val[DS_NR_DIMS])
{
	size_t old = *alloc;
	int d;

	if ((size_t)id >= cd->nr) {
		ALLOC_GROW(cd->dim, (size_t)id + 1, *alloc);
		cd->keep = xrealloc(cd->keep, *alloc * sizeof(*cd->keep));
		memset(cd->keep + old, 0, (*alloc - old) * sizeof(*cd->keep));
		cd->nr = id + 1;
	}
	for (d = 0; d < DS_NR_DIMS; d++)
		cd->dim[id][d] = intern__id(&ds->str, val[d]);
	cd->keep[id] = true;
}

/* A "default" or "current" cell's modes in effect, once per host, kernel. */
static void see_effective(struct dataset *ds, const char *const *val,
			  const char *effective)
{
	struct ds_effective e = {
		.host = intern__id(&ds->str, val[DS_HOST]),
		.kernel = intern__id(&ds->str, val[DS_KERNEL]),
		.mode = intern__id(&ds->str, val[DS_MODE]),
		.effective = intern__id(&ds->str, effective),
	};
	size_t i;

	for (i = 0; i < ds->nr_effective; i++)
		if (ds->effective[i].host == e.host &&
		    ds->effective[i].kernel == e.kernel &&
		    ds->effective[i].mode == e.mode &&
		    ds->effective[i].effective == e.effective)
			return;
	ALLOC_GROW(ds->effective, ds->nr_effective + 1, ds->alloc_effective);
	ds->effective[ds->nr_effective++] = e;
}

static int load_cells(struct dataset *ds, struct rdb *r, const int64_t *runs,
		      size_t nr_runs, const struct ds_filter *f,
		      struct cell_dims *cd)
{
	const char *val[DS_NR_DIMS];
	size_t alloc = 0;
	char run[DS_RUN_TEXT];
	struct store_rows *s;
	int rc, err;

	memset(cd, 0, sizeof(*cd));
	err = rdb__query_runs(r, &store_q_ds_cells, runs, nr_runs, &s);
	if (err)
		return err;
	while ((rc = store_rows__next(s)) > 0) {
		if (!dataset__row_cell(ds, s, runs, nr_runs, f, val, run))
			continue;
		keep_cell(ds, cd, &alloc, store_rows__int(s, 0), val);
		if (!store_rows__null(s, 6))
			see_effective(ds, val, store_rows__str(s, 6));
		if ((int)store_rows__int(s, 7))
			dataset__mark_unprotected(
				ds, cd->dim[store_rows__int(s, 0)]);
	}
	if (rc < 0)
		err = rc;
	store_rows__close(s);
	return err;
}

/* The measured trials of kept cells, by id, with their cells. */
struct trial_cells {
	int64_t *trial, *cell;
	size_t nr, alloc;
};

static int load_trials(struct dataset *ds, struct rdb *r, const int64_t *runs,
		       size_t nr_runs, const struct cell_dims *cd,
		       struct trial_cells *tc)
{
	struct store_rows *s;
	int64_t cell;
	int rc, err;

	memset(tc, 0, sizeof(*tc));
	err = rdb__query_runs(r, &store_q_ds_trials, runs, nr_runs, &s);
	if (err)
		return err;
	while ((rc = store_rows__next(s)) > 0) {
		cell = store_rows__int(s, 1);
		if (cell < 0 || (size_t)cell >= cd->nr || !cd->keep[cell])
			continue;
		if ((int)store_rows__int(s, 2)) {
			ds->mode_mismatch++;
			continue;
		}
		ALLOC_GROW(tc->trial, tc->nr + 1, tc->alloc);
		tc->cell = xrealloc(tc->cell, tc->alloc * sizeof(*tc->cell));
		tc->trial[tc->nr] = store_rows__int(s, 0);
		tc->cell[tc->nr++] = cell;
	}
	if (rc < 0)
		err = rc;
	store_rows__close(s);
	return err;
}

static int64_t cell_of(const struct trial_cells *tc, int64_t trial)
{
	long i = ds__find_id(tc->trial, tc->nr, trial);

	return i < 0 ? -1 : tc->cell[i];
}

/*
 * "name.cpuN": collectors/procstat's per-CPU series. Dozens of rows per
 * metric, no direction: left out unless --only metric= names one.
 */
static bool per_cpu(const char *name, const struct ds_filter *f)
{
	const char *dot = strrchr(name, '.');
	size_t i;

	if (!dot || strncmp(dot, ".cpu", 4) || !dot[4] ||
	    dot[4 + strspn(dot + 4, "0123456789")])
		return false;
	for (i = 0; f && i < f->nr; i++)
		if (f->v[i].key == DS_FILTER_METRIC &&
		    !strcmp(f->v[i].value, name))
			return false;
	return true;
}

/* A scan in table order, when the range is most of the table. */
static int prepare_metrics(struct rdb *r, const struct trial_cells *tc,
			   struct store_rows **s)
{
	int64_t span = tc->trial[tc->nr - 1] - tc->trial[0] + 1, max = 0;
	int err;

	err = rdb__query(r, &store_q_max_trial, NULL, s);
	if (err)
		return err;
	if (store_rows__next(*s) > 0)
		max = store_rows__int(*s, 0);
	store_rows__close(*s);
	return rdb__query_runs(
		r,
		2 * span > max ? &store_q_ds_metrics_scan :
				 &store_q_ds_metrics_seek,
		(int64_t[]){ tc->trial[0], tc->trial[tc->nr - 1] }, 2, s);
}

static int load_metrics(struct dataset *ds, struct rdb *r,
			const struct cell_dims *cd,
			const struct trial_cells *tc, const struct ds_filter *f)
{
	bool metric_filter = !ds_filter__match(f, DS_FILTER_METRIC, "");
	int64_t cell, trial, last_trial = -1, last_cell = -1;
	struct store_rows *s;
	const char *name;
	int rc, err;

	err = prepare_metrics(r, tc, &s);
	if (err)
		return err;
	while ((rc = store_rows__next(s)) > 0) {
		trial = store_rows__int(s, 0);
		/* A trial's metrics are neighbours in the table. */
		if (trial != last_trial)
			last_cell = cell_of(tc, trial);
		last_trial = trial;
		cell = last_cell;
		if (cell < 0)
			continue;
		name = store_rows__str(s, 1);
		if (metric_filter)
			see(ds, DS_FILTER_METRIC, name);
		if (!ds_filter__match(f, DS_FILTER_METRIC, name) ||
		    per_cpu(name, f))
			continue;
		dataset__add_value(
			ds, cd->dim[cell],
			dataset__metric_id(ds, name, store_rows__str(s, 2),
					   better_parse(store_rows__str(s, 3))),
			store_rows__real(s, 4));
	}
	if (rc < 0)
		err = rc;
	store_rows__close(s);
	return err;
}

int dataset__load_db(struct dataset *ds, struct rdb *r, const int64_t *runs,
		     size_t nr_runs, const struct ds_filter *f)
{
	struct trial_cells tc = { 0 };
	struct cell_dims cd;
	int err;

	if (!nr_runs)
		return 0;
	err = load_cells(ds, r, runs, nr_runs, f, &cd);
	if (!err)
		err = load_trials(ds, r, runs, nr_runs, &cd, &tc);
	if (!err && tc.nr)
		err = load_metrics(ds, r, &cd, &tc, f);
	free_all(tc.trial, tc.cell, cd.dim, cd.keep);
	return err;
}
