/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Change points in a nightly history, by E-divisive means (Matteson and
 * James, 2014) as Apache Otava (formerly Hunter) runs it: split where the
 * energy distance between the two sides is largest, keep the split when
 * Welch's t-test between the sides says p <= max_p, recurse into both
 * halves; then re-test every kept point between its own neighbours and
 * drop the weakest until all pass. Otava's replacement of the original
 * permutation test by the t-test is what makes this deterministic: the
 * same history always yields the same points.
 */
#ifndef IOMMU_BENCH_STATS_CHANGEPOINT_H
#define IOMMU_BENCH_STATS_CHANGEPOINT_H

#include <stddef.h>

struct cp_opts {
	double max_p;	      /* significance of a split; Otava's 0.001 */
	double min_magnitude; /* |relative change of the mean|; 0: any */
	size_t min_size;      /* points each side of a split, at least 2 */
};

#define CP_OPTS_DEFAULT                                           \
	{                                                         \
		.max_p = 0.001, .min_magnitude = 0, .min_size = 3 \
	}

struct changepoint {
	size_t index; /* the first point after the change */
	double q;     /* the energy statistic when it was found */
	double p;     /* t-test between the neighbouring segments */
	double mean_before, mean_after;
	double change; /* mean_after / mean_before - 1; NAN if before is 0 */
};

/*
 * The change points of @x[0..n), by index, into a malloc'ed array (NULL
 * when there are none). Returns 0 or -EINVAL for bad options.
 */
int changepoint__detect(const double *x, size_t n, const struct cp_opts *o,
			struct changepoint **out, size_t *nr);

#endif /* IOMMU_BENCH_STATS_CHANGEPOINT_H */
