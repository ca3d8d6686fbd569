/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The logical probes by name, in the order of the DMA path: map and
 * unmap, their scatter-gather forms, the syncs, the invalidations, the
 * IOVA allocator, iommu-dma's own unmap, and last the exposure window,
 * which counts windows and not calls. The one list of them: the bpf
 * collector's table (collectors/bpf/bpf-defs.c) says what each name
 * probes, the report (report/) shows the stored rows in this order.
 *
 * PROBE_LIST(X) calls X(name) for each, the name a bare word: #name is
 * its string, PROBE_name its place. Plain types only, like every header
 * here; nothing of it is in a BPF program.
 */
#ifndef IOMMU_BENCH_BPF_PROBE_NAMES_H
#define IOMMU_BENCH_BPF_PROBE_NAMES_H

#define PROBE_LIST(X)     \
	X(map)            \
	X(unmap)          \
	X(map_sg)         \
	X(unmap_sg)       \
	X(sync_cpu)       \
	X(sync_device)    \
	X(sync_sg_cpu)    \
	X(sync_sg_device) \
	X(iotlb_sync)     \
	X(fq_flush)       \
	X(hw_flush)       \
	X(flush_all)      \
	X(iova_alloc)     \
	X(iova_free)      \
	X(unmap_core)     \
	X(exposure)

/* PROBE_map ... PROBE_exposure, then how many. */
#define PROBE_ID(name) PROBE_##name,
enum probe_id { PROBE_LIST(PROBE_ID) PROBE__NR };

/* For an array of the names by place: { PROBE_LIST(PROBE_NAME) }. */
#define PROBE_NAME(name) #name,

#endif /* IOMMU_BENCH_BPF_PROBE_NAMES_H */
