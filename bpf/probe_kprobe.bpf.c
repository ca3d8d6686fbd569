// SPDX-License-Identifier: GPL-2.0-only
/*
 * The second rung: a kprobe and a kretprobe on one kernel function,
 * attached by name at run time. Works on symbols BTF does not describe
 * (".isra.0" clones, functions of modules without BTF), at the price of
 * a breakpoint or an ftrace hop per call.
 */
#include "probe-bpf.h"

const volatile int dev_arg = -1;
const volatile int size_arg = -1;

SEC("kprobe")
int kp_entry(struct pt_regs *ctx)
{
	if (dev_arg >= 0 && !dev_ok(kp_arg(ctx, dev_arg))) {
		frame_push(0);
		return 0;
	}
	if (size_arg >= 0)
		bytes_add(kp_arg(ctx, size_arg));
	frame_push(bpf_ktime_get_ns());
	return 0;
}

PROBE_END("kretprobe", kp_exit)

char LICENSE[] SEC("license") = "GPL";
