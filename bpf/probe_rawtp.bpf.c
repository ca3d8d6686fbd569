// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tracepoint rung, fast path: raw tracepoints. The program gets the
 * tracepoint's own arguments, with no record formatted for perf first,
 * and detaching it waits for no RCU grace period (a perf tracepoint
 * waits for one each, one after the other). Events that are not real
 * tracepoints (syscalls:sys_enter_*, made up by ftrace from
 * raw_syscalls) fall through to probe_tp.
 */
#include "probe-bpf.h"

/* Argument positions (after __data) from the btf_trace_* typedef. */
const volatile int dev_arg = -1;
const volatile int size_arg = -1;

static __always_inline __u64 arg(void *ctx, int n)
{
	switch (n) {
	case 0:
		return CTX_U64(ctx, 0);
	case 1:
		return CTX_U64(ctx, 8);
	case 2:
		return CTX_U64(ctx, 16);
	case 3:
		return CTX_U64(ctx, 24);
	case 4:
		return CTX_U64(ctx, 32);
	}
	return 0;
}

SEC("raw_tp")
int rtp_count(void *ctx)
{
	if (dev_arg >= 0 && !dev_ok(arg(ctx, dev_arg)))
		return 0;
	if (size_arg >= 0)
		bytes_add(arg(ctx, size_arg));
	stats_untimed();
	return 0;
}

PROBE_BEGIN("raw_tp", rtp_begin)
PROBE_END("raw_tp", rtp_end)

char LICENSE[] SEC("license") = "GPL";
