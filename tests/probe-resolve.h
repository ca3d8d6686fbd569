/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A probe from its event name, as the collector reads one: the unit
 * tests and the probe-cost bench attach probes they name this way.
 */
#ifndef IOMMU_BENCH_TEST_PROBE_RESOLVE_H
#define IOMMU_BENCH_TEST_PROBE_RESOLVE_H

#include <stddef.h>

#include "collectors/bpf/bpf-probes.h"

/* @event parsed and resolved into @p: 0, or -errno with why in @err. */
static inline int probe__resolve_event(const char *event, struct bpf_probe *p,
				       struct bpf_env *env, char *err,
				       size_t size)
{
	struct bpf_spec spec;
	int ret;

	ret = bpf_spec__parse(event, &spec, err, size);
	if (!ret)
		ret = bpf_probe__resolve(p, &spec, env, err, size);
	bpf_spec__release(&spec);
	return ret;
}

#endif /* IOMMU_BENCH_TEST_PROBE_RESOLVE_H */
