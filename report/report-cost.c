// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report's Cost section (docs/cost.md): per workload, each column's
 * busy CPU time per GB split by probed path, a stacked bar per column,
 * how each column differs from the baseline path by path, and the cores
 * a line rate needs, as lines per column against the rate; for a
 * dma_map workload, which moves no bytes, the time per call instead.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cost-print.h"
#include "format.h"
#include "markup.h"
#include "report-priv.h"
#include "util.h"

static const struct cmp_cell *cell(const struct cost_table *ct, int64_t row,
				   size_t col)
{
	return cost__cell(ct, NULL, row, col);
}

static const char *label(const struct cost_table *ct, const struct cost_path *p)
{
	return cost__path_label(ds__str(&ct->ds, p->name));
}

/* A row opened with @p's label, where @p has figure @which; else false. */
static bool path_row(struct report_ctx *c, const struct cost_table *ct,
		     const struct cost_path *p, enum cost_fig which)
{
	if (p->row[which] < 0)
		return false;
	fputs("<tr>", c->fp);
	html__td(c->fp, NULL, label(ct, p));
	return true;
}

/* "1.22 s [1.10, 1.31]" for a figure held in ms per GB (@mul 1e6: ns). */
static void fig(FILE *fp, const struct cmp_cell *x, const struct fmt_scale *sc,
		double mul, const struct cmp_cell *share)
{
	char v[FMT_MAX], lo[FMT_MAX], hi[FMT_MAX];

	if (!x) {
		html__td(fp, "num", "-");
		return;
	}
	fprintf(fp, "<td class=\"num\">%s %s",
		fmt__num(x->s.median * mul * sc->mul, v, sizeof(v)), sc->unit);
	if (!isnan(x->s.ci_lo))
		fprintf(fp, " <span class=\"small\">[%s, %s]</span>",
			fmt__num(x->s.ci_lo * mul * sc->mul, lo, sizeof(lo)),
			fmt__num(x->s.ci_hi * mul * sc->mul, hi, sizeof(hi)));
	if (share)
		fprintf(fp, " (%s%%)", fmt__num(share->s.median, v, sizeof(v)));
	fputs("</td>", fp);
}

static void table(struct report_ctx *c, const struct cost_table *ct,
		  const struct cost_group *g, const struct fmt_scale *sc)
{
	struct fmt_scale none = { .mul = 1, .unit = "Gbit/s" };
	size_t col, i;

	fputs("<table>\n<tr><th>per GB moved</th>", c->fp);
	for (col = 0; col < ct->t.nr_cols; col++) {
		const struct cmp_cell *x = cell(ct, g->cpu, col);
		char *h = xasprintf("%s (n=%zu)",
				    ds__str(&ct->ds, ct->t.cols[col]),
				    x ? x->s.n : (size_t)0);

		html__th(c->fp, h);
		free(h);
	}
	fputs("</tr>\n<tr>", c->fp);
	html__td(c->fp, NULL, "busy CPU");
	for (col = 0; col < ct->t.nr_cols; col++)
		fig(c->fp, cell(ct, g->cpu, col), sc, 1e6, NULL);
	fputs("</tr>\n", c->fp);
	for (i = 0; i < g->nr_paths; i++) {
		const struct cost_path *p = &g->paths[i];

		if (!path_row(c, ct, p, COST_MS_PER_GB))
			continue;
		for (col = 0; col < ct->t.nr_cols; col++)
			fig(c->fp, cell(ct, p->row[COST_MS_PER_GB], col), sc,
			    1e6, cell(ct, p->row[COST_SHARE_PCT], col));
		fputs("</tr>\n", c->fp);
	}
	fputs("<tr>", c->fp);
	html__td(c->fp, NULL, "Gbit/s per busy core");
	for (col = 0; col < ct->t.nr_cols; col++)
		fig(c->fp, cell(ct, g->gbit_per_core, col), &none, 1, NULL);
	fputs("</tr>\n</table>\n", c->fp);
}

