/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The exposure window (bpf/exposure.bpf.c): per DMA unmap, how long the
 * device could still reach the page after iommu-dma unmapped it. The
 * logical probe "exposure" of [collect.bpf] and trace; docs/exposure.md.
 *
 * Three roles, resolved per kernel like the probes: where an IOVA leaves
 * the page table (iommu_unmap_fast), the strict end (the drivers'
 * iotlb_sync) and the lazy end (the drivers' flush_iotlb_all). A role
 * this kernel does not have makes the window "not measured", with the
 * reason; a host whose device is not translated is "unprotected".
 * Either way no figure is made up.
 */
#ifndef IOMMU_BENCH_BPF_EXPOSURE_LOADER_H
#define IOMMU_BENCH_BPF_EXPOSURE_LOADER_H

#include <jansson.h>
#include <linux/types.h>
#include <stdbool.h>

#include "bpf/exposure.h"
#include "collectors/bpf/bpf-probes.h"

/* Targets per role in one fentry object: the programs it has. */
#define EXPO_MAX_TARGETS 4

enum expo_role_id { EXPO_OPEN, EXPO_SYNC, EXPO_FLUSH, EXPO_NR_ROLES };

enum expo_state {
	EXPO_MEASURED,
	EXPO_UNPROTECTED, /* no translation: no window, not a zero one */
	EXPO_NOT_MEASURED,
};

struct bpf_exposure {
	/* Each role's functions, resolved as a probe's are. */
	struct bpf_probe roles[EXPO_NR_ROLES];
	enum expo_state state;
	char *why; /* of UNPROTECTED and NOT_MEASURED */
	enum bpf_rung rung;
	struct bpf_fail fentry_fail; /* why not fentry, when kprobe */
	bool fentry_tried;
	void *obj; /* struct exposure_bpf */
	struct bpf_link **links;
	size_t nr_links, alloc_links;
	/* what was read at the end */
	struct exposure_stats total;
	struct exposure_state shared;
	__u64 pending, pending_oldest_ns, missed;
	__u64 run_ns, runs;	    /* with the kernel's run-time stats on */
	unsigned int pending_slots; /* per CPU */
	unsigned int nr_rings;	    /* one per possible CPU */
};

/* 0, or -ENOMEM; what is missing is recorded as NOT_MEASURED. */
int bpf_exposure__resolve(struct bpf_exposure *x, const struct bpf_env *env);
/*
 * Whether @nic's DMA (every device's, without one) is translated; if it
 * is, attach. Not attaching is a state, never an error.
 */
int bpf_exposure__attach(struct bpf_exposure *x, const struct bpf_env *env,
			 const char *nic);
int bpf_exposure__read(struct bpf_exposure *x);
void bpf_exposure__detach(struct bpf_exposure *x);
void bpf_exposure__release(struct bpf_exposure *x);

/* The wire form (docs/exposure.md). */
json_t *bpf_exposure__json(const struct bpf_exposure *x);

/* ---- the log-linear histogram (bpf/exposure.h) ---- */

/* [lo, hi) in ns of bucket @i. */
void expo_hist__bounds(unsigned int i, double *lo, double *hi);
/* The @p-th percentile (0..100) in ns, interpolated; NAN if empty. */
double expo_hist__percentile(const __u64 *hist, size_t n, double p);
/* Folded into log2 buckets, as the probes table stores them. */
void expo_hist__to_log2(const __u64 *hist, size_t n, __u64 *log2,
			size_t log2_n);

/* ---- the stored form ---- */

/* The probes row's name, and the metrics made from the results. */
#define EXPO_PROBE_NAME "exposure"
struct store;
int bpf_exposure__store(struct store *st, __s64 trial_id, const json_t *x);
/* The metrics bpf_exposure__store() stores, appended to @out. */
struct strvec;
void bpf_exposure__metric_names(struct strvec *out);

#endif /* IOMMU_BENCH_BPF_EXPOSURE_LOADER_H */
