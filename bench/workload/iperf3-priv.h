/* SPDX-License-Identifier: GPL-2.0-only */
/* Between the iperf3 runner and the child that runs libiperf. */
#ifndef IOMMU_BENCH_IPERF3_PRIV_H
#define IOMMU_BENCH_IPERF3_PRIV_H

#include <stdbool.h>

#include "bench/workload/iperf3.h"

struct iperf3_child {
	const struct iperf3_opts *opts;
	unsigned int port;
	bool server;
};

/* spawn__fn() body: runs one end, writes its JSON report to stdout. */
int iperf3__child(void *arg);

/* The effective values of the options' zero defaults. */
static inline unsigned int iperf3__nr_processes(const struct iperf3_opts *o)
{
	return o->processes ? o->processes : 1;
}

static inline unsigned int iperf3__first_port(const struct iperf3_opts *o)
{
	return o->port ? o->port : IPERF3_DEFAULT_PORT;
}

static inline unsigned int iperf3__duration_s(const struct iperf3_opts *o)
{
	return o->duration_s ? o->duration_s : 10;
}

static inline unsigned int
iperf3__connect_timeout_ms(const struct iperf3_opts *o)
{
	return o->connect_timeout_ms ? o->connect_timeout_ms : 5000;
}

#endif /* IOMMU_BENCH_IPERF3_PRIV_H */
