/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The perf collector's tables as plain data: the events its counters
 * know, the call-graph modes and the sampling frequencies perf record
 * takes. The matrix checks [collect.perf] against them without linking
 * libperf; the collector counts and records with them.
 */
#ifndef IOMMU_BENCH_PERF_EVENTS_H
#define IOMMU_BENCH_PERF_EVENTS_H

#include <stdint.h>

#define PERF_DEFAULT_FREQ 999
#define PERF_MIN_FREQ 1
#define PERF_MAX_FREQ 100000

struct perf_event_def {
	const char *name;
	const char *alias; /* perf's other name for it; NULL: none */
	uint32_t type;	   /* perf_event_attr.type and .config */
	uint64_t config;
	const char *unit;
};

/* NULL-terminated, in the order errors list them. */
extern const struct perf_event_def perf_event_defs[];
/* By name or alias; NULL when unknown. */
const struct perf_event_def *perf_event_def__find(const char *name);

/* none, fp, dwarf, lbr; NULL-terminated. */
extern const char *const perf_callgraph_names[];

#endif /* IOMMU_BENCH_PERF_EVENTS_H */
