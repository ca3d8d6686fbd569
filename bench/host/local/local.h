/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the two transports of the controller's own machine share (local
 * and netns): the agent as a child, and no reboot.
 */
#ifndef IOMMU_BENCH_HOST_LOCAL_H
#define IOMMU_BENCH_HOST_LOCAL_H

#include <stdint.h>

struct agent_conn;
struct host;

/* `iommu-bench agent serve`, in the host's namespace for a netns host. */
int local__agent(struct host *h, struct agent_conn **out, char **err);
/* -EOPNOTSUPP: the controller's kernel is not the tool's to reboot. */
int local__wait_boot(struct host *h, const char *old_boot_id,
		     uint64_t timeout_ms, char **err);

#endif /* IOMMU_BENCH_HOST_LOCAL_H */
