// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report's Exposure section: the other side of the trade-off. Per
 * workload and column, how long an unmapped IOVA stayed reachable by the
 * device (the window's p50, p99 and max, and the most stale IOVAs at
 * once), its distribution per column, and one plot with the whole
 * trade-off: throughput against the p99 window, a point per column and
 * row, confidence intervals on both axes. A column with no translation
 * is "unprotected", drawn at an axis position of its own, never at zero.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "markup.h"
#include "report-priv.h"
#include "util.h"

static const char *const window_metrics[] = {
	"exposure_p50_us",
	"exposure_p99_us",
	"exposure_max_us",
	"stale_max",
};

static bool unprotected(const struct report_ctx *c, const struct cmp_row *row,
			size_t col)
{
	uint32_t dim[DS_NR_DIMS];

	memcpy(dim, row->key, sizeof(dim));
	dim[c->t->o.by] = c->t->cols[col];
	return dataset__unprotected(c->ds, dim, "exposure_p99_us");
}

/* A window figure: "4.3 ms ± 9%", "unprotected", "-". */
static char *cell_text(const struct report_ctx *c, const struct cmp_row *row,
		       const struct cmp_row *like, size_t col, bool count)
{
	const struct cmp_cell *x = row ? &row->cells[col] : NULL;
	char med[FMT_MAX];
	struct fmt_scale sc;
	double half;

	if (!x || !x->present)
		return xstrdup(unprotected(c, like, col) ? "unprotected" : "-");
	if (count)
		return xasprintf("%.0f", x->s.median);
	fmt__scale("us", x->s.median, &sc);
	fmt__num(x->s.median * sc.mul, med, sizeof(med));
	half = fmax(x->s.ci_hi - x->s.median, x->s.median - x->s.ci_lo);
	if (isnan(half) || x->s.median <= 0)
		return xasprintf("%s %s", med, sc.unit);
	return xasprintf("%s %s ± %.0f%%", med, sc.unit,
			 100 * half / x->s.median);
}

/* How the window of column @col was measured, or why it was not. */
static const char *how(const struct report_ctx *c, size_t col,
		       const struct cmp_row *row)
{
	int64_t name = intern__find(&c->d->str, EXPOSURE_PROBE);
	/* The dataset and the report data intern strings apart. */
	int64_t wl =
		intern__find(&c->d->str, ds__str(c->ds, row->key[DS_WORKLOAD]));
	const struct rd_probe *p;
	uint32_t w;

	if (name < 0 || wl < 0)
		return "";
	w = (uint32_t)wl;
	p = report__probe_w(c, (uint32_t)name, col, &w);
	return p ? rd__str(c->d, p->attach) : "";
}

static void exposure_table(struct report_ctx *c, int tput)
{
	const struct cmp_table *t = c->t;
	int m[ARRAY_SIZE(window_metrics)];
	size_t i, k, col;
	char *s;

	for (k = 0; k < ARRAY_SIZE(window_metrics); k++)
		m[k] = report__metric(c, window_metrics[k]);
	fputs("<table>\n", c->fp);
	html__th_row(c->fp,
		     (const char *const[]){ "workload", ds_dim_names[t->o.by],
					    "window p50", "p99", "max",
					    "stale IOVAs at once",
					    "measured by", NULL });
	for (i = 0; i < t->nr_rows; i++) {
		const struct cmp_row *row = &t->rows[i];

		if ((int)row->metric != tput)
			continue;
		for (col = 0; col < t->nr_cols; col++) {
			fputs("<tr>", c->fp);
			s = cmp__row_label(t, row);
			html__td(c->fp, NULL, s);
			free(s);
			html__td(c->fp, NULL, c->cols[col]);
			for (k = 0; k < ARRAY_SIZE(window_metrics); k++) {
				s = cell_text(c, report__row_like(t, m[k], row),
					      row, col, k == 3);
				html__td(c->fp, "num", s);
				free(s);
			}
			html__td(c->fp, "small", how(c, col, row));
			fputs("</tr>\n", c->fp);
		}
	}
	fputs("</table>\n", c->fp);
}

/*
 * A string column of an inline data block: gnuplot reads "..." there
 * (a single-quoted one keeps its quotes). Quotes, backslashes and
 * control characters become blanks; names come from the matrix.
 */
