// SPDX-License-Identifier: GPL-2.0-only
/*
 * Judging a night, with regress's own tests: tonight's run of the
 * followed kernel against the last good night's (pairwise, the gated
 * metrics), then change points over the series' nights. What moved is
 * not yet news: a series someone ignored is left alone; one already
 * reported and still regressed is said, not reported again; one that
 * came back to its level is said fixed, once; anything else is stored
 * to be measured again (confirm) before anyone is told.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/nightly/nightly-priv.h"
#include "log.h"
#include "report/regress-print.h"
#include "util.h"

void night__filter(struct ds_filter *f, const char *key, const char *value)
{
	char *kv = xasprintf("%s=%s", key, value);

	ds_filter__add(f, kv);
	free(kv);
}

/* The names of @it's cell and metric, in the candidate's dataset. */
struct cell_words {
	const char *host, *workload, *mode, *metric;
};

/*
 * A dimension's value: the item's where regress matched on it, else the
 * one value every series has (one host, one mode: not keyed).
 */
static const char *dim_of(const struct regress_result *res,
			  const struct regress_item *it, int d)
{
	if (res->keyed[d] || !res->cds.nr_series)
		return ds__str(&res->cds, it->key[d]);
	return ds__str(&res->cds, res->cds.series[0].dim[d]);
}

static struct cell_words words_of(const struct regress_result *res,
				  const struct regress_item *it)
{
	return (struct cell_words){
		.host = dim_of(res, it, DS_HOST),
		.workload = dim_of(res, it, DS_WORKLOAD),
		.mode = dim_of(res, it, DS_MODE),
		.metric = ds__str(&res->cds, it->key[DS_NR_DIMS]),
	};
}

static bool same_cell(const struct store_regression *r,
		      const struct cell_words *w)
{
	return !strcmp(r->host, w->host) && !strcmp(r->workload, w->workload) &&
	       !strcmp(r->mode, w->mode) && !strcmp(r->metric, w->metric);
}

static bool is_open(const struct store_regression *r)
{
	return !strcmp(r->state, "new") || !strcmp(r->state, "reported") ||
	       !strcmp(r->state, "confirming");
}

static double pct(double base, double head)
{
	return base ? 100 * (head - base) / fabs(base) : NAN;
}

/* Tonight against @base_run, the followed kernel alone on both sides. */
static int pairwise(struct night *nt, struct rdb *r, int64_t base_run,
		    const char *const *metrics, const struct ds_filter *f,
		    struct regress_result *res)
{
	struct regress_opts o = { NIGHT_REGRESS_OPTS, .metrics = metrics };

	memset(res, 0, sizeof(*res));
	res->base = (struct regress_sel){ .arg = "the last good night",
					  .run = base_run,
					  .kernel = nt->k->name };
	res->cand = (struct regress_sel){ .arg = "tonight",
					  .run = nt->n.run_id,
					  .kernel = nt->k->name };
	return regress__pairwise(r, &o, f, res);
}

