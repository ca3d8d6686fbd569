// SPDX-License-Identifier: GPL-2.0-only
/* regress's text summary and JSON. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "compare-print.h"
#include "regress-print.h"
#include "util.h"

static const char *side_text(const struct regress_sel *s, char *buf,
			     size_t size)
{
	if (s->kernel)
		snprintf(buf, size, "kernel %s (run %lld)", s->kernel,
			 (long long)s->run);
	else
		snprintf(buf, size, "run %lld", (long long)s->run);
	return buf;
}

void regress__print_item(const struct regress_result *res,
			 const struct regress_item *it, FILE *fp)
{
	const struct dataset *ds = &res->cds;
	const char *metric = ds__str(ds, it->key[DS_NR_DIMS]);
	const char *unit = it->metric != UINT32_MAX ?
				   ds__str(ds, ds->metrics[it->metric].unit) :
				   "";
	char *label = regress__item_label(res, it);
	char b[FMT_MAX], c[FMT_MAX], d[FMT_MAX], lo[FMT_MAX], hi[FMT_MAX],
		p[FMT_MAX];
	struct fmt_scale sc;

	fmt__scale(unit,
		   it->base.present ? it->base.s.median : it->cand.s.median,
		   &sc);
	fprintf(fp, "%-12s %s %s: ", regress__status_name(it->status), metric,
		label);
	free(label);
	if (!it->base.present || !it->cand.present) {
		fprintf(fp, "%s only (n=%zu)\n",
			it->base.present ? "baseline" : "candidate",
			it->base.present ? it->base.s.n : it->cand.s.n);
		return;
	}
	fmt__num(it->base.s.median * sc.mul, b, sizeof(b));
	fmt__num(it->cand.s.median * sc.mul, c, sizeof(c));
	fprintf(fp, "%s -> %s%s%s %s", b, c, *sc.unit ? " " : "", sc.unit,
		fmt__pct(it->cand.delta, d, sizeof(d)));
	if (cmp__has_interval(&it->cand))
		fprintf(fp, " [%s, %s]",
			fmt__pct(it->cand.delta_lo, lo, sizeof(lo)),
			fmt__pct(it->cand.delta_hi, hi, sizeof(hi)));
	fprintf(fp, " %s", fmt__p(it->cand.mw.p, p, sizeof(p)));
	if (!isnan(it->p_adj))
		fprintf(fp, " (adjusted %s)",
			fmt__p(it->p_adj, p, sizeof(p)) + 2);
	fprintf(fp, " n=%zu+%zu", it->base.s.n, it->cand.s.n);
	if (it->status == REG_REGRESSION || it->status == REG_IMPROVEMENT)
		fprintf(fp, " (threshold %g%%)", it->threshold);
	if (it->status == REG_INCONCLUSIVE)
		fprintf(fp, " (too few trials to tell)");
	if (!it->gated && it->status != REG_INFO)
		fprintf(fp, " (not gated)");
	fputc('\n', fp);
}

static void print_gated(const struct regress_result *res, FILE *fp)
{
	const size_t *g = res->gated;
	size_t i, n = 0;
	int s;

	for (s = REG_OK; s <= REG_INFO; s++)
		n += g[s];
	fprintf(fp, "gated (");
	for (i = 0; i < res->nr_metrics; i++)
		fprintf(fp, "%s%s", i ? ", " : "", res->metrics[i]);
	fprintf(fp,
		"): %zu compared, %zu regression%s, %zu improvement%s, %zu "
		"ok, %zu inconclusive, %zu missing, %zu new\n",
		n, g[REG_REGRESSION], g[REG_REGRESSION] == 1 ? "" : "s",
		g[REG_IMPROVEMENT], g[REG_IMPROVEMENT] == 1 ? "" : "s",
		g[REG_OK], g[REG_INCONCLUSIVE], g[REG_MISSING], g[REG_NEW]);
}

/* "7.3.4-1" of "linux-image-7.3.4+deb13-amd64 7.3.4-1". */
static const char *version_of(const char *package_version)
{
	const char *sp = strrchr(package_version, ' ');

	return sp ? sp + 1 : package_version;
}

/* "kernel NAME: V1 -> V2" for each package kernel, before the items. */
static void print_kernels(const struct regress_result *res, FILE *fp)
{
	const char *name, *b, *c;
	json_t *k;
	size_t i;

	json_array_foreach(res->kernels, i, k) {
		name = json_string_value(json_object_get(k, "name"));
		b = json_string_value(json_object_get(k, "baseline"));
		c = json_string_value(json_object_get(k, "candidate"));
		if (b && c && !strcmp(b, c))
			fprintf(fp, "kernel %s: %s on both sides\n", name,
				version_of(b));
		else
			fprintf(fp, "kernel %s: %s -> %s\n", name,
				b ? version_of(b) : "(none)",
				c ? version_of(c) : "(none)");
	}
}

