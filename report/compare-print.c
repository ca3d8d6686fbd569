// SPDX-License-Identifier: GPL-2.0-only
/* compare's outputs: an aligned text table, JSON and CSV. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare-print.h"
#include "csv.h"
#include "format.h"
#include "util.h"

/* A table of strings, printed with each column padded to its widest. */
struct grid {
	char **cell;
	size_t rows, cols, alloc;
};

static void grid__add(struct grid *g, size_t col, char *s)
{
	if (!col) {
		ALLOC_GROW(g->cell, (g->rows + 1) * g->cols, g->alloc);
		memset(g->cell + g->rows * g->cols, 0,
		       g->cols * sizeof(*g->cell));
		g->rows++;
	}
	g->cell[(g->rows - 1) * g->cols + col] = s;
}

static void grid__print(struct grid *g, FILE *fp)
{
	size_t *w = xcalloc(g->cols, sizeof(*w)), r, c, cw, last;
	char *s;

	for (r = 0; r < g->rows; r++)
		for (c = 0; c < g->cols; c++) {
			s = g->cell[r * g->cols + c];
			cw = s ? fmt__width(s) : 0;
			if (cw > w[c])
				w[c] = cw;
		}
	for (r = 0; r < g->rows; r++) {
		for (last = g->cols; last; last--) {
			s = g->cell[r * g->cols + last - 1];
			if (s && *s)
				break;
			free(s);
			g->cell[r * g->cols + last - 1] = NULL;
		}
		for (c = 0; c < last; c++) {
			s = g->cell[r * g->cols + c];
			fputs(s ? s : "", fp);
			if (c + 1 < last)
				fprintf(fp, "%*s",
					(int)(w[c] + 2 -
					      (s ? fmt__width(s) : 0)),
					"");
			free(s);
		}
		fputc('\n', fp);
	}
	free(w);
	free(g->cell);
	memset(g, 0, sizeof(*g));
}

static const char *better_words(enum store_better b)
{
	switch (b) {
	case STORE_BETTER_HIGHER:
		return "higher is better";
	case STORE_BETTER_LOWER:
		return "lower is better";
	default:
		return "no direction";
	}
}

static char *cell_text(const struct cmp_cell *c, const struct fmt_scale *sc)
{
	char med[FMT_MAX], pm[FMT_MAX];
	double half;

	if (!c->present)
		return xstrdup(c->unprotected ? "unprotected" : "-");
	fmt__num(c->s.median * sc->mul, med, sizeof(med));
	half = fmax(c->s.ci_hi - c->s.median, c->s.median - c->s.ci_lo);
	if (isnan(half))
		snprintf(pm, sizeof(pm), "± ?");
	else if (c->s.median != 0)
		snprintf(pm, sizeof(pm), "± %.0f%%",
			 100 * half / fabs(c->s.median));
	else
		snprintf(pm, sizeof(pm), "± %s", "0");
	return xasprintf("%s %s%s%s", med, pm,
			 c->warn & CMP_WARN_FEW_CI ? " ¹" : "",
			 c->warn & CMP_WARN_HIGH_CV ? " ³" : "");
}

char *cmp__delta_text(const struct cmp_cell *base, const struct cmp_cell *c)
{
	char d[FMT_MAX], lo[FMT_MAX], hi[FMT_MAX], p[FMT_MAX], ci[3 * FMT_MAX];

	if (!base->present || !c->present)
		return xstrdup("");
	fmt__p(c->mw.p, p, sizeof(p));
	if (c->verdict == CMP_INCONCLUSIVE)
		return xasprintf("? (n=%zu+%zu) ²", base->s.n, c->s.n);
	ci[0] = '\0';
	if (cmp__has_interval(c))
		snprintf(ci, sizeof(ci), " [%s, %s]",
			 fmt__pct(c->delta_lo, lo, sizeof(lo)),
			 fmt__pct(c->delta_hi, hi, sizeof(hi)));
	/* "~" with the interval: the changes these trials cannot tell. */
	if (c->verdict == CMP_SAME)
		return xasprintf("~%s (%s n=%zu+%zu)", ci, p, base->s.n,
				 c->s.n);
	return xasprintf(
		"%s%s (%s n=%zu+%zu)%s%s", fmt__pct(c->delta, d, sizeof(d)), ci,
		p, base->s.n, c->s.n, c->verdict == CMP_CHANGED ? "" : " ",
		c->verdict == CMP_CHANGED ? "" : cmp__verdict_name(c->verdict));
}

/* The reference value a metric's unit is scaled for. */
static double metric_ref(const struct cmp_table *t, size_t from, size_t to)
{
	size_t i, c;

	for (i = from; i < to; i++)
		for (c = 0; c < t->nr_cols; c++)
			if (t->rows[i].cells[c].present)
				return t->rows[i].cells[c].s.median;
	return NAN;
}

