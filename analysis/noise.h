/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The noise floor of a run, as a result of its own: per cell, how much
 * a metric varies between trials of one boot and between boots, and an
 * A/A comparison of the cell with itself (its odd repetitions against
 * its even ones, interleaved so that a drift falls on both halves).
 * A reader tells a 10% effect from a 10% noise by putting the two side
 * by side; a cell whose A/A comparison is significant has noise that is
 * not independent from trial to trial (a drift, a bimodal host).
 *
 * Computed from the trials and their boots as stored, so it always
 * agrees with them (after a resume or a merge too).
 */
#ifndef IOMMU_BENCH_ANALYSIS_NOISE_H
#define IOMMU_BENCH_ANALYSIS_NOISE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compare.h"
#include "dataset.h"
#include "rdb.h"

struct noise_cell {
	char *host, *kernel, *mode, *workload;
	size_t n;	    /* measured trials */
	size_t boots;	    /* boots they ran on */
	size_t boots_multi; /* boots that ran two or more of them */
	double mean;
	/* Coefficients of variation; NAN where they cannot be measured. */
	double cv;	   /* of every trial */
	double cv_within;  /* pooled within boots of two or more trials */
	double cv_between; /* of the boots' means, two boots or more */
	/* The A/A comparison: even repetitions against odd ones. */
	struct cmp_cell odd, even;
};

struct noise {
	char *metric, *unit;
	struct noise_cell *cells;
	size_t nr;
	/* Per host, the median over its cells; NAN where none measured. */
	struct noise_host {
		char *host;
		double cv, cv_within, cv_between;
	} * hosts;
	size_t nr_hosts;
};

/*
 * @metric's noise over @runs (pooled), the cells @f keeps. 0, or a
 * negative errno with the reason printed; no trial is not an error.
 */
int noise__load(struct rdb *r, const int64_t *runs, size_t nr_runs,
		const char *metric, const struct ds_filter *f,
		const struct cmp_opts *o, struct noise *out);
void noise__release(struct noise *n);

#endif /* IOMMU_BENCH_ANALYSIS_NOISE_H */
