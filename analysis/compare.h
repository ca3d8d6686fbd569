/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The benchstat-style table: a row per metric and group (workload, and
 * host, kernel or mode where they vary), a column per value of the axis
 * being compared (--by mode|kernel|host|run), each cell's median with its
 * confidence interval, and every column against the baseline column: the
 * Hodges-Lehmann ratio with the interval that inverts the Mann-Whitney
 * test, its p, and a verdict that knows whether the metric is better
 * higher or lower and never disagrees with the interval. Trials of
 * several runs pool into one cell unless the axis is the run.
 */
#ifndef IOMMU_BENCH_ANALYSIS_COMPARE_H
#define IOMMU_BENCH_ANALYSIS_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dataset.h"
#include "stats/stats.h"

struct cmp_opts {
	enum ds_dim by;
	const char *baseline; /* a value of @by; NULL: the first seen */
	double alpha; /* significance, 0.05; comparisons' intervals 1 - alpha */
	double conf;  /* confidence level of a cell's median, 0.95 */
	double cv_max; /* warn above this coefficient of variation */
};

#define CMP_OPTS_DEFAULT                                                   \
	{                                                                  \
		.by = DS_MODE, .alpha = 0.05, .conf = 0.95, .cv_max = 0.05 \
	}

enum cmp_verdict {
	CMP_NONE,	  /* not compared: the baseline itself, or missing */
	CMP_SAME,	  /* no significant difference */
	CMP_BETTER,	  /* significant, in the metric's good direction */
	CMP_WORSE,	  /* significant, in its bad direction */
	CMP_CHANGED,	  /* significant; the metric has no direction */
	CMP_INCONCLUSIVE, /* too few samples for any p below alpha */
};

const char *cmp__verdict_name(enum cmp_verdict v);

/* Warnings, as bits, for a cell or a comparison. */
#define CMP_WARN_FEW_CI (1u << 0)   /* too few samples for a median CI */
#define CMP_WARN_HIGH_CV (1u << 1)  /* CV above cv_max */
#define CMP_WARN_FEW_TEST (1u << 2) /* no p below alpha possible */

struct cmp_cell {
	bool present;
	/* Not present by design: a window metric of an untranslated cell. */
	bool unprotected;
	double *v; /* sorted */
	struct stats_summary s;
	unsigned int warn;
	/* Against the baseline column of the same row: */
	enum cmp_verdict verdict;
	struct stats_mw mw;	  /* the test, from @shift */
	struct stats_shift shift; /* Hodges-Lehmann, interval at 1 - alpha */
	/* exp of the shift's log ratio; NAN when a value is not positive */
	double ratio, ratio_lo, ratio_hi;
	/* percent, of the ratio, or of the shift over the baseline's median */
	double delta, delta_lo, delta_hi; /* NAN when unknown */
};

struct cmp_row {
	uint32_t metric;	  /* dataset metric index */
	uint32_t key[DS_NR_DIMS]; /* interned; the axis and run unused */
	struct cmp_cell *cells;	  /* one per column */
};

/* Per metric: geometric means across rows, and of the ratios. */
struct cmp_geomean {
	uint32_t metric;
	double *median; /* per column, over rows where every column is */
	double *ratio;	/* per column, over rows with a ratio */
	size_t rows;	/* rows in the median geomean */
};

struct cmp_table {
	const struct dataset *ds;
	struct cmp_opts o;
	uint32_t *cols; /* values of the axis, baseline first */
	size_t nr_cols;
	/* Dimensions besides the workload that vary and so name rows. */
	bool shown[DS_NR_DIMS];
	struct cmp_row *rows;
	size_t nr_rows;
	struct cmp_geomean *gm;
	size_t nr_gm;
	unsigned int warn; /* every warning anywhere, for footnotes */
};

/*
 * Build the table. -ENOENT when the dataset is empty; -EINVAL, with a
 * message listing the values there are, for a baseline not on the axis.
 */
int cmp__build(const struct dataset *ds, const struct cmp_opts *o,
	       struct cmp_table *t);
void cmp__release(struct cmp_table *t);

/* The row's name: its workload, then "dim=value" for each shown dim. */
char *cmp__row_label(const struct cmp_table *t, const struct cmp_row *row);

/* The comparison has a bounded interval to show (delta_lo, delta_hi). */
bool cmp__has_interval(const struct cmp_cell *c);

/*
 * Shared with regress: compare two sorted samples (x the baseline), the
 * interval and the verdict at significance @alpha.
 */
void cmp__compare(const struct cmp_opts *o, enum store_better better,
		  const struct cmp_cell *base, struct cmp_cell *c,
		  double alpha);
/* Summarize @v (sorted in place) into @c, with its warnings. */
void cmp__describe(const struct cmp_opts *o, double *v, size_t n,
		   struct cmp_cell *c);

/*
 * "GIVEN: no WHAT 'VALUE' here; did you mean ...?", or the list of
 * @names (NULL-terminated) there are. @given is what the user typed.
 */
void report_unknown_value(const char *given, const char *what,
			  const char *value, const char *const *names);

#endif /* IOMMU_BENCH_ANALYSIS_COMPARE_H */