/* Grid columns: label, baseline, then a value and a delta per column. */
static size_t vcol(size_t c)
{
	return c ? 2 * c : 1;
}

static void print_metric(const struct cmp_table *t, size_t from, size_t to,
			 const struct cmp_geomean *gm, FILE *fp)
{
	const struct dataset *ds = t->ds;
	const struct ds_metric *m = &ds->metrics[t->rows[from].metric];
	const char *base = ds__str(ds, t->cols[0]);
	struct grid g = { .cols = 2 * t->nr_cols };
	const struct cmp_row *row;
	struct fmt_scale sc;
	char num[FMT_MAX], d[FMT_MAX];
	size_t i, c;

	fmt__scale(ds__str(ds, m->unit), metric_ref(t, from, to), &sc);
	fprintf(fp, "%s%s%s%s, %s\n", ds__str(ds, m->name),
		*sc.unit ? " [" : "", sc.unit, *sc.unit ? "]" : "",
		better_words(m->better));
	grid__add(&g, 0,
		  xasprintf("%s \\ %s", ds_dim_names[DS_WORKLOAD],
			    ds_dim_names[t->o.by]));
	for (c = 0; c < t->nr_cols; c++) {
		grid__add(&g, vcol(c), xstrdup(ds__str(ds, t->cols[c])));
		if (c)
			grid__add(&g, 2 * c + 1, xasprintf("vs %s", base));
	}
	for (i = from; i < to; i++) {
		row = &t->rows[i];
		grid__add(&g, 0, cmp__row_label(t, row));
		for (c = 0; c < t->nr_cols; c++) {
			grid__add(&g, vcol(c), cell_text(&row->cells[c], &sc));
			if (c)
				grid__add(&g, 2 * c + 1,
					  cmp__delta_text(&row->cells[0],
							  &row->cells[c]));
		}
	}
	if (gm && to - from > 1 && gm->rows) {
		grid__add(&g, 0, xstrdup("geomean"));
		for (c = 0; c < t->nr_cols; c++) {
			fmt__num(gm->median[c] * sc.mul, num, sizeof(num));
			grid__add(&g, vcol(c), xstrdup(num));
			if (c)
				grid__add(&g, 2 * c + 1,
					  xstrdup(fmt__pct((gm->ratio[c] - 1) *
								   100,
							   d, sizeof(d))));
		}
	}
	grid__print(&g, fp);
}

static void print_footnotes(const struct cmp_table *t, FILE *fp)
{
	if (t->warn & CMP_WARN_FEW_CI)
		fprintf(fp,
			"¹ need >= %zu samples for a %g%% confidence "
			"interval\n",
			stats__min_n_for_ci(t->o.conf), 100 * t->o.conf);
	if (t->warn & CMP_WARN_FEW_TEST)
		fprintf(fp,
			"² need more samples: no p-value below alpha=%g "
			"is possible with so few\n",
			t->o.alpha);
	if (t->warn & CMP_WARN_HIGH_CV)
		fprintf(fp,
			"³ high variation: coefficient of variation above "
			"%g%%\n",
			100 * t->o.cv_max);
}

void cmp__print_text(const struct cmp_table *t, FILE *fp)
{
	size_t i, j, g = 0;

	fprintf(fp,
		"by %s, baseline %s; median ± %g%% CI; Mann-Whitney U, "
		"alpha=%g\n",
		ds_dim_names[t->o.by], ds__str(t->ds, t->cols[0]),
		100 * t->o.conf, t->o.alpha);
	for (i = 0; i < t->nr_rows; i = j) {
		for (j = i;
		     j < t->nr_rows && t->rows[j].metric == t->rows[i].metric;
		     j++)
			;
		fputc('\n', fp);
		print_metric(t, i, j, g < t->nr_gm ? &t->gm[g] : NULL, fp);
		g++;
	}
	if (t->ds->nr_effective) {
		fputs("\nin effect where the mode asked nothing of the kernel:\n",
		      fp);
		for (i = 0; i < t->ds->nr_effective; i++) {
			char *e = ds__effective_text(t->ds, i);

			fprintf(fp, "  %s\n", e);
			free(e);
		}
	}
	if (t->warn) {
		fputc('\n', fp);
		print_footnotes(t, fp);
	}
}

int report_json_print(json_t *root, FILE *fp)
{
	int err = json_dumpf(root, fp,
			     JSON_INDENT(2) | JSON_PRESERVE_ORDER |
				     JSON_REAL_PRECISION(10));

	fputc('\n', fp);
	json_decref(root);
	return err ? -EIO : 0;
}

