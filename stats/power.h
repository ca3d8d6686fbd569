/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Power of a gate of Mann-Whitney comparisons under Holm's correction:
 * what plan prints before a trial runs, what regress asks for when its
 * verdict is inconclusive, and the significance bisect judges at.
 */
#ifndef IOMMU_BENCH_STATS_POWER_H
#define IOMMU_BENCH_STATS_POWER_H

#include <stdbool.h>
#include <stddef.h>

/* The significance of the gate, plan and bisect unless --alpha says. */
#define STATS_ALPHA 0.05

/*
 * The fewest trials a side (both sides alike) with which @m gated
 * comparisons can reach significance at @alpha after Holm's correction,
 * however large the change: 2 / C(2n, n) < alpha / m.
 */
size_t stats__min_trials(size_t m, double alpha);

/* What a gate can detect before it runs. */
struct stats_power {
	size_t comparisons, trials; /* m gated comparisons, n a side */
	double min_p;		    /* the smallest p n a side can reach */
	double first_alpha;	    /* what Holm's first step asks: alpha / m */
	bool can_detect;	    /* min_p < first_alpha */
	size_t trials_needed;	    /* the fewest a side that can */
	/* The shift detected 8 times in 10, in standard deviations of a
	 * trial (normal noise); NAN when nothing can be detected. */
	double smallest_sd;
};

void stats__power(size_t m, size_t n, double alpha, struct stats_power *pw);

#endif /* IOMMU_BENCH_STATS_POWER_H */
