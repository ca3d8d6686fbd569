// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report's plots: throughput bars with confidence whiskers, the
 * per-second throughput of a few trials, the CPU breakdown, probe calls
 * per GB moved, and latency histograms of the unmap and flush paths,
 * columns overlaid. Each is a gnuplot script with its data inline; a
 * failed plot becomes a note on the page, never a failed report.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "markup.h"
#include "report-priv.h"
#include "store/store.h"
#include "util.h"

static const char *const colours[] = {
	"#3060b0", "#e07020", "#2a9d4a", "#c0392b",
	"#8e5cb5", "#7f6a50", "#d15fa8", "#7f7f7f",
};

const char *report__colour(size_t col)
{
	return colours[col % ARRAY_SIZE(colours)];
}

/* The probes by place, shown in this order; others follow by name. */
const char *const report_probe_names[PROBE__NR] = { PROBE_LIST(PROBE_NAME) };

/* Latency histograms drawn: the unmap and flush paths. */
static const enum probe_id latency_probes[] = {
	PROBE_unmap,	PROBE_unmap_sg, PROBE_unmap_core, PROBE_iotlb_sync,
	PROBE_fq_flush, PROBE_hw_flush, PROBE_flush_all,
};

#define MAX_SERIES_PLOTS 4
#define MAX_LATENCY_PLOTS 4

void report__figure(struct report_ctx *c, struct plot *p, const char *id,
		    const char *caption)
{
	char *svg = NULL;
	int err = c->o->plots ? plot__render(p, id, &svg) : -1;

	fputs("<figure>\n", c->fp);
	if (!err) {
		fputs(svg, c->fp);
		c->plots++;
	} else {
		c->plot_failures += c->o->plots;
		fputs("<p class=\"warn\">(plot not drawn: ", c->fp);
		fputs(c->o->plots ? "gnuplot failed, see the command's "
				    "messages" :
				    "plots were turned off",
		      c->fp);
		fputs(")</p>", c->fp);
	}
	fputs("\n<figcaption>", c->fp);
	markup__escape(c->fp, caption);
	fputs("</figcaption>\n</figure>\n", c->fp);
	free(svg);
	plot__release(p);
}

/* set xtics ('a' 0, 'b' 1, ...) from the row labels of @metric. */
static size_t xtics_rows(struct report_ctx *c, struct plot *p, int metric)
{
	const struct cmp_table *t = c->t;
	size_t i, n = 0;
	char *label;

	plot__printf(p, "set xtics (");
	for (i = 0; i < t->nr_rows; i++) {
		if ((int)t->rows[i].metric != metric)
			continue;
		label = cmp__row_label(t, &t->rows[i]);
		plot__printf(p, "%s", n ? ", " : "");
		plot__quote(p, label);
		plot__printf(p, " %zu", n++);
		free(label);
	}
	plot__printf(p, ") nomirror\n");
	return n;
}

/*
 * The end of the inline data and a "plot" of one series per column of
 * $@data that has a point (gnuplot refuses a column without one), each
 * @width data columns wide (a value, or a value and its interval),
 * titled by the column's name. How many series it drew.
 */
static size_t plot_columns(struct report_ctx *c, struct plot *p,
			   const char *data, size_t width, const bool *any,
			   size_t nr_cols)
{
	size_t col, k, drawn = 0;

	plot__printf(p, "EOD\nplot ");
	for (col = 0; col < nr_cols; col++) {
		if (!any[col])
			continue;
		plot__printf(p, "%s$%s using ", drawn++ ? ", " : "", data);
		for (k = 0; k < width; k++)
			plot__printf(p, "%s%zu", k ? ":" : "",
				     width * col + k + 1);
		plot__printf(p, " title ");
		plot__quote(p, c->cols[col]);
		plot__printf(p, " lc rgb '%s'", report__colour(col));
	}
	return drawn;
}

