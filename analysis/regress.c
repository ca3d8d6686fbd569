// SPDX-License-Identifier: GPL-2.0-only
/* regress, pairwise: selecting the two sides, matching, judging. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "regress.h"
#include "strvec.h"
#include "toml.h"
#include "util.h"

const char *regress__status_name(enum regress_status s)
{
	static const char *const names[] = {
		[REG_OK] = "ok",
		[REG_REGRESSION] = "regression",
		[REG_IMPROVEMENT] = "improvement",
		[REG_INCONCLUSIVE] = "inconclusive",
		[REG_MISSING] = "missing",
		[REG_NEW] = "new",
		[REG_INFO] = "info",
		[REG_PENDING] = "pending",
	};

	return names[s];
}

double regress__threshold(const struct regress_opts *o, const char *metric)
{
	size_t i;

	for (i = 0; i < o->nr_thresholds; i++)
		if (!strcmp(o->thresholds[i].metric, metric))
			return o->thresholds[i].pct;
	return o->default_pct;
}

static int kernel_names(struct rdb *r, const char *given, const char *name)
{
	const char **names = NULL;
	size_t nr = 0, alloc = 0, i;
	struct store_rows *s;

	if (rdb__query(r, &store_q_kernel_names, NULL, &s))
		return -EIO;
	while (store_rows__next(s) > 0) {
		ALLOC_GROW(names, nr + 2, alloc);
		names[nr++] = xstrdup(store_rows__str(s, 0));
	}
	store_rows__close(s);
	ALLOC_GROW(names, nr + 1, alloc);
	names[nr] = NULL;
	report_unknown_value(given, "kernel", name, names);
	pr_err("(a selection is a run id, latest, previous, run:ID, "
	       "kernel:NAME or a kernel name)");
	for (i = 0; i < nr; i++)
		free((char *)names[i]);
	free(names);
	return -ENOENT;
}

/* The newest run that measured kernel @name. */
static int kernel_run(struct rdb *r, const char *opt, const char *arg,
		      const char *name, int64_t *run)
{
	struct store_rows *s;
	char *given;
	int rc, err;

	err = rdb__query(r, &store_q_kernel_last_run,
			 STORE_ARGS(STORE_TEXT(name)), &s);
	if (err)
		return err;
	rc = store_rows__next(s);
	if (rc < 0)
		err = rc;
	else if (!rc || store_rows__null(s, 0))
		err = -ENOENT;
	else
		*run = store_rows__int(s, 0);
	store_rows__close(s);
	if (err == -ENOENT) {
		given = xasprintf("%s %s", opt, arg);
		err = kernel_names(r, given, name);
		free(given);
	}
	return err;
}

int regress_sel__resolve(struct rdb *r, const struct rdb_runs *runs,
			 const char *opt, const char *arg,
			 struct regress_sel *sel)
{
	const char *word = arg;

	memset(sel, 0, sizeof(*sel));
	sel->arg = arg;
	if (!strncmp(arg, "run:", 4))
		return rdb__run_resolve(runs, opt, arg + 4, &sel->run);
	if (!strncmp(arg, "kernel:", 7)) {
		sel->kernel = arg + 7;
		return kernel_run(r, opt, arg, sel->kernel, &sel->run);
	}
	if (!strcmp(word, "latest") || !strcmp(word, "previous") ||
	    word[strspn(word, "0123456789")] == '\0')
		return rdb__run_resolve(runs, opt, arg, &sel->run);
	sel->kernel = arg;
	return kernel_run(r, opt, arg, sel->kernel, &sel->run);
}

