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

PROBE_FN_ENTRY("kprobe", kp_entry, struct pt_regs, kp_arg)

PROBE_END("kretprobe", kp_exit)

char LICENSE[] SEC("license") = "GPL";
