/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The logical probes, as a plain table: what each name stands for and
 * which names "default" means. The bpf collector resolves them on a
 * host; the matrix validates [collect.bpf] probes against the same
 * table without loading anything (plan touches nothing), so this header
 * carries no libbpf and no JSON.
 */
#ifndef IOMMU_BENCH_BPF_DEFS_H
#define IOMMU_BENCH_BPF_DEFS_H

#include <stdbool.h>

#define BPF_PROBE_MAX_GROUPS 6
#define BPF_PROBE_MAX_TPS 3

struct bpf_probe_def {
	const char *name;
	bool in_default;
	const char *what; /* one line for people */
	/*
	 * Function groups, NULL-terminated. Each group is alternatives
	 * split by '|', newest name first: the first one this kernel has
	 * is taken (renames). Every group is probed (one per driver).
	 */
	const char *groups[BPF_PROBE_MAX_GROUPS + 1];
	/* Tracepoints that count the same calls, first found wins. */
	const char *tps[BPF_PROBE_MAX_TPS + 1];
	/*
	 * Not a count of calls but the exposure window, which follows
	 * each unmap across functions (bpf-exposure.h); no groups.
	 */
	bool window;
};

extern const struct bpf_probe_def bpf_probe_defs[];
const struct bpf_probe_def *bpf_probe_def__find(const char *name);

#endif /* IOMMU_BENCH_BPF_DEFS_H */
