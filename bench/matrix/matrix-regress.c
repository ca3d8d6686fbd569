// SPDX-License-Identifier: GPL-2.0-only
/*
 * [regress]: what the nightly gate judges this matrix's runs on. regress
 * reads it back from the run's stored matrix, so a CI job's gate follows
 * the file it ran rather than flags repeated in a script.
 */
#include <stdlib.h>
#include <string.h>

#include "matrix-priv.h"
#include "util.h"

void matrix_regress__release(struct matrix_regress *r)
{
	strv_free(r->metrics, r->nr_metrics);
	memset(r, 0, sizeof(*r));
}

const char *const *matrix__gate_metrics(const struct matrix *m, size_t *nr)
{
	static const char *const rate[] = { "throughput", NULL };
	static const char *const times[] = { "map_ns", "unmap_ns", NULL };
	static const char *const both[] = { "throughput", "map_ns", "unmap_ns",
					    NULL };
	const char *const *v;
	bool has_rate = false, has_times = false;
	size_t i;

	if (m->regress.nr_metrics) {
		*nr = m->regress.nr_metrics;
		return (const char *const *)m->regress.metrics;
	}
	for (i = 0; i < m->nr_workloads; i++) {
		if (m->workloads[i].type == WORKLOAD_DMA_MAP)
			has_times = true;
		else
			has_rate = true;
	}
	v = !has_times ? rate : has_rate ? both : times;
	for (*nr = 0; v[*nr]; (*nr)++)
		;
	return v;
}

void matrix__parse_regress(struct mx *mx, const struct toml_value *tab)
{
	static const char *const keys[] = { "metrics", NULL };
	struct matrix_regress *r = &mx->m->regress;
	const struct toml_value *v;

	if (!tab || !mx_is(mx, tab, TOML_TABLE, "regress"))
		return;
	mx_check_keys(mx, tab, keys, "[regress]");
	if (mx_strings(mx, tab, "metrics", MX_NAME, &r->metrics,
		       &r->nr_metrics) > 0 &&
	    !r->nr_metrics) {
		v = toml_table__get(tab, "metrics");
		mx_err(mx, v->pos,
		       "metrics: the list is empty; leave it out for the "
		       "default (throughput)");
	}
}
