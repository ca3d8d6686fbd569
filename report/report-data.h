/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the HTML report shows besides the statistics: per cell the
 * trials and the modes verified, the boots with their command lines and
 * host facts, probe counts and latency histograms, perf profiles, a few
 * trials' interval series, failures, and the matrix files. Read with
 * report/'s own prepared statements, aggregated across the selected
 * runs by the report's axis (mode, kernel, host or run).
 */
#ifndef IOMMU_BENCH_REPORT_DATA_H
#define IOMMU_BENCH_REPORT_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/dataset.h"
#include "analysis/keymap.h"
#include "analysis/rdb.h"

#define RD_HIST_MAX 64

/* A matrix cell across the selected runs: host, kernel, mode, workload. */
struct rd_cell {
	uint32_t host, kernel, mode, workload, axis; /* interned */
	size_t runs, ok, failed, other, mismatched;
	uint32_t effective; /* "lazy, strict": the modes verified */
	uint32_t releases;  /* kernel releases booted */
	/* Throughput's median, measured and in profile trials; NAN: none. */
	double tp_measured, tp_profile;
	uint32_t tp_unit;
	size_t profile_trials;
};

/* Trials of one kind that ran with one set of collectors. */
struct rd_carried {
	bool profile;	     /* profile trials, outside the statistics */
	bool records;	     /* perf record was on */
	uint32_t collectors; /* in words, interned */
	size_t trials;
};

struct rd_boot {
	uint32_t host, release, build_id, cmdline, modes; /* interned */
	char *facts; /* of the newest boot of this kind; NULL: none */
	size_t boots, trials;
};

struct rd_probe {
	uint32_t axis, name;
	/*
	 * One workload's trials, or (false) every workload of the column:
	 * calls per GB mean something only within one workload, the plots
	 * and latency histograms sum over them.
	 */
	bool per_workload;
	uint32_t workload;
	uint32_t attach; /* "fentry iommu_dma_unmap_page, ..." */
	uint64_t calls, total_ns;
	uint64_t hist[RD_HIST_MAX];
	double bytes; /* transferred in the trials it counted */
	size_t trials, trials_bytes;
};

struct rd_symbol {
	uint32_t axis, workload, symbol, dso;
	double overhead_sum; /* over the group's profiled trials */
};

struct rd_profiled {
	uint32_t axis, workload;
	size_t trials;	 /* with a profile */
	uint32_t events; /* the events sampled */
};

struct rd_series {
	uint32_t axis, workload;
	int64_t trial;
	double *t, *v;
	size_t n;
};

struct rd_failure {
	int64_t trial, run;
	uint32_t cell; /* index into cells */
	uint32_t status, error;
};

struct rd_config {
	int64_t first_run, last_run;
	size_t runs;
	char *sha256, *text;
};

struct report_data {
	struct intern str;
	enum ds_dim axis;
	struct rd_cell *cells;
	size_t nr_cells;
	struct rd_boot *boots;
	size_t nr_boots;
	struct rd_probe *probes;
	size_t nr_probes;
	struct rd_symbol *symbols;
	size_t nr_symbols;
	struct rd_profiled *profiled;
	size_t nr_profiled;
	struct rd_series *series;
	size_t nr_series;
	struct rd_failure *failures;
	size_t nr_failures, total_failures;
	struct rd_config *configs;
	size_t nr_configs;
	struct rd_carried *carried; /* measured ones first */
	size_t nr_carried;
};

/*
 * Read it all for runs @runs (sorted) that pass @f, keeping at most
 * @per_cell interval series per axis value and workload.
 */
int report_data__load(struct report_data *d, struct rdb *r, const int64_t *runs,
		      size_t nr_runs, const struct ds_filter *f,
		      enum ds_dim axis, size_t per_cell);
void report_data__release(struct report_data *d);
const char *rd__str(const struct report_data *d, uint32_t id);

#endif /* IOMMU_BENCH_REPORT_DATA_H */
