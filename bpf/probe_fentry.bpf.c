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

PROBE_FN_ENTRY("fentry", fn_entry, void, fn_arg)

PROBE_END("fexit", fn_exit)

char LICENSE[] SEC("license") = "GPL";
