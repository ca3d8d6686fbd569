// SPDX-License-Identifier: GPL-2.0-only
/*
 * Verification and environment: for every cell the mode asked for and
 * the mode verified, with the evidence the host gave (its command line
 * and the DMA policy from its facts); the kernels and boots; the runs,
 * the machines the boots ran on (report-machine.c) and the matrix files
 * themselves. A number whose mode cannot be shown
 * to have been in effect is not evidence for that mode.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "markup.h"
#include "report-machine.h"
#include "report-priv.h"
#include "util.h"

#define MAX_BOOTS 24

static void verdict_cell(struct report_ctx *c, const struct rd_cell *cell)
{
	const struct report_data *d = c->d;
	const char *eff = rd__str(d, cell->effective);
	const char *mode = rd__str(d, cell->mode);

	if (cell->mismatched)
		fputs("<td class=\"worse\">MISMATCH</td>", c->fp);
	else if (!*eff)
		fputs("<td class=\"warn\">not verified</td>", c->fp);
	else if (!strncmp(mode, "current", 7))
		fputs("<td class=\"same\">as found</td>", c->fp);
	else if (!strncmp(mode, "default", 7))
		fputs("<td class=\"same\">the kernel's choice</td>", c->fp);
	else if (!strcmp(eff, mode))
		fputs("<td class=\"better\">verified</td>", c->fp);
	else
		fputs("<td class=\"warn\">see trials</td>", c->fp);
}

static void cells_table(struct report_ctx *c)
{
	static const char *const heads[] = {
		"workload",   "host",	       "kernel", "releases booted",
		"mode asked", "mode verified", "",	 "trials ok",
		"failed",     "other",	       "runs",	 NULL,
	};
	const struct report_data *d = c->d;
	size_t i;

	fputs("<table>\n", c->fp);
	html__th_row(c->fp, heads);
	for (i = 0; i < d->nr_cells; i++) {
		const struct rd_cell *cell = &d->cells[i];

		fputs("<tr>", c->fp);
		html__td(c->fp, NULL, rd__str(d, cell->workload));
		html__td(c->fp, NULL, rd__str(d, cell->host));
		html__td(c->fp, NULL, rd__str(d, cell->kernel));
		html__td(c->fp, "small", rd__str(d, cell->releases));
		html__td(c->fp, NULL, rd__str(d, cell->mode));
		html__td(c->fp, NULL, rd__str(d, cell->effective));
		verdict_cell(c, cell);
		html__td_count(c->fp, "num", cell->ok);
		html__td_count(c->fp, cell->failed ? "num worse" : "num",
			       cell->failed);
		html__td_count(c->fp, "num", cell->other);
		html__td_count(c->fp, "num", cell->runs);
		fputs("</tr>\n", c->fp);
	}
	fputs("</table>\n", c->fp);
}

/* The host's own account of its DMA policy, from docs/probe.md's keys. */
static void policy(FILE *fp, json_t *facts)
{
	json_t *dp = json_object_get(facts, "dma_policy");
	json_t *ev = json_object_get(dp, "evidence"), *v;
	const char *summary = json_string_value(json_object_get(dp, "summary"));
	size_t i;

	if (!summary && !json_array_size(ev)) {
		fputs("<span class=\"small\">no DMA policy in the host facts"
		      "</span>",
		      fp);
		return;
	}
	if (summary) {
		fputs("<b>", fp);
		markup__escape(fp, summary);
		fputs("</b>", fp);
	}
	if (json_array_size(ev)) {
		fputs("<ul>", fp);
		json_array_foreach(ev, i, v) {
			if (!json_is_string(v))
				continue;
			fputs("<li>", fp);
			markup__escape(fp, json_string_value(v));
			fputs("</li>", fp);
		}
		fputs("</ul>", fp);
	}
}

static void boots_table(struct report_ctx *c)
{
	static const char *const heads[] = {
		"host",	     "kernel release", "build id",
		"modes run", "boots",	       "trials",
		"platform",  "command line",   "DMA policy, as the host saw it",
		NULL,
	};
	const struct report_data *d = c->d;
	char *platform;
	json_t *facts;
	size_t i;

	fputs("<table>\n", c->fp);
	html__th_row(c->fp, heads);
	for (i = 0; i < d->nr_boots && i < MAX_BOOTS; i++) {
		const struct rd_boot *b = &d->boots[i];

		fputs("<tr>", c->fp);
		html__td(c->fp, NULL, rd__str(d, b->host));
		html__td(c->fp, NULL, rd__str(d, b->release));
		html__td(c->fp, "small", rd__str(d, b->build_id));
		html__td(c->fp, NULL, rd__str(d, b->modes));
		html__td_count(c->fp, "num", b->boots);
		html__td_count(c->fp, "num", b->trials);
		platform = report__platform(b->facts);
		html__td(c->fp, "small", platform ? platform : "");
		free(platform);
		fputs("<td><code>", c->fp);
		markup__escape(c->fp, rd__str(d, b->cmdline));
		fputs("</code></td><td>", c->fp);
		facts = b->facts ? json_loads(b->facts, 0, NULL) : NULL;
		policy(c->fp, facts);
		json_decref(facts);
		fputs("</td></tr>\n", c->fp);
	}
	fputs("</table>\n", c->fp);
	if (d->nr_boots > MAX_BOOTS)
		fprintf(c->fp,
			"<p class=\"small\">and %zu more kinds of "
			"boot.</p>\n",
			d->nr_boots - MAX_BOOTS);
}

