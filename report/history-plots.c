// SPDX-License-Identifier: GPL-2.0-only
/*
 * The history's small multiples: one small plot per series, all of them
 * drawn by one gnuplot (a plot per document, split afterwards), so that
 * fifty series cost one process, not fifty. Each is a figure whose
 * caption names the series and says each change point in words, and
 * whose data-change attribute says it for a machine.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "history-priv.h"
#include "log.h"
#include "markup.h"
#include "plot.h"
#include "util.h"

#define SM_WIDTH 210
#define SM_HEIGHT 115
/* At most this many labels along the x axis: the rest are thinned. */
#define SM_XLABELS 7

size_t history__first_night(const struct history *h, const char *robot)
{
	size_t i;

	for (i = 0; i < h->nr_nights; i++)
		if (!strcmp(h->nights[i].robot, robot))
			return i;
	return 0;
}

/* A unit's SI prefix for values up to @max: the divisor, the prefix. */
static double unit_scale(const struct history_series *s, const char **prefix)
{
	static const char *const p[] = { "", "k", "M", "G", "T" };
	double max = 0;
	size_t i;
	int k;

	for (i = 0; i < s->n; i++)
		max = fmax(max, fabs(s->pts[i].median));
	k = max >= 1000 ? (int)floor(log10(max) / 3) : 0;
	k = k > 4 ? 4 : k;
	*prefix = p[k];
	return pow(1000, k);
}

/* A step of 1, 2 or 5 times a power of ten, about a third of the range. */
static double nice_step(const struct history_series *s, double div)
{
	double lo = INFINITY, hi = -INFINITY, r, e, f;
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct history_point *pt = &s->pts[i];

		lo = fmin(lo, isnan(pt->lo) ? pt->median : pt->lo);
		hi = fmax(hi, isnan(pt->hi) ? pt->median : pt->hi);
	}
	r = (hi - lo) / div / 3;
	if (!(r > 0) || !isfinite(r))
		return 0;
	e = pow(10, floor(log10(r)));
	f = r / e;
	return e * (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10);
}

static void plot_axes(struct plot *p, const struct history *h, size_t first)
{
	size_t n = h->last, step = (n + SM_XLABELS - 1) / SM_XLABELS, i;

	plot__printf(
		p,
		"reset\nset terminal svg size %d,%d dynamic noenhanced "
		"font 'sans,8' background '#ffffff'\n"
		"set encoding utf8\nunset key\n"
		"set border 3 lc rgb '#888888'\nset tics nomirror\n"
		"set grid ytics lc rgb '#e6e6e6'\n"
		"set lmargin 6\nset rmargin 1\nset tmargin 0.6\n"
		"set bmargin 4.5\nset ytics font ',7'\nset offsets 0, 0, graph 0.12, 0\n"
		"set format y '%%g'\nset xrange [-0.5:%zu.5]\n"
		"set xtics rotate by 40 right font ',6' (",
		SM_WIDTH, SM_HEIGHT, n - 1);
	/* The newest night always labelled, the others thinned back from it. */
	for (i = (n - 1) % step; i < n; i += step) {
		plot__quote(p, h->nights[first + i].label);
		plot__printf(p, " %zu%s", i, i + step < n ? ", " : "");
	}
	plot__printf(p, ")\n");
}

static void plot_marks(struct plot *p, const struct history *h,
		       const struct history_series *s, size_t first)
{
	size_t i;

	for (i = 0; i < s->nr_marks; i++) {
		const struct history_mark *m = &s->marks[i];
		double x = (double)s->pts[m->at].night - first - 0.5;
		const char *color = m->status == REG_IMPROVEMENT ? "#0a7a2f" :
								   "#b3261e";
		char *text = xasprintf("%s %+.1f%%", history__verdict(m),
				       m->change_pct);

		plot__printf(p,
			     "set arrow %zu from %g, graph 0 to %g, graph 1 "
			     "nohead lc rgb '%s' lw 1.5 dt 2\n"
			     "set label %zu ",
			     i + 1, x, x, color, i + 1);
		plot__quote(p, text);
		plot__printf(p,
			     " at %g, graph %g %s offset %s tc rgb '%s' "
			     "font ',7'\n",
			     x, 0.93 - 0.1 * (i % 3),
			     x > h->last / 2.0 ? "right" : "left",
			     x > h->last / 2.0 ? "-0.3,0" : "0.3,0", color);
		free(text);
	}
}

