/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The exposure window, shared by bpf/exposure.bpf.c and its loader
 * (collectors/bpf/bpf-exposure.c): how long an IOVA stays reachable by
 * the device after iommu-dma took it out of the page table, until the
 * IOTLB invalidation that covers it completed. Plain types only.
 */
#ifndef IOMMU_BENCH_BPF_EXPOSURE_H
#define IOMMU_BENCH_BPF_EXPOSURE_H

/*
 * Log-linear buckets of nanoseconds, 8 per power of two (HDR-style):
 * values below 8 have a bucket each; above, bucket (e * 8 + m - 16)
 * holds [(8 + m) << (e - 3), (9 + m) << (e - 3)) where e = log2(v) and
 * m the three bits below the top one. A percentile read off it is
 * within 12.5% of the truth, where log2 buckets are within 100%: a
 * strict window and a lazy one differ by orders of magnitude, but p99
 * against p50 of one mode does not. 2^40 ns (18 minutes) and beyond
 * land in the last bucket.
 */
#define EXPOSURE_SUB_BITS 3
#define EXPOSURE_HIST_SLOTS ((40 - EXPOSURE_SUB_BITS + 1) << EXPOSURE_SUB_BITS)
/*
 * The array is a power of two long, so that the program can mask its
 * index: a bound every verifier keeps, whatever the compiler made of
 * the clamp before it.
 */
#define EXPOSURE_HIST_ALLOC 512

/* How a window ended. */
enum exposure_close {
	EXPOSURE_BY_SYNC,  /* the unmap's own iotlb_sync (strict) */
	EXPOSURE_BY_FLUSH, /* a later flush of the whole domain (lazy) */
	EXPOSURE_NR_CLOSE,
};

/* Per CPU, summed by user space. */
struct exposure_stats {
	__u64 opened; /* set by user space: outstanding + ended */
	__u64 closed[EXPOSURE_NR_CLOSE]; /* windows ended, by how */
	__u64 lost;			 /* began, but no slot was free */
	__u64 unpaired;			 /* an exit without its entry */
	__u64 sum_ns;			 /* of the ended ones */
	__u64 max_ns;
	__u64 hist[EXPOSURE_HIST_ALLOC]; /* EXPOSURE_HIST_SLOTS used */
};

/* Shared by every CPU: one slot of an array map. */
struct exposure_state {
	__s64 outstanding; /* windows begun and not ended */
	__s64 stale_max;   /* the most outstanding at once */
};

/*
 * A lazy window not ended yet, in its CPU's ring. @key is what a flush
 * claims it by (compare-and-swap to 0): the window's number on its CPU
 * plus one, so that a slot used again is never taken for the window
 * that was in it before; 0 is a free slot or an ended window.
 */
struct exposure_window {
	__u64 key;
	__u64 ts;     /* bpf_ktime_get_ns() when the PTE was cleared */
	__u64 epoch;  /* flushes of its domain begun before that */
	__u64 domain; /* struct iommu_domain *, as a key */
};

/*
 * Four flush queues' worth (IOVA_FQ_SIZE, 256 per CPU and domain): a
 * NIC and a disk are two domains.
 */
#define EXPOSURE_RING_SLOTS 1024

/*
 * One per CPU (an array map, not a per-CPU one: a flush on any CPU ends
 * the windows of all). Only its CPU's unmaps add to it, at @head; a
 * flush ends windows anywhere in [@tail, @head) and moves @tail past
 * the ended ones at the front.
 */
struct exposure_ring {
	__u64 head; /* windows begun on this CPU */
	__u64 tail; /* every slot before it has ended */
	struct exposure_window w[EXPOSURE_RING_SLOTS];
};

#endif /* IOMMU_BENCH_BPF_EXPOSURE_H */