/* A JSON string; bytes that are not UTF-8 become '?', never a failure. */
json_t *report_json_str(const char *s)
{
	json_t *j = json_string(s);
	char *copy, *p;

	if (j)
		return j;
	copy = xstrdup(s);
	for (p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j ? j : json_null();
}

/* A number, or null for NAN and infinities (which JSON lacks). */
json_t *report_json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *json_pair(double lo, double hi)
{
	if (isnan(lo) || isnan(hi))
		return json_null();
	return json_pack("[oo]", report_json_num(lo), report_json_num(hi));
}

static json_t *json_warnings(unsigned int w)
{
	json_t *a = json_array();

	if (w & CMP_WARN_FEW_CI)
		json_array_append_new(a, json_string("few_samples_for_ci"));
	if (w & CMP_WARN_HIGH_CV)
		json_array_append_new(a, json_string("high_cv"));
	if (w & CMP_WARN_FEW_TEST)
		json_array_append_new(a, json_string("few_samples_for_test"));
	return a;
}

static const char *better_name(enum store_better b)
{
	return b == STORE_BETTER_HIGHER ? "higher" :
	       b == STORE_BETTER_LOWER	? "lower" :
					  "none";
}

static json_t *json_vs(const struct cmp_cell *c)
{
	return json_pack("{s:o, s:o, s:s?, s:o, s:o, s:o, s:o, s:s, s:s, s:o}",
			 "ratio", report_json_num(c->ratio), "ratio_ci",
			 json_pair(c->ratio_lo, c->ratio_hi), "ci_method",
			 c->shift.method, "delta_pct",
			 report_json_num(c->delta), "delta_ci_pct",
			 json_pair(c->delta_lo, c->delta_hi), "p",
			 report_json_num(c->mw.p), "u",
			 report_json_num(c->mw.u), "test",
			 c->mw.exact ? "exact" : "normal", "verdict",
			 cmp__verdict_name(c->verdict), "warnings",
			 json_warnings(c->warn & CMP_WARN_FEW_TEST));
}

static json_t *json_cell(const struct cmp_table *t, size_t col,
			 const struct cmp_cell *c)
{
	json_t *o = json_pack(
		"{s:o, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
		"column", report_json_str(ds__str(t->ds, t->cols[col])), "n",
		(json_int_t)c->s.n, "median", report_json_num(c->s.median),
		"ci", json_pair(c->s.ci_lo, c->s.ci_hi), "ci_level",
		report_json_num(c->s.ci_level), "mean",
		report_json_num(c->s.mean), "stddev",
		report_json_num(c->s.stddev), "cv", report_json_num(c->s.cv),
		"min", report_json_num(c->s.min), "max",
		report_json_num(c->s.max), "warnings",
		json_warnings(c->warn & ~CMP_WARN_FEW_TEST), "vs_baseline",
		col && c->verdict != CMP_NONE ? json_vs(c) : json_null());

	return o;
}

static json_t *json_row(const struct cmp_table *t, const struct cmp_row *row)
{
	json_t *key = json_object(), *cells = json_array(), *o;
	char *label = cmp__row_label(t, row);
	size_t c;
	int d;

	for (d = 0; d < DS_NR_DIMS; d++)
		if (row->key[d] != UINT32_MAX &&
		    (d == DS_WORKLOAD || t->shown[d]))
			json_object_set_new(
				key, ds_dim_names[d],
				report_json_str(ds__str(t->ds, row->key[d])));
	for (c = 0; c < t->nr_cols; c++) {
		if (row->cells[c].present)
			json_array_append_new(cells,
					      json_cell(t, c, &row->cells[c]));
		else if (row->cells[c].unprotected)
			json_array_append_new(
				cells, json_pack("{s:o, s:b}", "column",
						 report_json_str(ds__str(
							 t->ds, t->cols[c])),
						 "unprotected", 1));
	}
	o = json_pack("{s:o, s:o, s:o}", "label", report_json_str(label), "key",
		      key, "cells", cells);
	free(label);
	return o;
}

static json_t *json_geomean(const struct cmp_table *t,
			    const struct cmp_geomean *gm)
{
	json_t *med = json_object(), *rat = json_object();
	size_t c;

	for (c = 0; c < t->nr_cols; c++) {
		const char *name = ds__str(t->ds, t->cols[c]);

		json_object_set_new(med, name, report_json_num(gm->median[c]));
		if (c)
			json_object_set_new(rat, name,
					    report_json_num(gm->ratio[c]));
	}
	return json_pack("{s:o, s:o, s:I}", "median", med, "ratio", rat, "rows",
			 (json_int_t)gm->rows);
}

int cmp__print_json(const struct cmp_table *t, FILE *fp)
{
	json_t *root, *metrics = json_array(), *cols = json_array(), *rows,
		      *eff;
	const struct ds_metric *m;
	size_t i, j, c, g = 0;

	for (c = 0; c < t->nr_cols; c++)
		json_array_append_new(
			cols, report_json_str(ds__str(t->ds, t->cols[c])));
	for (i = 0; i < t->nr_rows; i = j) {
		rows = json_array();
		for (j = i;
		     j < t->nr_rows && t->rows[j].metric == t->rows[i].metric;
		     j++)
			json_array_append_new(rows, json_row(t, &t->rows[j]));
		m = &t->ds->metrics[t->rows[i].metric];
		json_array_append_new(
			metrics,
			json_pack("{s:o, s:o, s:s, s:o, s:o}", "metric",
				  report_json_str(ds__str(t->ds, m->name)),
				  "unit",
				  report_json_str(ds__str(t->ds, m->unit)),
				  "better", better_name(m->better), "rows",
				  rows, "geomean",
				  json_geomean(t, &t->gm[g++])));
	}
	eff = json_array();
	for (i = 0; i < t->ds->nr_effective; i++) {
		const struct ds_effective *e = &t->ds->effective[i];

		json_array_append_new(
			eff,
			json_pack(
				"{s:o, s:o, s:o, s:o}", "host",
				report_json_str(ds__str(t->ds, e->host)),
				"kernel",
				report_json_str(ds__str(t->ds, e->kernel)),
				"mode",
				report_json_str(ds__str(t->ds, e->mode)),
				"effective",
				report_json_str(ds__str(t->ds, e->effective))));
	}
	root = json_pack("{s:s, s:o, s:f, s:f, s:f, s:o, s:o, s:o}", "by",
			 ds_dim_names[t->o.by], "baseline",
			 report_json_str(ds__str(t->ds, t->cols[0])), "alpha",
			 t->o.alpha, "confidence", t->o.conf, "cv_max",
			 t->o.cv_max, "columns", cols, "metrics", metrics,
			 "effective_modes", eff);
	return report_json_print(root, fp);
}

static void csv_num(FILE *fp, double v, bool last)
{
	char buf[40] = "";

	if (isfinite(v))
		snprintf(buf, sizeof(buf), "%.*g", fmt__precision(v), v);
	csv__field(fp, buf, last);
}

static const char *const csv_header[] = {
	"metric",   "unit",  "better",	 "workload", "host",	  "kernel",
	"mode",	    "label", "column",	 "n",	     "median",	  "ci_lo",
	"ci_hi",    "mean",  "stddev",	 "cv",	     "min",	  "max",
	"baseline", "ratio", "ratio_lo", "ratio_hi", "delta_pct", "p",
	"verdict",  NULL,
};

static void csv_cell(const struct cmp_table *t, const struct cmp_row *row,
		     size_t col, FILE *fp)
{
	const struct ds_metric *m = &t->ds->metrics[row->metric];
	const struct cmp_cell *c = &row->cells[col];
	char n[24];
	int d;

	csv__field(fp, ds__str(t->ds, m->name), false);
	csv__field(fp, ds__str(t->ds, m->unit), false);
	csv__field(fp, better_name(m->better), false);
	csv__field(fp, ds__str(t->ds, row->key[DS_WORKLOAD]), false);
	for (d = DS_HOST; d < DS_NR_DIMS; d++)
		if (d != DS_WORKLOAD)
			csv__field(fp,
				   row->key[d] == UINT32_MAX ?
					   "" :
					   ds__str(t->ds, row->key[d]),
				   false);
	csv__field(fp, ds__str(t->ds, t->cols[col]), false);
	snprintf(n, sizeof(n), "%zu", c->s.n);
	csv__field(fp, n, false);
	csv_num(fp, c->s.median, false);
	csv_num(fp, c->s.ci_lo, false);
	csv_num(fp, c->s.ci_hi, false);
	csv_num(fp, c->s.mean, false);
	csv_num(fp, c->s.stddev, false);
	csv_num(fp, c->s.cv, false);
	csv_num(fp, c->s.min, false);
	csv_num(fp, c->s.max, false);
	csv__field(fp, ds__str(t->ds, t->cols[0]), false);
	csv_num(fp, col ? c->ratio : NAN, false);
	csv_num(fp, col ? c->ratio_lo : NAN, false);
	csv_num(fp, col ? c->ratio_hi : NAN, false);
	csv_num(fp, col ? c->delta : NAN, false);
	csv_num(fp, col ? c->mw.p : NAN, false);
	csv__field(fp, col ? cmp__verdict_name(c->verdict) : "", true);
}

void cmp__print_csv(const struct cmp_table *t, FILE *fp)
{
	size_t i, c;

	for (i = 0; csv_header[i]; i++)
		csv__field(fp, csv_header[i], !csv_header[i + 1]);
	for (i = 0; i < t->nr_rows; i++)
		for (c = 0; c < t->nr_cols; c++)
			if (t->rows[i].cells[c].present)
				csv_cell(t, &t->rows[i], c, fp);
}
