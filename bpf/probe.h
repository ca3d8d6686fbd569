/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the probe programs leave in their per-CPU stats map, shared with
 * user space. Plain types only: both vmlinux.h (BPF) and <linux/types.h>
 * (user space) define the __u64 family.
 */
#ifndef IOMMU_BENCH_BPF_PROBE_H
#define IOMMU_BENCH_BPF_PROBE_H

/*
 * log2 buckets of nanoseconds: bucket i holds [2^i, 2^(i+1)), bucket 0
 * also 0 and 1 ns. 40 buckets reach 2^40 ns, about 18 minutes; a longer
 * call lands in the last one.
 */
#define PROBE_HIST_SLOTS 40

/* Calls a task can have in flight at once: task, softirq, hardirq, NMI. */
#define PROBE_MAX_DEPTH 4

/*
 * Timed calls, of all the probes of one collector, whose nesting a task
 * keeps (unmap > iotlb_sync > hw_flush, an interrupt's calls on top);
 * a call deeper than that counts its whole duration as self time.
 */
#define PROBE_NEST_DEPTH 16

/* Longest device name compared by the device filter ("0000:3b:00.0"). */
#define PROBE_DEV_NAME_LEN 32

struct probe_stats {
	__u64 calls;   /* calls that returned (fn) or events (tp) */
	__u64 untimed; /* calls whose start was not seen */
	__u64 total_ns;
	__u64 bytes; /* from a size argument or field; 0 if none */
	/*
	 * Of the timed calls: the time not spent inside another timed call
	 * of the same task, of any probe of the collector, nested in this
	 * one; and the calls that began inside such a call.
	 */
	__u64 self_ns;
	__u64 nested;
	__u64 hist[PROBE_HIST_SLOTS];
};

#endif /* IOMMU_BENCH_BPF_PROBE_H */