/* @t (freed) as a paragraph of its own; nothing for NULL. */
static void sentence(FILE *fp, char *t)
{
	if (!t)
		return;
	fputs("<p>", fp);
	markup__escape(fp, t);
	fputs(".</p>\n", fp);
	free(t);
}

static void decomposition(struct report_ctx *c, const struct cost_table *ct,
			  const struct cost_group *g,
			  const struct fmt_scale *sc)
{
	size_t col;

	for (col = 1; col < ct->t.nr_cols; col++)
		sentence(c->fp, cost__diff_text(ct, g, col, sc));
}

static void plot_stack(struct report_ctx *c, const struct cost_table *ct,
		       const struct cost_group *g, size_t gi,
		       const struct fmt_scale *sc)
{
	struct plot p;
	size_t col, i, n = 0;
	char id[32];

	char *ylabel = xasprintf("CPU per GB moved (%s)", sc->unit);

	plot__begin(&p, 720, 360);
	plot__printf(&p, "set style data histogram\n"
			 "set style histogram rowstacked\n"
			 "set style fill solid 0.85 border -1\n"
			 "set boxwidth 0.6\nset key outside right\n"
			 "set yrange [0:*]\nset ylabel ");
	plot__quote(&p, ylabel);
	free(ylabel);
	plot__printf(&p, "\nset xtics (");
	for (col = 0; col < ct->t.nr_cols; col++) {
		plot__printf(&p, "%s", col ? ", " : "");
		plot__quote(&p, ds__str(&ct->ds, ct->t.cols[col]));
		plot__printf(&p, " %zu", col);
	}
	plot__printf(&p, ")\n$cost << EOD\n");
	for (col = 0; col < ct->t.nr_cols; col++) {
		for (i = 0; i < g->nr_paths; i++) {
			const struct cmp_cell *x =
				cell(ct, g->paths[i].row[COST_MS_PER_GB], col);

			/* The rest can dip below 0 by noise: none drawn. */
			plot__printf(&p, "%s%g", i ? " " : "",
				     x ? fmax(x->s.median, 0) * 1e6 * sc->mul :
					 0);
		}
		plot__printf(&p, "\n");
	}
	plot__printf(&p, "EOD\nplot ");
	for (i = 0; i < g->nr_paths; i++) {
		if (g->paths[i].row[COST_MS_PER_GB] < 0)
			continue;
		plot__printf(&p, "%s$cost using %zu title ", n++ ? ", " : "",
			     i + 1);
		plot__quote(&p, label(ct, &g->paths[i]));
	}
	plot__printf(&p, "%s\n", n ? "" : "NaN notitle");
	snprintf(id, sizeof(id), "cost-%zu", gi);
	report__figure(c, &p, id,
		       "Busy CPU time per GB moved, per column, split by "
		       "probed path: each path's own time (nested paths "
		       "taken out), then what no probe saw.");
}

static void plot_cores(struct report_ctx *c, const struct cost_table *ct,
		       const struct cost_group *g, size_t gi)
{
	double top = 0;
	struct plot p;
	size_t col, i;
	char id[32];

	for (i = 0; i < ct->nr_at; i++)
		top = fmax(top, ct->at_gbit[i]);
	plot__begin(&p, 720, 360);
	plot__printf(&p,
		     "set xlabel 'line rate (Gbit/s)'\nset ylabel 'cores'\n"
		     "set key top left\nset xrange [0:%g]\nset yrange [0:*]\n"
		     "$cores << EOD\n",
		     top);
	for (col = 0; col < ct->t.nr_cols; col++) {
		const struct cmp_cell *x = cell(ct, g->cpu, col);

		for (i = 0; x && i < ct->nr_at; i++)
			plot__printf(
				&p, "%g %g %g %g\n", ct->at_gbit[i],
				cost__cores(x->s.median, ct->at_gbit[i]),
				cost__cores(isnan(x->s.ci_lo) ? x->s.median :
								x->s.ci_lo,
					    ct->at_gbit[i]),
				cost__cores(isnan(x->s.ci_hi) ? x->s.median :
								x->s.ci_hi,
					    ct->at_gbit[i]));
		plot__printf(&p, "%s", x ? "\n\n" : "0 NaN NaN NaN\n\n\n");
	}
	plot__printf(&p, "EOD\nplot ");
	for (col = 0; col < ct->t.nr_cols; col++) {
		plot__printf(
			&p,
			"%s$cores index %zu using 1:2:3:4 with yerrorlines "
			"lc rgb '%s' title ",
			col ? ", " : "", col, report__colour(col));
		plot__quote(&p, ds__str(&ct->ds, ct->t.cols[col]));
	}
	plot__printf(&p, "\n");
	snprintf(id, sizeof(id), "cores-%zu", gi);
	report__figure(c, &p, id,
		       "Cores a line rate needs at each column's busy CPU "
		       "time per GB (its 95% interval as error bars): where a "
		       "line crosses the cores a machine has, that mode has "
		       "run out of headroom.");
}