static void plot_bars(struct report_ctx *c, int tput)
{
	const struct cmp_table *t = c->t;
	const struct ds_metric *m = &c->ds->metrics[tput];
	bool *any = xcalloc(t->nr_cols + 1, sizeof(*any));
	size_t i, col;
	struct fmt_scale sc;
	struct plot p;
	double ref = NAN;

	for (i = 0; i < t->nr_rows && isnan(ref); i++)
		if ((int)t->rows[i].metric == tput)
			ref = t->rows[i].cells[0].s.median;
	fmt__scale(ds__str(c->ds, m->unit), ref, &sc);
	plot__begin(&p, 960, 420);
	plot__printf(&p, "set style data histogram\n"
			 "set style histogram errorbars gap 1 lw 1.5\n"
			 "set style fill solid 0.85 border -1\n"
			 "set boxwidth 0.9 relative\nset yrange [0:*]\n"
			 "set key outside top center horizontal\nset ylabel ");
	plot__quote(&p, sc.unit);
	plot__printf(&p, "\n");
	/* Histograms leave a wide margin each side unless told. */
	plot__printf(&p, "set xrange [-0.6:%g]\n",
		     xtics_rows(c, &p, tput) - 0.4);
	plot__printf(&p, "$bars << EOD\n");
	for (i = 0; i < t->nr_rows; i++) {
		if ((int)t->rows[i].metric != tput)
			continue;
		for (col = 0; col < t->nr_cols; col++) {
			const struct cmp_cell *x = &t->rows[i].cells[col];
			double med = x->present ? x->s.median * sc.mul : NAN;
			double lo = isnan(x->s.ci_lo) ? med :
							x->s.ci_lo * sc.mul;
			double hi = isnan(x->s.ci_hi) ? med :
							x->s.ci_hi * sc.mul;

			plot__printf(&p, "%s%g %g %g", col ? " " : "", med, lo,
				     hi);
			any[col] = any[col] || x->present;
		}
		plot__printf(&p, "\n");
	}
	plot_columns(c, &p, "bars", 3, any, t->nr_cols);
	plot__printf(&p, "\n");
	free(any);
	report__figure(c, &p, "bars",
		       "Median throughput per workload, whiskers the "
		       "confidence interval of the median.");
}

static void plot_series(struct report_ctx *c)
{
	const struct report_data *d = c->d;
	bool *titled = xcalloc(c->nr_cols + 1, sizeof(*titled));
	uint32_t *workloads = xcalloc(d->nr_series + 1, sizeof(*workloads));
	size_t i, j, k, nw = 0, n;
	struct plot p;
	char id[32];
	char *caption;
	int col;

	for (i = 0; i < d->nr_series; i++) {
		for (j = 0; j < nw && workloads[j] != d->series[i].workload;
		     j++)
			;
		if (j == nw)
			workloads[nw++] = d->series[i].workload;
	}
	if (nw)
		fputs("<div class=\"grid\">\n", c->fp);
	for (j = 0; j < nw && j < MAX_SERIES_PLOTS; j++) {
		memset(titled, 0, (c->nr_cols + 1) * sizeof(*titled));
		plot__begin(&p, 640, 340);
		plot__printf(&p, "set xlabel 's'\nset ylabel 'Gbit/s'\n"
				 "set yrange [0:*]\nset key bottom right\n");
		for (i = n = 0; i < d->nr_series; i++) {
			const struct rd_series *se = &d->series[i];

			if (se->workload != workloads[j])
				continue;
			plot__printf(&p, "$s%zu << EOD\n", i);
			for (k = 0; k < se->n; k++)
				plot__printf(&p, "%g %g\n", se->t[k],
					     se->v[k] / 1e9);
			plot__printf(&p, "EOD\n");
			n++;
		}
		plot__printf(&p, "plot ");
		for (i = n = 0; i < d->nr_series; i++) {
			const struct rd_series *se = &d->series[i];

			if (se->workload != workloads[j])
				continue;
			col = report__col(c, rd__str(d, se->axis));
			if (col < 0)
				col = c->nr_cols;
			plot__printf(&p,
				     "%s$s%zu using 1:2 with lines lw 1.5 "
				     "lc rgb '%s' ",
				     n++ ? ", " : "", i, report__colour(col));
			if (titled[col]) {
				plot__printf(&p, "notitle");
				continue;
			}
			titled[col] = true;
			plot__printf(&p, "title ");
			plot__quote(&p, rd__str(d, se->axis));
		}
		plot__printf(&p, "\n");
		snprintf(id, sizeof(id), "series%zu", j);
		caption = xasprintf("Throughput second by second, %s: a few "
				    "trials of the newest run per column.",
				    rd__str(d, workloads[j]));
		report__figure(c, &p, id, caption);
		free(caption);
	}
	if (nw)
		fputs("</div>\n", c->fp);
	free(titled);
	free(workloads);
}

