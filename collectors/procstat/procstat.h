/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The procstat collector's own API, beside its ops table
 * (procstat_collector_ops in collector.h): efficiency needs the
 * throughput, which only the orchestrator has once iperf3 is done.
 */
#ifndef IOMMU_BENCH_PROCSTAT_H
#define IOMMU_BENCH_PROCSTAT_H

#include <jansson.h>
#include <stdint.h>

struct store;

/* Gbit/s per busy core; NAN when @busy_cores is not positive. */
double procstat__efficiency(double gbit_s, double busy_cores);

/* busy_cores of procstat results; NAN when absent. */
double procstat__busy_cores(const json_t *results);

/*
 * Store `gbit_per_core` for @trial_id from iperf3's @throughput_bps and
 * procstat's @results. Nothing (0) when either is missing or zero.
 */
/* The metrics the collector stores, appended to @out. */
struct strvec;
void procstat__metric_names(struct strvec *out);
int procstat__store_efficiency(struct store *st, int64_t trial_id,
			       double throughput_bps, const json_t *results);

#endif /* IOMMU_BENCH_PROCSTAT_H */
