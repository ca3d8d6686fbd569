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

const char *rd__col(sqlite3_stmt *s, int col)
{
	const unsigned char *t = sqlite3_column_text(s, col);

	return t ? (const char *)t : "";
}

bool rd__run_selected(const struct rd_ctx *c, int64_t run)
{
	size_t lo = 0, hi = c->nr_runs, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (c->runs[mid] == run)
			return true;
		if (c->runs[mid] < run)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

struct rd_cell *rd__cell(const struct rd_ctx *c, int64_t id)
{
	if (id < 0 || (size_t)id >= c->nr_cell_of || c->cell_of[id] < 0)
		return NULL;
	return &c->d->cells[c->cell_of[id]];
}

int rd__prepare_runs(const struct rd_ctx *c, const char *sql, sqlite3_stmt **s)
{
	return rdb__prepare_runs(c->r, sql, c->runs, c->nr_runs, s);
}

int rd__each_cell_row(struct rd_ctx *c, const char *sql, const char *what,
		      void (*fn)(struct rd_ctx *c, struct rd_cell *cell,
				 sqlite3_stmt *row, void *arg),
		      void *arg)
{
	struct rd_cell *cell;
	sqlite3_stmt *s;
	int rc, err = rd__prepare_runs(c, sql, &s);

	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		cell = rd__cell(c, sqlite3_column_int64(s, 0));
		if (cell)
			fn(c, cell, s, arg);
	}
	if (rc != SQLITE_DONE)
		err = rdb__error(c->r, rc, what);
	sqlite3_finalize(s);
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
	static const char sql[] =
		"SELECT c.id, c.run_id, h.name, k.name, c.mode, c.workload,"
		" total(t.warmup = 0 AND t.profile = 0 AND t.status = 'ok'),"
		" total(t.warmup = 0 AND t.status = 'failed'),"
		" total(t.warmup = 0 AND t.status NOT IN ('ok', 'failed')),"
		" total(t.warmup = 0 AND t.profile = 0 AND t.status = 'ok' AND"
		" " STORE_SQL_MODE_MISMATCH(
			"t") "),"
			     " group_concat(DISTINCT t.effective_mode),"
			     " group_concat(DISTINCT b.kernel_release ||"
			     "  CASE WHEN k.version <> '' THEN"
			     "  ' (' || k.version || ')' ELSE '' END)"
			     " FROM cells c JOIN hosts h ON h.id = c.host_id"
			     " JOIN kernels k ON k.id = c.kernel_id"
			     " LEFT JOIN trials t ON t.cell_id = c.id"
			     " LEFT JOIN boots b ON b.id = t.boot_id"
			     " WHERE c.run_id BETWEEN ?1 AND ?2 GROUP BY c.id ORDER BY c.id";
	const char *val[DS_NR_DIMS];
	struct rd_cell *cell;
	char run[24];
	sqlite3_stmt *s;
	bool keep;
	int rc, err, d;

	keymap__init(&c->cell_map, 5);
	err = rd__prepare_runs(c, sql, &s);
	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (!rd__run_selected(c, sqlite3_column_int64(s, 1)))
			continue;
		snprintf(run, sizeof(run), "%lld",
			 (long long)sqlite3_column_int64(s, 1));
		val[DS_RUN] = run;
		for (d = DS_HOST; d <= DS_WORKLOAD; d++)
			val[d] = rd__col(s, d + 1);
		val[DS_LABEL] = "";
		keep = true;
		for (d = 0; d < DS_NR_DIMS; d++)
			keep = keep && ds_filter__match(c->f, d, val[d]);
		if (!keep)
			continue;
		cell = cell_for(c, val);
		map_cell(c, sqlite3_column_int64(s, 0), cell - c->d->cells);
		cell->runs++;
		cell->ok += sqlite3_column_int64(s, 6);
		cell->failed += sqlite3_column_int64(s, 7);
		cell->other += sqlite3_column_int64(s, 8);
		cell->mismatched += sqlite3_column_int64(s, 9);
		cell->effective =
			rd__merge_set(c->d, cell->effective, rd__col(s, 10));
		cell->releases =
			rd__merge_set(c->d, cell->releases, rd__col(s, 11));
	}
	if (rc != SQLITE_DONE)
		err = rdb__error(c->r, rc, "reading cells");
	sqlite3_finalize(s);
	return err;
}

