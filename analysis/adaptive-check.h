/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * [run] until: whether a run's headline comparisons are as precise as
 * asked, judged without looking at which cell a value came from (so
 * that the verdicts keep their alpha; see stats/adaptive.c).
 */
#ifndef IOMMU_BENCH_ANALYSIS_ADAPTIVE_CHECK_H
#define IOMMU_BENCH_ANALYSIS_ADAPTIVE_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "dataset.h"
#include "rdb.h"

struct adaptive_opts {
	enum ds_dim by;		    /* the columns compared: mode, kernel */
	const char *baseline;	    /* their baseline; NULL: the first */
	const char *const *metrics; /* the headline ones, NULL-terminated */
	double width_pct;	    /* the precision asked for */
};

struct adaptive_status {
	size_t comparisons, open; /* all, and those not yet that precise */
	double widest_pct;	  /* the widest predicted interval */
	char *widest;		  /* its row, for the progress line */
};

/*
 * The width, in percent of the baseline, of the Hodges-Lehmann interval
 * (95%) that comparing samples of these sizes can have, from the noise
 * of their values pooled. INFINITY when a value is not positive or a
 * side has fewer than two.
 */
int adaptive__check(struct rdb *r, int64_t run, const struct adaptive_opts *o,
		    struct adaptive_status *st);
void adaptive_status__release(struct adaptive_status *st);

#endif /* IOMMU_BENCH_ANALYSIS_ADAPTIVE_CHECK_H */
