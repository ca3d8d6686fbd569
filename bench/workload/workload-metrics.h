/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A workload's metrics: where each stands in its results object, and
 * the name, unit and direction it is stored with. fio and iperf3 each
 * keep a table; one loop stores either, one lists either's names.
 */
#ifndef IOMMU_BENCH_WORKLOAD_METRICS_H
#define IOMMU_BENCH_WORKLOAD_METRICS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

struct strvec;

struct workload_metric {
	const char *key; /* in the results; "OBJ.KEY": KEY of object OBJ */
	const char *name;
	const char *unit;
	enum store_better better;
};

/* Each metric of @m with a finite value in @results, into the store. */
int workload_metrics__store(struct store *st, int64_t trial_id,
			    const json_t *results,
			    const struct workload_metric *m, size_t nr);
/* The names of @m, appended to @out. */
void workload_metrics__names(const struct workload_metric *m, size_t nr,
			     struct strvec *out);

#endif /* IOMMU_BENCH_WORKLOAD_METRICS_H */
