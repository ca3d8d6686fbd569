/* SPDX-License-Identifier: GPL-2.0-only */
/* What the commands print for scripts, the same way everywhere. */
#ifndef IOMMU_BENCH_OUTPUT_H
#define IOMMU_BENCH_OUTPUT_H

#include <jansson.h>
#include <stdbool.h>

/*
 * @o on stdout, indented, keys in their order, reals to 6 significant
 * digits, and a newline; the reference is taken.
 */
void output__json(json_t *o);
/* A folder of ours: {"path": DIR} when @json, else the path alone. */
void output__path(const char *dir, bool json);

#endif /* IOMMU_BENCH_OUTPUT_H */
