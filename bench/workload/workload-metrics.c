// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <string.h>

#include "bench/workload/workload-metrics.h"
#include "json-util.h"
#include "strvec.h"

/* "udp.lost_pct" is lost_pct of results.udp; a plain key, of results. */
static double metric_value(const json_t *results, const char *key)
{
	const char *dot = strchr(key, '.');
	char obj[32];

	if (!dot)
		return json_number_or_nan(results, key);
	if ((size_t)(dot - key) >= sizeof(obj))
		return NAN;
	memcpy(obj, key, dot - key);
	obj[dot - key] = '\0';
	return json_number_or_nan(json_object_get(results, obj), dot + 1);
}

int workload_metrics__store(struct store *st, int64_t trial_id,
			    const json_t *results,
			    const struct workload_metric *m, size_t nr)
{
	size_t i;
	int err;

	for (i = 0; i < nr; i++) {
		double v = metric_value(results, m[i].key);

		if (!isfinite(v))
			continue;
		err = store__metric_add(st, trial_id, m[i].name, v, m[i].unit,
					m[i].better, NULL);
		if (err)
			return err;
	}
	return 0;
}

void workload_metrics__names(const struct workload_metric *m, size_t nr,
			     struct strvec *out)
{
	size_t i;

	for (i = 0; i < nr; i++)
		strvec__push(out, m[i].name);
}
