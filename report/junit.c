// SPDX-License-Identifier: GPL-2.0-only
/*
 * regress --junit FILE: JUnit XML, the format GitLab's test report and
 * GitHub's test-report actions display. A testcase per compared metric
 * and cell (failure: a regression or a cell the candidate lost; skipped:
 * too few trials to tell) and one per history series (failure: a
 * regression still in effect; recovered ones in its output).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic-file.h"
#include "log.h"
#include "markup.h"
#include "regress-print.h"
#include "util.h"

static char *item_text(const struct regress_result *res,
		       const struct regress_item *it)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	if (!fp)
		return xstrdup("");
	regress__print_item(res, it, fp);
	fclose(fp);
	if (len && buf[len - 1] == '\n')
		buf[len - 1] = '\0';
	return buf;
}

static void write_item(const struct regress_result *res,
		       const struct regress_item *it, FILE *fp)
{
	char *label = regress__item_label(res, it), *text = item_text(res, it);

	fputs("    <testcase classname=\"iommu-bench.regress.", fp);
	markup__escape(fp, ds__str(&res->cds, it->key[DS_NR_DIMS]));
	fputs("\" name=\"", fp);
	markup__escape(fp, label);
	fputs("\" time=\"0\">\n", fp);
	if (regress__item_fails(res, it)) {
		fprintf(fp, "      <failure type=\"%s\" message=\"",
			regress__status_name(it->status));
		markup__escape(fp, text);
		fputs("\">", fp);
		markup__escape(fp, text);
		fputs("</failure>\n", fp);
	} else if (it->status == REG_INCONCLUSIVE) {
		fputs("      <skipped message=\"", fp);
		markup__escape(fp, text);
		fputs("\"/>\n", fp);
	} else {
		fputs("      <system-out>", fp);
		markup__escape(fp, text);
		fputs("</system-out>\n", fp);
	}
	fputs("    </testcase>\n", fp);
	free(label);
	free(text);
}

static void write_pairwise(const struct regress_result *res, FILE *fp)
{
	size_t i, failures = 0, skipped = 0;

	for (i = 0; i < res->nr_items; i++) {
		failures += regress__item_fails(res, &res->items[i]);
		skipped += !regress__item_fails(res, &res->items[i]) &&
			   res->items[i].status == REG_INCONCLUSIVE;
	}

	fprintf(fp,
		"  <testsuite name=\"regress: run %lld against run %lld\" "
		"tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
		"skipped=\"%zu\">\n",
		(long long)res->cand.run, (long long)res->base.run,
		res->nr_items, failures, skipped);
	for (i = 0; i < res->nr_items; i++)
		write_item(res, &res->items[i], fp);
	fputs("  </testsuite>\n", fp);
}

static void write_series(const struct regress_history *h,
			 const struct regress_series *s, FILE *fp)
{
	char *label = regress__series_label(h, s), *buf = NULL;
	bool failed = false;
	size_t i, len = 0;
	FILE *mem;

	mem = open_memstream(&buf, &len);
	for (i = 0; mem && i < s->nr_cps; i++) {
		regress__print_cp(h, s, &s->cps[i], mem);
		failed = failed || (s->cps[i].status == REG_REGRESSION &&
				    !s->cps[i].recovered);
	}
	if (mem)
		fclose(mem);
	fputs("    <testcase classname=\"iommu-bench.history.", fp);
	markup__escape(fp, ds__str(&h->ds, h->ds.metrics[s->metric].name));
	fputs("\" name=\"", fp);
	markup__escape(fp, label);
	fputs("\" time=\"0\">\n", fp);
	if (failed) {
		fputs("      <failure type=\"regression\" message=\"a "
		      "regression still in effect\">",
		      fp);
		markup__escape(fp, buf ? buf : "");
		fputs("</failure>\n", fp);
	} else if (buf && *buf) {
		fputs("      <system-out>", fp);
		markup__escape(fp, buf);
		fputs("</system-out>\n", fp);
	}
	fputs("    </testcase>\n", fp);
	free(buf);
	free(label);
}

static void write_history(const struct regress_history *h, FILE *fp)
{
	size_t i, failures = 0;

	for (i = 0; i < h->nr_series; i++) {
		size_t j;

		for (j = 0; j < h->series[i].nr_cps; j++)
			if (h->series[i].cps[j].status == REG_REGRESSION &&
			    !h->series[i].cps[j].recovered) {
				failures++;
				break;
			}
	}
	fprintf(fp,
		"  <testsuite name=\"history: last %zu runs\" "
		"tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
		"skipped=\"0\">\n",
		h->nr_runs, h->nr_series, failures);
	for (i = 0; i < h->nr_series; i++)
		write_series(h, &h->series[i], fp);
	fputs("  </testsuite>\n", fp);
}

int regress__write_junit(const struct regress_result *res,
			 const struct regress_history *h, const char *path)
{
	struct atomic_file af;
	FILE *fp;
	int err;

	err = atomic_file__open(&af, path, 0644);
	if (err) {
		pr_err("%s: %s", path, strerror(-err));
		return err;
	}
	fp = af.fp;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	      "<testsuites name=\"iommu-bench regress\">\n",
	      fp);
	if (res)
		write_pairwise(res, fp);
	if (h)
		write_history(h, fp);
	fputs("</testsuites>\n", fp);
	err = atomic_file__commit(&af);
	if (err)
		pr_err("%s: %s", path, strerror(-err));
	return err;
}
