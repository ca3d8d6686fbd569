// SPDX-License-Identifier: GPL-2.0-only
/*
 * The exposure window of every DMA unmap: from the moment iommu-dma took
 * the IOVA out of the page table (iommu_unmap_fast() returned) until an
 * IOTLB invalidation that covers it completed. Until then the device can
 * still reach the page through a stale IOTLB entry, while the page may
 * already be someone else's.
 *
 * Strict mode: the unmap's own iotlb_sync, found by the gather structure
 * both calls are handed (the same one, on the caller's stack). Lazy
 * mode: the first flush of the whole domain (the driver's
 * flush_iotlb_all, which the flush queue calls when a per-CPU queue
 * fills or its timer fires) that began after the window did. That is
 * the flush queue's own rule (an entry is freed once a flush that
 * started after it was queued has finished, fq_flush_start_cnt against
 * fq_flush_finish_cnt), kept here with a count of flushes begun per
 * domain; no kernel structure is read but the gather's "queued".
 *
 * Lazy windows not ended wait in a hash map; a flush walks it once
 * (bpf_for_each_map_elem) and ends those of its domain that began
 * before it. Nothing goes to user space per event: the loader reads the
 * per-CPU histogram, the counters and what is still pending at the end.
 *
 * Two rungs in one object, chosen by the loader at run time as in
 * libbpf-tools: fentry/fexit programs (one per target, up to
 * EXPO_MAX_TARGETS drivers per role), else kprobes, which carry the
 * arguments they need from entry to return on a per-task stack.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "common-bpf.h"
#include "exposure.h"

/* Only the field read, relocated by CO-RE against the running kernel. */
struct iommu_iotlb_gather___expo {
	bool queued;
} __attribute__((preserve_access_index));

/* Calls a task can have in flight at once: task, softirq, hardirq, NMI. */
#define EXPO_MAX_DEPTH 4

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2048); /* set by the loader from the CPUs */
	__type(key, __u64);
	__type(value, struct exposure_window);
} pending SEC(".maps");

/*
 * Strict windows, by the gather their sync will be handed: one per
 * unmap in flight (per CPU, nested at most EXPO_MAX_DEPTH deep).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, struct exposure_window);
} by_gather SEC(".maps");

/* Flushes begun, per domain. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u64);
	__type(value, __u64);
} epochs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct exposure_stats);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct exposure_state);
} state SEC(".maps");

/* What a kprobe keeps for its kretprobe, and a flush for its end. */
enum expo_role { ROLE_FAST = 1, ROLE_SYNC, ROLE_FLUSH };

struct expo_frame {
	__u64 a, b;
	__u32 role;
};

struct expo_frames {
	struct expo_frame f[EXPO_MAX_DEPTH];
	__u32 depth;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct expo_frames);
} frames SEC(".maps");

static __always_inline struct exposure_stats *stats_slot(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stats, &zero);
}

static __always_inline struct exposure_state *state_slot(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&state, &zero);
}

static __always_inline __u64 expo_slot(__u64 v)
{
	__u64 e, m, idx;

	if (v < (1 << EXPOSURE_SUB_BITS))
		return v;
	e = log2_u64(v);
	m = (v >> (e - EXPOSURE_SUB_BITS)) & ((1 << EXPOSURE_SUB_BITS) - 1);
	idx = (e << EXPOSURE_SUB_BITS) + m - (2 << EXPOSURE_SUB_BITS);
	return idx < EXPOSURE_HIST_SLOTS ? idx : EXPOSURE_HIST_SLOTS - 1;
}

static __always_inline void frame_push(__u32 role, __u64 a, __u64 b)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct expo_frames *fs;
	__u32 d;

	fs = bpf_task_storage_get(&frames, task, 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!fs)
		return;
	d = fs->depth;
	if (d < EXPO_MAX_DEPTH) {
		fs->f[d].a = a;
		fs->f[d].b = b;
		fs->f[d].role = role;
	}
	fs->depth = d + 1;
}

