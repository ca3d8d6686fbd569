// SPDX-License-Identifier: GPL-2.0-only
/*
 * The first rung: a BPF trampoline at entry and exit of one kernel
 * function, named at run time with bpf_program__set_attach_target().
 * Cheapest of the rungs where the kernel allows it (x86 since 5.5,
 * arm64 since 6.4).
 */
#include "probe-bpf.h"

/* Argument positions from the function's BTF prototype; -1: none. */
const volatile int dev_arg = -1;
const volatile int size_arg = -1;

static __always_inline __u64 arg(void *ctx, int n)
{
	__u64 v = 0;

	bpf_get_func_arg(ctx, n, &v);
	return v;
}

SEC("fentry")
int fn_entry(void *ctx)
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

SEC("fexit")
int fn_exit(void *ctx)
{
	frame_pop();
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
