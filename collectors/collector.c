// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "collectors/collector.h"

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
