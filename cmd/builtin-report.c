// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu-bench report: stored runs as one self-contained HTML page, the
 * plots inline (gnuplot's SVG), no script and nothing to fetch, so that
 * it can be mailed, attached to a CI job or opened years later.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "parse-options.h"
#include "report/history.h"
#include "report/report-opts.h"
#include "report/report.h"
#include "util.h"

static const char *const report_usage[] = {
	"iommu-bench report [-o <FILE>] [--run <ID>]... [--by <AXIS>] [--baseline <NAME>] [--only <KEY=VALUE>]...",
	"iommu-bench report --history <N> [-o <FILE>] [--only <KEY=VALUE>]...",
	NULL,
};

struct report_args {
	struct strvec runs, only;
	const char *by, *alpha, *conf, *cv_max;
	long series, top, history;
	bool no_plots;
};

/* report --history N: the nightly history page instead of the runs'. */
static int history(const struct report_args *a, const struct report_opts *ro,
		   const struct ds_filter *f)
{
	struct history_opts o = { .output = ro->output,
				  .title = ro->title,
				  .last = a->history,
				  .plots = !a->no_plots };
	struct rdb r;
	int err;

	if (global__rdb_open(&r))
		return EXIT_WORK_FAILED;
	err = history_page__write(&r, f, &o);
	rdb__close(&r);
	if (!err)
		pr_info("wrote %s", o.output);
	return !err ? EXIT_OK : err == -EINVAL ? EXIT_USAGE : EXIT_WORK_FAILED;
}

/* What --history leaves no meaning to; 0 or -EINVAL, said. */
static int history_args(const struct report_args *a,
			const struct report_opts *o)
{
	if (a->history < 2 || a->history > 1000) {
		pr_err("--history wants a number of nights from 2 to 1000, "
		       "got %ld",
		       a->history);
		return -EINVAL;
	}
	if (a->runs.nr || a->by || o->cmp.baseline) {
		pr_err("--history draws the last nights: --run, --by and "
		       "--baseline do not apply");
		return -EINVAL;
	}
	return 0;
}

static int parse_args(const struct report_args *a, struct report_opts *o)
{
	double pct;
	int by;

	if (a->by) {
		by = ds__dim_parse(a->by);
		if (by < 0 || by == DS_WORKLOAD || by == DS_LABEL) {
			pr_err("--by wants mode, kernel, host or run, got '%s'",
			       a->by);
			return -EINVAL;
		}
		o->cmp.by = by;
	}
	if (global__levels(a->alpha, a->conf, &o->cmp.alpha, &o->cmp.conf))
		return -EINVAL;
	if (a->cv_max) {
		if (report_opt_number("--cv-max", a->cv_max, 0, 1000, &pct))
			return -EINVAL;
		o->cmp.cv_max = pct / 100;
	}
	if (a->series < 0 || a->series > 50) {
		pr_err("--series wants 0 to 50 trials, got %ld", a->series);
		return -EINVAL;
	}
	if (a->top < 1 || a->top > 500) {
		pr_err("--top wants 1 to 500 symbols, got %ld", a->top);
		return -EINVAL;
	}
	o->series_per_cell = a->series;
	o->top_symbols = a->top;
	o->plots = !a->no_plots;
	return 0;
}

int cmd_report(int argc, const char **argv)
{
	struct report_args a = { .series = 3, .top = 15, .history = -1 };
	struct report_opts o = { .output = "report.html",
				 .cmp = CMP_OPTS_DEFAULT };
	const struct option opts[] = {
		OPT_GLOBALS(),
		OPT_STRING('o', "output", &o.output, "FILE",
			   "the HTML file, replaced only when complete "
			   "(default: report.html)"),
		OPT_SELECTION(&a.runs, &a.by, &o.cmp.baseline, &a.only),
		OPT_STRING(0, "title", &o.title, "TEXT", "the page's title"),
		OPT_LEVELS(&a.alpha, &a.conf),
		OPT_CV_MAX(&a.cv_max),
		OPT_INTEGER(0, "series", &a.series, "N",
			    "trials per column in the time plots (default 3)"),
		OPT_INTEGER(0, "top", &a.top, "N",
			    "symbols per profile diff (default 15)"),
		OPT_BOOLEAN(0, "no-plots", &a.no_plots,
			    "tables only; do not run gnuplot"),
		OPT_INTEGER(0, "history", &a.history, "N",
			    "the nightly history page of the last N nights "
			    "(2 to 1000) of each robot instead"),
		OPT_GROUP(
			"The page needs no network and runs no script: plots are inline\n"
			"SVG drawn by gnuplot (gnuplot-nox). Exit status: 0 written; 1 the\n"
			"database could not be read, holds no matching trials, or the file\n"
			"could not be written; 2 bad usage, including an unknown run,\n"
			"--only value or --baseline."),
		OPT_END(),
	};
	struct ds_filter f = { 0 };
	struct rdb_runs runs = { 0 };
	int64_t *ids = NULL;
	struct rdb r;
	size_t i, nr;
	int status = EXIT_USAGE, err;

	argc = parse_options(argc, argv, opts, report_usage, 0);
	if (argc)
		usage_error(report_usage, opts, "unexpected argument '%s'",
			    argv[0]);
	if (!*o.output)
		usage_error(NULL, NULL, "-o wants a file name");
	if (parse_args(&a, &o))
		goto out_args;
	if (a.history != -1 && history_args(&a, &o))
		goto out_args;
	for (i = 0; i < a.only.nr; i++)
		if (ds_filter__add(&f, a.only.v[i]))
			goto out_args;
	if (a.history != -1) {
		status = history(&a, &o, &f);
		goto out_args;
	}
	status = EXIT_WORK_FAILED;
	if (global__rdb_open(&r))
		goto out_args;
	if (rdb__runs(&r, &runs))
		goto out_db;
	err = report_select_runs(&runs, &a.runs, &ids, &nr);
	if (err) {
		status = err == -EINVAL || runs.nr ? EXIT_USAGE :
						     EXIT_WORK_FAILED;
		goto out_db;
	}
	err = report__write(&r, &runs, ids, nr, &f, &o);
	if (!err) {
		status = EXIT_OK;
		pr_info("wrote %s", o.output);
	} else {
		status = err == -EINVAL ? EXIT_USAGE : EXIT_WORK_FAILED;
	}
out_db:
	free(ids);
	rdb__runs_release(&runs);
	rdb__close(&r);
out_args:
	ds_filter__release(&f);
	strvec__release(&a.runs);
	strvec__release(&a.only);
	return status;
}