static void data_label(struct plot *p, const char *s)
{
	plot__printf(p, "\"");
	for (; *s; s++)
		plot__printf(p, "%c",
			     (unsigned char)*s < 0x20 || *s == '"' ||
					     *s == '\\' || *s == 0x7f ?
				     ' ' :
				     *s);
	plot__printf(p, "\"");
}

/* x, y and their intervals, scaled; false when the point is not there. */
struct tradeoff_point {
	double x, xlo, xhi, y, ylo, yhi;
	bool unprotected;
};

static bool point_of(const struct report_ctx *c, const struct cmp_row *trow,
		     const struct cmp_row *wrow, size_t col, double mul,
		     struct tradeoff_point *pt)
{
	const struct cmp_cell *y = &trow->cells[col];
	const struct cmp_cell *x = wrow ? &wrow->cells[col] : NULL;

	if (!y->present)
		return false;
	pt->y = y->s.median * mul;
	pt->ylo = isnan(y->s.ci_lo) ? pt->y : y->s.ci_lo * mul;
	pt->yhi = isnan(y->s.ci_hi) ? pt->y : y->s.ci_hi * mul;
	pt->unprotected = unprotected(c, trow, col);
	if (pt->unprotected)
		return true;
	if (!x || !x->present || !(x->s.median > 0))
		return false;
	pt->x = x->s.median;
	pt->xlo = isnan(x->s.ci_lo) || x->s.ci_lo <= 0 ? pt->x : x->s.ci_lo;
	pt->xhi = isnan(x->s.ci_hi) ? pt->x : x->s.ci_hi;
	return true;
}

/* What the trade-off plot's steps share: its rows, scale and x range. */
struct tradeoff {
	int tput, p99;
	size_t rows; /* the throughput rows: a label each when several */
	struct fmt_scale sc;
	double xmin, xmax, unprot_x;
	bool any_unprot;
	bool *any; /* per column: a point to draw */
};

static bool tradeoff_point(const struct report_ctx *c,
			   const struct tradeoff *to, size_t i, size_t col,
			   struct tradeoff_point *pt)
{
	const struct cmp_table *t = c->t;

	return (int)t->rows[i].metric == to->tput &&
	       point_of(c, &t->rows[i],
			report__row_like(t, to->p99, &t->rows[i]), col,
			to->sc.mul, pt);
}

/* The scale of the first column's throughput, and the windows' range. */
static void tradeoff_range(const struct report_ctx *c, struct tradeoff *to)
{
	const struct cmp_table *t = c->t;
	struct tradeoff_point pt;
	double ref = NAN;
	size_t i, col;

	for (i = 0; i < t->nr_rows; i++) {
		if ((int)t->rows[i].metric != to->tput)
			continue;
		to->rows++;
		if (isnan(ref))
			ref = t->rows[i].cells[0].s.median;
	}
	fmt__scale(ds__str(c->ds, c->ds->metrics[to->tput].unit), ref, &to->sc);
	to->xmin = INFINITY;
	to->any = xcalloc(t->nr_cols + 1, sizeof(*to->any));
	for (i = 0; i < t->nr_rows; i++) {
		for (col = 0; col < t->nr_cols; col++) {
			if (!tradeoff_point(c, to, i, col, &pt))
				continue;
			to->any[col] = true;
			if (pt.unprotected)
				to->any_unprot = true;
			else {
				to->xmin = fmin(to->xmin, pt.xlo);
				to->xmax = fmax(to->xmax, pt.xhi);
			}
		}
	}
	if (!isfinite(to->xmin))
		to->xmin = to->xmax = 10;
	/*
	 * Two decades left of every window, on a decade of its own: no
	 * window, not a short one.
	 */
	to->unprot_x = pow(10, floor(log10(to->xmin)) - 2);
}

static void tradeoff_axes(struct plot *p, const struct tradeoff *to)
{
	double tic;

	plot__printf(p, "set logscale x 10\nset grid\nset key outside top "
			"center horizontal\nset xlabel 'exposure window, p99 "
			"(µs, log scale)'\nset ylabel ");
	plot__quote(p, to->sc.unit);
	plot__printf(p, "\nset yrange [0:*]\nset xrange [%g:%g]\n",
		     to->unprot_x / 3, pow(10, ceil(log10(to->xmax)) + 0.3));
	plot__printf(p, "set xtics (");
	if (to->any_unprot)
		plot__printf(p, "'unprotected' %g, ", to->unprot_x);
	for (tic = to->unprot_x * 10; tic < to->xmax * 20; tic *= 10)
		plot__printf(p, "'%g' %g%s", tic, tic,
			     tic * 10 < to->xmax * 20 ? ", " : "");
	plot__printf(p, ")\n");
}

