/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernels the controller holds, copied to the host that kexecs into them
 * (bench/run/run-install.c).
 */
#ifndef IOMMU_BENCH_RUN_INSTALL_H
#define IOMMU_BENCH_RUN_INSTALL_H

#include <stdbool.h>

#include "bench/run/run.h"

/* Must @k be sent to @h before @h can boot it? */
bool run_install__needed(const struct run_host *h,
			 const struct matrix_kernel *k);
/*
 * Put @k on @h (or find it there from an earlier run): 0 with the host's
 * paths of its image and initrd (NULL: none) in *@image and *@initrd,
 * or a negative errno and *@err.
 */
int run_install__kernel(struct run_ctx *ctx, struct run_host *h,
			const struct matrix_kernel *k, char **image,
			char **initrd, char **err);

#endif /* IOMMU_BENCH_RUN_INSTALL_H */
