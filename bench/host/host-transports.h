/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every transport the tool has (host-transports.c): what the matrix
 * reads of each, handed to it before a matrix is loaded. Each is
 * defined in its own folder (bench/host/NAME/NAME-keys.c); the root
 * names them here, as host.h names their host_ops, without including
 * any of their folders.
 */
#ifndef IOMMU_BENCH_HOST_TRANSPORTS_H
#define IOMMU_BENCH_HOST_TRANSPORTS_H

#include "bench/matrix/matrix.h"

extern const struct matrix_transport local_transport;
extern const struct matrix_transport netns_transport;
extern const struct matrix_transport ssh_transport;
extern const struct matrix_transport qemu_transport;
extern const struct matrix_transport lava_transport;

/* matrix__set_transports() with the table; once, before any load. */
void host_transports__set(void);

#endif /* IOMMU_BENCH_HOST_TRANSPORTS_H */