/* A finding of tonight: news, a known one, an ignored one. */
static int finding(struct night *nt, const struct regress_result *res,
		   const struct regress_item *it,
		   const struct store_regression *known, size_t nr_known)
{
	struct cell_words w = words_of(res, it);
	bool better = it->status == REG_IMPROVEMENT;
	struct store_regression r = { 0 };
	size_t i;

	for (i = 0; i < nr_known; i++) {
		const struct store_regression *k = &known[i];

		if (!same_cell(k, &w) || k->night_id == nt->n.id)
			continue;
		if (!strcmp(k->state, "ignored")) {
			night__say(nt,
				   "%s/%s/%s %s moved %+.1f%%: ignored "
				   "(regression %lld)",
				   w.host, w.workload, w.mode, w.metric,
				   pct(it->base.s.median, it->cand.s.median),
				   (long long)k->id);
			return 0;
		}
		if (is_open(k) && k->improvement == better) {
			night__say(nt,
				   "%s/%s/%s %s: still %+.1f%%, regression "
				   "%lld (night %lld, %.*s), not reported "
				   "again",
				   w.host, w.workload, w.mode, w.metric,
				   pct(it->base.s.median, it->cand.s.median),
				   (long long)k->id, (long long)k->night_id,
				   NIGHT_ABBREV, k->culprit);
			if (!better) {
				free(nt->n.verdict);
				nt->n.verdict = xstrdup("regression");
			}
			return 0;
		}
	}
	/* Tonight's own rows: a judge resumed after it stored them. */
	for (i = 0; i < nr_known; i++)
		if (known[i].night_id == nt->n.id && same_cell(&known[i], &w))
			return 0;
	/*
	 * The very code the last good night ran: what moved is the
	 * testbed, not the code, and measuring one commit against itself
	 * again could only say so. A running kernel's head is its
	 * release, the same night after night: its nights stand on their
	 * own run (confirm_running()).
	 */
	if (nt->k->kind != KERNEL_RUNNING && nt->base.head &&
	    !strcmp(nt->base.head, nt->n.head)) {
		night__say(nt,
			   "%s/%s/%s %s %+.1f%% against night %lld, on the "
			   "same %.*s: the testbed's, not the code's; no "
			   "regression",
			   w.host, w.workload, w.mode, w.metric,
			   pct(it->base.s.median, it->cand.s.median),
			   (long long)nt->base.id, night__abbrev(nt->n.head),
			   nt->n.head);
		return 0;
	}
	r = (struct store_regression){
		.night_id = nt->n.id,
		.series = (char *)nt->series,
		.host = (char *)w.host,
		.workload = (char *)w.workload,
		.mode = (char *)w.mode,
		.metric = (char *)w.metric,
		.improvement = better,
		.base = nt->base.head,
		.head = nt->n.head,
		.base_median = it->base.s.median,
		.head_median = it->cand.s.median,
		.change_pct = pct(it->base.s.median, it->cand.s.median),
		.culprit = nt->n.head,
	};
	night__say(nt,
		   "%s/%s/%s %s %+.1f%% against night %lld: to be "
		   "confirmed",
		   w.host, w.workload, w.mode, w.metric, r.change_pct,
		   (long long)nt->base.id);
	return store__regression_add(nt->st, &r, NULL);
}

/*
 * Whether @k's figure came back tonight. An open regression's nights
 * failed, so the last good night, tonight's base, is the level before
 * it. An ignored one's nights passed at the regressed level, so the
 * last good night says nothing of the level before: its stored medians
 * do, and the figure is back when tonight's lies nearer the old one.
 */
static bool came_back(const struct store_regression *k,
		      const struct regress_item *it)
{
	double now = it->cand.s.median;

	if (!strcmp(k->state, "ignored"))
		return fabs(now - k->base_median) < fabs(now - k->head_median);
	return it->status == REG_OK || it->status == REG_IMPROVEMENT ||
	       it->status == REG_INFO;
}

/* An earlier night's open or ignored regression whose figure came back. */
static int fixed(struct night *nt, const struct regress_result *res,
		 struct store_regression *k)
{
	size_t i;

	for (i = 0; i < res->nr_items; i++) {
		const struct regress_item *it = &res->items[i];
		struct cell_words w = words_of(res, it);
		struct store_regression set = { .id = k->id };

		if (!same_cell(k, &w) || !came_back(k, it))
			continue;
		set.state = (char *)"fixed";
		set.fixed_night_id = nt->n.id;
		set.fixed_by = nt->n.head;
		night__say(nt,
			   "regression %lld (%s/%s/%s %s, night %lld) is "
			   "fixed by %.*s%s%s%s",
			   (long long)k->id, k->host, k->workload, k->mode,
			   k->metric, (long long)k->night_id, NIGHT_ABBREV,
			   nt->n.head, nt->n.head_subject ? " (\"" : "",
			   nt->n.head_subject ? nt->n.head_subject : "",
			   nt->n.head_subject ? "\")" : "");
		return store__regression_set(nt->st, &set);
	}
	return 0;
}

/* The series' nights alone, as regress's history reads runs. */
static int night_runs(struct night *nt, const struct rdb_runs *all,
		      struct rdb_runs *mine)
{
	int64_t *ids;
	size_t n, i, j;
	int ret;

	memset(mine, 0, sizeof(*mine));
	ret = store__night_runs(nt->st, nt->series, nt->n.id, &ids, &n);
	if (ret)
		return ret;
	mine->v = xcalloc(n + 1, sizeof(*mine->v));
	for (i = 0; i < all->nr; i++)
		for (j = 0; j < n; j++)
			if (all->v[i].id == ids[j])
				mine->v[mine->nr++] = all->v[i];
	free(ids);
	return 0;
}

/*
 * Change points over the nights: a slow drift no pair of nights shows.
 * Over the gated metrics alone (@res's, the pairwise judgement's): the
 * others' steps are not the gate's (a host-side figure such as vm_cores
 * moves with the machine, and failed a night of testbed-nightly.t). A
 * regression still in effect fails the night unless its series was
 * ignored; it is said, not mailed (no single night is its culprit).
 */
