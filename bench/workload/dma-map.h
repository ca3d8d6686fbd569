/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's own DMA map micro-benchmark (kernel/dma/map_benchmark.c,
 * CONFIG_DMA_MAP_BENCHMARK=y, built in only) as a workload: a PCI device
 * is lent to the "dma_map_benchmark" driver (driver_override, then bind),
 * whose probe makes /sys/kernel/debug/dma_map_benchmark; one ioctl on it
 * runs @threads kthreads for @seconds, each mapping and unmapping a
 * buffer of @granule pages through the device's DMA ops (the IOMMU's, if
 * it has one), and answers the mean and standard deviation of the map
 * and unmap times. Then the device goes back to its driver.
 *
 * The kernel measures in whole units of 100 ns (each sample truncated):
 * a map faster than 100 ns, as without an IOMMU, reads 0.
 *
 * Every function returns 0 or a negative errno with its words in *@why
 * (a new string). @root prefixes /sys, /proc, /boot and /run: "" for
 * this machine, a scratch tree shaped like / in tests
 * (IOMMU_BENCH_SYSFS_ROOT for the agent).
 */
#ifndef IOMMU_BENCH_DMA_MAP_H
#define IOMMU_BENCH_DMA_MAP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dma-map-opts.h"

struct btf;

#define DMA_MAP_DRIVER "dma_map_benchmark"
#define DMA_MAP_DEBUGFS "/sys/kernel/debug/dma_map_benchmark"
/*
 * Which device is lent, and to whom it goes back, while it is lent: a
 * run killed with the device still lent is given back from here by the
 * next run or the agent's next start. /run goes with a reboot, as does
 * the lending.
 */
#define DMA_MAP_JOURNAL "/run/iommu-bench/dma-map-lent.json"

/*
 * The ioctl's argument, as 5.11 made it and 23ee8a2563a0 ("Restore
 * padding to ensure uABI remained consistent", 2025, in the 6.1, 6.6 and
 * 6.12 stable series too) made it again: 136 bytes. Between 5.18
 * (8ddde07a3d28 moved it to include/linux/map_benchmark.h and lost the
 * padding) and that fix it is 64 bytes, every member where it is here.
 * The size is part of the ioctl's number, so it must be the running
 * kernel's: dma_map__layout() finds which.
 */
struct map_benchmark {
	uint64_t avg_map_100ns; /* mean map time, in 100 ns */
	uint64_t map_stddev;	/* its standard deviation, in 100 ns */
	uint64_t avg_unmap_100ns;
	uint64_t unmap_stddev;
	uint32_t threads;
	uint32_t seconds;
	int32_t node;
	uint32_t dma_bits;
	uint32_t dma_dir;
	uint32_t dma_trans_ns;
	uint32_t granule; /* pages per map */
	uint8_t expansion[76];
};

#define DMA_MAP_STRUCT_SIZE 136
/* Without the padding (5.18 up to the fix). */
#define DMA_MAP_STRUCT_SIZE_UNPADDED 64

struct dma_map_opts {
	const char *device; /* a PCI address, DDDD:BB:DD.F */
	/* May the device be taken from the driver that holds it? */
	bool unbind;
	unsigned int threads, seconds, granule, dma_bits, trans_ns;
	int node; /* DMA_MAP_NO_NODE: anywhere */
	enum dma_map_dir dir;
};

/*
 * The kernel side, so that tests can be the kernel: run the benchmark
 * on the open debugfs file @fd with @mb as a struct of @size bytes
 * (which makes the ioctl's number). @mb has room for the largest size
 * dma_map__layout() accepts. 0 or -errno; *@ops the maps (each with its
 * unmap) the benchmark counted, -1 when unknown, and *@ops_why why (a
 * new string) when so.
 */
struct dma_map_ops {
	int (*run)(int fd, size_t size, struct map_benchmark *mb, int64_t *ops,
		   char **ops_why);
};

/* The ioctl itself. */
extern const struct dma_map_ops dma_map_kernel_ops;