static int load_side(struct rdb *r, const struct regress_sel *sel,
		     const struct ds_filter *f, struct dataset *ds)
{
	struct ds_filter mine = { 0 };
	char *kf;
	size_t i;
	int err;

	for (i = 0; f && i < f->nr; i++) {
		kf = xasprintf("%s=%s",
			       f->v[i].key == DS_FILTER_METRIC ?
				       "metric" :
				       ds_dim_names[f->v[i].key],
			       f->v[i].value);
		ds_filter__add(&mine, kf);
		free(kf);
	}
	if (sel->kernel) {
		kf = xasprintf("kernel=%s", sel->kernel);
		ds_filter__add(&mine, kf);
		free(kf);
	}
	dataset__init(ds);
	err = dataset__load_db(ds, r, &sel->run, 1, &mine);
	ds_filter__release(&mine);
	return err;
}

/* How many values dimension @d takes in @ds. */
static size_t distinct(const struct dataset *ds, int d)
{
	uint32_t first = 0;
	size_t i, n = 0;

	for (i = 0; i < ds->nr_series; i++) {
		if (!n) {
			first = ds->series[i].dim[d];
			n = 1;
		} else if (ds->series[i].dim[d] != first) {
			return 2;
		}
	}
	return n;
}

/*
 * Match on workload, and on host, kernel and mode except where each side
 * has one value: that dimension is what the two sides compare (two
 * kernels, two nights), not what tells cells apart.
 */
static void pick_keyed(struct regress_result *res)
{
	int d;

	for (d = 0; d < DS_NR_DIMS; d++)
		res->keyed[d] = d == DS_HOST || d == DS_KERNEL ||
				d == DS_MODE || d == DS_WORKLOAD;
	for (d = DS_HOST; d <= DS_MODE; d++)
		if (distinct(&res->bds, d) == 1 && distinct(&res->cds, d) == 1)
			res->keyed[d] = false;
}

struct pool {
	size_t alloc[2];
};

static void append(struct cmp_cell *c, size_t *alloc, const double *v, size_t n)
{
	if (c->s.n + n > *alloc) {
		*alloc = 2 * (c->s.n + n);
		c->v = xrealloc(c->v, *alloc * sizeof(*c->v));
	}
	memcpy(c->v + c->s.n, v, n * sizeof(*v));
	c->s.n += n;
}

/* Pool both sides' series into items keyed in the candidate's strings. */
static void fill_items(struct regress_result *res)
{
	struct dataset *sides[2] = { &res->bds, &res->cds };
	uint32_t key[DS_NR_DIMS + 1];
	struct pool *pools = NULL;
	size_t alloc = 0, i, side;
	struct regress_item *it;
	struct keymap items;
	bool added;
	uint32_t id;
	int d;

	keymap__init(&items, DS_NR_DIMS + 1);
	for (side = 0; side < 2; side++) {
		struct dataset *ds = sides[side];

		for (i = 0; i < ds->nr_series; i++) {
			const struct ds_series *se = &ds->series[i];
			const struct ds_metric *m = &ds->metrics[se->metric];

			for (d = 0; d < DS_NR_DIMS; d++)
				key[d] = res->keyed[d] ?
						 intern__id(
							 &res->cds.str,
							 ds__str(ds,
								 se->dim[d])) :
						 UINT32_MAX;
			key[DS_NR_DIMS] =
				intern__id(&res->cds.str, ds__str(ds, m->name));
			id = keymap__id(&items, key, &added);
			if (added) {
				ALLOC_GROW(res->items, res->nr_items + 1,
					   alloc);
				pools = xrealloc(pools, alloc * sizeof(*pools));
				it = &res->items[res->nr_items++];
				memset(it, 0, sizeof(*it));
				memset(&pools[id], 0, sizeof(pools[id]));
				memcpy(it->key, key, sizeof(it->key));
				it->metric = UINT32_MAX;
				it->base_metric = UINT32_MAX;
			}
			it = &res->items[id];
			if (side)
				it->metric = se->metric;
			else
				it->base_metric = se->metric;
			append(side ? &it->cand : &it->base,
			       &pools[id].alloc[side], se->v, se->n);
		}
	}
	free(pools);
	keymap__release(&items);
}

