// SPDX-License-Identifier: GPL-2.0-only
/* The report's warnings and its table of every metric. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "markup.h"
#include "report-priv.h"
#include "util.h"

#define MAX_LISTED 12

static char *cell_label(const struct report_data *d, const struct rd_cell *c)
{
	return xasprintf("%s on %s, kernel %s, mode %s",
			 rd__str(d, c->workload), rd__str(d, c->host),
			 rd__str(d, c->kernel), rd__str(d, c->mode));
}

static void warn_failures(struct report_ctx *c)
{
	static const char *const heads[] = { "run",    "trial", "cell",
					     "status", "error", NULL };
	const struct report_data *d = c->d;
	const struct rd_failure *f;
	char *label, num[32];
	size_t i;

	if (!d->total_failures)
		return;
	fprintf(c->fp,
		"<li>%zu trial%s did not finish 'ok'; their numbers are left "
		"out of every statistic.%s\n<table>",
		d->total_failures, d->total_failures == 1 ? "" : "s",
		d->total_failures > d->nr_failures ? " The first ones:" : "");
	html__th_row(c->fp, heads);
	for (i = 0; i < d->nr_failures; i++) {
		f = &d->failures[i];
		label = cell_label(d, &d->cells[f->cell]);
		fputs("<tr>", c->fp);
		snprintf(num, sizeof(num), "%lld", (long long)f->run);
		html__td(c->fp, "num", num);
		snprintf(num, sizeof(num), "%lld", (long long)f->trial);
		html__td(c->fp, "num", num);
		html__td(c->fp, NULL, label);
		html__td(c->fp, NULL, rd__str(d, f->status));
		html__td(c->fp, NULL, rd__str(d, f->error));
		fputs("</tr>\n", c->fp);
		free(label);
	}
	fputs("</table></li>\n", c->fp);
}

static void warn_modes(struct report_ctx *c)
{
	const struct report_data *d = c->d;
	char *label;
	size_t i;

	for (i = 0; i < d->nr_cells; i++) {
		const struct rd_cell *cell = &d->cells[i];

		if (!cell->mismatched)
			continue;
		label = cell_label(d, cell);
		fputs("<li class=\"warn\">", c->fp);
		markup__escapef(c->fp,
				"%s: %zu trial%s ran in another mode than "
				"asked (verified: %s); left out of the "
				"statistics.",
				label, cell->mismatched,
				cell->mismatched == 1 ? "" : "s",
				rd__str(d, cell->effective));
		fputs("</li>\n", c->fp);
		free(label);
	}
}

/* Measured trials that ran perf record: their numbers carry its cost. */
static void warn_sampled(struct report_ctx *c)
{
	const struct report_data *d = c->d;
	size_t i, n = 0;

	for (i = 0; i < d->nr_carried; i++)
		if (d->carried[i].records && !d->carried[i].profile)
			n += d->carried[i].trials;
	if (!n)
		return;
	fprintf(c->fp,
		"<li class=\"warn\">%zu measured trial%s ran perf record "
		"([collect.perf] record = \"every\"): sampling takes "
		"throughput from the workload (make bench: a quarter of it on "
		"a veth pair at 999 Hz with call graphs), and these numbers "
		"carry that cost. See <a href=\"#collectors\">Collectors</a>."
		"</li>\n",
		n, n == 1 ? "" : "s");
}

/* A missing exposure figure of an unprotected column is none by design. */
static bool cell_warns(const struct cmp_cell *x, unsigned int bit)
{
	return (x->warn & bit) && !x->unprotected;
}

static size_t count_cells(const struct cmp_table *t, unsigned int bit)
{
	size_t i, col, n = 0;

	for (i = 0; i < t->nr_rows; i++)
		for (col = 0; col < t->nr_cols; col++)
			n += cell_warns(&t->rows[i].cells[col], bit);
	return n;
}

/*
 * Each cell with the warning @bit as a list item, the first @max; those
 * with no trial at all first, the likeliest to be cut off otherwise.
 */