static void cores_table(struct report_ctx *c, const struct cost_table *ct,
			const struct cost_group *g)
{
	char v[FMT_MAX], lo[FMT_MAX], hi[FMT_MAX];
	size_t col, i;

	fputs("<table>\n<tr><th>cores needed at</th>", c->fp);
	for (col = 0; col < ct->t.nr_cols; col++)
		html__th(c->fp, ds__str(&ct->ds, ct->t.cols[col]));
	fputs("</tr>\n", c->fp);
	for (i = 0; i < ct->nr_at; i++) {
		fprintf(c->fp, "<tr><td>%s Gbit/s</td>",
			fmt__num(ct->at_gbit[i], v, sizeof(v)));
		for (col = 0; col < ct->t.nr_cols; col++) {
			const struct cmp_cell *x = cell(ct, g->cpu, col);

			if (!x) {
				html__td(c->fp, "num", "-");
				continue;
			}
			fprintf(c->fp, "<td class=\"num\">%s",
				fmt__num(cost__cores(x->s.median,
						     ct->at_gbit[i]),
					 v, sizeof(v)));
			if (!isnan(x->s.ci_lo))
				fprintf(c->fp,
					" <span class=\"small\">[%s, %s]</span>",
					fmt__num(cost__cores(x->s.ci_lo,
							     ct->at_gbit[i]),
						 lo, sizeof(lo)),
					fmt__num(cost__cores(x->s.ci_hi,
							     ct->at_gbit[i]),
						 hi, sizeof(hi)));
			fputs("</td>", c->fp);
		}
		fputs("</tr>\n", c->fp);
	}
	fputs("</table>\n", c->fp);
}

/* The two methods side by side, where profile trials had probes too. */
static void profile_check(struct report_ctx *c, const struct cost_table *ct,
			  const struct cost_group *g)
{
	size_t i, col;

	if (!cost__profiled(g))
		return;
	fputs("<table>\n<tr><th>profile trials: % of all CPU time, probes / "
	      "perf</th>",
	      c->fp);
	for (col = 0; col < ct->t.nr_cols; col++)
		html__th(c->fp, ds__str(&ct->ds, ct->t.cols[col]));
	fputs("</tr>\n", c->fp);
	for (i = 0; i < g->nr_paths; i++) {
		const struct cost_path *p = &g->paths[i];

		if (!path_row(c, ct, p, COST_PROFILE_PCT))
			continue;
		for (col = 0; col < ct->t.nr_cols; col++) {
			char *t = cost__profile_text(ct, p, col);

			html__td(c->fp, "num", t);
			free(t);
		}
		fputs("</tr>\n", c->fp);
	}
	fputs("</table>\n<p class=\"small\">The same paths by two "
	      "methods on the profile trials: the probes' time and "
	      "perf's samples in the paths' own functions, each as a "
	      "share of all CPU time, less the probe's floor per call. "
	      "They agree when the probes' interval (the floor known "
	      "to its spread) meets the 95% interval of perf's sample "
	      "count (docs/cost.md).</p>\n",
	      c->fp);
}