static int history(struct night *nt, struct rdb *r,
		   const struct regress_result *res,
		   const struct store_regression *known, size_t nr_known,
		   struct regress_history *h, bool *have)
{
	struct regress_opts o = { NIGHT_REGRESS_OPTS };
	struct rdb_runs all = { 0 }, mine = { 0 };
	struct ds_filter f = { 0 };
	size_t i, j, k;
	int ret;

	ret = rdb__runs(r, &all);
	if (!ret)
		ret = night_runs(nt, &all, &mine);
	if (ret || mine.nr < 2 * o.cp.min_size)
		goto out;
	night__filter(&f, "kernel", nt->k->name);
	for (i = 0; i < res->nr_metrics; i++)
		night__filter(&f, "metric", res->metrics[i]);
	ret = regress__history(r, &mine, nt->cfg->history, &o, &f, h);
	*have = !ret;
	for (i = 0; !ret && i < h->nr_series; i++) {
		const struct regress_series *s = &h->series[i];
		const char *metric = ds__str(&h->ds, s->metric);

		for (j = 0; j < s->nr_cps; j++) {
			const struct regress_cp *c = &s->cps[j];
			bool ignored = false;
			char *label;

			if (c->status != REG_REGRESSION || c->recovered)
				continue;
			for (k = 0; k < nr_known; k++)
				ignored |= !strcmp(known[k].state, "ignored") &&
					   !strcmp(known[k].metric, metric);
			label = regress__series_label(h, s);
			night__say(nt,
				   "history: %s regressed after run %lld "
				   "and has not come back%s",
				   label, (long long)c->run_before,
				   ignored ? " (ignored)" : "");
			free(label);
			if (!ignored) {
				free(nt->n.verdict);
				nt->n.verdict = xstrdup("regression");
			}
		}
	}
out:
	ds_filter__release(&f);
	free(mine.v);
	rdb__runs_release(&all);
	return ret;
}

/*
 * The pinned kernel of the same night, beside the followed one: said,
 * never failing the night (two kernels differ by design; the nights of
 * the followed one are what a regression is judged on).
 */
static int pinned(struct night *nt, struct rdb *r)
{
	struct regress_opts o = { NIGHT_REGRESS_OPTS };
	struct regress_result res = { 0 };
	struct ds_filter f = { 0 };
	size_t i;
	int ret;

	res.base = (struct regress_sel){ .arg = nt->cfg->pinned,
					 .run = nt->n.run_id,
					 .kernel = nt->cfg->pinned };
	res.cand = (struct regress_sel){ .arg = nt->k->name,
					 .run = nt->n.run_id,
					 .kernel = nt->k->name };
	ret = regress__pairwise(r, &o, &f, &res);
	for (i = 0; !ret && i < res.nr_items; i++) {
		const struct regress_item *it = &res.items[i];
		struct cell_words w = words_of(&res, it);

		if (!it->gated || (it->status != REG_REGRESSION &&
				   it->status != REG_IMPROVEMENT))
			continue;
		night__say(nt,
			   "against the pinned kernel %s tonight: %s/%s/%s "
			   "%s %+.1f%% (said, not judged)",
			   nt->cfg->pinned, w.host, w.workload, w.mode,
			   w.metric, pct(it->base.s.median, it->cand.s.median));
	}
	regress__release(&res);
	return ret;
}