static void list_cells(struct report_ctx *c, unsigned int bit, size_t max)
{
	const struct cmp_table *t = c->t;
	size_t i, col, n = 0;
	int pass;
	char *label;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < t->nr_rows; i++) {
			const struct cmp_row *row = &t->rows[i];
			const char *m = ds__str(
				c->ds, c->ds->metrics[row->metric].name);

			for (col = 0; col < t->nr_cols; col++) {
				const struct cmp_cell *x = &row->cells[col];

				if (!cell_warns(x, bit) ||
				    (x->s.n > 0) != (pass > 0) || n++ >= max)
					continue;
				label = cmp__row_label(t, row);
				fputs("<li>", c->fp);
				markup__escapef(c->fp, "%s, %s, %s: n=%zu", m,
						label, c->cols[col], x->s.n);
				if (bit == CMP_WARN_HIGH_CV)
					fprintf(c->fp, ", CV %.1f%%",
						100 * x->s.cv);
				fputs("</li>", c->fp);
				free(label);
			}
		}
	if (n > max)
		fprintf(c->fp, "<li>and %zu more</li>", n - max);
}

/* Cells the reader can fix (with more trials): a line, in the open. */
static void warn_cells(struct report_ctx *c, unsigned int bit, const char *what)
{
	size_t n = count_cells(c->t, bit);

	if (!n)
		return;
	fputs("<li class=\"warn\">", c->fp);
	markup__escapef(c->fp, "%s (%zu):", what, n);
	fputs("<ul>", c->fp);
	list_cells(c, bit, MAX_LISTED);
	fputs("</ul></li>\n", c->fp);
}

/* The rest of one kind: one folded line, every cell inside. */
static void fold_cells(struct report_ctx *c, unsigned int bit, const char *what)
{
	size_t n = count_cells(c->t, bit);

	if (!n)
		return;
	fputs("<li><details><summary>", c->fp);
	markup__escapef(c->fp, "%zu cell%s with %s", n, n == 1 ? "" : "s",
			what);
	fputs("</summary><ul>", c->fp);
	list_cells(c, bit, SIZE_MAX);
	fputs("</ul></details></li>\n", c->fp);
}

/*
 * Not a warning: the columns whose exposure window is "unprotected" (no
 * translation, nothing to measure), said once under the list.
 */
static void note_unprotected(struct report_ctx *c)
{
	const struct cmp_table *t = c->t;
	size_t i, col, said = 0;

	for (col = 0; col < t->nr_cols; col++) {
		for (i = 0; i < t->nr_rows; i++)
			if (!t->rows[i].cells[col].present &&
			    t->rows[i].cells[col].unprotected)
				break;
		if (i == t->nr_rows)
			continue;
		fputs(said++ ? ", " : "<p class=\"small\">", c->fp);
		markup__escape(c->fp, c->cols[col]);
	}
	if (said)
		fprintf(c->fp,
			": unprotected, no IOMMU translation, so no exposure "
			"window to measure; %s exposure metrics are absent by "
			"design (see <a href=\"#exposure\">Exposure window"
			"</a>).</p>\n",
			said == 1 ? "its" : "their");
}

void report__warnings(struct report_ctx *c)
{
	const struct cmp_table *t = c->t;
	long pos;

	html__h2(c->fp, "warnings", "Warnings");
	fputs("<ul class=\"warnings\">\n", c->fp);
	pos = ftell(c->fp);
	warn_failures(c);
	warn_modes(c);
	warn_sampled(c);
	if (c->ds->mode_mismatch)
		fprintf(c->fp,
			"<li class=\"warn\">%zu trial%s left out because "
			"the mode verified was not the mode asked for.</li>\n",
			c->ds->mode_mismatch,
			c->ds->mode_mismatch == 1 ? "" : "s");
	{
		char *what = xasprintf("Too few trials for a %g%% confidence "
				       "interval (need %zu)",
				       100 * t->o.conf,
				       stats__min_n_for_ci(t->o.conf));

		warn_cells(c, CMP_WARN_FEW_CI, what);
		free(what);
	}
	warn_cells(c, CMP_WARN_FEW_TEST,
		   "Too few trials for any significant difference");
	{
		char *what = xasprintf("high variation (CV over %g%%)",
				       100 * t->o.cv_max);

		fold_cells(c, CMP_WARN_HIGH_CV, what);
		free(what);
	}
	if (ftell(c->fp) == pos)
		fputs("<li>None: every trial finished, ran in the mode it "
		      "asked for, and every cell has enough trials with "
		      "low variation.</li>\n",
		      c->fp);
	fputs("</ul>\n", c->fp);
	note_unprotected(c);
}

