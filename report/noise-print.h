/* SPDX-License-Identifier: GPL-2.0-only */
/* compare --aa's outputs; the noise itself is analysis/noise.h. */
#ifndef IOMMU_BENCH_REPORT_NOISE_PRINT_H
#define IOMMU_BENCH_REPORT_NOISE_PRINT_H

#include <jansson.h>
#include <stdio.h>

#include "analysis/noise.h"

/* compare --aa's outputs (noise-print.c). */
void noise__print_text(const struct noise *n, FILE *fp);
json_t *noise__json(const struct noise *n);

#endif /* IOMMU_BENCH_REPORT_NOISE_PRINT_H */
