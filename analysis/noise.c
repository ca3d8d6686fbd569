// SPDX-License-Identifier: GPL-2.0-only
/* The noise floor: CVs within and between boots, and A/A per cell. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "noise.h"
#include "stats/spread.h"
#include "util.h"

/* One measured trial of the metric, in the run's order. */
struct noise_row {
	unsigned int rep;
	int64_t boot; /* 0: not known */
	double v;
};

struct noise_acc {
	struct noise_row *rows;
	size_t nr, alloc;
};

static struct noise_cell *find_cell(struct noise *out, struct noise_acc **acc,
				    struct store_rows *s, size_t *alloc)
{
	size_t i;

	for (i = 0; i < out->nr; i++) {
		struct noise_cell *c = &out->cells[i];

		if (!strcmp(c->host, store_rows__str(s, 0)) &&
		    !strcmp(c->kernel, store_rows__str(s, 1)) &&
		    !strcmp(c->mode, store_rows__str(s, 2)) &&
		    !strcmp(c->workload, store_rows__str(s, 3)))
			return c;
	}
	if (out->nr == *alloc) {
		*alloc = *alloc ? 2 * *alloc : 8;
		out->cells = xrealloc(out->cells, *alloc * sizeof(*out->cells));
		*acc = xrealloc(*acc, *alloc * sizeof(**acc));
	}
	memset(&out->cells[out->nr], 0, sizeof(out->cells[out->nr]));
	memset(&(*acc)[out->nr], 0, sizeof((*acc)[out->nr]));
	out->cells[out->nr].host = xstrdup(store_rows__str(s, 0));
	out->cells[out->nr].kernel = xstrdup(store_rows__str(s, 1));
	out->cells[out->nr].mode = xstrdup(store_rows__str(s, 2));
	out->cells[out->nr].workload = xstrdup(store_rows__str(s, 3));
	return &out->cells[out->nr++];
}

static bool keep(const struct ds_filter *f, struct store_rows *s)
{
	static const int dims[] = { DS_HOST, DS_KERNEL, DS_MODE, DS_WORKLOAD };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dims); i++)
		if (f &&
		    !ds_filter__match(f, dims[i], store_rows__str(s, (int)i)))
			return false;
	return true;
}