static void plot_cpu(struct report_ctx *c)
{
	static const char *const parts[] = { "cpu_user_pct", "cpu_sys_pct",
					     "cpu_softirq_pct", "cpu_irq_pct" };
	static const char *const names[] = { "user", "sys", "softirq", "irq" };
	const struct cmp_table *t = c->t;
	int m[4], base = -1;
	size_t i, col, n = 0, k;
	struct plot p;
	char *label;

	for (k = 0; k < 4; k++) {
		m[k] = report__metric(c, parts[k]);
		if (m[k] >= 0 && base < 0)
			base = m[k];
	}
	if (base < 0)
		return;
	plot__begin(&p, 960, 400);
	plot__printf(&p, "set style data histogram\n"
			 "set style histogram rowstacked\n"
			 "set style fill solid 0.85 border -1\n"
			 "set boxwidth 0.7 relative\nset yrange [0:*]\n"
			 "set ylabel '%% of all CPUs'\nset key outside right\n"
			 "set bmargin 7\n"
			 "set xtics rotate by -30 nomirror\nset xtics (");
	for (i = 0; i < t->nr_rows; i++) {
		if ((int)t->rows[i].metric != base)
			continue;
		label = cmp__row_label(t, &t->rows[i]);
		for (col = 0; col < t->nr_cols; col++) {
			char *both = xasprintf("%s %s", label, c->cols[col]);

			plot__printf(&p, "%s", n ? ", " : "");
			plot__quote(&p, both);
			plot__printf(&p, " %zu", n++);
			free(both);
		}
		free(label);
	}
	plot__printf(&p, ")\n$cpu << EOD\n");
	for (i = 0; i < t->nr_rows; i++) {
		if ((int)t->rows[i].metric != base)
			continue;
		for (col = 0; col < t->nr_cols; col++) {
			for (k = 0; k < 4; k++) {
				const struct cmp_row *r =
					report__row_like(t, m[k], &t->rows[i]);
				double v = r && r->cells[col].present ?
						   r->cells[col].s.median :
						   NAN;

				plot__printf(&p, "%s%g", k ? " " : "", v);
			}
			plot__printf(&p, "\n");
		}
	}
	plot__printf(&p, "EOD\nplot ");
	for (k = 0, n = 0; k < 4; k++)
		if (m[k] >= 0)
			plot__printf(&p,
				     "%s$cpu using %zu title '%s' lc rgb '%s'",
				     n++ ? ", " : "", k + 1, names[k],
				     report__colour(k + 4));
	plot__printf(&p, "\n");
	report__figure(c, &p, "cpu",
		       "Where the CPU time went: median user, system, "
		       "softirq and hard-irq shares per workload and column.");
}

/* Probes in path order, each once, as indices into probe names. */
static size_t probe_names(const struct report_data *d, uint32_t *out)
{
	size_t i, j, n = 0;

	for (j = 0; j < PROBE__NR; j++) {
		/* Windows, not calls: the Exposure section has them. */
		if (j == PROBE_exposure)
			continue;
		for (i = 0; i < d->nr_probes; i++)
			if (!strcmp(rd__str(d, d->probes[i].name),
				    report_probe_names[j])) {
				out[n++] = d->probes[i].name;
				break;
			}
	}
	for (i = 0; i < d->nr_probes; i++) {
		if (!strcmp(rd__str(d, d->probes[i].name), EXPOSURE_PROBE))
			continue;
		for (j = 0; j < n && out[j] != d->probes[i].name; j++)
			;
		if (j == n)
			out[n++] = d->probes[i].name;
	}
	return n;
}

