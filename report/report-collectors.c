// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report's collectors section: which trials carried which
 * collectors, and, per cell, the throughput of the profile trials (perf
 * record on, kept out of every statistic) beside the measured trials',
 * which is what profiling cost there.
 */
#include <math.h>
#include <stdlib.h>

#include "format.h"
#include "markup.h"
#include "report-priv.h"

static void td_tp(struct report_ctx *c, double v, uint32_t unit)
{
	char buf[2 * FMT_MAX], num[FMT_MAX];
	struct fmt_scale sc;

	if (isnan(v)) {
		html__td(c->fp, "num", "-");
		return;
	}
	fmt__scale(rd__str(c->d, unit), v, &sc);
	snprintf(buf, sizeof(buf), "%s %s",
		 fmt__num(v * sc.mul, num, sizeof(num)), sc.unit);
	html__td(c->fp, "num", buf);
}

static void kinds(struct report_ctx *c)
{
	static const char *const heads[] = { "trials", "kind", "collectors",
					     NULL };
	const struct report_data *d = c->d;
	size_t i;

	fputs("<table>\n", c->fp);
	html__th_row(c->fp, heads);
	for (i = 0; i < d->nr_carried; i++) {
		const struct rd_carried *k = &d->carried[i];

		fputs("<tr>", c->fp);
		html__td_count(c->fp, "num", k->trials);
		html__td(c->fp, k->records && !k->profile ? "worse" : NULL,
			 k->profile ? "profile, not in the statistics" :
				      "measured");
		html__td(c->fp, NULL, rd__str(d, k->collectors));
		fputs("</tr>\n", c->fp);
	}
	fputs("</table>\n", c->fp);
}

static void perturbation(struct report_ctx *c)
{
	static const char *const heads[] = {
		"host",
		"kernel",
		"mode",
		"workload",
		"throughput, measured",
		"under perf record",
		"profile trials",
		"ratio",
		NULL,
	};
	const struct report_data *d = c->d;
	char buf[32];
	size_t i;

	fputs("<table>\n", c->fp);
	html__th_row(c->fp, heads);
	for (i = 0; i < d->nr_cells; i++) {
		const struct rd_cell *x = &d->cells[i];

		if (!x->profile_trials)
			continue;
		fputs("<tr>", c->fp);
		html__td(c->fp, NULL, rd__str(d, x->host));
		html__td(c->fp, NULL, rd__str(d, x->kernel));
		html__td(c->fp, NULL, rd__str(d, x->mode));
		html__td(c->fp, NULL, rd__str(d, x->workload));
		td_tp(c, x->tp_measured, x->tp_unit);
		td_tp(c, x->tp_profile, x->tp_unit);
		html__td_count(c->fp, "num", x->profile_trials);
		/*
		 * Two decimals, as every ratio of the report: "%.3g" made
		 * a cost within half a percent of none "1x", which reads
		 * as a count and not as a ratio.
		 */
		if (isnan(x->tp_measured) || !(x->tp_measured > 0))
			snprintf(buf, sizeof(buf), "-");
		else
			snprintf(buf, sizeof(buf), "%.2fx",
				 x->tp_profile / x->tp_measured);
		html__td(c->fp, "num", buf);
		fputs("</tr>\n", c->fp);
	}
	fputs("</table>\n", c->fp);
}

void report__collectors(struct report_ctx *c)
{
	const struct report_data *d = c->d;
	bool profiles = false;
	size_t i;

	if (!d->nr_carried)
		return;
	for (i = 0; i < d->nr_carried; i++)
		profiles |= d->carried[i].profile;
	html__h2(c->fp, "collectors", "Collectors");
	fputs("<p class=\"small\">What ran on the system under test during "
	      "the trials. Sampling with perf record takes throughput from "
	      "the workload it profiles, so by default only profile trials "
	      "sample: they give the profile diff and none of the "
	      "statistics. A measured trial that sampled is marked: its "
	      "numbers carry the cost.</p>\n",
	      c->fp);
	kinds(c);
	if (!profiles)
		return;
	fputs("<p class=\"small\">Per cell, the median throughput of the "
	      "measured trials and of the profile trials: the ratio is what "
	      "perf record cost there.</p>\n",
	      c->fp);
	perturbation(c);
}