/*
 * A dma_map group: no bytes, so no cost per GB; each path's time per
 * call by the probe and by the benchmark's own clock, and how the
 * columns differ call by call.
 */
static void per_call(struct report_ctx *c, const struct cost_table *ct,
		     const struct cost_group *g)
{
	static const char *const by[COST_NR_CALL_FIGS] = { "benchmark",
							   "probe" };
	struct fmt_scale ns = { .mul = 1, .unit = "ns" };
	size_t col, i, f;

	fputs("<table>\n<tr><th>per call</th>", c->fp);
	for (col = 0; col < ct->t.nr_cols; col++)
		html__th(c->fp, ds__str(&ct->ds, ct->t.cols[col]));
	fputs("</tr>\n", c->fp);
	for (i = 0; i < g->nr_paths; i++) {
		const struct cost_path *p = &g->paths[i];

		for (f = 0; f < COST_NR_CALL_FIGS; f++) {
			int64_t row = p->row[cost_call_figs[f]];
			char *h;

			if (row < 0)
				continue;
			fputs("<tr>", c->fp);
			h = xasprintf("%s (%s)", label(ct, p), by[f]);
			html__td(c->fp, NULL, h);
			free(h);
			for (col = 0; col < ct->t.nr_cols; col++)
				fig(c->fp, cell(ct, row, col), &ns, 1, NULL);
			fputs("</tr>\n", c->fp);
		}
	}
	fputs("</table>\n", c->fp);
	for (col = 1; col < ct->t.nr_cols; col++)
		for (i = 0; i < g->nr_paths; i++)
			for (f = 0; f < COST_NR_CALL_FIGS; f++)
				sentence(c->fp,
					 cost__call_diff_text(ct, &g->paths[i],
							      f, col));
}

void report__cost(struct report_ctx *c)
{
	const struct cost_table *ct = c->cost;
	struct fmt_scale sc;
	size_t gi;

	html__h2(c->fp, "cost", "Cost");
	if (!ct || !ct->nr_groups) {
		fputs("<p>No trial has both busy CPU (procstat) and a "
		      "throughput, or a dma_map benchmark's times: no cost "
		      "to show.</p>\n",
		      c->fp);
		return;
	}
	fputs("<p class=\"small\">Busy CPU time per GB moved (procstat's busy "
	      "cores over the workload's rate) and each probed path's own "
	      "share of it: calls per GB times the mean time per call, less "
	      "the time inside probed paths nested in it, so that nothing "
	      "counts twice. Medians with their intervals; the differences "
	      "are Hodges-Lehmann shifts against the baseline. "
	      "docs/cost.md has the method and what it cannot see.</p>\n",
	      c->fp);
	for (gi = 0; gi < ct->nr_groups; gi++) {
		const struct cost_group *g = &ct->groups[gi];
		const struct cmp_cell *x = NULL;
		char *name = cmp__row_label(&ct->t, g->key);
		size_t col;

		for (col = 0; !x && col < ct->t.nr_cols; col++)
			x = cell(ct, g->cpu, col);
		fmt__scale("ns", x ? x->s.median * 1e6 : 1e6, &sc);
		fputs("<h3>", c->fp);
		markup__escape(c->fp, name);
		fputs("</h3>\n", c->fp);
		free(name);
		if (g->cpu < 0) {
			per_call(c, ct, g);
			continue;
		}
		table(c, ct, g, &sc);
		decomposition(c, ct, g, &sc);
		plot_stack(c, ct, g, gi, &sc);
		profile_check(c, ct, g);
		cores_table(c, ct, g);
		plot_cores(c, ct, g, gi);
	}
	if (ct->load.no_self) {
		fputs("<p class=\"warn\">", c->fp);
		markup__escapef(c->fp,
				"%zu trial%s stored no own time per probe: "
				"there, nested paths count in each path that "
				"holds them.",
				ct->load.no_self,
				ct->load.no_self == 1 ? "" : "s");
		fputs("</p>\n", c->fp);
	}
}
