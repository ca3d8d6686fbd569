// SPDX-License-Identifier: GPL-2.0-only
/* The report's data: cells, boots, matrix files and failures. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "report-data-priv.h"
#include "util.h"

const char *rd__str(const struct report_data *d, uint32_t id)
{
	return intern__str(&d->str, id);
}

bool rd__run_selected(const struct rd_ctx *c, int64_t run)
{
	return ds__find_id(c->runs, c->nr_runs, run) >= 0;
}

struct rd_cell *rd__cell(const struct rd_ctx *c, int64_t id)
{
	if (id < 0 || (size_t)id >= c->nr_cell_of || c->cell_of[id] < 0)
		return NULL;
	return &c->d->cells[c->cell_of[id]];
}

int rd__query_runs(const struct rd_ctx *c, const struct store_query *q,
		   struct store_rows **s)
{
	return rdb__query_runs(c->r, q, c->runs, c->nr_runs, s);
}

int rd__each_cell_row(struct rd_ctx *c, const struct store_query *q,
		      void (*fn)(struct rd_ctx *c, struct rd_cell *cell,
				 struct store_rows *row, void *arg),
		      void *arg)
{
	struct rd_cell *cell;
	struct store_rows *s;
	int rc, err = rd__query_runs(c, q, &s);

	if (err)
		return err;
	while ((rc = store_rows__next(s)) > 0) {
		cell = rd__cell(c, store_rows__int(s, 0));
		if (cell)
			fn(c, cell, s, arg);
	}
	if (rc < 0)
		err = rc;
	store_rows__close(s);
	return err;
}

uint32_t rd__merge_set(struct report_data *d, uint32_t old, const char *more)
{
	char *set = xstrdup(rd__str(d, old)), *copy, *tok, *save, *n;
	size_t len;
	uint32_t id;

	copy = xstrdup(more);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		len = strlen(tok);
		/* Already in the set: bounded by ", " or the ends. */
		for (n = strstr(set, tok); n; n = strstr(n + 1, tok))
			if ((n == set || n[-1] == ' ') &&
			    (n[len] == ',' || !n[len]))
				break;
		if (n)
			continue;
		n = *set ? xasprintf("%s, %s", set, tok) : xstrdup(tok);
		free(set);
		set = n;
	}
	id = intern__id(&d->str, set);
	free(set);
	free(copy);
	return id;
}

/* Cells as (host, kernel, mode, workload[, run]): runs pool. */
static struct rd_cell *cell_for(struct rd_ctx *c, const char *val[DS_NR_DIMS])
{
	struct report_data *d = c->d;
	uint32_t key[5];
	struct rd_cell *cell;
	bool added;
	uint32_t id;

	key[0] = intern__id(&d->str, val[DS_HOST]);
	key[1] = intern__id(&d->str, val[DS_KERNEL]);
	key[2] = intern__id(&d->str, val[DS_MODE]);
	key[3] = intern__id(&d->str, val[DS_WORKLOAD]);
	key[4] = d->axis == DS_RUN ? intern__id(&d->str, val[DS_RUN]) : 0;
	id = keymap__id(&c->cell_map, key, &added);
	if (added) {
		d->cells = xrealloc(d->cells, (id + 1) * sizeof(*d->cells));
		cell = &d->cells[id];
		memset(cell, 0, sizeof(*cell));
		cell->host = key[0];
		cell->kernel = key[1];
		cell->mode = key[2];
		cell->workload = key[3];
		cell->axis = intern__id(&d->str, val[d->axis]);
		cell->effective = cell->releases = intern__id(&d->str, "");
		d->nr_cells++;
	}
	return &d->cells[id];
}

static void map_cell(struct rd_ctx *c, int64_t id, int64_t idx)
{
	size_t old = c->nr_cell_of;

	if ((size_t)id >= c->nr_cell_of) {
		c->nr_cell_of = 2 * id + 16;
		c->cell_of = xrealloc(c->cell_of,
				      c->nr_cell_of * sizeof(*c->cell_of));
		memset(c->cell_of + old, 0xff,
		       (c->nr_cell_of - old) * sizeof(*c->cell_of));
	}
	c->cell_of[id] = idx;
}