static int cmp_run(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Every measured trial of @metric in @runs, in one pass: cells by the
 * run range (their (run_id, cell_key) index), then their trials and
 * the one metric row of each. CROSS JOIN keeps SQLite to that order;
 * left to itself it drives from metrics_name, every run's values of the
 * metric, which per run made the report quadratic in its history.
 */
static int load_runs(struct rdb *r, const int64_t *sorted, size_t nr_runs,
		     const char *metric, const struct ds_filter *f,
		     struct noise *out, struct noise_acc **acc, size_t *alloc)
{
	struct noise_cell *cell;
	struct noise_acc *a;
	struct store_rows *s;
	int64_t run;
	int rc, err;

	err = rdb__query_runs_and(r, &store_q_noise, sorted, nr_runs,
				  STORE_TEXT(metric), &s);
	if (err)
		return err;
	while ((rc = store_rows__next(s)) > 0) {
		run = store_rows__int(s, 8);
		if (!bsearch(&run, sorted, nr_runs, sizeof(run), cmp_run) ||
		    !keep(f, s))
			continue;
		cell = find_cell(out, acc, s, alloc);
		a = &(*acc)[cell - out->cells];
		ALLOC_GROW(a->rows, a->nr + 1, a->alloc);
		a->rows[a->nr].rep = (unsigned int)(int)store_rows__int(s, 4);
		a->rows[a->nr].boot = store_rows__int(s, 5);
		a->rows[a->nr++].v = store_rows__real(s, 6);
		if (!out->unit)
			out->unit = xstrdup(store_rows__str(s, 7));
	}
	err = rc;
	store_rows__close(s);
	return err;
}

static void spread(struct noise_cell *c, const struct noise_row *rows, size_t n)
{
	struct stats_obs *obs = xcalloc(n + 1, sizeof(*obs));
	struct stats_spread sp;
	size_t i;

	for (i = 0; i < n; i++) {
		obs[i].group = rows[i].boot;
		obs[i].v = rows[i].v;
	}
	stats__spread(obs, n, &sp);
	free(obs);
	c->n = sp.n;
	c->boots = sp.groups;
	c->boots_multi = sp.groups_multi;
	c->mean = sp.mean;
	c->cv = sp.cv;
	c->cv_within = sp.cv_within;
	c->cv_between = sp.cv_between;
}

/* The A/A comparison: odd repetitions as the baseline, even ones after. */
static void aa(struct noise_cell *c, const struct noise_row *rows, size_t n,
	       const struct cmp_opts *o)
{
	double *odd = xcalloc(n + 1, sizeof(*odd));
	double *even = xcalloc(n + 1, sizeof(*even));
	size_t i, no = 0, ne = 0;

	for (i = 0; i < n; i++) {
		if (rows[i].rep % 2)
			odd[no++] = rows[i].v;
		else
			even[ne++] = rows[i].v;
	}
	cmp__describe(o, odd, no, &c->odd);
	cmp__describe(o, even, ne, &c->even);
	cmp__compare(o, STORE_BETTER_NONE, &c->odd, &c->even, o->alpha);
}

static void per_host(struct noise *out)
{
	double *cv = xcalloc(out->nr + 1, sizeof(*cv));
	double *in = xcalloc(out->nr + 1, sizeof(*in));
	double *bt = xcalloc(out->nr + 1, sizeof(*bt));
	size_t i, j, k;

	out->hosts = xcalloc(out->nr + 1, sizeof(*out->hosts));
	for (i = 0; i < out->nr; i++) {
		for (j = 0; j < out->nr_hosts; j++)
			if (!strcmp(out->hosts[j].host, out->cells[i].host))
				break;
		if (j < out->nr_hosts)
			continue;
		for (j = k = 0; j < out->nr; j++) {
			const struct noise_cell *c = &out->cells[j];

			if (strcmp(c->host, out->cells[i].host))
				continue;
			cv[k] = c->cv;
			in[k] = c->cv_within;
			bt[k++] = c->cv_between;
		}
		out->hosts[out->nr_hosts].host = xstrdup(out->cells[i].host);
		out->hosts[out->nr_hosts].cv = stats__median_of_numbers(cv, k);
		out->hosts[out->nr_hosts].cv_within =
			stats__median_of_numbers(in, k);
		out->hosts[out->nr_hosts++].cv_between =
			stats__median_of_numbers(bt, k);
	}
	free_all(cv, in, bt);
}

int noise__load(struct rdb *r, const int64_t *runs, size_t nr_runs,
		const char *metric, const struct ds_filter *f,
		const struct cmp_opts *o, struct noise *out)
{
	struct noise_acc *acc = NULL;
	size_t i, alloc = 0;
	int64_t *sorted;
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->metric = xstrdup(metric);
	if (nr_runs) {
		sorted = xmalloc(nr_runs * sizeof(*sorted));
		memcpy(sorted, runs, nr_runs * sizeof(*sorted));
		qsort(sorted, nr_runs, sizeof(*sorted), cmp_run);
		err = load_runs(r, sorted, nr_runs, metric, f, out, &acc,
				&alloc);
		free(sorted);
	}
	for (i = 0; !err && i < out->nr; i++) {
		aa(&out->cells[i], acc[i].rows, acc[i].nr, o);
		spread(&out->cells[i], acc[i].rows, acc[i].nr);
	}
	if (!err)
		per_host(out);
	for (i = 0; i < out->nr; i++)
		free(acc[i].rows);
	free(acc);
	if (!out->unit)
		out->unit = xstrdup("");
	return err;
}

void noise__release(struct noise *n)
{
	size_t i;

	for (i = 0; i < n->nr; i++) {
		struct noise_cell *c = &n->cells[i];

		free_all(c->host, c->kernel, c->mode, c->workload, c->odd.v,
			 c->even.v);
	}
	for (i = 0; i < n->nr_hosts; i++)
		free(n->hosts[i].host);
	free_all(n->hosts, n->cells, n->metric, n->unit);
	memset(n, 0, sizeof(*n));
}
