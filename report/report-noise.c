// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report's noise section: how much throughput varies between trials
 * of one boot and between boots, per host and per cell, and each cell
 * against itself, so that a reader can put an effect beside the noise
 * it must stand out of.
 */
#include <math.h>
#include <stdlib.h>

#include "markup.h"
#include "compare-print.h"
#include "analysis/noise.h"
#include "report-priv.h"

static void td_pct(FILE *fp, double v)
{
	char buf[32];

	if (isnan(v))
		snprintf(buf, sizeof(buf), "-");
	else
		snprintf(buf, sizeof(buf), "%.1f%%", 100 * v);
	html__td(fp, "num", buf);
}

void report__noise(struct report_ctx *c)
{
	static const char *const host_heads[] = {
		"host", "CV", "within a boot", "between boots", NULL,
	};
	static const char *const cell_heads[] = {
		"host",		 "kernel", "mode", "workload",
		"trials",	 "boots",  "CV",   "within a boot",
		"between boots", "A/A",	   NULL,
	};
	const struct noise *n = c->noise;
	size_t i;

	if (!n || !n->nr)
		return;
	html__h2(c->fp, "noise", "Noise");
	fputs("<p class=\"small\">The coefficient of variation of ", c->fp);
	markup__escape(c->fp, n->metric);
	fputs(" over every trial of a cell, pooled within the boots that ran "
	      "two or more of them, and of the boots' means; then the cell "
	      "against itself (its even repetitions against its odd ones), "
	      "whose interval is the smallest change half the trials could "
	      "tell apart. A change smaller than the noise needs more "
	      "repetitions, not a verdict.</p>\n<table>\n",
	      c->fp);
	html__th_row(c->fp, host_heads);
	for (i = 0; i < n->nr_hosts; i++) {
		fputs("<tr>", c->fp);
		html__td(c->fp, NULL, n->hosts[i].host);
		td_pct(c->fp, n->hosts[i].cv);
		td_pct(c->fp, n->hosts[i].cv_within);
		td_pct(c->fp, n->hosts[i].cv_between);
		fputs("</tr>\n", c->fp);
	}
	fputs("</table>\n<table>\n", c->fp);
	html__th_row(c->fp, cell_heads);
	for (i = 0; i < n->nr; i++) {
		const struct noise_cell *x = &n->cells[i];
		char *aa = cmp__delta_text(&x->odd, &x->even);

		fputs("<tr>", c->fp);
		html__td(c->fp, NULL, x->host);
		html__td(c->fp, NULL, x->kernel);
		html__td(c->fp, NULL, x->mode);
		html__td(c->fp, NULL, x->workload);
		html__td_count(c->fp, "num", x->n);
		html__td_count(c->fp, "num", x->boots);
		td_pct(c->fp, x->cv);
		td_pct(c->fp, x->cv_within);
		td_pct(c->fp, x->cv_between);
		html__td(c->fp, html__verdict_class(x->even.verdict), aa);
		fputs("</tr>\n", c->fp);
		free(aa);
	}
	fputs("</table>\n", c->fp);
}
