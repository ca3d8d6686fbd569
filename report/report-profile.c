// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the kernel did: probe counts with their attach rungs, and the
 * profile diff in the manner of the DMA_F_CAN_SKIP_SYNC patch's
 * argument: the top symbols before and after, the ones that vanished or
 * appeared marked, and the change in their share of the samples.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "markup.h"
#include "report-priv.h"
#include "util.h"

/* How each column's probe attached; one text when they all agree. */
static void td_attach(struct report_ctx *c, uint32_t name, const uint32_t *wl)
{
	const struct report_data *d = c->d;
	const struct rd_probe *p, *first = NULL;
	bool same = true;
	size_t col;

	for (col = 0; col < c->nr_cols; col++) {
		p = report__probe_w(c, name, col, wl);
		if (!p)
			continue;
		if (!first)
			first = p;
		else if (p->attach != first->attach)
			same = false;
	}
	fputs("<td class=\"small\">", c->fp);
	for (col = 0; !same && col < c->nr_cols; col++) {
		p = report__probe_w(c, name, col, wl);
		if (!p)
			continue;
		markup__escapef(c->fp, "%s: %s", c->cols[col],
				rd__str(d, p->attach));
		fputs("<br>", c->fp);
	}
	if (same && first)
		markup__escape(c->fp, rd__str(d, first->attach));
	fputs("</td>", c->fp);
}

/*
 * What a probe's count means: it found nothing to attach to on that
 * kernel (unknown, not zero), it attached and the kernel never called
 * it (a real zero: the seed's "vanished"), or it counted calls.
 */
enum probe_state { PROBE_ABSENT, PROBE_UNATTACHED, PROBE_ZERO, PROBE_CALLED };

static enum probe_state probe__state(const struct report_ctx *c,
				     const struct rd_probe *p)
{
	if (!p)
		return PROBE_ABSENT;
	/* "none " alone: every trial's probe found no target. */
	if (!strncmp(rd__str(c->d, p->attach), "none", 4) &&
	    !strchr(rd__str(c->d, p->attach), ','))
		return PROBE_UNATTACHED;
	return p->calls ? PROBE_CALLED : PROBE_ZERO;
}

/* The function the probe attached to: "fentry X" -> "X". */
static const char *probe__target(const struct report_ctx *c,
				 const struct rd_probe *p, char *buf,
				 size_t size)
{
	const char *a = rd__str(c->d, p->attach), *sp = strchr(a, ' ');

	snprintf(buf, size, "%.*s", (int)strcspn(sp ? sp + 1 : a, ","),
		 sp ? sp + 1 : a);
	return buf;
}

static void td_probe(struct report_ctx *c, const struct rd_probe *p)
{
	char buf[2 * FMT_MAX + 16], num[FMT_MAX];
	struct fmt_scale sc;
	double v = report__per_gb(p), ns;

	if (!p)
		snprintf(buf, sizeof(buf), "-");
	else if (probe__state(c, p) == PROBE_UNATTACHED)
		snprintf(buf, sizeof(buf), "not attachable");
	else if (probe__state(c, p) == PROBE_ZERO)
		snprintf(buf, sizeof(buf), "0, never called");
	else if (isnan(v))
		snprintf(buf, sizeof(buf), "%s per trial",
			 fmt__num((double)p->calls / p->trials, num,
				  sizeof(num)));
	else
		fmt__num(v, buf, sizeof(buf));
	html__td(c->fp, "num", buf);
	snprintf(buf, sizeof(buf), "-");
	if (p && p->calls && p->total_ns) {
		ns = (double)p->total_ns / p->calls;
		fmt__scale("ns", ns, &sc);
		snprintf(buf, sizeof(buf), "%s %s",
			 fmt__num(ns * sc.mul, num, sizeof(num)), sc.unit);
	}
	html__td(c->fp, "num", buf);
}

/*
 * In words, where the columns disagree: a function one column calls and
 * another never does (attached there all the same), and a probe with no
 * target on some column's kernel.
 */
