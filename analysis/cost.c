// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cost table: compare's table of the per-trial cost figures,
 * regrouped so that a group (a workload, and what else varies) holds
 * its busy CPU, its paths and their figures, each a row of compare's.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/probe-names.h"
#include "cost.h"
#include "util.h"

static const char *const probe_order[] = { PROBE_LIST(PROBE_NAME) };

/* Probes in the DMA path's order, then their own cost, then the rest. */
static size_t path_rank(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(probe_order); i++)
		if (!strcmp(name, probe_order[i]))
			return i;
	if (!strcmp(name, COST_PROBES))
		return ARRAY_SIZE(probe_order) + 1;
	if (!strcmp(name, COST_UNPROBED))
		return ARRAY_SIZE(probe_order) + 2;
	return ARRAY_SIZE(probe_order);
}

static const struct dataset *sort_ds;

static int path_cmp(const void *a, const void *b)
{
	const struct cost_path *x = a, *y = b;
	size_t rx = path_rank(ds__str(sort_ds, x->name));
	size_t ry = path_rank(ds__str(sort_ds, y->name));

	if (rx != ry)
		return rx < ry ? -1 : 1;
	return strcmp(ds__str(sort_ds, x->name), ds__str(sort_ds, y->name));
}

/* Rows name their group by every dim but the axis (and the run). */
static bool same_group(const struct cmp_table *t, const struct cmp_row *a,
		       const struct cmp_row *b)
{
	int d;

	for (d = 0; d < DS_NR_DIMS; d++)
		if (d != (int)t->o.by && d != DS_RUN && a->key[d] != b->key[d])
			return false;
	return true;
}

static struct cost_group *group_of(struct cost_table *ct,
				   const struct cmp_row *row)
{
	struct cost_group *g;
	size_t i;

	for (i = 0; i < ct->nr_groups; i++)
		if (same_group(&ct->t, ct->groups[i].key, row))
			return &ct->groups[i];
	ct->groups =
		xrealloc(ct->groups, (ct->nr_groups + 1) * sizeof(*ct->groups));
	g = &ct->groups[ct->nr_groups++];
	memset(g, 0, sizeof(*g));
	g->key = row;
	g->cpu = g->gbit_per_core = -1;
	return g;
}

static struct cost_path *path_of(struct cost_table *ct, struct cost_group *g,
				 const char *name, size_t len)
{
	char *s = xstrndup(name, len);
	uint32_t id = intern__id(&ct->ds.str, s);
	struct cost_path *p;
	size_t i;
	int f;

	free(s);
	for (i = 0; i < g->nr_paths; i++)
		if (g->paths[i].name == id)
			return &g->paths[i];
	g->paths = xrealloc(g->paths, (g->nr_paths + 1) * sizeof(*g->paths));
	p = &g->paths[g->nr_paths++];
	p->name = id;
	for (f = 0; f < COST_NR_FIGS; f++)
		p->row[f] = -1;
	return p;
}

static void place(struct cost_table *ct, size_t r)
{
	const struct cmp_row *row = &ct->t.rows[r];
	const char *name = ds__str(&ct->ds, ct->ds.metrics[row->metric].name);
	struct cost_group *g = group_of(ct, row);
	const char *slash = strchr(name, '/');
	int f;

	if (!slash) {
		if (!strcmp(name, "cpu_ms_per_gb"))
			g->cpu = r;
		else if (!strcmp(name, "gbit_per_core"))
			g->gbit_per_core = r;
		return;
	}
	for (f = 0; f < COST_NR_FIGS; f++)
		if (!strcmp(slash + 1, cost_fig_names[f]))
			path_of(ct, g, name, slash - name)->row[f] = r;
}

int cost__build(struct cost_table *ct, const struct cmp_opts *o)
{
	size_t r, i;
	int err;

	ct->groups = NULL;
	ct->nr_groups = 0;
	err = cmp__build(&ct->ds, o, &ct->t);
	if (err)
		return err;
	/* The group keys point into the rows: no growth from here on. */
	for (r = 0; r < ct->t.nr_rows; r++)
		place(ct, r);
	sort_ds = &ct->ds;
	for (i = 0; i < ct->nr_groups; i++)
		qsort(ct->groups[i].paths, ct->groups[i].nr_paths,
		      sizeof(*ct->groups[i].paths), path_cmp);
	return 0;
}

void cost__release(struct cost_table *ct)
{
	size_t i;

	for (i = 0; i < ct->nr_groups; i++)
		free(ct->groups[i].paths);
	free(ct->groups);
	ct->groups = NULL;
	ct->nr_groups = 0;
	cmp__release(&ct->t);
}

const struct cmp_cell *cost__cell(const struct cost_table *ct,
				  const struct cost_group *g, int64_t row,
				  size_t col)
{
	const struct cmp_cell *c;

	(void)g;
	if (row < 0 || col >= ct->t.nr_cols)
		return NULL;
	c = &ct->t.rows[row].cells[col];
	return c->present ? c : NULL;
}

bool cost__diff(const struct cost_table *ct, int64_t row, size_t col,
		struct cost_diff *d)
{
	const struct cmp_cell *x = cost__cell(ct, NULL, row, 0);
	const struct cmp_cell *y = cost__cell(ct, NULL, row, col);
	struct stats_shift sh;

	d->diff = d->lo = d->hi = d->p = NAN;
	d->nx = x ? x->s.n : 0;
	d->ny = y ? y->s.n : 0;
	if (!x || !y || !col ||
	    stats__shift_abs(x->v, x->s.n, y->v, y->s.n, ct->t.o.alpha, &sh))
		return false;
	d->diff = sh.est;
	/* Too few trials for an interval at this level: none. */
	if (isfinite(sh.lo) && isfinite(sh.hi)) {
		d->lo = sh.lo;
		d->hi = sh.hi;
	}
	d->p = sh.mw.p;
	return true;
}

double cost__cores(double cpu_ms_per_gb, double gbit)
{
	/* A GB is 8 Gbit: at @gbit Gbit/s, gbit / 8 GB every second. */
	return cpu_ms_per_gb / 1e3 * gbit / 8;
}

int cost__agree(const struct cost_table *ct, const struct cost_path *p,
		size_t col)
{
	const struct cmp_cell *x =
		cost__cell(ct, NULL, p->row[COST_PROBE_PCT], col);
	const struct cmp_cell *xlo =
		cost__cell(ct, NULL, p->row[COST_PROBE_LO_PCT], col);
	const struct cmp_cell *xhi =
		cost__cell(ct, NULL, p->row[COST_PROBE_HI_PCT], col);
	const struct cmp_cell *lo =
		cost__cell(ct, NULL, p->row[COST_PROFILE_LO_PCT], col);
	const struct cmp_cell *hi =
		cost__cell(ct, NULL, p->row[COST_PROFILE_HI_PCT], col);
	double a, b;

	if (!x || !lo || !hi)
		return -1;
	/* Without a spread (an older store) the probes' share is a point. */
	a = xlo ? fmin(xlo->s.median, x->s.median) : x->s.median;
	b = xhi ? fmax(xhi->s.median, x->s.median) : x->s.median;
	return a <= hi->s.median && b >= lo->s.median;
}

bool cost__profiled(const struct cost_group *g)
{
	size_t i;

	for (i = 0; i < g->nr_paths; i++)
		if (g->paths[i].row[COST_PROFILE_PCT] >= 0)
			return true;
	return false;
}
