/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * iommu-bench report: one self-contained HTML file (inline CSS, inline
 * SVG plots from gnuplot, no script, nothing fetched from a network)
 * that a kernel engineer can read in a minute: the headline ratio with
 * its interval and p-value, plots, the profile diff, the statistics of
 * every metric, and the evidence that each cell ran in the mode it
 * claims, with the environment and the matrix file.
 */
#ifndef IOMMU_BENCH_REPORT_REPORT_H
#define IOMMU_BENCH_REPORT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/compare.h"
#include "analysis/dataset.h"
#include "analysis/rdb.h"

struct report_opts {
	const char *output;	/* the HTML file */
	const char *title;	/* NULL: from the runs */
	struct cmp_opts cmp;	/* axis, baseline, alpha ... */
	size_t series_per_cell; /* interval series plotted per column */
	size_t top_symbols;	/* rows of the profile diff */
	bool plots;		/* false: no gnuplot (tables only) */
};

/*
 * Write the report of runs @runs (sorted) that pass @f. The file is
 * written beside @o->output and renamed over it only when complete.
 * 0, -ENOENT (nothing measured), -EINVAL (a bad baseline) or another
 * negative errno; a message is printed in every case.
 */
int report__write(struct rdb *r, const struct rdb_runs *all,
		  const int64_t *runs, size_t nr_runs,
		  const struct ds_filter *f, const struct report_opts *o);

#endif /* IOMMU_BENCH_REPORT_REPORT_H */