/*
 * The newest frame, if it is @role's. A mismatch means a return was
 * missed (a kretprobe out of instances, a program run skipped as
 * recursive): the stack is dropped rather than paired wrongly.
 */
static __always_inline bool frame_pop(__u32 role, __u64 *a, __u64 *b)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct exposure_stats *s;
	struct expo_frames *fs;
	__u32 d;

	fs = bpf_task_storage_get(&frames, task, 0, 0);
	if (fs && fs->depth) {
		d = fs->depth - 1;
		fs->depth = d;
		if (d < EXPO_MAX_DEPTH &&
		    fs->f[d & (EXPO_MAX_DEPTH - 1)].role == role) {
			*a = fs->f[d & (EXPO_MAX_DEPTH - 1)].a;
			*b = fs->f[d & (EXPO_MAX_DEPTH - 1)].b;
			return true;
		}
		fs->depth = 0;
	}
	s = stats_slot();
	if (s)
		s->unpaired++;
	return false;
}

static __always_inline void window_open(__u64 domain, __u64 gather)
{
	struct exposure_window w = { .domain = domain };
	struct exposure_state *st = state_slot();
	struct exposure_stats *s = stats_slot();
	bool queued = true;
	__u64 *e, key;
	__s64 n;

	if (!st || !s)
		return;
	if (gather)
		queued = BPF_CORE_READ(
			(struct iommu_iotlb_gather___expo *)gather, queued);
	w.ts = bpf_ktime_get_ns();
	if (queued) {
		e = bpf_map_lookup_elem(&epochs, &domain);
		w.epoch = e ? *(volatile __u64 *)e : 0;
		/* Unique without a shared counter: this CPU's, numbered. */
		key = ((__u64)bpf_get_smp_processor_id() << 48) | s->next++;
		if (bpf_map_update_elem(&pending, &key, &w, BPF_NOEXIST)) {
			s->lost++;
			return;
		}
	} else if (bpf_map_update_elem(&by_gather, &gather, &w, BPF_ANY)) {
		s->lost++;
		return;
	}
	s->opened++;
	n = __sync_fetch_and_add(&st->outstanding, 1) + 1;
	/* Racy against another CPU's, by one at most: a maximum. */
	if (n > st->stale_max)
		st->stale_max = n;
}

static __always_inline void window_end(__u64 ns, int how)
{
	struct exposure_state *st = state_slot();
	struct exposure_stats *s = stats_slot();

	if (st)
		__sync_fetch_and_add(&st->outstanding, -1);
	if (!s)
		return;
	if (how == EXPOSURE_BY_SYNC)
		s->closed[EXPOSURE_BY_SYNC]++;
	else
		s->closed[EXPOSURE_BY_FLUSH]++;
	s->sum_ns += ns;
	if (ns > s->max_ns)
		s->max_ns = ns;
	s->hist[expo_slot(ns) & (EXPOSURE_HIST_ALLOC - 1)]++;
}

/*
 * The strict end: the sync handed the gather the unmap filled. A strict
 * window waits only for it (a flush of the whole domain in between is
 * rare in strict mode, and not looked for: the window would be shorter
 * than measured, never longer).
 */
static __always_inline void sync_done(__u64 gather)
{
	struct exposure_window *w;
	__u64 ts;

	w = bpf_map_lookup_elem(&by_gather, &gather);
	if (!w)
		return;
	ts = w->ts;
	if (bpf_map_delete_elem(&by_gather, &gather))
		return;
	window_end(bpf_ktime_get_ns() - ts, EXPOSURE_BY_SYNC);
}

/* The count of flushes of @domain begun, this one included. */
static __always_inline __u64 flush_begin(__u64 domain)
{
	__u64 zero = 0, *e;

	e = bpf_map_lookup_elem(&epochs, &domain);
	if (!e) {
		bpf_map_update_elem(&epochs, &domain, &zero, BPF_NOEXIST);
		e = bpf_map_lookup_elem(&epochs, &domain);
		if (!e)
			return 0;
	}
	return __sync_fetch_and_add(e, 1) + 1;
}

struct flush_ctx {
	__u64 domain, epoch, now;
};