/* Which struct map_benchmark the kernel takes, and how that is known. */
struct dma_map_layout {
	size_t size;
	bool btf; /* read from the kernel's BTF; else assumed */
	/* assumed: why BTF could not say (a new string); else NULL */
	char *note;
};

/* Every option within the kernel's bounds; *@err names value and range. */
int dma_map__check_opts(const struct dma_map_opts *o, char **err);
/* Is @node NUMA_NO_NODE or one of @root's possible nodes? */
int dma_map__check_node(const char *root, int node, char **err);

/*
 * Can this kernel run the benchmark: debugfs on /sys/kernel/debug
 * (mounted here if it is not, for the real root only) and the
 * dma_map_benchmark driver registered. -EOPNOTSUPP with the reason: the
 * kernel's config (/boot/config-RELEASE or /proc/config.gz) when it
 * says CONFIG_DMA_MAP_BENCHMARK is not set.
 */
int dma_map__available(const char *root, char **err);

/*
 * The running kernel's struct map_benchmark from its BTF @btf: each
 * member this tool uses at our offset and size, the struct at least as
 * long as them. 0 and @l->size; -ENOENT when @btf has no such struct;
 * -EPROTO, naming the member, when one differs.
 */
int dma_map__layout_btf(const struct btf *btf, struct dma_map_layout *l,
			char **err);
/*
 * The same from the running kernel's BTF (@root's
 * /sys/kernel/btf/vmlinux for a scratch tree); without BTF, or without
 * the struct in it (only a kernel built with DEBUG_INFO_BTF and the
 * benchmark has it), our struct is assumed: @l->btf false, @l->note why.
 * Release @l with dma_map__layout_release().
 */
int dma_map__layout(const char *root, struct dma_map_layout *l, char **err);
void dma_map__layout_release(struct dma_map_layout *l);

/*
 * Give back what the journal names, lent by a run that did not finish:
 * out of dma_map_benchmark, driver_override cleared, rebound to its
 * driver. 0 and *@done NULL when there was nothing; 0 and *@done saying
 * what was given back; -errno when it could not be (the journal stays).
 */
int dma_map__restore_lent(const char *root, char **done, char **err);

/*
 * Would dma_map__run() lend @device, as things are now: it exists, and
 * its driver (in *@driver, a new string or NULL) may be unbound and
 * uses nothing the host needs. 0, or -errno and *@why. What a run asks
 * a host before any boot, so that a typo or a held device fails the run
 * there and not at its first trial.
 */
int dma_map__check_device(const char *root, const char *device, bool unbind,
			  char **driver, char **err);

/*
 * The whole run: the options checked, what an earlier run left lent
 * given back, the kernel checked, the layout found, the device lent
 * (the journal written first), the benchmark run, the device given back
 * (also when the benchmark failed), the journal removed. *@result:
 * {"map_ns", "map_ns_stddev", "unmap_ns", "unmap_ns_stddev" (ns),
 * "threads", "seconds", "granule", "dir", "dma_bits", "trans_ns",
 * "node", "device", "driver_before" (a name or null), "lent" (false when
 * the device was already dma_map_benchmark's), "layout" ("btf" or
 * "assumed"), "layout_note" (why assumed, or null), "struct_size",
 * "elapsed_ms", "restored" (what an earlier, killed run had left lent
 * and this run gave back first, in words; or null)}.
 */
int dma_map__run(const struct dma_map_opts *o, const struct dma_map_ops *ops,
		 const char *root, json_t **result, char **err);

/*
 * The controller's side: dma_map__run()'s result as metrics of
 * @trial_id (map_ns, unmap_ns and their standard deviations, in ns).
 * -EINVAL when it has no means.
 */
struct store;
struct strvec;
int dma_map__store(struct store *st, int64_t trial_id, const json_t *results);
/* The metrics dma_map__store() can store, appended to @out. */
void dma_map__metric_names(struct strvec *out);

#endif /* IOMMU_BENCH_DMA_MAP_H */
