// SPDX-License-Identifier: GPL-2.0-only
/*
 * The history page's data: the robot's nights read, the last N of each
 * robot judged by regress --history's own change-point detection
 * (regress__history(): the same points, the same verdicts), each point
 * given its median's interval, each change point the regressions row
 * the robot stored for it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "log.h"
#include "stats/stats.h"
#include "util.h"

/* The interval the points carry: the report's own level. */
#define HISTORY_CONF 0.95
/* How far (in nights) a stored regression may sit from its change point. */
#define HISTORY_MATCH_NIGHTS 2

static bool is_commit(const char *s)
{
	return strlen(s) == 40 && strspn(s, "0123456789abcdef") == 40;
}

static void night_read(struct store_rows *s, struct history_night *n)
{
	const char *head = store_rows__str(s, 3);

	n->id = store_rows__int(s, 0);
	n->robot = xstrdup(store_rows__str(s, 1));
	n->kernel = xstrdup(store_rows__str(s, 2));
	n->head = xstrdup(head);
	n->run_id = store_rows__int(s, 5);
	n->verdict = xstrdup(store_rows__str(s, 6));
	n->subject = xstrdup(store_rows__str(s, 7));
	n->label = is_commit(head) ? xasprintf("%.12s", head) : xstrdup(head);
}

static void nights_free(struct history_night *v, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free_all(v[i].robot, v[i].kernel, v[i].head, v[i].label,
			 v[i].subject, v[i].verdict);
	free(v);
}

static int nights_read(struct rdb *r, struct history_night **out, size_t *nr)
{
	struct history_night *v = NULL;
	struct store_rows *s;
	size_t n = 0, alloc = 0;
	int ret;

	ret = rdb__query(r, &store_q_history_nights, NULL, &s);
	if (ret)
		return ret;
	while ((ret = store_rows__next(s)) > 0) {
		ALLOC_GROW(v, n + 1, alloc);
		night_read(s, &v[n++]);
	}
	store_rows__close(s);
	*out = v;
	*nr = n;
	return ret;
}

/*
 * Keep the last @last nights of each robot into @h; -EINVAL, said,
 * when one has fewer.
 */
static int nights_keep(struct history *h, struct history_night *all, size_t nr)
{
	size_t i, j, end;
	int ret = 0;

	h->nights = xcalloc(nr + 1, sizeof(*h->nights));
	for (i = 0; i < nr; i = end) {
		for (end = i; end < nr && !strcmp(all[end].robot, all[i].robot);
		     end++)
			;
		if (end - i < h->last) {
			pr_err("the store holds %zu night%s of series %s; "
			       "--history %zu wants more",
			       end - i, end - i == 1 ? "" : "s", all[i].robot,
			       h->last);
			ret = -EINVAL;
			continue;
		}
		for (j = end - h->last; j < end; j++) {
			h->nights[h->nr_nights++] = all[j];
			memset(&all[j], 0, sizeof(all[j]));
		}
	}
	return ret;
}

long history__night(const struct history *h, int64_t id)
{
	size_t i;

	for (i = 0; i < h->nr_nights; i++)
		if (h->nights[i].id == id)
			return i;
	return -1;
}

const char *history__verdict(const struct history_mark *m)
{
	return m->status == REG_IMPROVEMENT ? "improvement" : "regression";
}

/* The night of @robot whose run is @run, or -1. */
static long night_of_run(const struct history *h, const char *robot,
			 int64_t run)
{
	size_t i;

	for (i = 0; i < h->nr_nights; i++)
		if (h->nights[i].run_id == run &&
		    !strcmp(h->nights[i].robot, robot))
			return i;
	return -1;
}

/* The point's n and interval, from the trials regress__history sorted. */
static void point_interval(const struct dataset *ds,
			   const struct regress_series *s, int64_t run,
			   struct history_point *p)
{
	uint32_t key[DS_NR_DIMS + 1];
	char text[DS_RUN_TEXT];
	int64_t id, se;
	double level;

