/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Monotonic time, for deadlines, timeouts and durations. It never jumps
 * with the wall clock (NTP, a guest's first time sync after boot), so a
 * deadline taken from it holds. Signed, so that the time left before a
 * deadline may go negative. Dates, for the store, are time(2)'s.
 */
#ifndef IOMMU_BENCH_CLOCK_H
#define IOMMU_BENCH_CLOCK_H

#include <stdint.h>

int64_t mono_ms(void);
int64_t mono_ns(void);

#endif /* IOMMU_BENCH_CLOCK_H */
