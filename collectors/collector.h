/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The collector interface. A collector measures on the host it runs on
 * (it knows nothing of matrices or hosts): the agent creates, starts and
 * stops it around a workload and sends its results as JSON; the
 * controller puts that JSON into the store. One ops table per kind, as
 * iperf3 and the kernel do it.
 */
#ifndef IOMMU_BENCH_COLLECTOR_H
#define IOMMU_BENCH_COLLECTOR_H

#include <jansson.h>
#include <stdint.h>

struct store;
struct collector;

struct collector_opts {
	const char *nic;      /* the interface under test; NULL: none */
	const char *outdir;   /* where artifacts (perf.data) go; NULL: none */
	const json_t *config; /* the matrix's [collect.NAME] table as JSON,
			       * NULL for the defaults */
};

struct collector_ops {
	const char *name; /* "bpf", "perf", "procstat": as in [collect] */
	/*
	 * What this collector can do on this host, for `iommu-bench probe`:
	 * a JSON object; -errno only when even that cannot be found out.
	 */
	int (*support)(json_t **info);
	int (*create)(const struct collector_opts *opts,
		      struct collector **out);
	int (*start)(struct collector *c);
	int (*stop)(struct collector *c);
	/* What was measured between start and stop: the agent's wire form. */
	int (*results)(struct collector *c, json_t **out);
	/*
	 * @results (from results(), possibly on another host) into the store
	 * for @trial_id; the caller holds the trial's transaction.
	 */
	int (*store)(struct store *st, int64_t trial_id, const json_t *results);
	void (*destroy)(struct collector *c);
};

/*
 * A kind's ops, @kind_collector_ops, wired to its static @kind_support,
 * _create, _start, _stop, _results and _destroy, and @store_fn (public:
 * the controller stores what an agent sent). Designated, so that the
 * struct's fields may move without rewiring a kind in silence.
 */
#define COLLECTOR_OPS(kind, store_fn)                       \
	const struct collector_ops kind##_collector_ops = { \
		.name = #kind,                              \
		.support = kind##_support,                  \
		.create = kind##_create,                    \
		.start = kind##_start,                      \
		.stop = kind##_stop,                        \
		.results = kind##_results,                  \
		.store = (store_fn),                        \
		.destroy = kind##_destroy,                  \
	}

/* Embedded first in each kind's own struct. */
struct collector {
	const struct collector_ops *ops;
};

extern const struct collector_ops bpf_collector_ops;
extern const struct collector_ops perf_collector_ops;
extern const struct collector_ops procstat_collector_ops;

/* Every kind, NULL-terminated, in the order probe lists them. */
extern const struct collector_ops *const collector_kinds[];
const struct collector_ops *collector__find(const char *name);
/*
 * A results() that hands over what stop() kept: a new reference to
 * @results, or -ENODATA (said) when there are none.
 */
int collector__results(const struct collector *c, json_t *results,
		       json_t **out);

#endif /* IOMMU_BENCH_COLLECTOR_H */
