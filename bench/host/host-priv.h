/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the transports share and nobody else needs: running short helper
 * commands (ip, ssh, scp) with their output captured for the error
 * message.
 */
#ifndef IOMMU_BENCH_HOST_PRIV_H
#define IOMMU_BENCH_HOST_PRIV_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "bench/host/host.h"
#include "strvec.h"

/*
 * Run @argv for at most @timeout_ms. 0 when it exited 0; otherwise a
 * negative errno, and *@err (when @err is non-NULL) says what went wrong
 * in words, its stderr's last line included. *@out gets stdout (may be
 * NULL). Exit status in *@status when non-NULL (-1: did not exit).
 */
int host__cmd(const char *const *argv, int timeout_ms, char **out, char **err,
	      int *status);

#endif /* IOMMU_BENCH_HOST_PRIV_H */
