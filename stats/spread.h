/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The spread of repeated measurements that come in groups (a trial's
 * boot): how much of the noise a boot carries, how much a trial.
 */
#ifndef IOMMU_BENCH_STATS_SPREAD_H
#define IOMMU_BENCH_STATS_SPREAD_H

#include <stddef.h>
#include <stdint.h>

struct stats_obs {
	int64_t group; /* 0: not known, in no group */
	double v;
};

struct stats_spread {
	size_t n;
	size_t groups;	     /* the known groups */
	size_t groups_multi; /* those of two or more values */
	double mean;
	/* Coefficients of variation; NAN where they cannot be measured. */
	double cv;	   /* of every value */
	double cv_within;  /* pooled within groups of two or more values */
	double cv_between; /* of the groups' means, two groups or more */
};

/* Sorts @obs by group. */
void stats__spread(struct stats_obs *obs, size_t n, struct stats_spread *out);

/* The median of the values of @v that are numbers (reordering @v);
 * NAN when none is. */
double stats__median_of_numbers(double *v, size_t n);

#endif /* IOMMU_BENCH_STATS_SPREAD_H */
