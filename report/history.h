/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report --history N: the nightly history as one self-contained HTML
 * page, as the report is (inline CSS, gnuplot's SVG inline, no script,
 * nothing fetched): a small multiple per series (host, kernel, mode,
 * workload, metric) of its per-night medians with their intervals, the
 * nights' versions or commits along the x axis, each change point
 * marked with its verdict; the regressed series first; then the robot's
 * regressions with their triage state, linked to each night's mail and
 * report.
 */
#ifndef IOMMU_BENCH_REPORT_HISTORY_H
#define IOMMU_BENCH_REPORT_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/dataset.h"
#include "analysis/rdb.h"

struct history_opts {
	const char *output; /* the HTML file */
	const char *title;  /* NULL: from the nights */
	size_t last;	    /* nights per robot */
	bool plots;	    /* false: no gnuplot (captions and table only) */
};

/*
 * Write the history page of the last @o->last nights of each robot,
 * their trials that pass @f; the file replaced only when complete. 0,
 * -EINVAL (a history longer than a robot's, a bad filter), -ENOENT (no
 * nights) or another negative errno; a message printed in every case.
 */
int history_page__write(struct rdb *r, const struct ds_filter *f,
			const struct history_opts *o);

#endif /* IOMMU_BENCH_REPORT_HISTORY_H */