int rd__load_cells(struct rd_ctx *c)
{
	/*
	 * The releases booted carry a package kernel's version: a followed
	 * suite moves under one kernel name, sometimes under one release.
	 */
	const char *val[DS_NR_DIMS];
	struct rd_cell *cell;
	char run[24];
	struct store_rows *s;
	bool keep;
	int rc, err, d;

	keymap__init(&c->cell_map, 5);
	err = rd__query_runs(c, &store_q_report_cells, &s);
	if (err)
		return err;
	while ((rc = store_rows__next(s)) > 0) {
		if (!rd__run_selected(c, store_rows__int(s, 1)))
			continue;
		snprintf(run, sizeof(run), "%lld",
			 (long long)store_rows__int(s, 1));
		val[DS_RUN] = run;
		for (d = DS_HOST; d <= DS_WORKLOAD; d++)
			val[d] = store_rows__str(s, d + 1);
		val[DS_LABEL] = "";
		keep = true;
		for (d = 0; d < DS_NR_DIMS; d++)
			keep = keep && ds_filter__match(c->f, d, val[d]);
		if (!keep)
			continue;
		cell = cell_for(c, val);
		map_cell(c, store_rows__int(s, 0), cell - c->d->cells);
		cell->runs++;
		cell->ok += store_rows__int(s, 6);
		cell->failed += store_rows__int(s, 7);
		cell->other += store_rows__int(s, 8);
		cell->mismatched += store_rows__int(s, 9);
		cell->effective = rd__merge_set(c->d, cell->effective,
						store_rows__str(s, 10));
		cell->releases = rd__merge_set(c->d, cell->releases,
					       store_rows__str(s, 11));
	}
	if (rc < 0)
		err = rc;
	store_rows__close(s);
	return err;
}

/* Boots as (host, release, build id, command line), newest facts kept. */
int rd__load_boots(struct rd_ctx *c)
{
	struct report_data *d = c->d;
	struct keymap map;
	struct rd_boot *b;
	uint32_t key[4];
	struct store_rows *s;
	bool added;
	uint32_t id;
	int rc, err;

	keymap__init(&map, 4);
	err = rd__query_runs(c, &store_q_report_boots, &s);
	if (err)
		return err;
	while ((rc = store_rows__next(s)) > 0) {
		if (!rd__run_selected(c, store_rows__int(s, 8)) ||
		    !ds_filter__match(c->f, DS_HOST, store_rows__str(s, 1)))
			continue;
		key[0] = intern__id(&d->str, store_rows__str(s, 1));
		key[1] = intern__id(&d->str, store_rows__str(s, 2));
		key[2] = intern__id(&d->str, store_rows__str(s, 3));
		key[3] = intern__id(&d->str, store_rows__str(s, 4));
		id = keymap__id(&map, key, &added);
		if (added) {
			d->boots = xrealloc(d->boots,
					    (id + 1) * sizeof(*d->boots));
			b = &d->boots[d->nr_boots++];
			memset(b, 0, sizeof(*b));
			b->host = key[0];
			b->release = key[1];
			b->build_id = key[2];
			b->cmdline = key[3];
			b->modes = intern__id(&d->str, "");
		}
		b = &d->boots[id];
		b->boots++;
		b->trials += store_rows__int(s, 6);
		b->modes = rd__merge_set(d, b->modes, store_rows__str(s, 7));
		if (!store_rows__null(s, 5)) {
			free(b->facts);
			b->facts = xstrdup(store_rows__str(s, 5));
		}
	}
	if (rc < 0)
		err = rc;
	store_rows__close(s);
	keymap__release(&map);
	return err;
}

