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
 * Each end of a window costs a few instructions and one clock read, so
 * that the window costs per unmap about what the unmap probe alone
 * does, at most 1.5 times (tests/bench/testbed-exposure.sh): no hash
 * map is written per unmap, no kernel memory read through a helper.
 * Strict windows wait in a small table of open addressing keyed by
 * their gather, claimed and freed with compare-and-swap; lazy ones in a
 * ring per CPU, which a flush walks (bpf_loop), ending those of its
 * domain that began before it. The flush counts per domain are in a
 * table of the same kind. Nothing goes to user space per event: the
 * loader reads the per-CPU histogram, the counters and what is still
 * pending at the end.
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

/* Slots looked at for a key, from the one its hash names. */
#define EXPO_PROBES 8

/* The rings' map has one entry per possible CPU: set by the loader. */
const volatile __u32 nr_rings = 1;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* set by the loader from the CPUs */
	__type(key, __u32);
	__type(value, struct exposure_ring);
} rings SEC(".maps");

/*
 * Strict windows in flight, by the gather their sync will be handed: a
 * few per CPU at most (one per unmap, nested EXPO_MAX_DEPTH deep), so
 * a table this size is nearly empty and the first slot looked at is
 * nearly always the one. @gather 0: free.
 */
#define GATHER_BITS 12
struct gather_slot {
	__u64 gather;
	__u64 ts;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1 << GATHER_BITS);
	__type(key, __u32);
	__type(value, struct gather_slot);
} by_gather SEC(".maps");

/* Flushes begun, per domain; a domain keeps its slot. @domain 0: free. */
#define DOMAIN_BITS 10
struct domain_slot {
	__u64 domain;
	__u64 begun;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1 << DOMAIN_BITS);
	__type(key, __u32);
	__type(value, struct domain_slot);
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

/*
 * The slot a kernel pointer's hash names, of a table 2^@bits long:
 * Fibonacci hashing, whose top bits depend on every bit of @p (gathers
 * live on stacks aligned alike, where the low bits repeat).
 */
