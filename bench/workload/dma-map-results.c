// SPDX-License-Identifier: GPL-2.0-only
/*
 * dma_map.run's answer into metrics: the kernel's mean times (in whole
 * 100 ns), and its count of operations where the agent could read it
 * (BPF on the benchmark's threads): a rate from that count, never from
 * threads over the mean, which would ignore the loop's own cost.
 */
#include <errno.h>

#include "bench/workload/dma-map.h"
#include "bench/workload/workload-metrics.h"
#include "util.h"

static const struct workload_metric metrics[] = {
	{ "map_ns", "map_ns", "ns", STORE_BETTER_LOWER },
	{ "unmap_ns", "unmap_ns", "ns", STORE_BETTER_LOWER },
	{ "map_ns_stddev", "map_ns_stddev", "ns", STORE_BETTER_NONE },
	{ "unmap_ns_stddev", "unmap_ns_stddev", "ns", STORE_BETTER_NONE },
	{ "operations", "operations", "maps", STORE_BETTER_NONE },
	{ "ops_per_s", "ops_per_s", "maps/s", STORE_BETTER_HIGHER },
};

void dma_map__metric_names(struct strvec *out)
{
	workload_metrics__names(metrics, ARRAY_SIZE(metrics), out);
}

int dma_map__store(struct store *st, int64_t trial_id, const json_t *results)
{
	/* An answer without its means measured nothing. */
	if (!json_is_integer(json_object_get(results, "map_ns")) ||
	    !json_is_integer(json_object_get(results, "unmap_ns")))
		return -EINVAL;
	return workload_metrics__store(st, trial_id, results, metrics,
				       ARRAY_SIZE(metrics));
}