static void stats_header(struct report_ctx *c)
{
	size_t col;

	fputs("<tr><th>workload</th>", c->fp);
	for (col = 0; col < c->t->nr_cols; col++) {
		fputs("<th>", c->fp);
		markup__escape(c->fp, c->cols[col]);
		fputs("</th>", c->fp);
		if (col) {
			fputs("<th>vs ", c->fp);
			markup__escape(c->fp, c->cols[0]);
			fputs("</th>", c->fp);
		}
	}
	fputs("</tr>\n", c->fp);
}

static void stats_cell(FILE *fp, const struct cmp_cell *x, double mul)
{
	char m[FMT_MAX], lo[FMT_MAX], hi[FMT_MAX];

	if (!x->present) {
		html__td(fp, "num", "-");
		return;
	}
	fmt__num(x->s.median * mul, m, sizeof(m));
	fprintf(fp, "<td class=\"num%s\">%s", x->warn ? " warn" : "", m);
	if (!isnan(x->s.ci_lo))
		fprintf(fp, " <span class=\"small\">[%s, %s]</span>",
			fmt__num(x->s.ci_lo * mul, lo, sizeof(lo)),
			fmt__num(x->s.ci_hi * mul, hi, sizeof(hi)));
	fprintf(fp, " <span class=\"small\">n=%zu</span></td>", x->s.n);
}

static void stats_delta(FILE *fp, const struct cmp_cell *x)
{
	char d[FMT_MAX], lo[FMT_MAX], hi[FMT_MAX], p[FMT_MAX];

	if (x->verdict == CMP_NONE) {
		html__td(fp, "num", "");
		return;
	}
	fprintf(fp, "<td class=\"%s\">", html__verdict_class(x->verdict));
	if (x->verdict == CMP_SAME)
		fputs("~", fp);
	else if (x->verdict == CMP_INCONCLUSIVE)
		fputs("?", fp);
	else
		fputs(fmt__pct(x->delta, d, sizeof(d)), fp);
	if (cmp__has_interval(x) && x->verdict != CMP_SAME)
		fprintf(fp, " <span class=\"small\">[%s, %s]</span>",
			fmt__pct(x->delta_lo, lo, sizeof(lo)),
			fmt__pct(x->delta_hi, hi, sizeof(hi)));
	fprintf(fp, " <span class=\"small\">%s</span></td>",
		fmt__p(x->mw.p, p, sizeof(p)));
}

void report__stats(struct report_ctx *c)
{
	const struct cmp_table *t = c->t;
	const struct ds_metric *m;
	struct fmt_scale sc;
	size_t i, j, col;
	char *label;

	html__h2(c->fp, "stats", "Every metric");
	fprintf(c->fp,
		"<p class=\"small\">Median [%g%% CI] and n per cell; the "
		"change against %s with its interval and the Mann-Whitney "
		"p-value; ~ no significant difference, ? too few trials. "
		"Cells in amber carry a warning.</p>\n",
		100 * t->o.conf, "the baseline");
	for (i = 0; i < t->nr_rows; i = j) {
		m = &c->ds->metrics[t->rows[i].metric];
		fmt__scale(ds__str(c->ds, m->unit),
			   t->rows[i].cells[0].present ?
				   t->rows[i].cells[0].s.median :
				   t->rows[i].cells[t->nr_cols - 1].s.median,
			   &sc);
		fputs("<h3>", c->fp);
		markup__escape(c->fp, ds__str(c->ds, m->name));
		if (*sc.unit) {
			fputs(" [", c->fp);
			markup__escape(c->fp, sc.unit);
			fputs("]", c->fp);
		}
		fprintf(c->fp, " <span class=\"small\">%s</span></h3>\n",
			m->better == STORE_BETTER_HIGHER ? "higher is better" :
			m->better == STORE_BETTER_LOWER	 ? "lower is better" :
							   "no direction");
		fputs("<table>\n", c->fp);
		stats_header(c);
		for (j = i;
		     j < t->nr_rows && t->rows[j].metric == t->rows[i].metric;
		     j++) {
			label = cmp__row_label(t, &t->rows[j]);
			fputs("<tr>", c->fp);
			html__td(c->fp, NULL, label);
			free(label);
			for (col = 0; col < t->nr_cols; col++) {
				stats_cell(c->fp, &t->rows[j].cells[col],
					   sc.mul);
				if (col)
					stats_delta(c->fp,
						    &t->rows[j].cells[col]);
			}
			fputs("</tr>\n", c->fp);
		}
		fputs("</table>\n", c->fp);
	}
}
