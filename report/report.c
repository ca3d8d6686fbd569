// SPDX-License-Identifier: GPL-2.0-only
/* The report: load, compute, and write the page section by section. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic-file.h"
#include "log.h"
#include "markup.h"
#include "analysis/regress.h"
#include "report-priv.h"
#include "util.h"

int report__col(const struct report_ctx *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nr_cols; i++)
		if (!strcmp(c->cols[i], name))
			return i;
	return -1;
}

int report__metric(const struct report_ctx *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->ds->nr_metrics; i++)
		if (!strcmp(ds__str(c->ds, c->ds->metrics[i].name), name))
			return i;
	return -1;
}

const struct cmp_row *report__row_like(const struct cmp_table *t, int metric,
				       const struct cmp_row *like)
{
	size_t i;

	if (metric < 0)
		return NULL;
	for (i = 0; i < t->nr_rows; i++)
		if ((int)t->rows[i].metric == metric &&
		    !memcmp(t->rows[i].key, like->key, sizeof(like->key)))
			return &t->rows[i];
	return NULL;
}

/* The table's columns, then axis values only the detail tables have. */
static void pick_cols(struct report_ctx *c)
{
	const struct report_data *d = c->d;
	size_t i, alloc = c->t->nr_cols + d->nr_cells + 1;

	c->cols = xcalloc(alloc, sizeof(*c->cols));
	for (i = 0; i < c->t->nr_cols; i++)
		c->cols[c->nr_cols++] = ds__str(c->ds, c->t->cols[i]);
	for (i = 0; i < d->nr_cells; i++)
		if (report__col(c, rd__str(d, d->cells[i].axis)) < 0)
			c->cols[c->nr_cols++] = rd__str(d, d->cells[i].axis);
}

static char *default_title(const struct report_ctx *c)
{
	const struct rdb_run *first = rdb__run_find(c->all, c->runs[0]);
	const struct rdb_run *last =
		rdb__run_find(c->all, c->runs[c->nr_runs - 1]);

	if (c->nr_runs == 1)
		return xasprintf("iommu-bench: %s, run %lld", first->name,
				 (long long)first->id);
	return xasprintf("iommu-bench: %zu runs, %lld (%s) to %lld (%s)",
			 c->nr_runs, (long long)first->id, first->name,
			 (long long)last->id, last->name);
}

static void page(struct report_ctx *c)
{
	const struct rdb_run *last =
		rdb__run_find(c->all, c->runs[c->nr_runs - 1]);
	char *title = c->o->title ? xstrdup(c->o->title) : default_title(c);

	html__head(c->fp, title);
	fputs("<h1>", c->fp);
	markup__escape(c->fp, title);
	fputs("</h1>\n<p class=\"meta\">", c->fp);
	markup__escapef(c->fp,
			"Columns by %s, baseline %s; %s%s; confidence %g%%, "
			"alpha %g.",
			ds_dim_names[c->t->o.by], c->cols[0],
			last->finished_at[0] ? "finished " : "started ",
			last->finished_at[0] ? last->finished_at :
					       last->started_at,
			100 * c->t->o.conf, c->t->o.alpha);
	fputs("</p>\n<nav><a href=\"#headline\">Headline</a>"
	      "<a href=\"#plots\">Plots</a><a href=\"#warnings\">Warnings</a>"
	      "<a href=\"#probes\">Probes</a><a href=\"#cost\">Cost</a>"
	      "<a href=\"#profile\">Profile diff</a>"
	      "<a href=\"#collectors\">Collectors</a>"
	      "<a href=\"#stats\">Every metric</a>"
	      "<a href=\"#verification\">Verification</a>"
	      "<a href=\"#environment\">Environment</a></nav>\n",
	      c->fp);
	report__headline(c);
	report__plots(c);
	report__warnings(c);
	report__exposure(c);
	report__cost(c);
	report__profile(c);
	report__collectors(c);
	report__stats(c);
	report__noise(c);
	report__verification(c);
	report__environment(c);
	html__foot(c->fp);
	free(title);
}

/*
 * The Cost section's table: the same trials as the rest of the page, at
 * the line rates compare --cost costs by default. NULL when there is
 * nothing to cost; the section says so.
 */
static const struct cost_table *cost_load(struct rdb *r, const int64_t *runs,
					  size_t nr_runs,
					  const struct ds_filter *f,
					  const struct report_opts *o,
					  struct cost_table *ct)
{
	static const double rates[] = { 10, 25, 100 };

	ct->at_gbit = xmalloc(sizeof(rates));
	memcpy(ct->at_gbit, rates, sizeof(rates));
	ct->nr_at = ARRAY_SIZE(rates);
	if (cost__load(&ct->ds, r, runs, nr_runs, f, &ct->load) ||
	    (ct->load.no_cpu == ct->load.trials && !ct->load.bench) ||
	    cost__build(ct, &o->cmp))
		return NULL;
	return ct;
}

static int write_file(struct report_ctx *c, const char *path)
{
	struct atomic_file af;
	int err;

	err = atomic_file__open(&af, path, 0644);
	if (!err) {
		c->fp = af.fp;
		page(c);
		err = atomic_file__commit(&af);
	}
	if (err)
		pr_err("%s: %s", path, strerror(-err));
	return err;
}

int report__write(struct rdb *r, const struct rdb_runs *all,
		  const int64_t *runs, size_t nr_runs,
		  const struct ds_filter *f, const struct report_opts *o)
{
	struct report_ctx c = { .o = o,
				.all = all,
				.runs = runs,
				.nr_runs = nr_runs,
				.db_path = r->path };
	struct report_data d;
	struct cmp_table t;
	struct dataset ds;
	struct cost_table cost = { 0 };
	struct noise n;
	int err;

	dataset__init(&ds);
	dataset__init(&cost.ds);
	err = dataset__load_db(&ds, r, runs, nr_runs, f);
	if (!err)
		err = dataset__check_filter(&ds, f);
	if (err)
		goto out_ds;
	err = cmp__build(&ds, &o->cmp, &t);
	if (err == -ENOENT)
		pr_err("%s: no measured trials in the selected run%s", r->path,
		       nr_runs == 1 ? "" : "s");
	if (err)
		goto out_ds;
	err = report_data__load(&d, r, runs, nr_runs, f, o->cmp.by,
				o->series_per_cell);
	if (err)
		goto out_t;
	err = noise__load(r, runs, nr_runs, REGRESS_DEFAULT_METRIC, f, &o->cmp,
			  &n);
	if (err)
		goto out_d;
	c.ds = &ds;
	c.t = &t;
	c.d = &d;
	c.noise = &n;
	c.cost = cost_load(r, runs, nr_runs, f, o, &cost);
	pick_cols(&c);
	err = write_file(&c, o->output);
	if (!err && c.plot_failures)
		pr_warn("%s: %zu plot%s could not be drawn", o->output,
			c.plot_failures, c.plot_failures == 1 ? "" : "s");
	free(c.cols);
	if (c.cost)
		cost__release(&cost);
	noise__release(&n);
out_d:
	report_data__release(&d);
out_t:
	cmp__release(&t);
out_ds:
	dataset__release(&ds);
	free(cost.at_gbit);
	dataset__release(&cost.ds);
	return err;
}