const struct rd_probe *report__probe_w(const struct report_ctx *c,
				       uint32_t name, size_t col,
				       const uint32_t *workload)
{
	const struct report_data *d = c->d;
	size_t i;

	for (i = 0; i < d->nr_probes; i++) {
		const struct rd_probe *p = &d->probes[i];

		if (p->name != name || p->per_workload != !!workload ||
		    (workload && p->workload != *workload))
			continue;
		if (report__col(c, rd__str(d, p->axis)) == (int)col)
			return p;
	}
	return NULL;
}

const struct rd_probe *report__probe(const struct report_ctx *c, uint32_t name,
				     size_t col)
{
	return report__probe_w(c, name, col, NULL);
}

double report__per_gb(const struct rd_probe *p)
{
	if (!p || !p->trials)
		return NAN;
	if (p->trials_bytes == p->trials)
		return store__per_gb(p->calls, p->bytes);
	return NAN;
}

static void plot_probes(struct report_ctx *c, const uint32_t *names, size_t n)
{
	const struct report_data *d = c->d;
	bool *any = xcalloc(c->nr_cols + 1, sizeof(*any));
	size_t i, col, drawn;
	struct plot p;
	double v;

	/* No bytes moved (a dma_map run): no calls per GB to draw. */
	for (i = 0; i < n; i++)
		for (col = 0; col < c->nr_cols; col++)
			if (report__per_gb(report__probe(c, names[i], col)) > 0)
				any[c->nr_cols] = true;
	if (!any[c->nr_cols]) {
		free(any);
		return;
	}
	plot__begin(&p, 960, 400);
	plot__printf(&p, "set style data histogram\n"
			 "set style histogram clustered gap 1\n"
			 "set style fill solid 0.85 border -1\n"
			 "set logscale y\nset ylabel 'calls per GB'\n"
			 "set key outside top center horizontal\n"
			 "set bmargin 6\n"
			 "set xtics rotate by -30 nomirror\nset xtics (");
	for (i = 0; i < n; i++) {
		plot__printf(&p, "%s", i ? ", " : "");
		plot__quote(&p, rd__str(d, names[i]));
		plot__printf(&p, " %zu", i);
	}
	plot__printf(&p, ")\n$probes << EOD\n");
	for (i = 0; i < n; i++) {
		for (col = 0; col < c->nr_cols; col++) {
			v = report__per_gb(report__probe(c, names[i], col));
			/* A log scale has no 0: left out, the table has it. */
			plot__printf(&p, "%s%g", col ? " " : "",
				     v > 0 ? v : NAN);
			if (v > 0)
				any[col] = true;
		}
		plot__printf(&p, "\n");
	}
	drawn = plot_columns(c, &p, "probes", 1, any, c->nr_cols);
	plot__printf(&p, "%s\n", drawn ? "" : "NaN notitle");
	free(any);
	report__figure(c, &p, "probes",
		       "Calls per GB transferred, per probe and column (log "
		       "scale; a probe that was never called has no bar).");
}

/* Calls (or windows) in @pr's histogram; 0 for a column without it. */
static uint64_t hist_total(const struct rd_probe *pr)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; pr && i < RD_HIST_MAX; i++)
		total += pr->hist[i];
	return total;
}