	p->lo = p->hi = NAN;
	snprintf(text, sizeof(text), "%lld", (long long)run);
	id = intern__find(&ds->str, text);
	if (id < 0)
		return;
	memcpy(key, s->key, sizeof(s->key));
	key[DS_RUN] = id;
	key[DS_NR_DIMS] = s->metric;
	se = keymap__find(&ds->series_map, key);
	if (se < 0)
		return;
	p->n = ds->series[se].n;
	if (stats__median_ci(ds->series[se].v, p->n, HISTORY_CONF, &p->lo,
			     &p->hi, &level))
		p->lo = p->hi = NAN;
}

static void series_marks(struct history_series *hs,
			 const struct regress_series *s)
{
	size_t i;

	hs->marks = xcalloc(s->nr_cps + 1, sizeof(*hs->marks));
	hs->rank = 3;
	for (i = 0; i < s->nr_cps; i++) {
		const struct regress_cp *c = &s->cps[i];
		struct history_mark *m;

		if (c->status != REG_REGRESSION && c->status != REG_IMPROVEMENT)
			continue;
		m = &hs->marks[hs->nr_marks++];
		m->at = c->cp.index;
		m->status = c->status;
		m->recovered = c->recovered;
		m->change_pct = 100 * c->cp.change;
		if (c->status == REG_IMPROVEMENT)
			hs->rank = hs->rank < 2 ? hs->rank : 2;
		else
			hs->rank = c->recovered && hs->rank > 0 ? 1 : 0;
	}
}