static void print_pairwise(const struct regress_result *res, bool all, FILE *fp)
{
	char b[96], c[96];
	size_t i, shown = 0;
	int d;

	fprintf(fp, "baseline %s, candidate %s; matched on workload",
		side_text(&res->base, b, sizeof(b)),
		side_text(&res->cand, c, sizeof(c)));
	for (d = DS_HOST; d <= DS_MODE; d++)
		if (res->keyed[d])
			fprintf(fp, ", %s", ds_dim_names[d]);
	fputc('\n', fp);
	print_kernels(res, fp);
	for (i = 0; i < res->nr_items; i++) {
		const struct regress_item *it = &res->items[i];

		/* Not ok, unless -v: what fails, or what changed. */
		if (!all && (it->status == REG_OK || it->status == REG_INFO ||
			     (!it->gated && it->status == REG_INCONCLUSIVE)))
			continue;
		regress__print_item(res, it, fp);
		shown++;
	}
	print_gated(res, fp);
	fprintf(fp,
		"all metrics, %zu compared: %zu regression%s, %zu improvement%s, "
		"%zu ok, %zu inconclusive, %zu missing, %zu new, %zu without "
		"direction%s\n",
		res->nr_items, res->count[REG_REGRESSION],
		res->count[REG_REGRESSION] == 1 ? "" : "s",
		res->count[REG_IMPROVEMENT],
		res->count[REG_IMPROVEMENT] == 1 ? "" : "s", res->count[REG_OK],
		res->count[REG_INCONCLUSIVE], res->count[REG_MISSING],
		res->count[REG_NEW], res->count[REG_INFO],
		!all && shown < res->nr_items ? " (-v lists all)" : "");
}

void regress__print_cp(const struct regress_history *h,
		       const struct regress_series *s,
		       const struct regress_cp *c, FILE *fp)
{
	const char *unit = ds__str(&h->ds, h->ds.metrics[s->metric].unit);
	char *label = regress__series_label(h, s);
	char b[FMT_MAX], a[FMT_MAX], d[FMT_MAX];
	struct fmt_scale sc;

	fmt__scale(unit, c->cp.mean_before, &sc);
	fmt__num(c->cp.mean_before * sc.mul, b, sizeof(b));
	fmt__num(c->cp.mean_after * sc.mul, a, sizeof(a));
	fprintf(fp,
		"%-12s %s: between run %lld and %lld, %s -> %s%s%s %s "
		"(p=%.2g)%s\n",
		c->status == REG_REGRESSION ?
			(c->recovered ? "recovered" : "REGRESSION") :
		c->status == REG_IMPROVEMENT ? "improvement" :
					       "shift",
		label, (long long)c->run_before, (long long)c->run_after, b, a,
		*sc.unit ? " " : "", sc.unit,
		fmt__pct(c->cp.change * 100, d, sizeof(d)), c->cp.p,
		c->status == REG_REGRESSION && c->recovered ?
			" (a regression, later undone)" :
			"");
	free(label);
}

static void print_history(const struct regress_history *h, FILE *fp)
{
	size_t i, j, total = 0;

	fprintf(fp, "history: %zu run%s", h->nr_runs,
		h->nr_runs == 1 ? "" : "s");
	if (h->nr_runs)
		fprintf(fp, " (%lld..%lld)", (long long)h->runs[0],
			(long long)h->runs[h->nr_runs - 1]);
	fprintf(fp, ", %zu series\n", h->nr_series);
	for (i = 0; i < h->nr_series; i++)
		for (j = 0; j < h->series[i].nr_cps; j++, total++)
			regress__print_cp(h, &h->series[i],
					  &h->series[i].cps[j], fp);
	fprintf(fp,
		"%zu change point%s: %zu regression%s (%zu still in effect), "
		"%zu improvement%s\n",
		total, total == 1 ? "" : "s", h->regressions,
		h->regressions == 1 ? "" : "s", h->unrecovered, h->improvements,
		h->improvements == 1 ? "" : "s");
}

void regress__print_text(const struct regress_result *res,
			 const struct regress_history *h,
			 const struct regress_opts *o, bool all, FILE *fp)
{
	fprintf(fp, "alpha %g, confidence %g, default threshold %g%%\n",
		o->cmp.alpha, o->cmp.conf, o->default_pct);
	if (res)
		print_pairwise(res, all, fp);
	if (h)
		print_history(h, fp);
}

static json_t *json_side(const struct cmp_cell *c)
{
	if (!c->present)
		return json_null();
	return json_pack("{s:I, s:o, s:o}", "n", (json_int_t)c->s.n, "median",
			 report_json_num(c->s.median), "ci",
			 isnan(c->s.ci_lo) ?
				 json_null() :
				 json_pack("[ff]", c->s.ci_lo, c->s.ci_hi));
}

static json_t *json_key(const struct dataset *ds, const uint32_t *key,
			const bool *keyed)
{
	json_t *o = json_object();
	int d;

	for (d = DS_HOST; d <= DS_WORKLOAD; d++)
		if (!keyed || keyed[d])
			json_object_set_new(
				o, ds_dim_names[d],
				report_json_str(ds__str(ds, key[d])));
	return o;
}