int night__judge(struct night *nt)
{
	struct store_regression *known = NULL;
	struct regress_history h;
	struct regress_result res;
	struct ds_filter f = { 0 };
	size_t nr_known = 0, i;
	bool have_h = false;
	struct rdb r;
	int ret;

	if (!nt->base.id || !nt->base.run_id) {
		night__say(nt,
			   "the first good night of %s: nothing to judge "
			   "against yet",
			   nt->series);
		return nt->o->junit ?
			       regress__write_junit(NULL, NULL, nt->o->junit) :
			       0;
	}
	ret = rdb__open(nt->o->db_path, &r);
	if (ret)
		return ret;
	ret = pairwise(nt, &r, nt->base.run_id, NULL, &f, &res);
	if (ret)
		goto out;
	ret = store__regressions(nt->st, nt->series, 0, &known, &nr_known);
	for (i = 0; !ret && i < res.nr_items; i++) {
		const struct regress_item *it = &res.items[i];

		if (!it->gated ||
		    (it->status != REG_REGRESSION &&
		     !(it->status == REG_IMPROVEMENT && nt->cfg->improvements)))
			continue;
		ret = finding(nt, &res, it, known, nr_known);
	}
	for (i = 0; !ret && i < nr_known; i++)
		if ((is_open(&known[i]) ||
		     !strcmp(known[i].state, "ignored")) &&
		    known[i].night_id != nt->n.id && !known[i].improvement)
			ret = fixed(nt, &res, &known[i]);
	if (!ret && nt->cfg->pinned)
		ret = pinned(nt, &r);
	if (!ret)
		ret = history(nt, &r, &res, known, nr_known, &h, &have_h);
	if (!ret && nt->o->junit)
		ret = regress__write_junit(&res, have_h ? &h : NULL,
					   nt->o->junit);
	if (have_h)
		regress__history_release(&h);
	if (!ret && nt->n.verdict) {
		struct store_night set = { .id = nt->n.id,
					   .verdict = nt->n.verdict };

		ret = store__night_set(nt->st, &set);
	}
	store_regressions__free(known, nr_known);
	regress__release(&res);
out:
	rdb__close(&r);
	return ret;
}

int night__confirmed(struct night *nt, const struct store_regression *r,
		     bool *yes)
{
	const char *metrics[] = { r->metric, NULL };
	char base[NIGHT_ABBREV + 1], head[NIGHT_ABBREV + 1];
	struct regress_result res = { 0 };
	struct regress_opts o = { NIGHT_REGRESS_OPTS, .metrics = metrics };
	struct ds_filter f = { 0 };
	struct rdb db;
	size_t i;
	int ret;

	*yes = false;
	snprintf(base, sizeof(base), "%s", r->base);
	snprintf(head, sizeof(head), "%s", r->head);
	night__filter(&f, "metric", r->metric);
	ret = rdb__open(nt->o->db_path, &db);
	if (ret)
		goto out;
	res.base = (struct regress_sel){ .arg = base,
					 .run = r->confirm_run_id,
					 .kernel = base };
	res.cand = (struct regress_sel){ .arg = head,
					 .run = r->confirm_run_id,
					 .kernel = head };
	ret = regress__pairwise(&db, &o, &f, &res);
	for (i = 0; !ret && i < res.nr_items; i++)
		if (res.items[i].gated &&
		    res.items[i].status ==
			    (r->improvement ? REG_IMPROVEMENT : REG_REGRESSION))
			*yes = true;
	regress__release(&res);
	rdb__close(&db);
out:
	ds_filter__release(&f);
	return ret;
}

/*
 * The running kernel cannot be booted at the last good night's release
 * beside tonight's: what judge found stands on tonight's run alone, and
 * no commit is to be named.
 */
static int confirm_running(struct night *nt, struct store_regression *r)
{
	struct store_regression set = { .id = r->id, .state = (char *)"new" };
	int ret;

	set.no_commit = xasprintf("the night follows this machine's running "
				  "kernel (%s, the last good night %s): "
				  "nothing to measure again or bisect",
				  r->head, r->base);
	night__say(nt,
		   "regression %lld (%s/%s/%s %s): judged on tonight's run "
		   "alone, the running kernel has no other end to measure",
		   (long long)r->id, r->host, r->workload, r->mode, r->metric);
	ret = store__regression_set(nt->st, &set);
	free(set.no_commit);
	return ret;
}

static int confirm_one(struct night *nt, struct store_regression *r)
{
	struct store_regression set = { .id = r->id };
	bool yes;
	int ret;

	/* Measured again already: a night that resumes does not redo it. */
	if (r->pairs)
		return 0;
	if (nt->k->kind == KERNEL_RUNNING)
		return confirm_running(nt, r);
	ret = night__confirm_run(nt, r);
	if (!ret)
		ret = night__confirmed(nt, r, &yes);
	if (ret)
		return ret;
	set.pairs = r->pairs;
	set.reproduced = r->reproduced;
	if (!yes)
		set.state = (char *)"unconfirmed";
	night__say(nt,
		   "regression %lld (%s/%s/%s %s): %s, it moved "
		   "the same way in %d of %d interleaved pairs",
		   (long long)r->id, r->host, r->workload, r->mode, r->metric,
		   yes ? "confirmed" : "not confirmed", r->reproduced,
		   r->pairs);
	return store__regression_set(nt->st, &set);
}

int night__confirm(struct night *nt)
{
	return night__each(nt, "confirming", confirm_one);
}