/* The candidate run's own gate: its matrix's [regress] metrics. */
static void matrix_metrics(struct rdb *r, int64_t run, struct strvec *out)
{
	const struct toml_value *reg, *m, *e;
	struct toml_value *root = NULL;
	struct store_rows *s;
	struct toml_error err;
	const void *config;
	size_t i, len;

	if (rdb__query(r, &store_q_run_config, STORE_ARGS(STORE_INT(run)), &s))
		return;
	if (store_rows__next(s) > 0 && !store_rows__null(s, 0)) {
		config = store_rows__blob(s, 0, &len);
		root = toml__parse(config, len, &err);
	}
	store_rows__close(s);
	reg = toml_table__get(root, "regress");
	m = toml_table__get(reg, "metrics");
	for (i = 0; m && m->type == TOML_ARRAY && i < m->u.arr.n; i++) {
		e = m->u.arr.items[i];
		if (e->type == TOML_STRING)
			strvec__push(out, e->u.str.ptr);
	}
	toml_value__free(root);
}

/*
 * The gated metrics: --metric, else the candidate's matrix, else
 * throughput and, where a dma_map workload measured them, map_ns and
 * unmap_ns (matrix__gate_metrics(), from the data here). A name that
 * neither side measured is a typo, not a pass.
 */
static int pick_metrics(struct rdb *r, const struct regress_opts *o,
			struct regress_result *res)
{
	struct strvec names = { 0 }, seen = { 0 };
	const char *const *m;
	const char *given;
	size_t i;
	int err = 0;

	for (m = o->metrics; m && *m; m++)
		strvec__push(&names, *m);
	if (!names.nr)
		matrix_metrics(r, res->cand.run, &names);
	for (i = 0; i < res->nr_items; i++) {
		const char *name =
			ds__str(&res->cds, res->items[i].key[DS_NR_DIMS]);

		if (!strvec__contains(&seen, name))
			strvec__push(&seen, name);
	}
	/* As the matrix's plan says: a rate, and a dma_map run's times. */
	if (!names.nr) {
		if (strvec__contains(&seen, REGRESS_DEFAULT_METRIC) ||
		    !strvec__contains(&seen, "unmap_ns"))
			strvec__push(&names, REGRESS_DEFAULT_METRIC);
		if (strvec__contains(&seen, "unmap_ns")) {
			strvec__push(&names, "map_ns");
			strvec__push(&names, "unmap_ns");
		}
	}
	for (i = 0; !err && i < names.nr; i++) {
		if (strvec__contains(&seen, names.v[i]))
			continue;
		given = o->metrics ? "--metric" : "[regress] metrics";
		report_unknown_value(given, "metric", names.v[i],
				     strvec__argv(&seen));
		err = -EINVAL;
	}
	res->metrics = names.v;
	res->nr_metrics = names.nr;
	strvec__release(&seen);
	return err;
}

static bool is_gated(const struct regress_result *res, const char *name)
{
	size_t i;

	for (i = 0; i < res->nr_metrics; i++)
		if (!strcmp(res->metrics[i], name))
			return true;
	return false;
}

/* Describe and test one item; what needs no test gets its status now. */
static void prepare(const struct regress_opts *o, struct regress_item *it,
		    const struct ds_metric *m, const char *name, bool gated)
{
	it->threshold = regress__threshold(o, name);
	it->better = m->better;
	it->gated = gated && m->better != STORE_BETTER_NONE;
	it->p_adj = NAN;
	it->alpha = o->cmp.alpha;
	cmp__describe(&o->cmp, it->base.v, it->base.s.n, &it->base);
	cmp__describe(&o->cmp, it->cand.v, it->cand.s.n, &it->cand);
	cmp__compare(&o->cmp, m->better, &it->base, &it->cand, it->alpha);
	if (!it->cand.present)
		it->status = REG_MISSING;
	else if (!it->base.present)
		it->status = REG_NEW;
	else if (m->better == STORE_BETTER_NONE)
		it->status = REG_INFO;
	else
		it->status = REG_PENDING;
}

