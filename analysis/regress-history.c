// SPDX-License-Identifier: GPL-2.0-only
/*
 * regress --history N: each (host, kernel, mode, workload, metric) of the
 * last N runs becomes a series of per-run medians, and E-divisive finds
 * where its level changed. Kernels are followed by their matrix name:
 * a nightly "mainline" whose release changes every night is one series.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "regress.h"
#include "util.h"

struct point {
	int64_t run;
	double median;
};

static int cmp_point(const void *a, const void *b)
{
	const struct point *x = a, *y = b;

	return (x->run > y->run) - (x->run < y->run);
}

/* Worse by @pct or more, in the metric's bad direction. */
static bool worse_by(enum store_better b, double from, double to, double pct)
{
	double change;

	if (from == 0 || b == STORE_BETTER_NONE)
		return false;
	change = (to / from - 1) * 100;
	if (b == STORE_BETTER_LOWER)
		change = -change;
	return change <= -pct;
}

static void classify(struct regress_history *h, struct regress_series *s,
		     enum store_better better)
{
	double last_level = s->nr_cps ? s->cps[s->nr_cps - 1].cp.mean_after :
					NAN;
	struct regress_cp *c;
	size_t i;

	for (i = 0; i < s->nr_cps; i++) {
		c = &s->cps[i];
		c->run_before = s->runs[c->cp.index - 1];
		c->run_after = s->runs[c->cp.index];
		c->status = REG_OK;
		if (worse_by(better, c->cp.mean_before, c->cp.mean_after,
			     s->threshold)) {
			c->status = REG_REGRESSION;
			/* Still worse at the end than before the drop? */
			c->recovered = !worse_by(better, c->cp.mean_before,
						 last_level, s->threshold);
			h->regressions++;
			h->unrecovered += !c->recovered;
		} else if (worse_by(better, c->cp.mean_after, c->cp.mean_before,
				    s->threshold)) {
			c->status = REG_IMPROVEMENT;
			h->improvements++;
		}
	}
}

static int detect(struct regress_history *h, struct regress_series *s,
		  const struct regress_opts *o, struct point *pts)
{
	const struct ds_metric *m = &h->ds.metrics[s->metric];
	struct changepoint *cps;
	size_t i, nr;
	int err;

	qsort(pts, s->n, sizeof(*pts), cmp_point);
	s->runs = xmalloc(s->n * sizeof(*s->runs));
	s->median = xmalloc(s->n * sizeof(*s->median));
	for (i = 0; i < s->n; i++) {
		s->runs[i] = pts[i].run;
		s->median[i] = pts[i].median;
	}
	s->threshold = regress__threshold(o, ds__str(&h->ds, m->name));
	err = changepoint__detect(s->median, s->n, &o->cp, &cps, &nr);
	if (err)
		return err;
	s->cps = xcalloc(nr ? nr : 1, sizeof(*s->cps));
	for (i = 0; i < nr; i++)
		s->cps[i].cp = cps[i];
	s->nr_cps = nr;
	free(cps);
	classify(h, s, m->better);
	return 0;
}

/* For qsort: the history whose series are sorted. */
static const struct regress_history *sort_h;

static int cmp_series(const void *a, const void *b)
{
	const struct regress_series *x = a, *y = b;
	static const int order[] = { DS_WORKLOAD, DS_HOST, DS_KERNEL, DS_MODE };
	const struct dataset *ds = &sort_h->ds;
	size_t i;
	int c;

	c = strcmp(ds__str(ds, ds->metrics[x->metric].name),
		   ds__str(ds, ds->metrics[y->metric].name));
	if (c)
		return c;
	for (i = 0; i < ARRAY_SIZE(order); i++)
		if (x->key[order[i]] != y->key[order[i]])
			return x->key[order[i]] < y->key[order[i]] ? -1 : 1;
	return 0;
}

/* Group the dataset's series by everything but the run. */
static void group(struct regress_history *h, struct point ***pts)
{
	uint32_t key[DS_NR_DIMS + 1];
	size_t i, alloc = 0, *cap = NULL;
	struct regress_series *s;
	struct keymap map;
	bool added;
	uint32_t id;

	keymap__init(&map, DS_NR_DIMS + 1);
	*pts = NULL;
	for (i = 0; i < h->ds.nr_series; i++) {
		struct ds_series *se = &h->ds.series[i];

		memcpy(key, se->dim, sizeof(se->dim));
		key[DS_RUN] = UINT32_MAX;
		key[DS_NR_DIMS] = se->metric;
		id = keymap__id(&map, key, &added);
		if (added) {
			ALLOC_GROW(h->series, h->nr_series + 1, alloc);
			*pts = xrealloc(*pts, alloc * sizeof(**pts));
			cap = xrealloc(cap, alloc * sizeof(*cap));
			s = &h->series[h->nr_series++];
			memset(s, 0, sizeof(*s));
			memcpy(s->key, key, sizeof(s->key));
			s->metric = se->metric;
			(*pts)[id] = NULL;
			cap[id] = 0;
		}
		s = &h->series[id];
		ALLOC_GROW((*pts)[id], s->n + 1, cap[id]);
		stats__sort(se->v, se->n);
		(*pts)[id][s->n].run =
			strtoll(ds__str(&h->ds, se->dim[DS_RUN]), NULL, 10);
		(*pts)[id][s->n++].median = stats__median(se->v, se->n);
	}
	free(cap);
	keymap__release(&map);
}

int regress__history(struct rdb *r, const struct rdb_runs *runs, size_t last,
		     const struct regress_opts *o, const struct ds_filter *f,
		     struct regress_history *h)
{
	struct point **pts;
	size_t i, first;
	int err = 0;

	memset(h, 0, sizeof(*h));
	dataset__init(&h->ds);
	first = runs->nr > last ? runs->nr - last : 0;
	h->nr_runs = runs->nr - first;
	h->runs = xmalloc((h->nr_runs + 1) * sizeof(*h->runs));
	for (i = first; i < runs->nr; i++)
		h->runs[i - first] = runs->v[i].id;
	if (h->nr_runs < 2 * o->cp.min_size)
		pr_warn("--history: %zu run%s; change points need at least "
			"%zu",
			h->nr_runs, h->nr_runs == 1 ? "" : "s",
			2 * o->cp.min_size);
	err = dataset__load_db(&h->ds, r, h->runs, h->nr_runs, f);
	if (err)
		return err;
	group(h, &pts);
	for (i = 0; i < h->nr_series && !err; i++)
		err = detect(h, &h->series[i], o, pts[i]);
	for (i = 0; i < h->nr_series; i++)
		free(pts[i]);
	free(pts);
	/* The points refer to series by index no more: sorting is safe. */
	sort_h = h;
	qsort(h->series, h->nr_series, sizeof(*h->series), cmp_series);
	return err;
}

void regress__history_release(struct regress_history *h)
{
	size_t i;

	for (i = 0; i < h->nr_series; i++)
		free_all(h->series[i].runs, h->series[i].median,
			 h->series[i].cps);
	free(h->series);
	free(h->runs);
	dataset__release(&h->ds);
	memset(h, 0, sizeof(*h));
}

char *regress__series_label(const struct regress_history *h,
			    const struct regress_series *s)
{
	return xasprintf("%s %s host=%s kernel=%s mode=%s",
			 ds__str(&h->ds, h->ds.metrics[s->metric].name),
			 ds__str(&h->ds, s->key[DS_WORKLOAD]),
			 ds__str(&h->ds, s->key[DS_HOST]),
			 ds__str(&h->ds, s->key[DS_KERNEL]),
			 ds__str(&h->ds, s->key[DS_MODE]));
}
