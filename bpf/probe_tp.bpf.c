// SPDX-License-Identifier: GPL-2.0-only
/*
 * The last rung: classic tracepoints, which need neither trampolines nor
 * kprobes. One tracepoint gives calls only; a begin and an end
 * tracepoint of the same task (sys_enter_X, sys_exit_X) give latency.
 *
 * Record fields are found in user space from the event's format file
 * and read here at the offsets it gave (dma:* events carry the device
 * name and the size).
 */
#include "probe-bpf.h"

/* Offset of the __data_loc device name in the record; -1: none. */
const volatile int dev_loc_off = -1;
/* Offset and width (4 or 8) of a size field; -1: none. */
const volatile int size_off = -1;
const volatile int size_len = 8;

static __always_inline bool record_dev_ok(void *ctx)
{
	char name[PROBE_DEV_NAME_LEN];
	__u32 loc;

	if (!filter_dev || dev_loc_off < 0)
		return true;
	if (bpf_probe_read_kernel(&loc, sizeof(loc), ctx + dev_loc_off))
		return false;
	if (bpf_probe_read_kernel_str(name, sizeof(name),
				      ctx + (loc & 0xffff)) <= 0)
		return false;
	return name_is_filtered(name);
}

static __always_inline void record_bytes(void *ctx)
{
	__u64 n = 0;

	if (size_off < 0)
		return;
	if (bpf_probe_read_kernel(&n, size_len == 4 ? 4 : 8, ctx + size_off))
		return;
	bytes_add(n);
}

SEC("tracepoint")
int tp_count(void *ctx)
{
	if (!record_dev_ok(ctx))
		return 0;
	record_bytes(ctx);
	stats_untimed();
	return 0;
}

PROBE_BEGIN("tracepoint", tp_begin)
PROBE_END("tracepoint", tp_end)

char LICENSE[] SEC("license") = "GPL";
