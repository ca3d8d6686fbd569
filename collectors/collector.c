// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <string.h>

#include "collectors/collector.h"
#include "log.h"

const struct collector_ops *const collector_kinds[] = {
	&bpf_collector_ops,
	&perf_collector_ops,
	&procstat_collector_ops,
	NULL,
};

const struct collector_ops *collector__find(const char *name)
{
	const struct collector_ops *const *k;

	for (k = collector_kinds; *k; k++)
		if (!strcmp((*k)->name, name))
			return *k;
	return NULL;
}

int collector__results(const struct collector *c, json_t *results, json_t **out)
{
	if (!results) {
		pr_err("%s: no results (not stopped, or it failed)",
		       c->ops->name);
		return -ENODATA;
	}
	*out = json_incref(results);
	return 0;
}
