/* SPDX-License-Identifier: GPL-2.0-only */
/* Between the parts of the dma_map workload: the device's sysfs side. */
#ifndef IOMMU_BENCH_DMA_MAP_PRIV_H
#define IOMMU_BENCH_DMA_MAP_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/workload/dma-map.h"

/*
 * The buffer handed to the ioctl: the kernel copies in and out as many
 * bytes as its own struct has, which BTF may say is more than ours.
 */
#define DMA_MAP_BUF_SIZE 1024

/* @root, then the path @fmt makes: a new string. */
char *dma_map__path(const char *root, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The driver that holds PCI device @bdf now: 0 and a new name, or NULL
 * when it has none; -ENODEV (*@err "no PCI device X") when there is no
 * such device.
 */
int dma_map__driver_of(const char *root, const char *bdf, char **driver,
		       char **err);
/*
 * A device other than @bdf that the benchmark driver holds (it takes
 * one at a time: its debugfs file has one name): a new string, or NULL.
 */
char *dma_map__other_holder(const char *root, const char *bdf);

/* The journal, written whole or not at all; @driver may be NULL. */
int dma_map__journal_write(const char *root, const char *bdf,
			   const char *driver, char **err);
void dma_map__journal_remove(const char *root);

/*
 * Lend @bdf to the benchmark: out of @driver (when not NULL), its
 * driver_override set, bound. Give it back: out of the benchmark (if it
 * is there), driver_override cleared, bound to @driver again (if any).
 * Every step of the give-back is tried even after one failed; the first
 * failure is the answer.
 */
int dma_map__lend(const char *root, const char *bdf, const char *driver,
		  char **err);
int dma_map__give_back(const char *root, const char *bdf, const char *driver,
		       char **err);

/*
 * What the driver made of @bdf and still uses: an interface that is up,
 * a disk mounted, swapped on or held. -EBUSY and *@why, else 0.
 */
int dma_map__in_use(const char *root, const char *bdf, char **err);

/*
 * The benchmark's own count of operations, read by BPF as its threads
 * return (dma-map-loops.c). _read(): the total once all @threads have
 * returned, else -1.
 */
struct dma_map_loops;
int dma_map_loops__attach(struct dma_map_loops **out, char **err);
int64_t dma_map_loops__read(const struct dma_map_loops *c,
			    unsigned int threads);
void dma_map_loops__detach(struct dma_map_loops *c);

#endif /* IOMMU_BENCH_DMA_MAP_PRIV_H */
