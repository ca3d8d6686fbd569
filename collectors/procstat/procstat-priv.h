/* SPDX-License-Identifier: GPL-2.0-only */
/* Inside the procstat collector: NIC matching, sampling thread, JSON. */
#ifndef IOMMU_BENCH_PROCSTAT_PRIV_H
#define IOMMU_BENCH_PROCSTAT_PRIV_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "collectors/procstat/procstat-parse.h"

/* The NIC's interrupt lines: its name, its device's, its MSI vectors. */
struct procstat_nic_info {
	char *name;
	struct procstat_nic match;
	char *keys[2];
	unsigned int *irqs;
	size_t alloc_irqs;
};

int procstat__nic_open(const char *nic, struct procstat_nic_info *info);
void procstat__nic_release(struct procstat_nic_info *info);

/* @d as the results' "total"/"per_cpu"/"softirqs"/"nic" members. */
json_t *procstat__delta_json(const struct procstat_delta *d,
			     const char *nic_name, long user_hz);
/* One interval of the series; times relative to @t0. */
json_t *procstat__interval_json(const struct procstat_delta *d, double start,
				double end, bool nic);

struct procstat_sampler {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop, running;
	double interval_s, t0;
	const struct procstat_nic *nic; /* NULL: no NIC */
	struct procstat_snap prev;
	json_t *series; /* the thread's own until it is joined */
	int err;
};

/*
 * Snapshot now, then every @interval_s on the grid t0 + k * interval
 * (@t0 NAN: from now) until stopped.
 */
int procstat__sampler_start(struct procstat_sampler *s, double interval_s,
			    double t0, const struct procstat_nic *nic);
/* Join the thread; the series (owned by the caller) into @series. */
int procstat__sampler_stop(struct procstat_sampler *s, json_t **series);

struct store;

/* The ops table's store(): metrics and interval series. */
int procstat__store(struct store *st, int64_t trial_id, const json_t *results);

#endif /* IOMMU_BENCH_PROCSTAT_PRIV_H */