static int cmp_p(const void *a, const void *b)
{
	const struct regress_item *x = *(struct regress_item *const *)a;
	const struct regress_item *y = *(struct regress_item *const *)b;

	return (x->cand.mw.p > y->cand.mw.p) - (x->cand.mw.p < y->cand.mw.p);
}

/*
 * A night compares several cells at once; at alpha 0.05 some would
 * differ by chance alone. Holm's step-down adjustment keeps the chance
 * that pure noise fails the gate at alpha per invocation and is
 * uniformly more powerful than Bonferroni. It is taken over the gated
 * comparisons alone, so that the gate keeps its power however many
 * other metrics are measured; the others, reported beside them, get
 * their own. Each comparison's interval is then taken again at the
 * level its step of the procedure tested it at (alpha / (m - i); after
 * the first that holds, that one's), so that the interval excludes no
 * change exactly when the adjusted p is below alpha.
 */
static void holm(const struct regress_opts *o, struct regress_result *res,
		 bool gated)
{
	struct regress_item **v = xcalloc(res->nr_items + 1, sizeof(*v));
	double run = 0, adj, level = 0, alpha = o->cmp.alpha;
	size_t i, m = 0;

	for (i = 0; i < res->nr_items; i++)
		if (res->items[i].status == REG_PENDING &&
		    res->items[i].gated == gated)
			v[m++] = &res->items[i];
	qsort(v, m, sizeof(*v), cmp_p);
	for (i = 0; i < m; i++) {
		adj = fmin(1, (m - i) * v[i]->cand.mw.p);
		run = fmax(run, adj);
		v[i]->p_adj = run;
		if (!level && !(v[i]->cand.mw.p < alpha / (m - i)))
			level = alpha / (m - i);
		v[i]->alpha = level ? level : alpha / (m - i);
		cmp__compare(&o->cmp, v[i]->better, &v[i]->base, &v[i]->cand,
			     v[i]->alpha);
		/* Even complete separation could not get below alpha/m. */
		if (stats__mw_min_p(v[i]->base.s.n, v[i]->cand.s.n) * m >=
		    alpha)
			v[i]->status = REG_INCONCLUSIVE;
	}
	free(v);
}

static void judge(struct regress_result *res, struct regress_item *it,
		  double alpha)
{
	const struct cmp_cell *c = &it->cand;
	bool significant, worse;

	if (it->status == REG_PENDING) {
		it->status = REG_OK;
		/* The verdict is the interval's, at the item's own level. */
		significant = c->shift.significant && it->p_adj < alpha;
		worse = (c->shift.est > 0) !=
			(it->better == STORE_BETTER_HIGHER);
		if (c->verdict == CMP_INCONCLUSIVE)
			it->status = REG_INCONCLUSIVE;
		else if (significant && c->shift.est != 0 &&
			 (fabs(c->delta) >= it->threshold ||
			  /* From zero, any change is past any percentage. */
			  (isnan(c->delta) && it->base.s.median == 0)))
			it->status = worse ? REG_REGRESSION : REG_IMPROVEMENT;
	}
	res->count[it->status]++;
	if (!it->gated)
		return;
	res->gated[it->status]++;
	if (it->status == REG_INCONCLUSIVE) {
		size_t n = it->base.s.n < c->s.n ? it->base.s.n : c->s.n;

		if (!res->short_n || n < res->short_n)
			res->short_n = n;
	}
}

/* For qsort: the result whose items are sorted. */
static const struct regress_result *sort_res;

