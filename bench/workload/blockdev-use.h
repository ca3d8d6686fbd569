/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Whether a block device holds something a tool running as root must not
 * take away: a mount, a swap area, a holder (RAID, LVM, dm), on the
 * device or one of its partitions. fio asks before it writes; dma_map
 * before it takes a disk's controller from its driver.
 */
#ifndef IOMMU_BENCH_BLOCKDEV_USE_H
#define IOMMU_BENCH_BLOCKDEV_USE_H

#include <stdbool.h>
#include <stddef.h>

/* "sda1" of "sda", "nvme0n1p2" of "nvme0n1": a partition's name. */
bool blockdev__is_partition_of(const char *part, const char *disk);

/*
 * Block device @name ("sda") under @root ("" for this machine) in use:
 * @err filled and returned; NULL when nothing holds it.
 */
const char *blockdev__in_use(const char *root, const char *name, char *why,
			     size_t size);

#endif /* IOMMU_BENCH_BLOCKDEV_USE_H */
