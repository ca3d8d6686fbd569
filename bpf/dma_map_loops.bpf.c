// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DMA map benchmark's own count of its operations. The kernel adds
 * one to map_benchmark_data.loops per map and unmap, divides its sums by
 * it and hands back only the means: read here as each benchmark thread
 * returns. The ioctl stops its threads one after the other, each
 * finished before the next is told, so the last read is the total.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/* Only the member read; CO-RE finds it in the running kernel's BTF. */
struct map_benchmark_data___ib {
	atomic64_t loops;
} __attribute__((preserve_access_index));

__u64 loops;
__u32 threads_done;

SEC("fexit/map_benchmark_thread")
int BPF_PROG(thread_exit, void *data, int ret)
{
	struct map_benchmark_data___ib *map = data;

	loops = BPF_CORE_READ(map, loops.counter);
	threads_done++;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
