/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernels the controller holds, copied to the host that boots them
 * (bench/run/run-install.c), or installed there by its own dpkg
 * (bench/run/run-install-pkg.c).
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

/*
 * @path sent to @h's DIR/NAME.staging as @file with kernel.stage; its
 * sha256 (SHA256_HEX_SIZE) in @sha.
 */
int run_install__stage_file(struct run_host *h, const char *dir,
			    const char *name, const char *file,
			    const char *path, char *sha, char **err);

/*
 * An install's end: @ret's words in *@err said as the host's and the
 * kernel's, and a success that named no @image to boot made a failure.
 */
int run_install__said(const struct run_host *h, const struct matrix_kernel *k,
		      int ret, const char *image, char **err);

/*
 * run-install-pkg.c: Debian package @k installed on lab host @h by its
 * own dpkg (or found there), the paths of its image and initrd in /boot.
 */
int run_install__package(struct run_ctx *ctx, struct run_host *h,
			 const struct matrix_kernel *k, char **image,
			 char **initrd, char **err);
/*
 * At the run's end: with @remove, the packages it installed removed from
 * each host (rebooting back to the kernel it found first where one of
 * them runs), then the lists freed.
 */
void run_install__cleanup(struct run_ctx *ctx, bool remove);

#endif /* IOMMU_BENCH_RUN_INSTALL_H */