/* A data block per column: x, y, their intervals and the row's label. */
static void tradeoff_data(const struct report_ctx *c, struct plot *p,
			  const struct tradeoff *to)
{
	const struct cmp_table *t = c->t;
	struct tradeoff_point pt;
	size_t i, col;
	char *label;

	for (col = 0; col < t->nr_cols; col++) {
		if (!to->any[col])
			continue;
		plot__printf(p, "$p%zu << EOD\n", col);
		for (i = 0; i < t->nr_rows; i++) {
			if (!tradeoff_point(c, to, i, col, &pt))
				continue;
			if (pt.unprotected)
				pt.x = pt.xlo = pt.xhi = to->unprot_x;
			label = to->rows > 1 ? cmp__row_label(t, &t->rows[i]) :
					       xstrdup("");
			plot__printf(p, "%g %g %g %g %g %g ", pt.x, pt.y,
				     pt.xlo, pt.xhi, pt.ylo, pt.yhi);
			data_label(p, label);
			plot__printf(p, "\n");
			free(label);
		}
		plot__printf(p, "EOD\n");
	}
}

static void tradeoff_series(const struct report_ctx *c, struct plot *p,
			    const struct tradeoff *to)
{
	size_t col, drawn = 0;

	plot__printf(p, "plot ");
	for (col = 0; col < c->t->nr_cols; col++) {
		if (!to->any[col])
			continue;
		plot__printf(p,
			     "%s$p%zu using 1:2:3:4:5:6 with xyerrorbars pt 7 "
			     "ps 1.5 lw 1.5 lc rgb '%s' title ",
			     drawn++ ? ", " : "", col, report__colour(col));
		plot__quote(p, c->cols[col]);
		if (to->rows > 1)
			plot__printf(p,
				     ", $p%zu using 1:2:7 with labels offset "
				     "1,1 left font ',9' notitle",
				     col);
	}
	plot__printf(p, "%s\n", drawn ? "" : "NaN notitle");
}

static void plot_tradeoff(struct report_ctx *c, int tput, int p99)
{
	struct tradeoff to = { .tput = tput, .p99 = p99 };
	struct plot p;

	tradeoff_range(c, &to);
	plot__begin(&p, 800, 440);
	tradeoff_axes(&p, &to);
	tradeoff_data(c, &p, &to);
	tradeoff_series(c, &p, &to);
	free(to.any);
	report__figure(
		c, &p, "tradeoff",
		"The trade-off: median throughput against the p99 exposure "
		"window, a point per column and workload, whiskers the "
		"confidence intervals of both medians. Up is faster, left is "
		"safer; 'unprotected' has no translation at all.");
}

void report__exposure(struct report_ctx *c)
{
	int64_t name = intern__find(&c->d->str, EXPOSURE_PROBE);
	int tput = report__metric(c, "throughput");
	int p99 = report__metric(c, "exposure_p99_us");
	char *caption;

	if (name < 0)
		return;
	html__h2(c->fp, "exposure", "Exposure window");
	fputs("<p>How long the device could still reach a page after its "
	      "driver unmapped it: from the moment iommu-dma took the IOVA "
	      "out of the page table until the IOTLB invalidation covering "
	      "it completed. Strict mode waits for that invalidation in "
	      "the unmap itself; lazy mode queues the IOVA and flushes "
	      "the whole domain later (when a per-CPU queue fills, or at "
	      "its timer), while the page may already be reused. "
	      "Passthrough translates nothing: <em>unprotected</em>, not a "
	      "window of zero. docs/exposure.md says how it is measured "
	      "and what it does not see.</p>\n",
	      c->fp);
	if (tput >= 0)
		exposure_table(c, tput);
	if (tput >= 0 && (p99 >= 0 || c->ds->nr_unprotected))
		plot_tradeoff(c, tput, p99);
	caption = xstrdup("Exposure windows per column (log2 buckets), "
			  "every workload's trials together.");
	report__plot_hist(c, (uint32_t)name, "exposure-hist", "window",
			  caption);
	free(caption);
}
