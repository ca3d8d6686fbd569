/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Trial metrics in memory, grouped for statistics: one series of values
 * per (run, host, kernel, mode, workload, label, metric). Loaded from the
 * store (measured trials that finished 'ok', warmups left out, as export
 * gives them) or from CSV files of label,value rows, so that numbers from
 * anywhere can be compared the same way.
 */
#ifndef IOMMU_BENCH_ANALYSIS_DATASET_H
#define IOMMU_BENCH_ANALYSIS_DATASET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keymap.h"
#include "rdb.h"
#include "store/store.h"

enum ds_dim {
	DS_RUN,
	DS_HOST,
	DS_KERNEL,
	DS_MODE,
	DS_WORKLOAD,
	DS_LABEL, /* CSV input's first column; "" for the store's */
	DS_NR_DIMS,
};

/* "run", "host" ... as --by and --only spell them. */
extern const char *const ds_dim_names[DS_NR_DIMS];
/* The dimension called @name, or -1. */
int ds__dim_parse(const char *name);

/* --only KEY=VALUE: a key given twice matches either value. */
#define DS_FILTER_METRIC DS_NR_DIMS

struct ds_filter {
	struct ds_filter_item {
		int key; /* a dimension, or DS_FILTER_METRIC */
		char *value;
	} * v;
	size_t nr, alloc;
};

/* Parse "mode=lazy"; -EINVAL with a message naming the bad part. */
int ds_filter__add(struct ds_filter *f, const char *arg);
/* True when no item has @key, or one has @key and @value. */
bool ds_filter__match(const struct ds_filter *f, int key, const char *value);
void ds_filter__release(struct ds_filter *f);

struct ds_metric {
	uint32_t name, unit; /* interned */
	enum store_better better;
};

struct ds_series {
	uint32_t dim[DS_NR_DIMS]; /* interned */
	uint32_t metric;	  /* index into dataset.metrics */
	double *v;
	size_t n, alloc;
};

struct dataset {
	struct intern str;
	struct ds_metric *metrics;
	size_t nr_metrics, alloc_metrics;
	struct keymap metric_map; /* (name, unit) -> metrics index */
	struct ds_series *series;
	size_t nr_series, alloc_series;
	struct keymap series_map; /* dims + metric -> series index */
	/* Trials left out: the mode in effect was not the one asked for. */
	size_t mode_mismatch;
	/*
	 * What the modes that ask nothing of the kernel ("current",
	 * "default") turned out to be, per host and kernel: the rows stay
	 * keyed by the mode asked for, so that a "default" of two kernels
	 * is compared, and this says what each one was.
	 */
	struct ds_effective {
		uint32_t host, kernel, mode; /* interned */
		uint32_t effective;	     /* "strict", "lazy, strict" */
	} * effective;
	size_t nr_effective, alloc_effective;
	/* (filter key, interned value) of everything the runs hold. */
	struct keymap seen;
	/*
	 * Cells whose exposure window was "unprotected" (no translation:
	 * passthrough), as dims: they have no window metrics, and saying
	 * "-" there would read as "not measured".
	 */
	uint32_t (*unprotected)[DS_NR_DIMS];
	size_t nr_unprotected, alloc_unprotected;
};

void dataset__init(struct dataset *ds);
/*
 * The index of @id in @ids (ascending, as the store's row ids are read
 * in order), or -1: runs selected, trials mapped to their cells.
 */
long ds__find_id(const int64_t *ids, size_t nr, int64_t id);
void dataset__release(struct dataset *ds);
const char *ds__str(const struct dataset *ds, uint32_t id);
/*
 * ds->effective[@i] in words: "default on kernel rfc: lazy" (the host
 * named too when the dataset has several). A new string.
 */
char *ds__effective_text(const struct dataset *ds, size_t i);

/*
 * Add the measured trials of the runs @runs (sorted ascending) that
 * pass @f. A trial whose verified mode is not the requested one is left
 * out and counted ("current" accepts whatever was found).
 */
int dataset__load_db(struct dataset *ds, struct rdb *r, const int64_t *runs,
		     size_t nr_runs, const struct ds_filter *f);

#define DS_RUN_TEXT 24 /* a run id as text */

/*
 * Row @s of a query of the runs whose columns 1 to 5 are a cell's run
 * id, host, kernel, mode and workload: its values in @val (@run holds
 * the run id as text), each remembered for dataset__check_filter();
 * false when @runs (sorted) has not the run or @f leaves the cell out.
 */
bool dataset__row_cell(struct dataset *ds, struct store_rows *s,
		       const int64_t *runs, size_t nr_runs,
		       const struct ds_filter *f, const char *val[DS_NR_DIMS],
		       char run[DS_RUN_TEXT]);

/*
 * After dataset__load_db(): -EINVAL, with "did you mean", when a --only
 * value names nothing in the selected runs: a typo must not read as
 * "no data".
 */
int dataset__check_filter(const struct dataset *ds, const struct ds_filter *f);

/*
 * Add a CSV file of "label,value" lines: the labels become DS_LABEL, the
 * file's name without ".csv" the workload, and a header line, when the
 * first line's value is not a number, names the metric ("value"
 * otherwise). '#' comments and blank lines are skipped; fields may be
 * quoted as in RFC 4180. -EINVAL with FILE:LINE and the offending text.
 */
int dataset__load_csv(struct dataset *ds, const char *path,
		      enum store_better better, const char *unit);

/* The exposure window's metrics: exposure_*, stale_max. */
bool ds__metric_is_exposure(const char *name);
/*
 * Is a cell at @dim (UINT32_MAX: any value) unprotected, for a window
 * metric @metric? Then it has no figure by design.
 */
bool dataset__unprotected(const struct dataset *ds,
			  const uint32_t dim[DS_NR_DIMS], const char *metric);
void dataset__mark_unprotected(struct dataset *ds,
			       const uint32_t dim[DS_NR_DIMS]);

/* The metric (name, unit), added with @better when new. */
uint32_t dataset__metric_id(struct dataset *ds, const char *name,
			    const char *unit, enum store_better better);
/* Add @value to the series (@dim, @metric). */
void dataset__add_value(struct dataset *ds, const uint32_t dim[DS_NR_DIMS],
			uint32_t metric, double value);
/* Add one value; for loaders and tests. */
void dataset__add(struct dataset *ds, const uint32_t dim[DS_NR_DIMS],
		  const char *metric, const char *unit,
		  enum store_better better, double value);

#endif /* IOMMU_BENCH_ANALYSIS_DATASET_H */