static void probes__explain(struct report_ctx *c, const uint32_t *names,
			    size_t n, const uint32_t *wl)
{
	char target[128], num[FMT_MAX];
	const struct rd_probe *p, *called;
	size_t i, col, said = 0, called_col = 0;

	for (i = 0; i < n; i++) {
		called = NULL;
		for (col = 0; col < c->nr_cols && !called; col++) {
			p = report__probe_w(c, names[i], col, wl);
			if (probe__state(c, p) == PROBE_CALLED) {
				called = p;
				called_col = col;
			}
		}
		for (col = 0; col < c->nr_cols; col++) {
			p = report__probe_w(c, names[i], col, wl);
			switch (probe__state(c, p)) {
			case PROBE_ZERO:
				if (!called)
					break;
				fputs(said++ ? "<li>" : "<ul>\n<li>", c->fp);
				probe__target(c, p, target, sizeof(target));
				markup__escapef(
					c->fp,
					"%s no longer calls %s on this path: "
					"the probe %s was attached and counted "
					"0 calls, where %s made %s",
					c->cols[col], target,
					rd__str(c->d, names[i]),
					c->cols[called_col],
					isnan(report__per_gb(called)) ?
						"some" :
						fmt__num(report__per_gb(called),
							 num, sizeof(num)));
				markup__escape(c->fp,
					       isnan(report__per_gb(called)) ?
						       ".\n" :
						       " per GB.\n");
				break;
			case PROBE_UNATTACHED:
				fputs(said++ ? "<li>" : "<ul>\n<li>", c->fp);
				markup__escapef(
					c->fp,
					"On %s the probe %s found no function "
					"to attach to: what it would count "
					"there is unknown, not zero.\n",
					c->cols[col], rd__str(c->d, names[i]));
				break;
			default:
				break;
			}
		}
	}
	if (said)
		fputs("</ul>\n", c->fp);
}

static void probe_table(struct report_ctx *c, const uint32_t *names, size_t n,
			const uint32_t *wl)
{
	size_t i, col;

	fputs("<table>\n<tr><th rowspan=\"2\">probe</th>", c->fp);
	for (col = 0; col < c->nr_cols; col++) {
		fputs("<th colspan=\"2\">", c->fp);
		markup__escape(c->fp, c->cols[col]);
		fputs("</th>", c->fp);
	}
	fputs("<th rowspan=\"2\">attached by</th></tr>\n<tr>", c->fp);
	for (col = 0; col < c->nr_cols; col++)
		fputs("<th>calls/GB</th><th>mean latency</th>", c->fp);
	fputs("</tr>\n", c->fp);
	for (i = 0; i < n; i++) {
		fputs("<tr>", c->fp);
		html__td(c->fp, NULL, rd__str(c->d, names[i]));
		for (col = 0; col < c->nr_cols; col++)
			td_probe(c, report__probe_w(c, names[i], col, wl));
		td_attach(c, names[i], wl);
		fputs("</tr>\n", c->fp);
	}
	fputs("</table>\n", c->fp);
	probes__explain(c, names, n, wl);
}

/* The workloads the probes counted in, each once, in first-seen order. */
static size_t probe_workloads(const struct report_data *d, uint32_t **out)
{
	size_t i, j, n = 0;

	*out = xcalloc(d->nr_probes + 1, sizeof(**out));
	for (i = 0; i < d->nr_probes; i++) {
		if (!d->probes[i].per_workload)
			continue;
		for (j = 0; j < n && (*out)[j] != d->probes[i].workload; j++)
			;
		if (j == n)
			(*out)[n++] = d->probes[i].workload;
	}
	return n;
}

