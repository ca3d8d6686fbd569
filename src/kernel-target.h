/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a kernel build's "config" names: a make target that writes a
 * .config (defconfig, tinyconfig, NAME_defconfig...) or, failing that, a
 * file. The matrix model and the kernel builder both ask, and neither
 * should have to include the other to know.
 */
#ifndef IOMMU_BENCH_KERNEL_TARGET_H
#define IOMMU_BENCH_KERNEL_TARGET_H

#include <stdbool.h>

bool kernel_target__is_config(const char *config);

#endif /* IOMMU_BENCH_KERNEL_TARGET_H */
