/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The procstat collector's sampling interval, as plain numbers: the
 * matrix checks [collect.procstat] against the limits the collector
 * enforces on the host, without linking any of it.
 */
#ifndef IOMMU_BENCH_PROCSTAT_LIMITS_H
#define IOMMU_BENCH_PROCSTAT_LIMITS_H

#define PROCSTAT_DEFAULT_INTERVAL_MS 1000
/* Below this, reading /proc costs more than what it measures. */
#define PROCSTAT_MIN_INTERVAL_MS 10
#define PROCSTAT_MAX_INTERVAL_MS (3600 * 1000)

#endif /* IOMMU_BENCH_PROCSTAT_LIMITS_H */
