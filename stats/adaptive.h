/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The adaptive rule of [run] until: the width a comparison's
 * Hodges-Lehmann interval is predicted to have, from the noise of the
 * values pooled (never from which cell each came from).
 */
#ifndef IOMMU_BENCH_STATS_ADAPTIVE_H
#define IOMMU_BENCH_STATS_ADAPTIVE_H

#include <stddef.h>

/* In percent of the ratio; INFINITY below two values a side, or where
 * a value is not positive. */
double adaptive__width_pct(const double *x, size_t nx, const double *y,
			   size_t ny);

#endif /* IOMMU_BENCH_STATS_ADAPTIVE_H */
