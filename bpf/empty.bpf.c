// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program that does nothing, for the probe-cost benchmark: what any
 * BPF program on a tracepoint costs before it does any work (the attach
 * floor that counting and timing are measured above).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("tracepoint")
int empty(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