int rd__load_configs(struct rd_ctx *c)
{
	struct report_data *d = c->d;
	struct rd_config *cf;
	struct store_rows *s;
	int64_t run;
	size_t i;
	int rc, err;

	err = rd__query_runs(c, &store_q_report_configs, &s);
	if (err)
		return err;
	while ((rc = store_rows__next(s)) > 0) {
		run = store_rows__int(s, 0);
		if (!rd__run_selected(c, run))
			continue;
		for (i = 0; i < d->nr_configs; i++)
			if (!strcmp(d->configs[i].sha256,
				    store_rows__str(s, 1)))
				break;
		if (i == d->nr_configs) {
			d->configs = xrealloc(d->configs,
					      (i + 1) * sizeof(*d->configs));
			cf = &d->configs[d->nr_configs++];
			cf->sha256 = xstrdup(store_rows__str(s, 1));
			cf->text = xstrdup(store_rows__str(s, 2));
			cf->first_run = run;
			cf->runs = 0;
		}
		d->configs[i].last_run = run;
		d->configs[i].runs++;
	}
	if (rc < 0)
		err = rc;
	store_rows__close(s);
	return err;
}

/* Shown one by one up to this many; counted beyond. */
#define RD_MAX_FAILURES 50

int rd__load_failures(struct rd_ctx *c)
{
	struct report_data *d = c->d;
	struct rd_failure *fl;
	struct rd_cell *cell;
	struct store_rows *s;
	int rc, err;

	err = rd__query_runs(c, &store_q_report_failures, &s);
	if (err)
		return err;
	while ((rc = store_rows__next(s)) > 0) {
		cell = rd__cell(c, store_rows__int(s, 1));
		if (!cell || !rd__run_selected(c, store_rows__int(s, 2)))
			continue;
		d->total_failures++;
		if (d->nr_failures == RD_MAX_FAILURES)
			continue;
		d->failures = xrealloc(d->failures, (d->nr_failures +
						     1) * sizeof(*d->failures));
		fl = &d->failures[d->nr_failures++];
		fl->trial = store_rows__int(s, 0);
		fl->run = store_rows__int(s, 2);
		fl->cell = cell - d->cells;
		fl->status = intern__id(&d->str, store_rows__str(s, 3));
		fl->error = intern__id(&d->str, store_rows__str(s, 4));
	}
	if (rc < 0)
		err = rc;
	store_rows__close(s);
	return err;
}

int report_data__load(struct report_data *d, struct rdb *r, const int64_t *runs,
		      size_t nr_runs, const struct ds_filter *f,
		      enum ds_dim axis, size_t per_cell)
{
	/* In this order: the cells first, the others find rows by them. */
	static int (*const loads[])(struct rd_ctx * c) = {
		rd__load_cells,	   rd__load_boots,   rd__load_configs,
		rd__load_failures, rd__load_probes,  rd__load_profile,
		rd__load_series,   rd__load_carried, rd__load_perturbation,
	};
	struct rd_ctx c = { .d = d,
			    .r = r,
			    .runs = runs,
			    .nr_runs = nr_runs,
			    .f = f,
			    .series_per_cell = per_cell };
	size_t i;
	int err = 0;

	memset(d, 0, sizeof(*d));
	d->axis = axis;
	if (!nr_runs)
		return 0;
	for (i = 0; i < ARRAY_SIZE(loads) && !err; i++)
		err = loads[i](&c);
	free(c.cell_of);
	keymap__release(&c.cell_map);
	return err;
}

void report_data__release(struct report_data *d)
{
	size_t i;

	for (i = 0; i < d->nr_boots; i++)
		free(d->boots[i].facts);
	for (i = 0; i < d->nr_series; i++) {
		free(d->series[i].t);
		free(d->series[i].v);
	}
	for (i = 0; i < d->nr_configs; i++) {
		free(d->configs[i].sha256);
		free(d->configs[i].text);
	}
	free_all(d->cells, d->boots, d->probes, d->symbols, d->profiled,
		 d->series, d->failures, d->configs, d->carried);
	intern__release(&d->str);
	memset(d, 0, sizeof(*d));
}