static void plot_one(struct plot *p, const struct history *h,
		     const struct history_series *s, size_t idx)
{
	size_t first = history__first_night(h, s->robot), i;
	const char *prefix;
	double div = unit_scale(s, &prefix), lo, hi;

	plot_axes(p, h, first);
	if (nice_step(s, div) > 0)
		plot__printf(p, "set ytics %g\n", nice_step(s, div));
	plot_marks(p, h, s, first);
	plot__printf(p, "$d%zu << EOD\n", idx);
	for (i = 0; i < s->n; i++) {
		const struct history_point *pt = &s->pts[i];

		lo = isnan(pt->lo) ? pt->median : pt->lo;
		hi = isnan(pt->hi) ? pt->median : pt->hi;
		plot__printf(p, "%zu %.9g %.9g %.9g\n", pt->night - first,
			     pt->median / div, lo / div, hi / div);
	}
	plot__printf(p,
		     "EOD\nplot $d%zu using 1:2:3:4 with yerrorbars pt 7 "
		     "ps 0.3 lc rgb '#0b5cad', '' using 1:2 with lines "
		     "lw 1 lc rgb '#0b5cad'\n",
		     idx);
}

void history_plots__draw(struct history_page *pg)
{
	const struct history *h = pg->h;
	struct plot p;
	size_t i;

	pg->svgs = xcalloc(h->nr_series + 1, sizeof(*pg->svgs));
	if (!pg->o->plots || !h->nr_series)
		return;
	plot__begin(&p, SM_WIDTH, SM_HEIGHT);
	for (i = 0; i < h->nr_series; i++)
		plot_one(&p, h, &h->series[i], i);
	plot__render_each(&p, "h", pg->svgs, h->nr_series);
	for (i = 0; i < h->nr_series; i++)
		pg->plot_failures += !pg->svgs[i];
	plot__release(&p);
}

/* "regression night 21; improvement night 25": for a machine to read. */
static void data_change(FILE *fp, const struct history *h,
			const struct history_series *s)
{
	size_t i;

	if (!s->nr_marks)
		return;
	fputs(" data-change=\"", fp);
	for (i = 0; i < s->nr_marks; i++)
		fprintf(fp, "%s%s night %lld", i ? "; " : "",
			history__verdict(&s->marks[i]),
			(long long)h->nights[s->pts[s->marks[i].at].night].id);
	fputs("\"", fp);
}

/* The change point in words: a line to read, a title for the rest. */
static void mark_words(FILE *fp, const struct history *h,
		       const struct history_series *s,
		       const struct history_mark *m)
{
	const struct history_night *n = &h->nights[s->pts[m->at].night];
	const char *state = m->reg ? m->reg->state : "";

	fprintf(fp, "<span class=\"cp %s\" title=\"", history__verdict(m));
	markup__escapef(fp, "%s at %s (night %lld): %+.1f%%%s%s%s",
			history__verdict(m), n->label, (long long)n->id,
			m->change_pct, m->recovered ? ", recovered" : "",
			*state ? ", " : "", state);
	fputs("\">", fp);
	markup__escapef(fp, "%s %+.1f%% at %s%s%s", history__verdict(m),
			m->change_pct, n->label, *state ? " · " : "", state);
	fputs("</span>", fp);
}

static void caption(FILE *fp, const struct history *h,
		    const struct history_series *s)
{
	const char *prefix;
	size_t i;

	unit_scale(s, &prefix);
	fputs("<figcaption><b>", fp);
	markup__escape(fp, s->metric);
	fputs("</b> ", fp);
	markup__escapef(fp, "%s%s", prefix, s->unit);
	fputs("<br>", fp);
	markup__escapef(fp, "%s · %s · %s · %s%s", s->workload, s->mode,
			s->host, s->kernel, h->nr_rh > 1 ? " · " : "");
	if (h->nr_rh > 1)
		markup__escape(fp, s->robot);
	for (i = 0; i < s->nr_marks; i++)
		mark_words(fp, h, s, &s->marks[i]);
	fputs("</figcaption>\n", fp);
}

void history_plots__grid(struct history_page *pg)
{
	const struct history *h = pg->h;
	FILE *fp = pg->fp;
	size_t i;

	fputs("<div class=\"sm-grid\">\n", fp);
	for (i = 0; i < h->nr_series; i++) {
		const struct history_series *s = &h->series[i];

		fprintf(fp, "<figure class=\"sm%s\" id=\"series-%zu\"",
			s->rank == 0 ? " regressed" : "", i);
		fputs(" data-series=\"", fp);
		markup__escapef(fp, "%s/%s/%s/%s/%s", s->host, s->kernel,
				s->mode, s->workload, s->metric);
		fputs("\"", fp);
		data_change(fp, h, s);
		fputs(">\n", fp);
		caption(fp, h, s);
		if (pg->svgs[i])
			fputs(pg->svgs[i], fp);
		else
			fputs("<p class=\"small\">(not drawn)</p>", fp);
		fputs("</figure>\n", fp);
	}
	fputs("</div>\n", fp);
}
