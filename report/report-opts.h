/* SPDX-License-Identifier: GPL-2.0-only */
/* Options compare, report and regress share, parsed the same way. */
#ifndef IOMMU_BENCH_REPORT_OPTS_H
#define IOMMU_BENCH_REPORT_OPTS_H

#include <stddef.h>
#include <stdint.h>

#include "parse-options.h"
#include "analysis/rdb.h"
#include "strvec.h"

/* Which trials, and how they are laid out: compare and report alike. */
#define OPT_SELECTION(runs, by, baseline, only)                              \
	OPT_CALLBACK(0, "run", (runs), "ID",                                 \
		     "a run id, latest, previous, all, or name:NAME (every " \
		     "run of that name); repeatable (default: latest)",      \
		     parse_opt_strvec),                                      \
		OPT_STRING(0, "by", (by), "AXIS",                            \
			   "columns: mode (default), kernel, host or run"),  \
		OPT_STRING(0, "baseline", (baseline), "NAME",                \
			   "the column the others are compared to "          \
			   "(default: the first)"),                          \
		OPT_ONLY(only)

#define OPT_ONLY(only)                                                     \
	OPT_CALLBACK(                                                      \
		0, "only", (only), "KEY=VALUE",                            \
		"keep run, host, kernel, mode, workload or metric VALUE; " \
		"repeatable",                                              \
		parse_opt_strvec)

/* The statistics' levels: compare, report and regress alike. */
#define OPT_LEVELS(alpha, conf)                          \
	OPT_STRING(0, "alpha", (alpha), "A",             \
		   "significance level (default 0.05)"), \
		OPT_STRING(0, "confidence", (conf), "C", \
			   "confidence of a median's interval (default 0.95)")

#define OPT_CV_MAX(cv_max)                       \
	OPT_STRING(0, "cv-max", (cv_max), "PCT", \
		   "warn above this coefficient of variation (default 5)")

/*
 * A number strictly between @lo and @hi, else -EINVAL and a message
 * naming @opt, what was given and the range wanted.
 */
int report_opt_number(const char *opt, const char *arg, double lo, double hi,
		      double *out);

/*
 * The runs --run names (ids, "latest", "previous", "all"), sorted and
 * without duplicates; the latest run when @args is empty. -EINVAL for a
 * bad word, -ENOENT for a run that is not there (message printed).
 */
int report_select_runs(const struct rdb_runs *runs, const struct strvec *args,
		       int64_t **ids, size_t *nr);

#endif /* IOMMU_BENCH_REPORT_OPTS_H */
