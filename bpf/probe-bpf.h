/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The BPF half every probe program shares: the per-CPU stats, a per-task
 * stack of start times, and the device filter. Included by the
 * bpf/probe_*.bpf.c programs only; user space sees bpf/probe.h.
 *
 * One object is loaded per target and per rung, so each stats map has a
 * single slot and no program needs to know which target it serves.
 */
#ifndef IOMMU_BENCH_PROBE_BPF_H
#define IOMMU_BENCH_PROBE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "common-bpf.h"
#include "probe.h"

/* Set by user space before load; the verifier prunes what they rule out. */
const volatile bool filter_dev = false;
const volatile char dev_name[PROBE_DEV_NAME_LEN] = {};

/* The device the filter matched once, so that its later calls skip the
 * name comparison. */
__u64 matched_dev = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct probe_stats);
} stats SEC(".maps");

/*
 * Start times per task, not per pid_tgid: every CPU's idle task has
 * pid 0, and softirqs that map and unmap DMA often run on top of idle.
 * A stack, because a softirq or hardirq can enter the probed function
 * again on top of the same task before the outer call returns.
 */
struct frames {
	__u64 ts[PROBE_MAX_DEPTH]; /* 0: a call the filter left out */
	__u32 depth;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct frames);
} starts SEC(".maps");

static __always_inline struct probe_stats *stats_slot(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stats, &zero);
}

/*
 * Not atomic: a program never runs twice at once on one CPU (the kernel
 * skips a nested run and counts it as a recursion miss, which user
 * space reports), and only one program of an object writes these
 * fields, so each CPU's slot has one writer at a time.
 */
static __always_inline void stats_add(__u64 delta, bool timed)
{
	struct probe_stats *s = stats_slot();
	/*
	 * 64 bits wide: a 32-bit index is zero-extended by two shifts
	 * after its clamp, and a 6.1 verifier loses the bound on the way
	 * ("R0 unbounded memory access", measured in the testbed guest).
	 */
	__u64 slot;

	if (!s)
		return;
	s->calls++;
	if (!timed) {
		s->untimed++;
		return;
	}
	s->total_ns += delta;
	slot = log2_u64(delta);
	if (slot >= PROBE_HIST_SLOTS)
		slot = PROBE_HIST_SLOTS - 1;
	s->hist[slot]++;
}

static __always_inline void bytes_add(__u64 n)
{
	struct probe_stats *s = stats_slot();

	if (s)
		s->bytes += n;
}

/* @ts 0 marks a call the device filter left out; it keeps the stack
 * balanced all the same. */
static __always_inline void frame_push(__u64 ts)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct frames *f;
	__u32 d;

	f = bpf_task_storage_get(&starts, task, 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!f)
		return;
	d = f->depth;
	if (d < PROBE_MAX_DEPTH)
		f->ts[d] = ts;
	f->depth = d + 1;
}

/*
 * The end of a call: pair it with the newest start. A call whose start
 * was not seen (attached mid-call, or the start program was skipped) is
 * counted untimed, unless a filter is on: then whose call it was is not
 * known, and it is left out.
 */
static __always_inline void frame_pop(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 now = bpf_ktime_get_ns(), ts = 0;
	struct frames *f;
	__u32 d;

	f = bpf_task_storage_get(&starts, task, 0, 0);
	if (!f || !f->depth) {
		if (!filter_dev)
			stats_add(0, false);
		return;
	}
	d = f->depth - 1;
	f->depth = d;
	if (d >= PROBE_MAX_DEPTH) {
		stats_add(0, false);
		return;
	}
	ts = f->ts[d & (PROBE_MAX_DEPTH - 1)];
	if (ts)
		stats_add(now - ts, true);
}

static __always_inline bool name_is_filtered(const char *name)
{
	int i;

	for (i = 0; i < PROBE_DEV_NAME_LEN; i++) {
		if (name[i] != dev_name[i])
			return false;
		if (!name[i])
			return true;
	}
	return true;
}

/* @dev is a struct device *; dev_name() is its kobject's name. */
static __always_inline bool dev_ok(__u64 dev)
{
	char name[PROBE_DEV_NAME_LEN];
	const char *p;

	if (!filter_dev)
		return true;
	if (!dev)
		return false;
	if (dev == matched_dev)
		return true;
	p = BPF_CORE_READ((struct device *)dev, kobj.name);
	if (bpf_probe_read_kernel_str(name, sizeof(name), p) <= 0)
		return false;
	if (!name_is_filtered(name))
		return false;
	matched_dev = dev;
	return true;
}

/*
 * The entry of a probed function (fentry, kprobe), whose arguments
 * ARG(ctx, n) reads at the positions of the file's dev_arg and size_arg
 * knobs: a call the device filter leaves out still takes a frame, to
 * keep the stack balanced.
 */
#define PROBE_FN_ENTRY(sec, name, ctx_type, ARG)                  \
	SEC(sec)                                                  \
	int name(ctx_type *ctx)                                   \
	{                                                         \
		if (dev_arg >= 0 && !dev_ok(ARG(ctx, dev_arg))) { \
			frame_push(0);                            \
			return 0;                                 \
		}                                                 \
		if (size_arg >= 0)                                \
			bytes_add(ARG(ctx, size_arg));            \
		frame_push(bpf_ktime_get_ns());                   \
		return 0;                                         \
	}

/*
 * A rung's programs at the two ends of a call: the start of one whose
 * arguments do not matter (a begin:end tracepoint pair), and the end,
 * at a return or an end tracepoint, which times it.
 */
#define PROBE_BEGIN(sec, name)                  \
	SEC(sec)                                \
	int name(void *ctx)                     \
	{                                       \
		frame_push(bpf_ktime_get_ns()); \
		return 0;                       \
	}
#define PROBE_END(sec, name) \
	SEC(sec)             \
	int name(void *ctx)  \
	{                    \
		frame_pop(); \
		return 0;    \
	}

#endif /* IOMMU_BENCH_PROBE_BPF_H */
