// SPDX-License-Identifier: GPL-2.0-only
/* compare --aa: the noise floor as text and JSON. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "format.h"
#include "compare-print.h"
#include "noise-print.h"
#include "util.h"

static const char *pct(double v, char *buf, size_t size)
{
	if (isnan(v))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.1f%%", 100 * v);
	return buf;
}

void noise__print_text(const struct noise *n, FILE *fp)
{
	char a[16], b[16], c[16];
	size_t i;

	fprintf(fp,
		"%s%s%s%s: noise, and each cell against itself (A/A: its "
		"even repetitions against its odd ones)\n",
		n->metric, *n->unit ? " [" : "", n->unit, *n->unit ? "]" : "");
	fprintf(fp, "%-10s %-12s %-12s %-12s %4s %5s %7s %9s %9s  %s\n", "host",
		"kernel", "mode", "workload", "n", "boots", "CV", "in a boot",
		"of boots", "A/A");
	for (i = 0; i < n->nr; i++) {
		const struct noise_cell *x = &n->cells[i];
		char *aa = cmp__delta_text(&x->odd, &x->even);

		fprintf(fp,
			"%-10s %-12s %-12s %-12s %4zu %5zu %7s %9s %9s  %s\n",
			x->host, x->kernel, x->mode, x->workload, x->n,
			x->boots, pct(x->cv, a, sizeof(a)),
			pct(x->cv_within, b, sizeof(b)),
			pct(x->cv_between, c, sizeof(c)), aa);
		free(aa);
	}
	for (i = 0; i < n->nr_hosts; i++)
		fprintf(fp,
			"host %s, the median cell: CV %s, within a boot %s, "
			"between boots %s\n",
			n->hosts[i].host, pct(n->hosts[i].cv, a, sizeof(a)),
			pct(n->hosts[i].cv_within, b, sizeof(b)),
			pct(n->hosts[i].cv_between, c, sizeof(c)));
	if (!n->nr)
		fprintf(fp, "no measured trials of %s\n", n->metric);
}

static json_t *half(const struct cmp_cell *c)
{
	return json_pack("{s:I, s:o}", "n", (json_int_t)c->s.n, "median",
			 report_json_num(c->s.median));
}

json_t *noise__json(const struct noise *n)
{
	json_t *cells = json_array(), *hosts = json_array();
	size_t i;

	for (i = 0; i < n->nr; i++) {
		const struct noise_cell *x = &n->cells[i];
		const struct cmp_cell *e = &x->even;

		json_array_append_new(
			cells,
			json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:o, "
				  "s:o, s:o, s:o, s:{s:o, s:o, s:o, s:o, s:o, "
				  "s:s}}",
				  "host", x->host, "kernel", x->kernel, "mode",
				  x->mode, "workload", x->workload, "n",
				  (json_int_t)x->n, "boots",
				  (json_int_t)x->boots, "boots_multi",
				  (json_int_t)x->boots_multi, "mean",
				  report_json_num(x->mean), "cv",
				  report_json_num(x->cv), "cv_within_boot",
				  report_json_num(x->cv_within),
				  "cv_between_boots",
				  report_json_num(x->cv_between), "aa", "odd",
				  half(&x->odd), "even", half(e), "delta_pct",
				  report_json_num(e->delta), "delta_ci_pct",
				  cmp__has_interval(e) ?
					  json_pack("[ff]", e->delta_lo,
						    e->delta_hi) :
					  json_null(),
				  "p", report_json_num(e->mw.p), "verdict",
				  cmp__verdict_name(e->verdict)));
	}
	for (i = 0; i < n->nr_hosts; i++)
		json_array_append_new(
			hosts,
			json_pack("{s:s, s:o, s:o, s:o}", "host",
				  n->hosts[i].host, "cv",
				  report_json_num(n->hosts[i].cv),
				  "cv_within_boot",
				  report_json_num(n->hosts[i].cv_within),
				  "cv_between_boots",
				  report_json_num(n->hosts[i].cv_between)));
	return json_pack("{s:s, s:s, s:o, s:o}", "metric", n->metric, "unit",
			 n->unit, "cells", cells, "hosts", hosts);
}