static long end_covered(struct bpf_map *map, __u64 *key,
			struct exposure_window *w, struct flush_ctx *c)
{
	__u64 ts = w->ts;

	if (w->domain != c->domain || w->epoch >= c->epoch)
		return 0;
	if (bpf_map_delete_elem(map, key))
		return 0;
	window_end(c->now - ts, EXPOSURE_BY_FLUSH);
	return 0;
}

/* Flush number @epoch of @domain completed: it covers what began before. */
static __always_inline void flush_done(__u64 domain, __u64 epoch)
{
	struct exposure_state *st = state_slot();
	struct flush_ctx c = {
		.domain = domain,
		.epoch = epoch,
		.now = bpf_ktime_get_ns(),
	};

	if (!epoch || !st || st->outstanding <= 0)
		return;
	bpf_for_each_map_elem(&pending, end_covered, &c, 0);
}

/* ---- fentry/fexit: the arguments are there at both ends ---- */

/* iommu_unmap_fast(domain, iova, size, iotlb_gather): bytes unmapped. */
SEC("fexit")
int fast_exit(void *ctx)
{
	__u64 ret = 0;

	bpf_get_func_ret(ctx, &ret);
	if (ret)
		window_open(fn_arg(ctx, 0), fn_arg(ctx, 3));
	return 0;
}

/* One program per target: a trampoline program has one attach target. */
#define SYNC_PROG(n)                       \
	SEC("fexit")                       \
	int sync_exit##n(void *ctx)        \
	{                                  \
		sync_done(fn_arg(ctx, 1)); \
		return 0;                  \
	}

#define FLUSH_PROGS(n)                                               \
	SEC("fentry")                                                \
	int flush_entry##n(void *ctx)                                \
	{                                                            \
		__u64 domain = fn_arg(ctx, 0);                       \
		frame_push(ROLE_FLUSH, domain, flush_begin(domain)); \
		return 0;                                            \
	}                                                            \
	SEC("fexit")                                                 \
	int flush_exit##n(void *ctx)                                 \
	{                                                            \
		__u64 domain, epoch;                                 \
		if (frame_pop(ROLE_FLUSH, &domain, &epoch))          \
			flush_done(domain, epoch);                   \
		return 0;                                            \
	}

/* EXPO_MAX_TARGETS in collectors/bpf/bpf-exposure.c */
SYNC_PROG(0)
SYNC_PROG(1)
SYNC_PROG(2)
SYNC_PROG(3)
FLUSH_PROGS(0)
FLUSH_PROGS(1)
FLUSH_PROGS(2)
FLUSH_PROGS(3)

/* ---- kprobes: one program each, attached to every target ---- */

SEC("kprobe")
int kp_fast_entry(struct pt_regs *ctx)
{
	frame_push(ROLE_FAST, kp_arg(ctx, 0), kp_arg(ctx, 3));
	return 0;
}

SEC("kretprobe")
int kp_fast_exit(struct pt_regs *ctx)
{
	__u64 domain, gather;

	if (frame_pop(ROLE_FAST, &domain, &gather) && kp_ret(ctx))
		window_open(domain, gather);
	return 0;
}

SEC("kprobe")
int kp_sync_entry(struct pt_regs *ctx)
{
	frame_push(ROLE_SYNC, kp_arg(ctx, 1), 0);
	return 0;
}

SEC("kretprobe")
int kp_sync_exit(struct pt_regs *ctx)
{
	__u64 gather, unused;

	if (frame_pop(ROLE_SYNC, &gather, &unused))
		sync_done(gather);
	return 0;
}

SEC("kprobe")
int kp_flush_entry(struct pt_regs *ctx)
{
	__u64 domain = kp_arg(ctx, 0);

	frame_push(ROLE_FLUSH, domain, flush_begin(domain));
	return 0;
}

SEC("kretprobe")
int kp_flush_exit(struct pt_regs *ctx)
{
	__u64 domain, epoch;

	if (frame_pop(ROLE_FLUSH, &domain, &epoch))
		flush_done(domain, epoch);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
