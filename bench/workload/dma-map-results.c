// SPDX-License-Identifier: GPL-2.0-only
/*
 * dma_map.run's answer into metrics. The kernel counts neither maps nor
 * bytes, only their mean time (in whole 100 ns), so no rate is stored:
 * threads over the mean would be a guess that ignores the loop's own
 * cost, and the probes' calls per GB have no bytes to divide by.
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
