// SPDX-License-Identifier: GPL-2.0-only
/*
 * The top of the report: the sentence a maintainer quotes ("lazy is
 * 2.67x strict on tcp-rx, 95% CI [2.64, 2.71], p < 0.001, n = 10+10"),
 * the metric that tells the columns apart more sharply than throughput
 * when there is one, the table of throughput, CPU and efficiency per
 * workload and column, and everything that should make a reader
 * distrust a number.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "markup.h"
#include "report-priv.h"
#include "util.h"

static void sentence(struct report_ctx *c, const struct cmp_row *row,
		     size_t col)
{
	const struct cmp_cell *b = &row->cells[0], *x = &row->cells[col];
	const char *metric = ds__str(c->ds, c->ds->metrics[row->metric].name);
	char *label = cmp__row_label(c->t, row), p[FMT_MAX];

	fputs("<p class=\"verdict\">", c->fp);
	if (x->verdict == CMP_SAME || x->verdict == CMP_INCONCLUSIVE) {
		markup__escapef(c->fp,
				"%s and %s do not differ significantly in "
				"%s on %s (%s, n = %zu+%zu)%s",
				c->cols[col], c->cols[0], metric, label,
				fmt__p(x->mw.p, p, sizeof(p)), b->s.n, x->s.n,
				x->verdict == CMP_INCONCLUSIVE ?
					": too few trials to tell" :
					"");
	} else {
		/* Throughput is the headline's own: "lazy is 2.67x strict". */
		markup__escapef(c->fp, "%s is %.2fx %s%s%s on %s", c->cols[col],
				x->ratio, c->cols[0],
				strcmp(metric, "throughput") ? " in " : "",
				strcmp(metric, "throughput") ? metric : "",
				label);
		if (!isnan(x->ratio_lo))
			markup__escapef(c->fp, ", %g%% CI [%.2f, %.2f]",
					100 * (1 - c->t->o.alpha), x->ratio_lo,
					x->ratio_hi);
		fmt__p(x->mw.p, p, sizeof(p));
		markup__escapef(c->fp, ", p %s %s, n = %zu+%zu",
				x->mw.p < 0.001 ? "<" : "=",
				x->mw.p < 0.001 ? "0.001" : p + 2, b->s.n,
				x->s.n);
	}
	fputs("</p>\n", c->fp);
	free(label);
}

/* A median with its interval, scaled: "39.80 [39.52, 40.11]". */
static void td_median(FILE *fp, const struct cmp_cell *x, double mul, bool ci)
{
	char m[FMT_MAX], lo[FMT_MAX], hi[FMT_MAX];

	if (!x || !x->present) {
		html__td(fp, "num", "-");
		return;
	}
	fmt__num(x->s.median * mul, m, sizeof(m));
	fprintf(fp, "<td class=\"num\">%s", m);
	if (ci && !isnan(x->s.ci_lo))
		fprintf(fp, " <span class=\"small ci\">[%s, %s]</span>",
			fmt__num(x->s.ci_lo * mul, lo, sizeof(lo)),
			fmt__num(x->s.ci_hi * mul, hi, sizeof(hi)));
	fputs("</td>", fp);
}

static void td_ratio(FILE *fp, const struct cmp_cell *x)
{
	char p[FMT_MAX];

	if (!x || x->verdict == CMP_NONE) {
		html__td(fp, "num", "-");
		return;
	}
	fprintf(fp,
		"<td class=\"%s\">%.2fx <span class=\"small\">%s</span>"
		"</td>",
		html__verdict_class(x->verdict), x->ratio,
		fmt__p(x->mw.p, p, sizeof(p)));
}

static void headline_table(struct report_ctx *c, int tput, int cpu, int eff,
			   double mul, const char *unit)
{
	const struct cmp_table *t = c->t;
	const struct cmp_row *row, *rc, *re;
	char *label;
	size_t i, col;

	fputs("<table class=\"fit\">\n<tr><th rowspan=\"2\">workload</th>",
	      c->fp);
	for (col = 0; col < c->t->nr_cols; col++) {
		fprintf(c->fp, "<th colspan=\"%d\">", col ? 4 : 3);
		markup__escape(c->fp, c->cols[col]);
		fputs(col ? "" : " (baseline)", c->fp);
		fputs("</th>", c->fp);
	}
	fputs("</tr>\n<tr>", c->fp);
	for (col = 0; col < c->t->nr_cols; col++) {
		fprintf(c->fp, "<th>throughput [");
		markup__escape(c->fp, unit);
		fputs("]</th><th>CPU&#160;%</th><th>Gbit/s/core</th>", c->fp);
		if (col) {
			fputs("<th>vs ", c->fp);
			markup__escape(c->fp, c->cols[0]);
			fputs("</th>", c->fp);
		}
	}
	fputs("</tr>\n", c->fp);
	for (i = 0; i < t->nr_rows; i++) {
		row = &t->rows[i];
		if ((int)row->metric != tput)
			continue;
		rc = report__row_like(t, cpu, row);
		re = report__row_like(t, eff, row);
		label = cmp__row_label(t, row);
		fputs("<tr>", c->fp);
		html__td(c->fp, NULL, label);
		free(label);
		for (col = 0; col < c->t->nr_cols; col++) {
			td_median(c->fp, &row->cells[col], mul, true);
			td_median(c->fp, rc ? &rc->cells[col] : NULL, 1, false);
			td_median(c->fp, re ? &re->cells[col] : NULL, 1, false);
			if (col)
				td_ratio(c->fp, &row->cells[col]);
		}
		fputs("</tr>\n", c->fp);
	}
	fputs("</table>\n", c->fp);
}