static json_t *json_pairwise(const struct regress_result *res)
{
	json_t *items = json_array(), *counts = json_object();
	json_t *gated = json_object(), *metrics = json_array();
	const struct regress_item *it;
	const struct cmp_cell *c;
	size_t i;
	int s;

	for (i = 0; i < res->nr_items; i++) {
		it = &res->items[i];
		c = &it->cand;
		json_array_append_new(
			items,
			json_pack(
				"{s:o, s:o, s:s, s:b, s:f, s:o, s:o, s:o, s:o, "
				"s:o, s:o, s:f}",
				"metric",
				report_json_str(ds__str(&res->cds,
							it->key[DS_NR_DIMS])),
				"key", json_key(&res->cds, it->key, res->keyed),
				"status", regress__status_name(it->status),
				"gated", it->gated, "ci_level", 1 - it->alpha,
				"baseline", json_side(&it->base), "candidate",
				json_side(c), "delta_pct",
				report_json_num(c->delta), "delta_ci_pct",
				!cmp__has_interval(c) ?
					json_null() :
					json_pack("[ff]", c->delta_lo,
						  c->delta_hi),
				"p", report_json_num(c->mw.p), "p_adjusted",
				report_json_num(it->p_adj), "threshold_pct",
				it->threshold));
	}
	for (s = REG_OK; s <= REG_INFO; s++) {
		json_object_set_new(counts, regress__status_name(s),
				    json_integer(res->count[s]));
		json_object_set_new(gated, regress__status_name(s),
				    json_integer(res->gated[s]));
	}
	for (i = 0; i < res->nr_metrics; i++)
		json_array_append_new(metrics, json_string(res->metrics[i]));
	return json_pack(
		"{s:{s:s, s:I, s:s?}, s:{s:s, s:I, s:s?}, s:o, s:o, s:o, s:o, "
		"s:o, s:o}",
		"baseline", "arg", res->base.arg, "run",
		(json_int_t)res->base.run, "kernel", res->base.kernel,
		"candidate", "arg", res->cand.arg, "run",
		(json_int_t)res->cand.run, "kernel", res->cand.kernel,
		"kernels",
		res->kernels ? json_incref(res->kernels) : json_array(),
		"gated_metrics", metrics, "items", items, "counts", counts,
		"gated_counts", gated, "cannot_judge",
		res->gated[REG_INCONCLUSIVE] ?
			json_pack("{s:I, s:I, s:I}", "comparisons",
				  (json_int_t)res->gated[REG_INCONCLUSIVE],
				  "trials", (json_int_t)res->short_n,
				  "trials_needed", (json_int_t)res->need_n) :
			json_null());
}

static json_t *json_series(const struct regress_history *h,
			   const struct regress_series *s)
{
	json_t *cps = json_array(), *runs = json_array(), *med = json_array();
	const struct regress_cp *c;
	size_t i;

	for (i = 0; i < s->n; i++) {
		json_array_append_new(runs, json_integer(s->runs[i]));
		json_array_append_new(med, report_json_num(s->median[i]));
	}
	for (i = 0; i < s->nr_cps; i++) {
		c = &s->cps[i];
		json_array_append_new(
			cps,
			json_pack("{s:I, s:I, s:o, s:o, s:o, s:o, s:s, s:b}",
				  "run_before", (json_int_t)c->run_before,
				  "run_after", (json_int_t)c->run_after,
				  "mean_before",
				  report_json_num(c->cp.mean_before),
				  "mean_after",
				  report_json_num(c->cp.mean_after),
				  "change_pct",
				  report_json_num(c->cp.change * 100), "p",
				  report_json_num(c->cp.p), "status",
				  regress__status_name(c->status), "recovered",
				  c->recovered));
	}
	return json_pack(
		"{s:o, s:o, s:o, s:o, s:o}", "metric",
		report_json_str(ds__str(&h->ds, h->ds.metrics[s->metric].name)),
		"key", json_key(&h->ds, s->key, NULL), "runs", runs, "medians",
		med, "change_points", cps);
}

static json_t *json_history(const struct regress_history *h)
{
	json_t *series = json_array();
	size_t i;

	for (i = 0; i < h->nr_series; i++)
		if (h->series[i].nr_cps)
			json_array_append_new(series,
					      json_series(h, &h->series[i]));
	return json_pack("{s:I, s:I, s:I, s:I, s:o}", "runs",
			 (json_int_t)h->nr_runs, "regressions",
			 (json_int_t)h->regressions, "unrecovered",
			 (json_int_t)h->unrecovered, "improvements",
			 (json_int_t)h->improvements, "series", series);
}

int regress__print_json(const struct regress_result *res,
			const struct regress_history *h,
			const struct regress_opts *o, bool failed, FILE *fp)
{
	json_t *root;

	root = json_pack("{s:s, s:f, s:f, s:f, s:o, s:o}", "verdict",
			 failed ? "fail" : "pass", "alpha", o->cmp.alpha,
			 "confidence", o->cmp.conf, "threshold_pct",
			 o->default_pct, "pairwise",
			 res ? json_pairwise(res) : json_null(), "history",
			 h ? json_history(h) : json_null());
	return report_json_print(root, fp);
}