static __always_inline __u32 ptr_slot(__u64 p, int bits)
{
	return (p * 0x9E3779B97F4A7C15ULL) >> (64 - bits);
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

static __always_inline void count_lost(void)
{
	struct exposure_stats *s = stats_slot();

	if (s)
		s->lost++;
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

/* The slot of @domain's flush count; with @create, taken if it has none. */
static __always_inline struct domain_slot *domain_find(__u64 domain,
						       bool create)
{
	__u32 h = ptr_slot(domain, DOMAIN_BITS), i, k;
	struct domain_slot *d;
	__u64 cur;

	for (k = 0; k < EXPO_PROBES; k++) {
		i = (h + k) & ((1 << DOMAIN_BITS) - 1);
		d = bpf_map_lookup_elem(&epochs, &i);
		if (!d)
			return NULL;
		cur = *(volatile __u64 *)&d->domain;
		if (cur == domain)
			return d;
		/* Slots are never freed: a free one ends the search. */
		if (cur)
			continue;
		if (!create)
			return NULL;
		cur = __sync_val_compare_and_swap(&d->domain, 0, domain);
		if (!cur || cur == domain)
			return d;
	}
	return NULL;
}

/* A strict window: a slot claimed for @gather. */
static __always_inline bool strict_open(__u64 gather, __u64 ts)
{
	__u32 h = ptr_slot(gather, GATHER_BITS), i, k;
	struct gather_slot *g;
	__u64 cur;

	for (k = 0; k < EXPO_PROBES; k++) {
		i = (h + k) & ((1 << GATHER_BITS) - 1);
		g = bpf_map_lookup_elem(&by_gather, &i);
		if (!g)
			return false;
		cur = *(volatile __u64 *)&g->gather;
		/*
		 * Its own gather: the sync of an earlier unmap with the
		 * same stack frame was missed; this window takes over.
		 */
		if (cur == gather || (!cur && !__sync_val_compare_and_swap(
						      &g->gather, 0, gather))) {
			g->ts = ts;
			return true;
		}
	}
	return false;
}

/*
 * A lazy window, at the head of this CPU's ring. The key is written
 * last, with an atomic (a full barrier), so that a flush that sees it
 * sees the rest; the head after it.
 */
static __always_inline bool lazy_open(__u64 domain, __u64 ts, __u64 epoch)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct exposure_ring *r;
	struct exposure_window *w;
	__u64 head;

	r = bpf_map_lookup_elem(&rings, &cpu);
	if (!r)
		return false;
	head = r->head;
	if (head - *(volatile __u64 *)&r->tail >= EXPOSURE_RING_SLOTS)
		return false;
	w = &r->w[head & (EXPOSURE_RING_SLOTS - 1)];
	w->ts = ts;
	w->epoch = epoch;
	w->domain = domain;
	__sync_lock_test_and_set(&w->key, head + 1);
	r->head = head + 1;
	return true;
}

/* @queued: the gather's, read by the caller as its rung allows. */
static __always_inline void window_open(__u64 domain, __u64 gather, bool queued)
{
	struct exposure_state *st = state_slot();
	struct domain_slot *d;
	__u64 ts, epoch = 0;
	__s64 n;

	if (!st)
		return;
	/* No gather, no sync to wait for: as a queued one. */
	if (!gather)
		queued = true;
	/* Before the epoch is read: a flush's walk relies on it. */
	ts = bpf_ktime_get_ns();
	if (queued) {
		d = domain_find(domain, false);
		if (d)
			epoch = *(volatile __u64 *)&d->begun;
		if (!lazy_open(domain, ts, epoch)) {
			count_lost();
			return;
		}
	} else if (!strict_open(gather, ts)) {
		count_lost();
		return;
	}
	n = __sync_fetch_and_add(&st->outstanding, 1) + 1;
	/* Racy against another CPU's, by one at most: a maximum. */
	if (n > st->stale_max)
		st->stale_max = n;
}

/* A window of @ns ended; the caller takes it out of the outstanding. */
static __always_inline void window_record(__u64 ns, int how)
{
	struct exposure_stats *s = stats_slot();

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
 * than measured, never longer). A gather no window has (an unmap that
 * is not iommu-dma's) is looked for in every slot its hash may reach.
 */
static __always_inline void sync_done(__u64 gather)
{
	__u32 h = ptr_slot(gather, GATHER_BITS), i, k;
	__u64 ts, now = bpf_ktime_get_ns();
	struct exposure_state *st;
	struct gather_slot *g;

	for (k = 0; k < EXPO_PROBES; k++) {
		i = (h + k) & ((1 << GATHER_BITS) - 1);
		g = bpf_map_lookup_elem(&by_gather, &i);
		if (!g)
			return;
		if (*(volatile __u64 *)&g->gather != gather)
			continue;
		ts = g->ts;
		/* Read before the slot is free for another CPU to take. */
		if (__sync_val_compare_and_swap(&g->gather, gather, 0) !=
		    gather)
			return;
		window_record(now > ts ? now - ts : 0, EXPOSURE_BY_SYNC);
		st = state_slot();
		if (st)
			__sync_fetch_and_add(&st->outstanding, -1);
		return;
	}
}

/* The count of flushes of @domain begun, this one included. */
static __always_inline __u64 flush_begin(__u64 domain)
{
	struct domain_slot *d = domain_find(domain, true);

	return d ? __sync_fetch_and_add(&d->begun, 1) + 1 : 0;
}

/* A flush's walk of the rings: bpf_loop's context. */
struct flush_ctx {
	__u64 domain, epoch, now;
	__u64 base;	  /* the tail of the ring walked, when read */
	__u64 first_live; /* the first window of it left open */
	__s64 ended;
	__u32 cpu;
};

/* Slot @i past the tail of ring @c->cpu: end it if the flush covers it. */
static long end_covered(__u64 i, struct flush_ctx *c)
{
	struct exposure_window *w;
	struct exposure_ring *r;
	__u64 idx = c->base + i, key, ts;

	r = bpf_map_lookup_elem(&rings, &c->cpu);
	if (!r)
		return 1;
	w = &r->w[idx & (EXPOSURE_RING_SLOTS - 1)];
	/* An atomic read: the rest of the slot is read after it. */
	key = __sync_fetch_and_or(&w->key, 0);
	if (!key)
		return 0;
	ts = w->ts;
	if (w->domain == c->domain && w->epoch < c->epoch &&
	    __sync_val_compare_and_swap(&w->key, key, 0) == key) {
		window_record(c->now > ts ? c->now - ts : 0, EXPOSURE_BY_FLUSH);
		c->ended++;
		return 0;
	}
	if (c->first_live > idx)
		c->first_live = idx;
	return 0;
}

/* Ring @cpu: its open windows walked, and its tail moved past the ended. */
static long walk_ring(__u64 cpu, struct flush_ctx *c)
{
	struct exposure_ring *r;
	__u64 head, tail;

	c->cpu = cpu;
	r = bpf_map_lookup_elem(&rings, &c->cpu);
	if (!r)
		return 1;
	head = *(volatile __u64 *)&r->head;
	tail = *(volatile __u64 *)&r->tail;
	if (head == tail)
		return 0;
	c->base = tail;
	c->first_live = head;
	bpf_loop(head - tail < EXPOSURE_RING_SLOTS ? head - tail :
						     EXPOSURE_RING_SLOTS,
		 end_covered, c, 0);
	/* Another flush may have moved it meanwhile: then it stays. */
	if (c->first_live != tail)
		__sync_val_compare_and_swap(&r->tail, tail, c->first_live);
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
	bpf_loop(nr_rings, walk_ring, &c, 0);
	/*
	 * Not "if (c.ended)": a branch on it would make the verifier
	 * follow its exact value through every run of the callbacks
	 * (6.8 and later verify them as loops), which never converges.
	 */
	__sync_fetch_and_add(&st->outstanding, -c.ended);
}

/* ---- fentry/fexit: the arguments are there at both ends ---- */

/* iommu_unmap_fast(domain, iova, size, iotlb_gather): bytes unmapped. */
SEC("fexit")
int fast_exit(void *ctx)
{
	struct iommu_iotlb_gather___expo *g;
	__u64 ret = 0;

	bpf_get_func_ret(ctx, &ret);
	if (!ret)
		return 0;
	/*
	 * Read from the context, the argument is a pointer the verifier
	 * knows the type of (BTF): its field is a plain load, not a
	 * bpf_probe_read_kernel() call. As a number (a key), from the
	 * helper.
	 */
	g = (void *)CTX_U64(ctx, 3 * sizeof(__u64));
	window_open(fn_arg(ctx, 0), fn_arg(ctx, 3), g->queued);
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
		window_open(domain, gather,
			    BPF_CORE_READ(
				    (struct iommu_iotlb_gather___expo *)gather,
				    queued));
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
