/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where each mode's CPU goes per GB moved, and what a line rate costs in
 * cores (docs/cost.md). Every measured trial gives its busy CPU time per
 * GB (procstat's busy cores over iperf3's rate) and, per probed path,
 * calls per GB times the path's own time per call: the time inside it
 * less the time inside other probed paths that ran nested in it, so
 * that unmap, the IOTLB sync inside it and the driver's invalidation
 * inside that are each counted once. What no probe saw is the rest.
 * These per-trial figures become a dataset, so that the columns, the
 * medians and their intervals are compare's own; the differences
 * between columns are Hodges-Lehmann shifts in the figures' units.
 */
#ifndef IOMMU_BENCH_ANALYSIS_COST_H
#define IOMMU_BENCH_ANALYSIS_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compare.h"
#include "dataset.h"
#include "rdb.h"

/* The figures of a path, by place; a path row may lack some. */
enum cost_fig {
	COST_MS_PER_GB,	       /* its own CPU time per GB */
	COST_SHARE_PCT,	       /* of the busy CPU time per GB */
	COST_CALLS_PER_GB,     /* calls per GB moved */
	COST_NS_PER_CALL,      /* mean time per call, nested paths in */
	COST_SELF_NS_PER_CALL, /* mean time per call, nested paths out */
	COST_BPF_NS_PER_CALL,  /* the probe's own programs per call */
	/* dma_map trials: the benchmark's own mean time of a map, an unmap */
	COST_BENCH_NS_PER_CALL,
	/* Profile trials: the same path by both methods, in % of all CPU. */
	COST_PROBE_PCT,	   /* the probe's time less its programs' */
	COST_PROBE_LO_PCT, /* the same, the floor known to its spread */
	COST_PROBE_HI_PCT,
	COST_PROFILE_PCT,    /* perf's samples in the path's functions */
	COST_PROFILE_LO_PCT, /* their Wilson 95% interval */
	COST_PROFILE_HI_PCT,
	COST_NR_FIGS,
};

extern const char *const cost_fig_names[COST_NR_FIGS];

/* The path names that are not probes. */
#define COST_UNPROBED "unprobed" /* busy CPU no probe saw */
#define COST_PROBES "probes"	 /* the probes' own BPF run time */

struct cost_path {
	uint32_t name;		   /* interned: a probe, or the above */
	int64_t row[COST_NR_FIGS]; /* index into the table's rows; -1 */
};

struct cost_group {
	const struct cmp_row *key;  /* the group's first row: its dims */
	int64_t cpu, gbit_per_core; /* rows; -1 when missing */
	struct cost_path *paths;    /* probe order, then the rest */
	size_t nr_paths;
};

struct cost_load {
	size_t trials;	  /* measured trials read */
	size_t no_cpu;	  /* of which without busy CPU or throughput */
	size_t no_self;	  /* with a probe whose own time was not stored */
	size_t no_window; /* no bytes: GB from the rate over the window */
	size_t profiles;  /* profile trials with probes and samples */
	size_t bench;	  /* dma_map trials: the benchmark's own times */
};

struct cost_table {
	struct dataset ds;
	struct cmp_table t;
	struct cost_group *groups;
	size_t nr_groups;
	double *at_gbit; /* line rates for the cores needed */
	size_t nr_at;
	struct cost_load load;
};

/*
 * Read the measured trials of @runs (sorted) that pass @f into
 * @ds as per-trial cost figures, named "PATH/FIGURE" ("cpu_ms_per_gb"
 * and "gbit_per_core" for the trial itself). 0 or a negative errno.
 */
int cost__load(struct dataset *ds, struct rdb *r, const int64_t *runs,
	       size_t nr_runs, const struct ds_filter *f,
	       struct cost_load *info);

/*
 * Group @ct->ds (loaded) by everything but the axis: -ENOENT when it
 * holds nothing, -EINVAL for a baseline not on the axis.
 */
int cost__build(struct cost_table *ct, const struct cmp_opts *o);
void cost__release(struct cost_table *ct);

/* The cell of @g's @path (COST_UNPROBED...) figure @fig in column @col. */
const struct cmp_cell *cost__cell(const struct cost_table *ct,
				  const struct cost_group *g, int64_t row,
				  size_t col);

/*
 * Column @col against the baseline (column 0) in the figure's own units:
 * the shift of the medians, its interval at 1 - alpha and p. False when
 * either side has no values.
 */
struct cost_diff {
	double diff, lo, hi, p;
	size_t nx, ny;
};
bool cost__diff(const struct cost_table *ct, int64_t row, size_t col,
		struct cost_diff *d);

/* Has any of @g's paths a share from the profile trials? */
bool cost__profiled(const struct cost_group *g);

/* Cores a line rate of @gbit Gbit/s costs at @cpu_ms_per_gb. */
double cost__cores(double cpu_ms_per_gb, double gbit);

/*
 * Do the two methods agree on @g's @path in column @col: does the
 * probes' share, an interval as wide as the floor's spread makes it,
 * meet the interval of perf's samples? -1: not both there.
 */
int cost__agree(const struct cost_table *ct, const struct cost_path *p,
		size_t col);

#endif /* IOMMU_BENCH_ANALYSIS_COST_H */