void report__plot_hist(struct report_ctx *c, uint32_t name, const char *id,
		       const char *what, const char *caption)
{
	const struct rd_probe *pr;
	struct plot p;
	uint64_t total;
	size_t col, i, drawn = 0;
	int lo = RD_HIST_MAX, hi = 0;

	/* Only the buckets that hold calls, and one either side. */
	for (col = 0; col < c->nr_cols; col++) {
		pr = report__probe(c, name, col);
		for (i = 0; pr && i < RD_HIST_MAX; i++) {
			if (!pr->hist[i])
				continue;
			lo = (int)i < lo ? (int)i : lo;
			hi = (int)i > hi ? (int)i : hi;
		}
	}
	plot__begin(&p, 640, 340);
	plot__printf(&p, "set logscale x 2\nset xlabel ");
	plot__quote(&p, what);
	plot__printf(&p,
		     "\nset ylabel '%% of %s'\nset yrange [0:*]\n"
		     "set xrange [%.0f:%.0f]\n"
		     "set xtics ('1ns' 1, '4ns' 4, '16ns' 16, '64ns' 64, "
		     "'256ns' 256, '1µs' 1024, '4µs' 4096, '16µs' 16384, "
		     "'64µs' 65536, '256µs' 262144, '1ms' 1048576, "
		     "'4ms' 4194304, '16ms' 16777216, '64ms' 67108864, "
		     "'256ms' 268435456, '1s' 1073741824)\n"
		     "set key top right\n",
		     strcmp(what, "latency") ? "windows" : "calls",
		     pow(2, lo > 0 ? lo - 1 : 0), pow(2, hi + 2));
	for (col = 0; col < c->nr_cols; col++) {
		pr = report__probe(c, name, col);
		total = hist_total(pr);
		if (!total)
			continue;
		plot__printf(&p, "$h%zu << EOD\n", col);
		for (i = 0; i < RD_HIST_MAX; i++)
			plot__printf(&p, "%.0f %g\n", pow(2, i),
				     100.0 * pr->hist[i] / total);
		plot__printf(&p, "EOD\n");
	}
	plot__printf(&p, "plot ");
	for (col = 0; col < c->nr_cols; col++) {
		pr = report__probe(c, name, col);
		total = hist_total(pr);
		if (!total)
			continue;
		plot__printf(&p,
			     "%s$h%zu using 1:2 with steps lw 2 "
			     "lc rgb '%s' title ",
			     drawn++ ? ", " : "", col, report__colour(col));
		plot__quote(&p, c->cols[col]);
	}
	plot__printf(&p, "\n");
	report__figure(c, &p, id, caption);
}

static void plot_latency(struct report_ctx *c, uint32_t name, size_t idx)
{
	char id[32], *caption;

	snprintf(id, sizeof(id), "latency%zu", idx);
	caption = xasprintf("Latency of '%s' calls (log2 buckets), columns "
			    "overlaid.",
			    rd__str(c->d, name));
	report__plot_hist(c, name, id, "latency", caption);
	free(caption);
}

static void plot_latencies(struct report_ctx *c)
{
	const struct report_data *d = c->d;
	const struct rd_probe *pr;
	size_t i, col, drawn = 0, k;
	int64_t id;
	bool any;

	for (i = 0; i < ARRAY_SIZE(latency_probes) && drawn < MAX_LATENCY_PLOTS;
	     i++) {
		id = intern__find(&d->str,
				  report_probe_names[latency_probes[i]]);
		if (id < 0)
			continue;
		any = false;
		for (col = 0; col < c->nr_cols; col++) {
			pr = report__probe(c, id, col);
			for (k = 0; pr && k < RD_HIST_MAX && !any; k++)
				any = pr->hist[k] > 0;
		}
		if (!any)
			continue;
		if (!drawn)
			fputs("<h3>Latency of the unmap and flush paths</h3>\n"
			      "<div class=\"grid\">\n",
			      c->fp);
		plot_latency(c, id, drawn++);
	}
	if (drawn)
		fputs("</div>\n", c->fp);
}

void report__plots(struct report_ctx *c)
{
	int tput = report__metric(c, "throughput");
	uint32_t *names;
	size_t n;

	html__h2(c->fp, "plots", "Plots");
	if (tput >= 0)
		plot_bars(c, tput);
	if (c->d->nr_series) {
		fputs("<h3>Throughput over time</h3>\n", c->fp);
		plot_series(c);
	}
	plot_cpu(c);
	html__h2(c->fp, "probes", "Probes");
	if (!c->d->nr_probes) {
		fputs("<p>No probe counts were stored (the bpf collector was "
		      "off).</p>\n",
		      c->fp);
		return;
	}
	names = xcalloc(c->d->nr_probes + 1, sizeof(*names));
	n = probe_names(c->d, names);
	plot_probes(c, names, n);
	report__probe_table(c, names, n);
	plot_latencies(c);
	free(names);
}
