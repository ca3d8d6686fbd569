/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The DMA map benchmark's options as the kernel bounds them, and its
 * words for them: shared by the matrix, which refuses a bad value where
 * it is written, and the agent, which checks again what it is sent
 * (bench/workload/dma-map.h).
 */
#ifndef IOMMU_BENCH_DMA_MAP_OPTS_H
#define IOMMU_BENCH_DMA_MAP_OPTS_H

/*
 * The kernel's bounds (map_benchmark_ioctl()): threads and seconds from
 * DMA_MAP_MAX_THREADS and DMA_MAP_MAX_SECONDS, the delay from
 * DMA_MAP_MAX_TRANS_DELAY (10 * NSEC_PER_MSEC, inclusive), the granule
 * as it tests it. The kernel does not bound dma_bits: DMA_BIT_MASK() of
 * more than 64 is undefined and a mask under 1 MiB can hold no buffer,
 * so the selftest's 20..64 (tools/testing/selftests/dma). A node is
 * NUMA_NO_NODE or a possible node below MAX_NUMNODES, which is at most
 * 1 << 10 (NODES_SHIFT's largest); which nodes are possible is the
 * host's /sys/devices/system/node/possible.
 */
/*
 * The testbed's spare device for it ([hosts.X.qemu] spare: QEMU's edu,
 * which no driver claims, or a virtio function virtio-pci holds), on
 * the root bus behind the vIOMMU, at a slot of its own that QEMU's
 * automatic placement of the other devices (slots 1 up) never reaches.
 */
#define DMA_MAP_QEMU_SPARE_SLOT 0x10
#define DMA_MAP_QEMU_SPARE_BDF "0000:00:10.0"

/*
 * What a kernel without the benchmark is told, by the agent that finds
 * it running and by the run that finds it in a build's or a package's
 * config before booting it.
 */
#define DMA_MAP_CONFIG "CONFIG_DMA_MAP_BENCHMARK"
#define DMA_MAP_NOT_BUILT                                                 \
	"this kernel has no dma_map_benchmark: CONFIG_DMA_MAP_BENCHMARK " \
	"is not set; add configs/kbuild/dma-map-benchmark.config to its " \
	"build"

/*
 * The kernel whose .config is @config has the benchmark built in: 0;
 * -EOPNOTSUPP and DMA_MAP_NOT_BUILT in *@err when it has not, another
 * negative errno and why when @config cannot be read.
 */
int dma_map__config_check(const char *config, char **err);

#define DMA_MAP_MAX_THREADS 1024U
#define DMA_MAP_MAX_SECONDS 300U
#define DMA_MAP_MAX_TRANS_NS 10000000U
#define DMA_MAP_MAX_GRANULE 1024U
#define DMA_MAP_MIN_DMA_BITS 20U
#define DMA_MAP_MAX_DMA_BITS 64U
#define DMA_MAP_NO_NODE (-1)
#define DMA_MAP_MAX_NODE 1023

/* The selftest's defaults, which the agent's verb takes too. */
#define DMA_MAP_DEFAULT_THREADS 1U
#define DMA_MAP_DEFAULT_SECONDS 20U
#define DMA_MAP_DEFAULT_GRANULE 1U
#define DMA_MAP_DEFAULT_DMA_BITS 32U

/* The kernel's DMA_MAP_BIDIRECTIONAL, _TO_DEVICE and _FROM_DEVICE. */
enum dma_map_dir {
	DMA_MAP_DIR_BIDIRECTIONAL = 0,
	DMA_MAP_DIR_TO_DEVICE = 1,
	DMA_MAP_DIR_FROM_DEVICE = 2,
};

/* "bidirectional", "to_device", "from_device"; NULL for anything else. */
const char *dma_map__dir_name(enum dma_map_dir dir);
/* The reverse: 0, or -EINVAL for a word that is not one of them. */
int dma_map__dir_parse(const char *name, enum dma_map_dir *dir);

/*
 * @bdf as a PCI address and nothing else (it becomes a path): a 4 to 8
 * digit hex domain (VMD's are 5), bus, device (up to 1f) and function (up
 * to 7), lower-cased into @out. -EINVAL otherwise.
 */
#define DMA_MAP_BDF_SIZE 20
int dma_map__parse_bdf(const char *bdf, char out[DMA_MAP_BDF_SIZE], char **err);

#endif /* IOMMU_BENCH_DMA_MAP_OPTS_H */
