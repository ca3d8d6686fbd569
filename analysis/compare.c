// SPDX-License-Identifier: GPL-2.0-only
/* Building the comparison table from a dataset. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "log.h"
#include "suggest.h"
#include "util.h"

const char *cmp__verdict_name(enum cmp_verdict v)
{
	static const char *const names[] = {
		[CMP_NONE] = "none",	   [CMP_SAME] = "same",
		[CMP_BETTER] = "better",   [CMP_WORSE] = "worse",
		[CMP_CHANGED] = "changed", [CMP_INCONCLUSIVE] = "inconclusive",
	};

	return names[v];
}

void cmp__describe(const struct cmp_opts *o, double *v, size_t n,
		   struct cmp_cell *c)
{
	c->present = n > 0;
	c->v = v;
	stats__summarize(v, n, o->conf, &c->s);
	c->warn = 0;
	if (n < stats__min_n_for_ci(o->conf))
		c->warn |= CMP_WARN_FEW_CI;
	if (n && c->s.cv > o->cv_max)
		c->warn |= CMP_WARN_HIGH_CV;
	c->verdict = CMP_NONE;
	c->ratio = c->ratio_lo = c->ratio_hi = NAN;
	c->delta = c->delta_lo = c->delta_hi = NAN;
}

bool cmp__has_interval(const struct cmp_cell *c)
{
	return !isnan(c->delta_lo);
}

/* The shift as a ratio and in percent of the baseline. */
static void express(const struct cmp_cell *base, struct cmp_cell *c)
{
	const struct stats_shift *s = &c->shift;
	double ref = fabs(base->s.median);
	bool bounded = isfinite(s->lo) && isfinite(s->hi);

	if (s->log) {
		c->ratio = exp(s->est);
		c->ratio_lo = exp(s->lo);
		c->ratio_hi = exp(s->hi);
		c->delta = (c->ratio - 1) * 100;
		c->delta_lo = (c->ratio_lo - 1) * 100;
		c->delta_hi = (c->ratio_hi - 1) * 100;
	} else if (ref > 0) {
		/* A zero among the values: no ratio, the shift in percent. */
		c->delta = s->est / ref * 100;
		c->delta_lo = s->lo / ref * 100;
		c->delta_hi = s->hi / ref * 100;
	}
	/* Too few trials for any interval at this level: none shown. */
	if (!bounded)
		c->ratio_lo = c->ratio_hi = c->delta_lo = c->delta_hi = NAN;
}

void cmp__compare(const struct cmp_opts *o, enum store_better better,
		  const struct cmp_cell *base, struct cmp_cell *c, double alpha)
{
	double up;

	(void)o;
	c->verdict = CMP_NONE;
	if (!base->present || !c->present)
		return;
	stats__shift(base->v, base->s.n, c->v, c->s.n, alpha, &c->shift);
	c->mw = c->shift.mw;
	express(base, c);
	if (stats__mw_min_p(base->s.n, c->s.n) >= alpha) {
		c->warn |= CMP_WARN_FEW_TEST;
		c->verdict = CMP_INCONCLUSIVE;
		return;
	}
	if (!c->shift.significant) {
		c->verdict = CMP_SAME;
		return;
	}
	/* The interval's side of zero, which is the estimate's. */
	up = c->shift.est;
	if (better == STORE_BETTER_NONE || up == 0)
		c->verdict = CMP_CHANGED;
	else if ((up > 0) == (better == STORE_BETTER_HIGHER))
		c->verdict = CMP_BETTER;
	else
		c->verdict = CMP_WORSE;
}

void report_unknown_value(const char *given, const char *what,
			  const char *value, const char *const *names)
{
	const char *best = suggest__best(value, names);
	char *list = xstrdup(""), *n;
	size_t i;

	for (i = 0; names[i] && i < 12; i++) {
		n = xasprintf("%s%s%s", list, i ? ", " : "", names[i]);
		free(list);
		list = n;
	}
	if (names[i]) {
		n = xasprintf("%s, ...", list);
		free(list);
		list = n;
	}
	if (best)
		pr_err("%s: no %s '%s' here; did you mean '%s'?", given, what,
		       value, best);
	else if (*list)
		pr_err("%s: no %s '%s' here (there %s: %s)", given, what, value,
		       i == 1 ? "is" : "are", list);
	else
		pr_err("%s: no %s '%s' here (there are none)", given, what,
		       value);
	free(list);
}

/* Axis values in the order they were first seen, the baseline first. */
static int pick_columns(const struct dataset *ds, const struct cmp_opts *o,
			struct cmp_table *t)
{
	bool *seen = xcalloc(ds->str.nr + 1, sizeof(*seen));
	const char **names;
	size_t i, base = 0;
	bool windows = false;
	char *given;
	uint32_t v;

