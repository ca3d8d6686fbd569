/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The nightly gate. Pairwise: the candidate's trials against the
 * baseline's, per workload and metric, a regression being a change in
 * the metric's bad direction that is both significant (the
 * Hodges-Lehmann interval of the Mann-Whitney test excludes no change)
 * and at least the metric's threshold. Only the primary metrics
 * (throughput unless told otherwise) are gated, with Holm's correction
 * over them alone; the others are reported beside them. A gate whose
 * trials are too few to reach significance at any effect size says so
 * and fails, rather than pass for want of power. History: E-divisive
 * change points over each series of the last N runs, so that a
 * regression that later recovered is still reported, and one still in
 * effect fails.
 */
#ifndef IOMMU_BENCH_ANALYSIS_REGRESS_H
#define IOMMU_BENCH_ANALYSIS_REGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stats/changepoint.h"
#include "stats/power.h"
#include "compare.h"
#include "dataset.h"
#include "rdb.h"

/* A side of the comparison: a run, or a kernel's newest run. */
struct regress_sel {
	const char *arg; /* as given */
	int64_t run;
	const char *kernel; /* NULL: the whole run */
};

/*
 * Resolve "42", "latest", "previous", "run:42", "kernel:NAME" or a bare
 * kernel name. -EINVAL (a bad word) or -ENOENT (nothing by that name),
 * message printed, naming @opt.
 */
int regress_sel__resolve(struct rdb *r, const struct rdb_runs *runs,
			 const char *opt, const char *arg,
			 struct regress_sel *sel);

struct regress_threshold {
	const char *metric; /* NULL: the default */
	double pct;
};

struct regress_opts {
	struct cmp_opts cmp;
	struct regress_threshold *thresholds;
	size_t nr_thresholds;
	double default_pct;
	struct cp_opts cp;
	/*
	 * The metrics the gate judges; NULL: the candidate run's matrix
	 * ([regress] metrics), else REGRESS_DEFAULT_METRIC.
	 */
	const char *const *metrics;
	bool inconclusive_pass; /* a gate without power passes, warned */
};

#define REGRESS_DEFAULT_METRIC "throughput"
/* The threshold in percent for @metric. */
double regress__threshold(const struct regress_opts *o, const char *metric);

enum regress_status {
	REG_OK,
	REG_REGRESSION,
	REG_IMPROVEMENT,
	REG_INCONCLUSIVE, /* too few samples to tell */
	REG_MISSING,	  /* in the baseline, not measured in the candidate */
	REG_NEW,	  /* only in the candidate */
	REG_INFO,	  /* a metric without a direction: never judged */
	REG_PENDING,	  /* internal: tested, not yet judged */
};

const char *regress__status_name(enum regress_status s);

struct regress_item {
	uint32_t metric;      /* in the candidate's dataset; or -1 */
	uint32_t base_metric; /* in the baseline's; or -1 */
	/* Interned in the candidate's dataset; [DS_NR_DIMS] the metric. */
	uint32_t key[DS_NR_DIMS + 1];
	struct cmp_cell base, cand;
	enum store_better better;
	enum regress_status status;
	bool gated;   /* a primary metric: its regression fails the gate */
	double p_adj; /* Holm-adjusted across the gated tests */
	double alpha; /* the level its interval and verdict are taken at */
	double threshold;
};

struct json_t;

struct regress_result {
	struct regress_sel base, cand;
	/*
	 * The kernels of either side that were Debian packages, by name:
	 * [{name, baseline, candidate}], each side "PACKAGE VERSION" or
	 * absent.
	 */
	struct json_t *kernels;
	struct dataset bds, cds;
	bool keyed[DS_NR_DIMS]; /* the dims items are matched on */
	struct regress_item *items;
	size_t nr_items;
	size_t count[REG_PENDING + 1]; /* every item */
	size_t gated[REG_PENDING + 1]; /* the gated ones */
	char **metrics;		       /* the gated metrics' names */
	size_t nr_metrics;
	/* Gated and too few trials: the fewest a side, and what it needs. */
	size_t short_n, need_n;
	bool inconclusive_fails; /* not --inconclusive pass */
};

/* Whether @it fails the gate on its own. */
bool regress__item_fails(const struct regress_result *res,
			 const struct regress_item *it);

/* 0, or a negative errno with the reason printed. */
int regress__pairwise(struct rdb *r, const struct regress_opts *o,
		      const struct ds_filter *f, struct regress_result *res);
void regress__release(struct regress_result *res);
char *regress__item_label(const struct regress_result *res,
			  const struct regress_item *it);

/* ---- history ---- */

struct regress_cp {
	struct changepoint cp;
	int64_t run_before, run_after; /* the runs either side */
	enum regress_status status;    /* regression, improvement or ok */
	bool recovered; /* a regression whose loss the last runs undid */
};

struct regress_series {
	uint32_t metric;
	uint32_t key[DS_NR_DIMS];
	int64_t *runs; /* the runs that measured it, oldest first */
	double *median;
	size_t n;
	struct regress_cp *cps;
	size_t nr_cps;
	double threshold;
};

struct regress_history {
	struct dataset ds;
	int64_t *runs;
	size_t nr_runs;
	struct regress_series *series;
	size_t nr_series;
	size_t regressions, unrecovered, improvements;
};

int regress__history(struct rdb *r, const struct rdb_runs *runs, size_t last,
		     const struct regress_opts *o, const struct ds_filter *f,
		     struct regress_history *h);
void regress__history_release(struct regress_history *h);
char *regress__series_label(const struct regress_history *h,
			    const struct regress_series *s);

/* The package kernels of both sides (regress-kernels.c). */
int regress__kernels(struct rdb *r, struct regress_result *res);

#endif /* IOMMU_BENCH_ANALYSIS_REGRESS_H */