/* One robot's series from its regress__history() into @h. */
static void series_add(struct history *h, const char *robot,
		       const struct regress_history *rh)
{
	const struct dataset *ds = &rh->ds;
	size_t i, j;

	h->series = xrealloc(h->series, (h->nr_series + rh->nr_series + 1) *
						sizeof(*h->series));
	for (i = 0; i < rh->nr_series; i++) {
		const struct regress_series *s = &rh->series[i];
		struct history_series *hs = &h->series[h->nr_series++];
		const struct ds_metric *m = &ds->metrics[s->metric];

		memset(hs, 0, sizeof(*hs));
		hs->seq = h->nr_series;
		hs->robot = robot;
		hs->host = ds__str(ds, s->key[DS_HOST]);
		hs->kernel = ds__str(ds, s->key[DS_KERNEL]);
		hs->mode = ds__str(ds, s->key[DS_MODE]);
		hs->workload = ds__str(ds, s->key[DS_WORKLOAD]);
		hs->metric = ds__str(ds, m->name);
		hs->unit = ds__str(ds, m->unit);
		hs->pts = xcalloc(s->n + 1, sizeof(*hs->pts));
		for (j = 0; j < s->n; j++) {
			struct history_point *p = &hs->pts[hs->n];
			long at = night_of_run(h, robot, s->runs[j]);

			if (at < 0)
				continue;
			p->night = at;
			p->median = s->median[j];
			point_interval(ds, s, s->runs[j], p);
			hs->n++;
		}
		series_marks(hs, s);
	}
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* regress --history over one robot's nights [@from, @to) of @h. */
static int robot_load(struct rdb *r, struct history *h, size_t from, size_t to,
		      const struct ds_filter *f)
{
	struct regress_opts o = { .cmp = CMP_OPTS_DEFAULT,
				  .default_pct = 3,
				  .cp = CP_OPTS_DEFAULT };
	struct regress_history *rh = &h->rh[h->nr_rh];
	struct rdb_runs runs = { 0 };
	int64_t *ids = xcalloc(to - from + 1, sizeof(*ids));
	size_t i;
	int ret;

	for (i = from; i < to; i++)
		ids[i - from] = h->nights[i].run_id;
	qsort(ids, to - from, sizeof(*ids), cmp_id);
	runs.v = xcalloc(to - from + 1, sizeof(*runs.v));
	for (i = 0; i < to - from; i++)
		runs.v[runs.nr++].id = ids[i];
	ret = regress__history(r, &runs, runs.nr, &o, f, rh);
	h->nr_rh++;
	if (!ret)
		ret = dataset__check_filter(&rh->ds, f);
	if (!ret)
		series_add(h, h->nights[from].robot, rh);
	free(runs.v);
	free(ids);
	return ret;
}

/* The stored regression nearest the change point @m of @hs, if any. */
static const struct store_regression *mark_reg(const struct history *h,
					       const struct history_series *hs,
					       const struct history_mark *m)
{
	long at = hs->pts[m->at].night, best = HISTORY_MATCH_NIGHTS + 1, d;
	const struct store_regression *found = NULL;
	size_t i;

	for (i = 0; i < h->nr_regs; i++) {
		const struct store_regression *g = &h->regs[i];

		if (strcmp(g->series, hs->robot) || strcmp(g->host, hs->host) ||
		    strcmp(g->workload, hs->workload) ||
		    strcmp(g->mode, hs->mode) ||
		    strcmp(g->metric, hs->metric) ||
		    !g->improvement != (m->status == REG_REGRESSION))
			continue;
		d = labs(history__night(h, g->night_id) - at);
		if (history__night(h, g->night_id) >= 0 && d < best) {
			best = d;
			found = g;
		}
	}
	return found;
}

/* The robot's regressions of the nights drawn, each matched to a mark. */
static int regs_load(struct rdb *r, struct history *h)
{
	struct store_regression *v;
	size_t i, j, n;
	int ret;

	ret = store__regressions(r->st, NULL, 0, &v, &n);
	if (ret)
		return ret;
	h->regs = xcalloc(n + 1, sizeof(*h->regs));
	for (i = 0; i < n; i++) {
		if (history__night(h, v[i].night_id) < 0) {
			store_regression__release(&v[i]);
			continue;
		}
		h->regs[h->nr_regs++] = v[i];
	}
	free(v);
	for (i = 0; i < h->nr_series; i++)
		for (j = 0; j < h->series[i].nr_marks; j++)
			h->series[i].marks[j].reg = mark_reg(
				h, &h->series[i], &h->series[i].marks[j]);
	return 0;
}

static int cmp_rank(const void *a, const void *b)
{
	const struct history_series *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank - y->rank;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

int history__load(struct rdb *r, size_t last, const struct ds_filter *f,
		  struct history *h)
{
	struct history_night *all = NULL;
	size_t nr = 0, i, from;
	int ret;

	memset(h, 0, sizeof(*h));
	h->last = last;
	ret = nights_read(r, &all, &nr);
	if (!ret && !nr) {
		pr_err("%s: no finished nights: the history is drawn from "
		       "what `iommu-bench nightly` stores",
		       r->path);
		ret = -ENOENT;
	}
	if (!ret)
		ret = nights_keep(h, all, nr);
	nights_free(all, nr);
	h->rh = xcalloc(h->nr_nights + 1, sizeof(*h->rh));
	for (from = 0, i = 1; !ret && i <= h->nr_nights; i++)
		if (i == h->nr_nights ||
		    strcmp(h->nights[i].robot, h->nights[from].robot)) {
			ret = robot_load(r, h, from, i, f);
			from = i;
		}
	if (!ret)
		ret = regs_load(r, h);
	if (!ret)
		qsort(h->series, h->nr_series, sizeof(*h->series), cmp_rank);
	return ret;
}

void history__release(struct history *h)
{
	size_t i;

	for (i = 0; i < h->nr_series; i++)
		free_all(h->series[i].pts, h->series[i].marks);
	free(h->series);
	for (i = 0; i < h->nr_rh; i++)
		regress__history_release(&h->rh[i]);
	free(h->rh);
	store_regressions__free(h->regs, h->nr_regs);
	nights_free(h->nights, h->nr_nights);
	memset(h, 0, sizeof(*h));
}