/*
 * How sharply the comparisons of metric @m tell the columns apart: the
 * mean, over every comparison with an interval, of the effect (|log
 * ratio|) over the interval's half width, both on the log scale; above
 * 1, the interval excludes no change. *@n: the comparisons counted.
 */
static double separation(const struct cmp_table *t, int m, size_t *n)
{
	double sum = 0, half;
	size_t i, col;

	*n = 0;
	for (i = 0; i < t->nr_rows; i++) {
		if ((int)t->rows[i].metric != m)
			continue;
		for (col = 1; col < t->nr_cols; col++) {
			const struct cmp_cell *x = &t->rows[i].cells[col];

			if (!x->present || !cmp__has_interval(x) ||
			    !(x->ratio_lo > 0) || !isfinite(x->ratio_hi))
				continue;
			half = log(x->ratio_hi / x->ratio_lo) / 2;
			if (!(half > 0))
				continue;
			sum += fabs(log(x->ratio)) / half;
			(*n)++;
		}
	}
	return *n ? sum / *n : 0;
}

/*
 * The metric that tells the columns apart most sharply, if it is not
 * throughput: under emulation the guest's CPU split (softirq, system
 * time) can separate the modes with a fraction of throughput's
 * interval, since the share of work an unmap takes does not move with
 * the host's load (docs/testbed-noise.md). Per-CPU metrics and those
 * with fewer comparisons than throughput do not compete, nor does the
 * exposure window: the price, not the performance (its own section).
 */
static void sharpest(struct report_ctx *c, int tput)
{
	const struct cmp_table *t = c->t;
	double best = 0, s, base;
	size_t n, need, i, col, said = 0;
	int m, pick = -1;

	base = separation(t, tput, &need);
	if (!need)
		return;
	for (m = 0; m < (int)c->ds->nr_metrics; m++) {
		const char *name = ds__str(c->ds, c->ds->metrics[m].name);

		if (m == tput || strchr(name, '.') ||
		    ds__metric_is_exposure(name))
			continue;
		s = separation(t, m, &n);
		if (n >= need && s > best) {
			best = s;
			pick = m;
		}
	}
	if (pick < 0 || best <= base)
		return;
	fputs("<p>", c->fp);
	markup__escapef(c->fp,
			"The metric that separates the columns most sharply "
			"here is %s: its effects stand %.1f half-intervals "
			"from no change on average, throughput's %.1f.",
			ds__str(c->ds, c->ds->metrics[pick].name), best, base);
	fputs("</p>\n", c->fp);
	for (i = 0; i < t->nr_rows; i++) {
		if ((int)t->rows[i].metric != pick)
			continue;
		for (col = 1; col < t->nr_cols && said < 8; col++) {
			if (!t->rows[i].cells[col].present ||
			    !t->rows[i].cells[0].present)
				continue;
			sentence(c, &t->rows[i], col);
			said++;
		}
	}
}

void report__headline(struct report_ctx *c)
{
	int tput = report__metric(c, "throughput");
	int cpu = report__metric(c, "cpu_util_pct");
	int eff = report__metric(c, "gbit_per_core");
	const struct cmp_table *t = c->t;
	const struct cmp_geomean *gm = NULL;
	size_t i, col, said = 0, rows = 0;
	struct fmt_scale sc;

	html__h2(c->fp, "headline", "Headline");
	report__platforms(c);
	if (c->ds->nr_effective) {
		fputs("<p>Where the mode asked nothing of the kernel, it chose: ",
		      c->fp);
		for (i = 0; i < c->ds->nr_effective; i++) {
			char *e = ds__effective_text(c->ds, i);

			markup__escapef(c->fp, "%s%s", i ? "; " : "", e);
			free(e);
		}
		fputs(".</p>\n", c->fp);
	}
	if (tput < 0) {
		fputs("<p>No trial measured <code>throughput</code>; see the "
		      "statistics of every metric below.</p>\n",
		      c->fp);
		return;
	}
	for (i = 0; i < t->nr_gm; i++)
		if ((int)t->gm[i].metric == tput)
			gm = &t->gm[i];
	for (i = 0; i < t->nr_rows; i++) {
		if ((int)t->rows[i].metric != tput)
			continue;
		if (!rows++)
			fmt__scale(ds__str(c->ds, c->ds->metrics[tput].unit),
				   t->rows[i].cells[0].present ?
					   t->rows[i].cells[0].s.median :
					   NAN,
				   &sc);
		for (col = 1; col < c->t->nr_cols && said < 8; col++) {
			if (!t->rows[i].cells[col].present ||
			    !t->rows[i].cells[0].present)
				continue;
			sentence(c, &t->rows[i], col);
			said++;
		}
	}
	for (col = 1; gm && rows > 1 && col < c->t->nr_cols; col++) {
		if (isnan(gm->ratio[col]))
			continue;
		fputs("<p>", c->fp);
		markup__escapef(c->fp,
				"Across %zu workloads %s is %.2fx %s "
				"(geometric mean of the ratios).",
				rows, c->cols[col], gm->ratio[col], c->cols[0]);
		fputs("</p>\n", c->fp);
	}
	sharpest(c, tput);
	if (c->t->nr_cols < 2)
		fputs("<p>Only one column: nothing to compare against. "
		      "Choose another axis with <code>--by</code>.</p>\n",
		      c->fp);
	headline_table(c, tput, cpu, eff, sc.mul, sc.unit);
	fprintf(c->fp,
		"<p class=\"small\">Medians with %g%% confidence intervals "
		"(order statistics); ratios are candidate median over "
		"baseline median, Mann-Whitney U p-values; green is better "
		"and red worse by the metric's direction, at alpha %g.</p>\n",
		100 * t->o.conf, t->o.alpha);
}