	for (i = 0; i < ds->nr_series; i++) {
		seen[ds->series[i].dim[o->by]] = true;
		windows = windows ||
			  ds__metric_is_exposure(ds__str(
				  ds, ds->metrics[ds->series[i].metric].name));
	}
	/* A column whose window is "unprotected" has no series of it. */
	for (i = 0; windows && i < ds->nr_unprotected; i++)
		seen[ds->unprotected[i][o->by]] = true;
	t->cols = xmalloc((ds->str.nr + 1) * sizeof(*t->cols));
	for (v = 0; v < ds->str.nr; v++)
		if (seen[v])
			t->cols[t->nr_cols++] = v;
	free(seen);
	if (!o->baseline)
		return 0;
	for (base = 0; base < t->nr_cols; base++)
		if (!strcmp(ds__str(ds, t->cols[base]), o->baseline))
			break;
	if (base == t->nr_cols) {
		names = xcalloc(t->nr_cols + 1, sizeof(*names));
		for (i = 0; i < t->nr_cols; i++)
			names[i] = ds__str(ds, t->cols[i]);
		given = xasprintf("--baseline %s", o->baseline);
		report_unknown_value(given, ds_dim_names[o->by], o->baseline,
				     names);
		free(given);
		free(names);
		return -EINVAL;
	}
	v = t->cols[base];
	memmove(t->cols + 1, t->cols, base * sizeof(*t->cols));
	t->cols[0] = v;
	return 0;
}

static bool is_key_dim(const struct cmp_opts *o, int d)
{
	return d != (int)o->by && d != DS_RUN;
}

/* Dimensions with more than one value among the rows name them. */
static void pick_shown(const struct dataset *ds, struct cmp_table *t)
{
	uint32_t first[DS_NR_DIMS];
	size_t i;
	int d;

	for (d = 0; d < DS_NR_DIMS; d++) {
		t->shown[d] = false;
		first[d] = ds->nr_series ? ds->series[0].dim[d] : 0;
	}
	for (i = 0; i < ds->nr_series; i++)
		for (d = 0; d < DS_NR_DIMS; d++)
			if (ds->series[i].dim[d] != first[d])
				t->shown[d] = true;
	for (d = 0; d < DS_NR_DIMS; d++)
		if (!is_key_dim(&t->o, d) || d == DS_WORKLOAD)
			t->shown[d] = false;
}

static int col_of(const struct cmp_table *t, uint32_t v)
{
	size_t i;

	for (i = 0; i < t->nr_cols; i++)
		if (t->cols[i] == v)
			return i;
	return -1;
}

static const int row_order[] = { DS_WORKLOAD, DS_HOST, DS_KERNEL, DS_MODE,
				 DS_LABEL };

/* For qsort, which passes no context: the table being sorted. */
static const struct dataset *sort_ds;

static int cmp_rows(const void *a, const void *b)
{
	const struct cmp_row *x = a, *y = b;
	size_t i;
	int c;

	/* Metrics by name: the same order whatever order they came in. */
	if (x->metric != y->metric) {
		c = strcmp(ds__str(sort_ds, sort_ds->metrics[x->metric].name),
			   ds__str(sort_ds, sort_ds->metrics[y->metric].name));
		if (c)
			return c;
		return x->metric < y->metric ? -1 : 1;
	}
	for (i = 0; i < ARRAY_SIZE(row_order); i++) {
		int d = row_order[i];

		if (x->key[d] != y->key[d])
			return x->key[d] < y->key[d] ? -1 : 1;
	}
	return 0;
}

/* Pool the series into rows and columns. */
static void fill_rows(const struct dataset *ds, struct cmp_table *t)
{
	uint32_t key[DS_NR_DIMS + 1];
	struct keymap rows;
	size_t i, alloc = 0, *cap = NULL, cap_alloc = 0, k;
	struct cmp_cell *c;
	struct cmp_row *row;
	bool added;
	uint32_t id;
	int d, col;

	keymap__init(&rows, DS_NR_DIMS + 1);
	for (i = 0; i < ds->nr_series; i++) {
		const struct ds_series *se = &ds->series[i];

		col = col_of(t, se->dim[t->o.by]);
		for (d = 0; d < DS_NR_DIMS; d++)
			key[d] = is_key_dim(&t->o, d) ? se->dim[d] : UINT32_MAX;
		key[DS_NR_DIMS] = se->metric;
		id = keymap__id(&rows, key, &added);
		if (added) {
			ALLOC_GROW(t->rows, t->nr_rows + 1, alloc);
			row = &t->rows[t->nr_rows++];
			memcpy(row->key, key, sizeof(row->key));
			row->metric = se->metric;
			row->cells = xcalloc(t->nr_cols, sizeof(*row->cells));
			ALLOC_GROW(cap, t->nr_rows * t->nr_cols, cap_alloc);
			memset(cap + id * t->nr_cols, 0,
			       t->nr_cols * sizeof(*cap));
		}
		c = &t->rows[id].cells[col];
		k = id * t->nr_cols + col;
		if (c->s.n + se->n > cap[k]) {
			cap[k] = 2 * (c->s.n + se->n);
			c->v = xrealloc(c->v, cap[k] * sizeof(*c->v));
		}
		memcpy(c->v + c->s.n, se->v, se->n * sizeof(*se->v));
		c->s.n += se->n;
	}
	free(cap);
	keymap__release(&rows);
}

