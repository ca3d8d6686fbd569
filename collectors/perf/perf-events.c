// SPDX-License-Identifier: GPL-2.0-only
/*
 * The events the counters know and the call-graph modes perf record
 * takes (perf-events.h). libperf takes event attributes, not perf's
 * event parser, so only the names listed here can be counted.
 */
#include <linux/perf_event.h>
#include <string.h>

#include "collectors/perf/perf-events.h"

#define SW(n, a, c, u)                                         \
	{                                                      \
		n, a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c, u \
	}
#define HW(n, a, c)                                                  \
	{                                                            \
		n, a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c, "count" \
	}

const struct perf_event_def perf_event_defs[] = {
	SW("cpu-clock", NULL, CPU_CLOCK, "ns"),
	SW("task-clock", NULL, TASK_CLOCK, "ns"),
	SW("context-switches", "cs", CONTEXT_SWITCHES, "count"),
	SW("cpu-migrations", "migrations", CPU_MIGRATIONS, "count"),
	SW("page-faults", "faults", PAGE_FAULTS, "count"),
	SW("major-faults", NULL, PAGE_FAULTS_MAJ, "count"),
	SW("minor-faults", NULL, PAGE_FAULTS_MIN, "count"),
	HW("cycles", "cpu-cycles", CPU_CYCLES),
	HW("instructions", NULL, INSTRUCTIONS),
	HW("cache-references", NULL, CACHE_REFERENCES),
	HW("cache-misses", NULL, CACHE_MISSES),
	HW("branch-instructions", "branches", BRANCH_INSTRUCTIONS),
	HW("branch-misses", NULL, BRANCH_MISSES),
	HW("bus-cycles", NULL, BUS_CYCLES),
	HW("stalled-cycles-frontend", "idle-cycles-frontend",
	   STALLED_CYCLES_FRONTEND),
	HW("stalled-cycles-backend", "idle-cycles-backend",
	   STALLED_CYCLES_BACKEND),
	HW("ref-cycles", NULL, REF_CPU_CYCLES),
	{ NULL },
};

const char *const perf_callgraph_names[] = { "none", "fp", "dwarf", "lbr",
					     NULL };

const struct perf_event_def *perf_event_def__find(const char *name)
{
	const struct perf_event_def *d;

	for (d = perf_event_defs; d->name; d++)
		if (!strcmp(d->name, name) ||
		    (d->alias && !strcmp(d->alias, name)))
			return d;
	return NULL;
}