/* Boots as (host, release, build id, command line), newest facts kept. */
int rd__load_boots(struct rd_ctx *c)
{
	static const char sql[] =
		"SELECT b.id, h.name, b.kernel_release, b.kernel_build_id,"
		" b.cmdline, b.facts, count(t.id),"
		" group_concat(DISTINCT t.requested_mode), max(c.run_id)"
		" FROM boots b JOIN hosts h ON h.id = b.host_id"
		" JOIN trials t ON t.boot_id = b.id"
		" JOIN cells c ON c.id = t.cell_id"
		" WHERE c.run_id BETWEEN ?1 AND ?2 GROUP BY b.id ORDER BY b.id";
	struct report_data *d = c->d;
	struct keymap map;
	struct rd_boot *b;
	uint32_t key[4];
	sqlite3_stmt *s;
	bool added;
	uint32_t id;
	int rc, err;

	keymap__init(&map, 4);
	err = rd__prepare_runs(c, sql, &s);
	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (!rd__run_selected(c, sqlite3_column_int64(s, 8)) ||
		    !ds_filter__match(c->f, DS_HOST, rd__col(s, 1)))
			continue;
		key[0] = intern__id(&d->str, rd__col(s, 1));
		key[1] = intern__id(&d->str, rd__col(s, 2));
		key[2] = intern__id(&d->str, rd__col(s, 3));
		key[3] = intern__id(&d->str, rd__col(s, 4));
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
		b->trials += sqlite3_column_int64(s, 6);
		b->modes = rd__merge_set(d, b->modes, rd__col(s, 7));
		if (sqlite3_column_type(s, 5) != SQLITE_NULL) {
			free(b->facts);
			b->facts = xstrdup(rd__col(s, 5));
		}
	}
	if (rc != SQLITE_DONE)
		err = rdb__error(c->r, rc, "reading boots");
	sqlite3_finalize(s);
	keymap__release(&map);
	return err;
}

int rd__load_configs(struct rd_ctx *c)
{
	static const char sql[] = "SELECT id, config_sha256, config FROM runs"
				  " WHERE id BETWEEN ?1 AND ?2 ORDER BY id";
	struct report_data *d = c->d;
	struct rd_config *cf;
	sqlite3_stmt *s;
	int64_t run;
	size_t i;
	int rc, err;

	err = rd__prepare_runs(c, sql, &s);
	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		run = sqlite3_column_int64(s, 0);
		if (!rd__run_selected(c, run))
			continue;
		for (i = 0; i < d->nr_configs; i++)
			if (!strcmp(d->configs[i].sha256, rd__col(s, 1)))
				break;
		if (i == d->nr_configs) {
			d->configs = xrealloc(d->configs,
					      (i + 1) * sizeof(*d->configs));
			cf = &d->configs[d->nr_configs++];
			cf->sha256 = xstrdup(rd__col(s, 1));
			cf->text = xstrdup(rd__col(s, 2));
			cf->first_run = run;
			cf->runs = 0;
		}
		d->configs[i].last_run = run;
		d->configs[i].runs++;
	}
	if (rc != SQLITE_DONE)
		err = rdb__error(c->r, rc, "reading runs");
	sqlite3_finalize(s);
	return err;
}

/* Shown one by one up to this many; counted beyond. */
#define RD_MAX_FAILURES 50

int rd__load_failures(struct rd_ctx *c)
{
	static const char sql[] =
		"SELECT t.id, t.cell_id, c.run_id, t.status,"
		" coalesce(t.error, '') FROM trials t"
		" JOIN cells c ON c.id = t.cell_id"
		" WHERE c.run_id BETWEEN ?1 AND ?2 AND t.warmup = 0"
		" AND t.status <> 'ok' ORDER BY t.id";
	struct report_data *d = c->d;
	struct rd_failure *fl;
	struct rd_cell *cell;
	sqlite3_stmt *s;
	int rc, err;

	err = rd__prepare_runs(c, sql, &s);
	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		cell = rd__cell(c, sqlite3_column_int64(s, 1));
		if (!cell || !rd__run_selected(c, sqlite3_column_int64(s, 2)))
			continue;
		d->total_failures++;
		if (d->nr_failures == RD_MAX_FAILURES)
			continue;
		d->failures = xrealloc(d->failures, (d->nr_failures +
						     1) * sizeof(*d->failures));
		fl = &d->failures[d->nr_failures++];
		fl->trial = sqlite3_column_int64(s, 0);
		fl->run = sqlite3_column_int64(s, 2);
		fl->cell = cell - d->cells;
		fl->status = intern__id(&d->str, rd__col(s, 3));
		fl->error = intern__id(&d->str, rd__col(s, 4));
	}
	if (rc != SQLITE_DONE)
		err = rdb__error(c->r, rc, "reading failed trials");
	sqlite3_finalize(s);
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
