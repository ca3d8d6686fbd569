/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * System-wide counting through libperf: one counter per event per CPU,
 * enabled for the workload window. An event this machine cannot count
 * (hardware counters in most VMs) is kept as unsupported with the
 * kernel's reason, never counted as zero.
 */
#ifndef IOMMU_BENCH_PERF_COUNTERS_H
#define IOMMU_BENCH_PERF_COUNTERS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct perf_counters;

/* The events counted when the configuration names none. */
extern const char *const perf_counters_default[];

/* Whether @name is an event this code knows (and its canonical name). */
const char *perf_counters__canonical(const char *name);
/* The known names, for error messages: "cpu-clock, task-clock, ...". */
const char *perf_counters__known(void);

/*
 * Whether @name can be counted system-wide on CPU 0 here; @err (may be
 * NULL) gets the kernel's reason when not.
 */
bool perf_counters__supported(const char *name, char **err);

/*
 * Open @names (canonical or alias) on @cpus (a CPU list, NULL: every
 * online CPU), disabled. Unsupported events are remembered, not fatal;
 * an unknown name is -EINVAL.
 */
int perf_counters__open(const char *const *names, size_t n, const char *cpus,
			struct perf_counters **out);
void perf_counters__enable(struct perf_counters *pc);
/* Disable and read every CPU's counts. */
int perf_counters__disable(struct perf_counters *pc);
/*
 * [{"name", "supported", "unit", "value", "multiplexed", "per_cpu":
 * [{"cpu", "value", "enabled_ns", "running_ns"}]} or {"name",
 * "supported": false, "error"}]
 */
json_t *perf_counters__json(const struct perf_counters *pc);
void perf_counters__close(struct perf_counters *pc);

#endif /* IOMMU_BENCH_PERF_COUNTERS_H */