void report__probe_table(struct report_ctx *c, const uint32_t *names, size_t n)
{
	uint32_t *wls;
	size_t nw, w;

	/* Calls per GB mean something within one workload only. */
	nw = probe_workloads(c->d, &wls);
	for (w = 0; w < nw; w++) {
		if (nw > 1) {
			fputs("<h3>", c->fp);
			markup__escapef(c->fp, "Workload %s",
					rd__str(c->d, wls[w]));
			fputs("</h3>\n", c->fp);
		}
		probe_table(c, names, n, &wls[w]);
	}
	free(wls);
	fputs("<p class=\"small\">Calls per GB divide by the bytes the "
	      "workload's receiving end counted (iperf3's receiver, fio's "
	      "I/O), over the whole trial as the probes count. <em>0, never "
	      "called</em>: the probe was attached and the kernel did not "
	      "call the function. <em>not attachable</em>: there was no "
	      "function to attach to on that kernel (renamed, inlined, or "
	      "gone), so its count there is unknown, not zero.</p>\n",
	      c->fp);
}

struct diff_row {
	uint32_t symbol, dso;
	double before, after;
};

static int cmp_diff(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	double mx = fmax(x->before, x->after), my = fmax(y->before, y->after);

	if (mx != my)
		return mx < my ? 1 : -1;
	return (x->symbol > y->symbol) - (x->symbol < y->symbol);
}

static const struct rd_profiled *profiled(const struct report_data *d,
					  uint32_t axis, uint32_t workload)
{
	size_t i;

	for (i = 0; i < d->nr_profiled; i++)
		if (d->profiled[i].axis == axis &&
		    d->profiled[i].workload == workload)
			return &d->profiled[i];
	return NULL;
}

/* The mean overhead of each symbol on either side, top first. */
static size_t diff_rows(const struct report_data *d, uint32_t base,
			uint32_t cand, uint32_t workload, struct diff_row **out)
{
	const struct rd_profiled *pb = profiled(d, base, workload);
	const struct rd_profiled *pc = profiled(d, cand, workload);
	struct diff_row *rows = NULL;
	size_t i, j, n = 0, alloc = 0;

	*out = NULL;
	if (!pb || !pc)
		return 0;
	for (i = 0; i < d->nr_symbols; i++) {
		const struct rd_symbol *s = &d->symbols[i];
		bool is_base = s->axis == base, is_cand = s->axis == cand;

		if (s->workload != workload || (!is_base && !is_cand))
			continue;
		for (j = 0; j < n; j++)
			if (rows[j].symbol == s->symbol &&
			    rows[j].dso == s->dso)
				break;
		if (j == n) {
			ALLOC_GROW(rows, n + 1, alloc);
			rows[n].symbol = s->symbol;
			rows[n].dso = s->dso;
			rows[n].before = rows[n].after = 0;
			n++;
		}
		if (is_base)
			rows[j].before = s->overhead_sum / pb->trials;
		else
			rows[j].after = s->overhead_sum / pc->trials;
	}
	qsort(rows, n, sizeof(*rows), cmp_diff);
	*out = rows;
	return n;
}

/* The functions this tool is about: the DMA API, iommu-dma, the drivers. */
static bool is_dma_symbol(const char *sym)
{
	static const char *const prefixes[] = { "iommu_",      "__iommu_",
						"dma_",	       "__dma_",
						"intel_iommu", "arm_smmu",
						"amd_iommu",   NULL };
	const char *const *p;

	for (p = prefixes; *p; p++)
		if (!strncmp(sym, *p, strlen(*p)))
			return true;
	return false;
}

/*
 * IOMMU and DMA functions that vanished or appeared below the top rows:
 * the seed's argument is exactly such a function, at a few percent on a
 * real machine and a fraction of one in a TCG guest.
 */
static void dma_changes(struct report_ctx *c, const struct diff_row *rows,
			size_t n)
{
	const struct report_data *d = c->d;
	size_t i, said = 0;

	for (i = c->o->top_symbols; i < n; i++) {
		const struct diff_row *r = &rows[i];
		bool gone = r->before > 0 && r->after == 0;

		if ((!gone && !(r->before == 0 && r->after > 0)) ||
		    !is_dma_symbol(rd__str(d, r->symbol)))
			continue;
		fputs(said++ ? ", " :
			       "<p>Below the top rows, IOMMU and DMA "
			       "functions that ",
		      c->fp);
		if (said == 1)
			fputs("vanished or appeared: ", c->fp);
		fputs("<code>", c->fp);
		markup__escape(c->fp, rd__str(d, r->symbol));
		fputs("</code>", c->fp);
		fprintf(c->fp, " <span class=\"tag %s\">%s</span> (%.3f%%)",
			gone ? "gone" : "new", gone ? "vanished" : "appeared",
			gone ? r->before : r->after);
	}
	if (said)
		fputs(".</p>\n", c->fp);
}

