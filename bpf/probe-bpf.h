/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The BPF half every probe program shares: the per-CPU stats, a per-task
 * stack of start times, the per-task nesting of timed calls that every
 * object of a collector shares (self time), and the device filter.
 * Included by the bpf/probe_*.bpf.c programs only; user space sees
 * bpf/probe.h.
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
	__u32 at[PROBE_MAX_DEPTH]; /* its slot in nest; NEST_NONE: none */
	__u32 depth;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct frames);
} starts SEC(".maps");

/*
 * The timed calls a task has in flight, of every probe of a collector:
 * user space hands the map of the first object it loads to the others
 * (bpf_map__reuse_fd()). inner_ns[i + 1] holds the time spent so far in
 * timed calls nested in the call in slot i (inner_ns[0], what the calls
 * of slot 0 add up to, is never read); a call's self time is its
 * duration less that. One up, so that a call finds its parent's sum
 * without a subtraction, whose bounds a 6.1 verifier loses ("math
 * between map_value pointer and register with unbounded min value",
 * measured in the testbed guest). Each call keeps its slot in its own
 * frame, so that an end the kernel did not report (a kretprobe beyond
 * maxactive, a lookup refused while another ran on the CPU) is set
 * right by the end of the call around it, instead of shifting every
 * later slot.
 */
#define NEST_NONE 0xffffffffU

struct nest_frames {
	__u64 inner_ns[PROBE_NEST_DEPTH + 1];
	__u32 depth;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct nest_frames);
} nest SEC(".maps");

static __always_inline struct probe_stats *stats_slot(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stats, &zero);
}

/*
 * The stats below are not updated atomically: a program never runs twice
 * at once on one CPU (the kernel skips a nested run and counts it as a
 * recursion miss, which user space reports), and only one program of an
 * object writes these fields, so each CPU's slot has one writer at a
 * time.
 *
 * A call with no duration: an event, or an end whose start is unknown.
 */
static __always_inline void stats_untimed(void)
{
	struct probe_stats *s = stats_slot();

	if (!s)
		return;
	s->calls++;
	s->untimed++;
}

/* A timed call of @delta ns, @inner of them in probed calls nested in it. */
static __always_inline void stats_timed(__u64 delta, __u64 inner, bool nested)
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
	s->total_ns += delta;
	/* Below zero only if clocks disagree, or ends came out of order. */
	s->self_ns += delta > inner ? delta - inner : 0;
	s->nested += nested;
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

/* A timed call begins: its slot in nest, NEST_NONE if it got none. */
static __always_inline __u32 nest_push(struct task_struct *task)
{
	struct nest_frames *n;
	__u64 d;

	n = bpf_task_storage_get(&nest, task, 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!n)
		return NEST_NONE;
	d = n->depth;
	if (d >= NEST_NONE - 1)
		return NEST_NONE;
	if (d < PROBE_NEST_DEPTH)
		n->inner_ns[d + 1] = 0;
	n->depth = d + 1;
	return d;
}

/*
 * The timed call in slot @at ended after @delta ns: it and whatever is
 * still above it leave the stack, its time goes to the call it is
 * nested in. The time of the calls nested in it is returned.
 *
 * Its slot already gone means that the call around it ended first:
 * two programs on one hook end in the order they were attached, not
 * the reverse. The call around it then counted this one's time as its
 * own, and this one has none.
 */
static __always_inline __u64 nest_pop(struct task_struct *task, __u64 at,
				      __u64 delta)
{
	struct nest_frames *n;
	__u64 inner = 0;

	if (at == NEST_NONE)
		return 0;
	n = bpf_task_storage_get(&nest, task, 0, 0);
	if (!n)
		return 0;
	if (at >= n->depth)
		return delta;
	n->depth = at;
	if (at < PROBE_NEST_DEPTH)
		inner = n->inner_ns[at + 1];
	if (at <= PROBE_NEST_DEPTH)
		n->inner_ns[at] += delta;
	return inner;
}

/*
 * @ts 0 marks a call the device filter left out; it keeps the stack
 * balanced all the same, and takes no part in nest: the calls nested
 * in it count as nested in the timed call around it, if any.
 */
static __always_inline void frame_push(__u64 ts)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct frames *f;
	__u64 d;

	f = bpf_task_storage_get(&starts, task, 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!f)
		return;
	d = f->depth;
	if (d < PROBE_MAX_DEPTH) {
		f->ts[d] = ts;
		f->at[d] = ts ? nest_push(task) : NEST_NONE;
	}
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
	__u64 now = bpf_ktime_get_ns(), ts, at, delta;
	struct frames *f;
	__u32 d;

	f = bpf_task_storage_get(&starts, task, 0, 0);
	if (!f || !f->depth) {
		if (!filter_dev)
			stats_untimed();
		return;
	}
	d = f->depth - 1;
	f->depth = d;
	if (d >= PROBE_MAX_DEPTH) {
		stats_untimed();
		return;
	}
	ts = f->ts[d & (PROBE_MAX_DEPTH - 1)];
	at = f->at[d & (PROBE_MAX_DEPTH - 1)];
	if (!ts)
		return;
	delta = now - ts;
	stats_timed(delta, nest_pop(task, at, delta), at && at != NEST_NONE);
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
