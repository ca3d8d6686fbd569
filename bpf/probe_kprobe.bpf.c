// SPDX-License-Identifier: GPL-2.0-only
/*
 * The second rung: a kprobe and a kretprobe on one kernel function,
 * attached by name at run time. Works on symbols BTF does not describe
 * (".isra.0" clones, functions of modules without BTF), at the price of
 * a breakpoint or an ftrace hop per call.
 */
#include "probe-bpf.h"
#include <bpf/bpf_tracing.h>

const volatile int dev_arg = -1;
const volatile int size_arg = -1;

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
#define REG(ctx, r) CTX_U64(ctx, __builtin_offsetof(struct arm64_user_regs, r))
#else
#define REG(ctx, r) CTX_U64(ctx, __builtin_offsetof(struct pt_regs, r))
#endif

static __always_inline __u64 arg(struct pt_regs *ctx, int n)
{
	switch (n) {
	case 0:
		return REG(ctx, __PT_PARM1_REG);
	case 1:
		return REG(ctx, __PT_PARM2_REG);
	case 2:
		return REG(ctx, __PT_PARM3_REG);
	case 3:
		return REG(ctx, __PT_PARM4_REG);
	case 4:
		return REG(ctx, __PT_PARM5_REG);
	}
	return 0;
}

SEC("kprobe")
int kp_entry(struct pt_regs *ctx)
{
	if (dev_arg >= 0 && !dev_ok(arg(ctx, dev_arg))) {
		frame_push(0);
		return 0;
	}
	if (size_arg >= 0)
		bytes_add(arg(ctx, size_arg));
	frame_push(bpf_ktime_get_ns());
	return 0;
}

SEC("kretprobe")
int kp_exit(struct pt_regs *ctx)
{
	frame_pop();
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
