/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What every BPF program here shares: reads of its context at fixed
 * offsets, a kprobe's and a trampoline's arguments, and log2. BPF
 * programs only.
 */
#ifndef IOMMU_BENCH_BPF_COMMON_H
#define IOMMU_BENCH_BPF_COMMON_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/*
 * A u64 of the context at a fixed offset. Programs pick an argument by a
 * knob through a switch, one case per offset; clang merges such cases
 * into one load at an offset the switch computes (volatile does not
 * stop it), and the verifier refuses context reads at computed offsets.
 * An asm statement per case keeps each read fixed.
 */
#define CTX_U64(ctx, off)                                   \
	({                                                  \
		__u64 _v;                                   \
		asm volatile("%[v] = *(u64 *)(%[c] + %[o])" \
			     : [v] "=r"(_v)                 \
			     : [c] "r"(ctx), [o] "i"(off)); \
		_v;                                         \
	})

/*
 * arm64's struct pt_regs begins with the uapi struct user_pt_regs, whose
 * layout is ABI: declared here, the arm64 build needs no arm64
 * vmlinux.h (the kernel types it reads are relocated by CO-RE).
 */
#if defined(bpf_target_arm64)
struct arm64_user_regs {
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
	__u64 pstate;
};
#define KP_REG(ctx, r) \
	CTX_U64(ctx, __builtin_offsetof(struct arm64_user_regs, r))
#else
#define KP_REG(ctx, r) CTX_U64(ctx, __builtin_offsetof(struct pt_regs, r))
#endif

/* Argument @n (0..4) of the function a kprobe stopped at the entry of. */
static __always_inline __u64 kp_arg(struct pt_regs *ctx, int n)
{
	switch (n) {
	case 0:
		return KP_REG(ctx, __PT_PARM1_REG);
	case 1:
		return KP_REG(ctx, __PT_PARM2_REG);
	case 2:
		return KP_REG(ctx, __PT_PARM3_REG);
	case 3:
		return KP_REG(ctx, __PT_PARM4_REG);
	case 4:
		return KP_REG(ctx, __PT_PARM5_REG);
	}
	return 0;
}

/* Argument @n of the function a trampoline (fentry, fexit) is on. */
static __always_inline __u64 fn_arg(void *ctx, int n)
{
	__u64 v = 0;

	bpf_get_func_arg(ctx, n, &v);
	return v;
}

/* The return value, at a kretprobe. */
static __always_inline __u64 kp_ret(struct pt_regs *ctx)
{
	return KP_REG(ctx, __PT_RC_REG);
}

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0, shift;

	shift = (v > 0xffffffffULL) << 5;
	v >>= shift;
	r |= shift;
	shift = (v > 0xffff) << 4;
	v >>= shift;
	r |= shift;
	shift = (v > 0xff) << 3;
	v >>= shift;
	r |= shift;
	shift = (v > 0xf) << 2;
	v >>= shift;
	r |= shift;
	shift = (v > 0x3) << 1;
	v >>= shift;
	r |= shift;
	r |= (v >> 1);
	return r;
}

#endif /* IOMMU_BENCH_BPF_COMMON_H */