static void fill_geomeans(const struct dataset *ds, struct cmp_table *t)
{
	double *med = xmalloc(t->nr_rows * sizeof(*med));
	double *rat = xmalloc(t->nr_rows * sizeof(*rat));
	size_t i, j, col, nm, nr, all;
	struct cmp_geomean *g;

	t->gm = xcalloc(ds->nr_metrics, sizeof(*t->gm));
	for (i = 0; i < t->nr_rows; i = j) {
		for (j = i;
		     j < t->nr_rows && t->rows[j].metric == t->rows[i].metric;
		     j++)
			;
		g = &t->gm[t->nr_gm++];
		g->metric = t->rows[i].metric;
		g->median = xmalloc(t->nr_cols * sizeof(*g->median));
		g->ratio = xmalloc(t->nr_cols * sizeof(*g->ratio));
		for (col = 0; col < t->nr_cols; col++) {
			nm = nr = 0;
			for (all = i; all < j; all++) {
				const struct cmp_row *row = &t->rows[all];
				size_t c2;
				bool full = true;

				for (c2 = 0; c2 < t->nr_cols; c2++)
					full = full && row->cells[c2].present;
				if (full)
					med[nm++] = row->cells[col].s.median;
				if (row->cells[col].verdict != CMP_NONE &&
				    row->cells[col].ratio > 0)
					rat[nr++] = row->cells[col].ratio;
			}
			g->rows = nm;
			g->median[col] = stats__geomean(med, nm);
			g->ratio[col] = col ? stats__geomean(rat, nr) : NAN;
		}
	}
	free(med);
	free(rat);
}

/* A missing exposure figure of a cell that has none by design. */
static void mark_unprotected(const struct dataset *ds,
			     const struct cmp_table *t, struct cmp_row *row,
			     size_t col)
{
	uint32_t dim[DS_NR_DIMS];

	memcpy(dim, row->key, sizeof(dim));
	dim[t->o.by] = t->cols[col];
	row->cells[col].unprotected = dataset__unprotected(
		ds, dim, ds__str(ds, ds->metrics[row->metric].name));
}

int cmp__build(const struct dataset *ds, const struct cmp_opts *o,
	       struct cmp_table *t)
{
	enum store_better better;
	size_t i, col;
	int err;

	memset(t, 0, sizeof(*t));
	t->ds = ds;
	t->o = *o;
	if (!ds->nr_series)
		return -ENOENT;
	err = pick_columns(ds, o, t);
	if (err) {
		cmp__release(t);
		return err;
	}
	pick_shown(ds, t);
	fill_rows(ds, t);
	sort_ds = ds;
	qsort(t->rows, t->nr_rows, sizeof(*t->rows), cmp_rows);
	for (i = 0; i < t->nr_rows; i++) {
		struct cmp_row *row = &t->rows[i];

		better = ds->metrics[row->metric].better;
		for (col = 0; col < t->nr_cols; col++) {
			cmp__describe(o, row->cells[col].v, row->cells[col].s.n,
				      &row->cells[col]);
			if (!row->cells[col].present)
				mark_unprotected(ds, t, row, col);
		}
		for (col = 1; col < t->nr_cols; col++)
			cmp__compare(o, better, &row->cells[0],
				     &row->cells[col], o->alpha);
		for (col = 0; col < t->nr_cols; col++)
			t->warn |= row->cells[col].warn;
	}
	fill_geomeans(ds, t);
	return 0;
}

void cmp__release(struct cmp_table *t)
{
	size_t i, col;

	for (i = 0; i < t->nr_rows; i++) {
		for (col = 0; col < t->nr_cols; col++)
			free(t->rows[i].cells[col].v);
		free(t->rows[i].cells);
	}
	free(t->rows);
	for (i = 0; i < t->nr_gm; i++) {
		free(t->gm[i].median);
		free(t->gm[i].ratio);
	}
	free(t->gm);
	free(t->cols);
	memset(t, 0, sizeof(*t));
}

char *cmp__row_label(const struct cmp_table *t, const struct cmp_row *row)
{
	char *s = xstrdup(ds__str(t->ds, row->key[DS_WORKLOAD])), *n;
	size_t i;

	if (!*s) {
		free(s);
		s = xstrdup("-");
	}
	for (i = 1; i < ARRAY_SIZE(row_order); i++) {
		int d = row_order[i];

		if (!t->shown[d])
			continue;
		n = xasprintf("%s %s=%s", s, ds_dim_names[d],
			      ds__str(t->ds, row->key[d]));
		free(s);
		s = n;
	}
	return s;
}