void report__verification(struct report_ctx *c)
{
	html__h2(c->fp, "verification", "Verification");
	fputs("<p class=\"small\">Each cell's mode as asked and as verified "
	      "on the host after the change (trials whose verified mode "
	      "differs are left out of every statistic), and each kind of "
	      "boot with the evidence: its command line and the host's own "
	      "reading of the DMA policy.</p>\n",
	      c->fp);
	cells_table(c);
	boots_table(c);
}

static void facts_details(struct report_ctx *c)
{
	const struct report_data *d = c->d;
	json_t *facts;
	char *pretty;
	size_t i, shown = 0;

	for (i = 0; i < d->nr_boots && shown < MAX_BOOTS; i++) {
		const struct rd_boot *b = &d->boots[i];

		if (!b->facts)
			continue;
		facts = json_loads(b->facts, 0, NULL);
		pretty =
			facts ? json_dumps(facts, JSON_INDENT(2) |
							  JSON_PRESERVE_ORDER) :
				NULL;
		fputs("<details><summary>", c->fp);
		markup__escapef(c->fp, "host facts: %s, %s",
				rd__str(d, b->host), rd__str(d, b->release));
		fputs("</summary><pre>", c->fp);
		markup__escape(c->fp, pretty ? pretty : b->facts);
		fputs("</pre></details>\n", c->fp);
		free(pretty);
		json_decref(facts);
		shown++;
	}
}

static void runs_table(struct report_ctx *c)
{
	const struct rdb_run *run;
	char buf[32];
	size_t i;

	fputs("<table>\n<tr><th>run</th><th>name</th><th>status</th>"
	      "<th>started</th><th>finished</th><th>tool</th></tr>\n",
	      c->fp);
	for (i = 0; i < c->nr_runs; i++) {
		if (c->nr_runs > 20 && i == 10) {
			fprintf(c->fp,
				"<tr><td colspan=\"6\">... %zu more ...</td>"
				"</tr>\n",
				c->nr_runs - 20);
			i = c->nr_runs - 10;
		}
		run = rdb__run_find(c->all, c->runs[i]);
		if (!run)
			continue;
		fputs("<tr>", c->fp);
		snprintf(buf, sizeof(buf), "%lld", (long long)run->id);
		html__td(c->fp, "num", buf);
		html__td(c->fp, NULL, run->name);
		html__td(c->fp, strcmp(run->status, "done") ? "warn" : NULL,
			 run->status);
		html__td(c->fp, "small", run->started_at);
		html__td(c->fp, "small", run->finished_at);
		html__td(c->fp, "small", run->tool_version);
		fputs("</tr>\n", c->fp);
	}
	fputs("</table>\n", c->fp);
}

void report__environment(struct report_ctx *c)
{
	const struct report_data *d = c->d;
	size_t i;

	html__h2(c->fp, "environment", "Environment");
	fputs("<p class=\"small\">Database <code>", c->fp);
	markup__escape(c->fp, c->db_path);
	fputs("</code></p>\n", c->fp);
	runs_table(c);
	report__machines(c);
	facts_details(c);
	for (i = 0; i < d->nr_configs; i++) {
		const struct rd_config *cf = &d->configs[i];

		fputs("<details><summary>", c->fp);
		if (cf->runs > 1)
			markup__escapef(c->fp,
					"matrix file of %zu runs, %lld to %lld "
					"(sha256 %.12s)",
					cf->runs, (long long)cf->first_run,
					(long long)cf->last_run, cf->sha256);
		else
			markup__escapef(c->fp,
					"matrix file of run %lld (sha256 "
					"%.12s)",
					(long long)cf->first_run, cf->sha256);
		fputs("</summary><pre>", c->fp);
		markup__escape(c->fp, cf->text);
		fputs("</pre></details>\n", c->fp);
	}
}