static int cmp_items(const void *a, const void *b)
{
	const struct regress_item *x = a, *y = b;
	static const int order[] = { DS_NR_DIMS, DS_WORKLOAD, DS_HOST,
				     DS_KERNEL, DS_MODE };
	const struct dataset *ds = &sort_res->cds;
	size_t i;
	int c;

	for (i = 0; i < ARRAY_SIZE(order); i++) {
		uint32_t u = x->key[order[i]], v = y->key[order[i]];

		if (u == v)
			continue;
		/* Metrics by name, the rest in the order first seen. */
		if (order[i] == DS_NR_DIMS) {
			c = strcmp(ds__str(ds, u), ds__str(ds, v));
			if (c)
				return c;
		}
		return u < v ? -1 : 1;
	}
	return 0;
}

int regress__pairwise(struct rdb *r, const struct regress_opts *o,
		      const struct ds_filter *f, struct regress_result *res)
{
	const struct ds_metric *m;
	struct ds_metric none = { .better = STORE_BETTER_NONE };
	size_t i;
	int err;

	dataset__init(&res->bds);
	dataset__init(&res->cds);
	if (res->base.run == res->cand.run &&
	    !(res->base.kernel && res->cand.kernel &&
	      strcmp(res->base.kernel, res->cand.kernel))) {
		pr_err("--baseline %s and --candidate %s select the same "
		       "trials (run %lld)",
		       res->base.arg, res->cand.arg, (long long)res->cand.run);
		return -EINVAL;
	}
	err = load_side(r, &res->base, f, &res->bds);
	if (!err)
		err = load_side(r, &res->cand, f, &res->cds);
	if (err)
		return err;
	err = regress__kernels(r, res);
	if (err)
		return err;
	pick_keyed(res);
	fill_items(res);
	err = pick_metrics(r, o, res);
	if (err)
		return err;
	for (i = 0; i < res->nr_items; i++) {
		struct regress_item *it = &res->items[i];
		const char *name = ds__str(&res->cds, it->key[DS_NR_DIMS]);

		m = &none;
		if (it->metric != UINT32_MAX)
			m = &res->cds.metrics[it->metric];
		else if (it->base_metric != UINT32_MAX)
			m = &res->bds.metrics[it->base_metric];
		prepare(o, it, m, name, is_gated(res, name));
	}
	res->inconclusive_fails = !o->inconclusive_pass;
	holm(o, res, true);
	holm(o, res, false);
	for (i = 0; i < res->nr_items; i++)
		judge(res, &res->items[i], o->cmp.alpha);
	if (res->gated[REG_INCONCLUSIVE])
		res->need_n = stats__min_trials(
			res->gated[REG_INCONCLUSIVE] + res->gated[REG_OK] +
				res->gated[REG_REGRESSION] +
				res->gated[REG_IMPROVEMENT],
			o->cmp.alpha);
	sort_res = res;
	qsort(res->items, res->nr_items, sizeof(*res->items), cmp_items);
	return 0;
}

bool regress__item_fails(const struct regress_result *res,
			 const struct regress_item *it)
{
	if (!it->gated)
		return false;
	return it->status == REG_REGRESSION || it->status == REG_MISSING ||
	       (it->status == REG_INCONCLUSIVE && res->inconclusive_fails);
}

void regress__release(struct regress_result *res)
{
	size_t i;

	for (i = 0; i < res->nr_items; i++) {
		free(res->items[i].base.v);
		free(res->items[i].cand.v);
	}
	free(res->items);
	strv_free(res->metrics, res->nr_metrics);
	res->metrics = NULL;
	res->nr_metrics = 0;
	dataset__release(&res->bds);
	dataset__release(&res->cds);
	json_decref(res->kernels);
	res->kernels = NULL;
	res->items = NULL;
	res->nr_items = 0;
}

char *regress__item_label(const struct regress_result *res,
			  const struct regress_item *it)
{
	char *s = xstrdup(ds__str(&res->cds, it->key[DS_WORKLOAD])), *n;
	int d;

	for (d = DS_HOST; d <= DS_MODE; d++) {
		if (!res->keyed[d])
			continue;
		n = xasprintf("%s %s=%s", s, ds_dim_names[d],
			      ds__str(&res->cds, it->key[d]));
		free(s);
		s = n;
	}
	return s;
}