static void diff_table(struct report_ctx *c, const char *base, const char *cand,
		       const struct diff_row *rows, size_t n)
{
	const struct report_data *d = c->d;
	char buf[FMT_MAX];
	size_t i;

	fputs("<table>\n<tr><th>symbol</th><th>dso</th><th>", c->fp);
	markup__escape(c->fp, base);
	fputs(" %</th><th>", c->fp);
	markup__escape(c->fp, cand);
	fputs(" %</th><th>change (points)</th></tr>\n", c->fp);
	for (i = 0; i < n && i < c->o->top_symbols; i++) {
		const struct diff_row *r = &rows[i];
		double delta = r->after - r->before;

		fputs("<tr><td><code>", c->fp);
		markup__escape(c->fp, rd__str(d, r->symbol));
		fputs("</code>", c->fp);
		if (r->before > 0 && r->after == 0)
			fputs("<span class=\"tag gone\">vanished</span>",
			      c->fp);
		if (r->before == 0 && r->after > 0)
			fputs("<span class=\"tag new\">appeared</span>", c->fp);
		fputs("</td>", c->fp);
		html__td(c->fp, "small", rd__str(d, r->dso));
		snprintf(buf, sizeof(buf), "%.2f", r->before);
		html__td(c->fp, "num", r->before > 0 ? buf : "-");
		snprintf(buf, sizeof(buf), "%.2f", r->after);
		html__td(c->fp, "num", r->after > 0 ? buf : "-");
		snprintf(buf, sizeof(buf), "%+.2f", delta);
		/* Less time in a symbol is better, whatever it is. */
		html__td(c->fp,
			 fabs(delta) < 0.5 ? "num same" :
			 delta < 0	   ? "num better" :
					     "num worse",
			 buf);
		fputs("</tr>\n", c->fp);
	}
	fputs("</table>\n", c->fp);
	dma_changes(c, rows, n);
}

#define MAX_DIFF_TABLES 8

void report__profile(struct report_ctx *c)
{
	const struct report_data *d = c->d;
	struct diff_row *rows;
	size_t i, col, n, shown = 0;
	int64_t base, cand;
	uint32_t workload;

	html__h2(c->fp, "profile", "Profile diff");
	if (!d->nr_symbols || c->nr_cols < 2) {
		fputs("<p>No profiles to compare (the perf collector was off, "
		      "or there is one column only).</p>\n",
		      c->fp);
		return;
	}
	base = intern__find(&d->str, c->cols[0]);
	for (col = 1; col < c->nr_cols && base >= 0; col++) {
		cand = intern__find(&d->str, c->cols[col]);
		for (i = 0; cand >= 0 && i < d->nr_profiled; i++) {
			if (d->profiled[i].axis != base ||
			    shown >= MAX_DIFF_TABLES)
				continue;
			workload = d->profiled[i].workload;
			n = diff_rows(d, base, cand, workload, &rows);
			if (n) {
				fputs("<h3>", c->fp);
				markup__escapef(
					c->fp,
					"%s: %s against %s (%s, mean "
					"of %zu and %zu trials)",
					rd__str(d, workload), c->cols[col],
					c->cols[0],
					rd__str(d, d->profiled[i].events),
					d->profiled[i].trials,
					profiled(d, cand, workload)->trials);
				fputs("</h3>\n", c->fp);
				diff_table(c, c->cols[0], c->cols[col], rows,
					   n);
				shown++;
			}
			free(rows);
		}
	}
	fputs("<p class=\"small\">Mean share of samples per symbol; "
	      "<span class=\"tag gone\">vanished</span> symbols had samples "
	      "on the baseline side only, <span class=\"tag new\">appeared"
	      "</span> ones on the other side only.</p>\n",
	      c->fp);
}
