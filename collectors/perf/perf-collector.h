/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside the perf collector (perf_collector_ops in collector.h): its
 * configuration, the matrix's [collect.perf] table as JSON, and the
 * store half. Results and metric names: docs/collectors.md.
 */
#ifndef IOMMU_BENCH_PERF_COLLECTOR_H
#define IOMMU_BENCH_PERF_COLLECTOR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/perf/perf-events.h"

struct store;

#define PERF_DEFAULT_PERCENT_LIMIT 0.01

struct perf_config {
	bool record;	   /* run perf record (counters run regardless) */
	char *event;	   /* NULL: cycles where countable, else cpu-clock */
	unsigned int freq; /* -F */
	char *callgraph;   /* none, fp, dwarf, lbr */
	char *cpus;	   /* -C list; NULL: every CPU */
	char **counters;   /* canonical names; the default set if none */
	size_t nr_counters;
	double percent_limit; /* profile rows below it are left out */
	/*
	 * false ("report": "controller"): perf report runs where the
	 * results are stored, not here; perf.data and this kernel's
	 * kallsyms go there as artifacts. A TCG guest takes tens of
	 * seconds per perf process that the controller takes in one.
	 */
	bool report_here;
};

/*
 * Keys: enabled, record, event, frequency, callgraph, counters (array
 * of names), cpus ("0-3,8"), percent_limit. An unknown key or a bad
 * value is -EINVAL with a message naming it and what was expected.
 */
int perf_config__parse(const json_t *cfg, struct perf_config *out);
void perf_config__release(struct perf_config *cfg);

/*
 * On the controller, for results whose report was left to it: perf
 * evlist and report of the fetched perf.data with the host's kallsyms,
 * the profile filled into @results. 0 when there was nothing to do;
 * otherwise a negative errno and, where @err is given, what went wrong.
 */
int perf_collector__report_deferred(json_t *results, char **err);

/* The ops table's store(): profile rows, metrics, perf.data. */
int perf_collector__store(struct store *st, int64_t trial_id,
			  const json_t *results);

#endif /* IOMMU_BENCH_PERF_COLLECTOR_H */
