/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mode.sysfs's parts, for its unit test: one group switch, and the guard
 * that refuses to unbind what the agent's own life depends on.
 */
#ifndef IOMMU_BENCH_AGENT_SYSFS_H
#define IOMMU_BENCH_AGENT_SYSFS_H

#include <jansson.h>
#include <stdbool.h>

#include "bench/agent/agent-netaddr.h"

struct sysfs_switch {
	const char *root; /* "" for the real /sys */
	const char *nic, *type;
	json_t *guard; /* args' "guard": {"refuse_if_carries": ["ssh"]} */
	/* found */
	char *nicdev; /* the netdev's own device, a resolved sysfs path */
	/*
	 * The device that is unbound: the first of nicdev and its parents
	 * with an IOMMU group (virtio-net's PCI function, not virtio0).
	 */
	char *devdir, *pci, *bus;
	char *group, *driver, *before, *after, *operstate;
	bool unbound;
	long long elapsed_ms;
	json_t *steps; /* [{"write": path, "value": v}] in order */
	/* the NIC's addresses and routes across the rebind (real /sys only) */
	struct netaddr_set net;
	bool net_saved;
	json_t *restored, *restored_routes; /* their text, once put back */
};

/* Switch @sw->nic's group to @sw->type. 0 or -errno with *err set. */
int agent_sysfs__switch(struct sysfs_switch *sw, int timeout_ms, char **err);
void agent_sysfs__release(struct sysfs_switch *sw);
/*
 * Called only when @sw->devdir is about to be unbound. Refuse (-EBUSY,
 * *err naming the device, the interface and why) when the root file
 * system is on it or on anything below it (through LVM, dm-crypt, md
 * and btrfs' member devices), when another device of its group has a
 * driver, when the unbind would take other bound devices with it (a
 * parent shared with more than the NIC), or, when the guard asks for
 * "ssh", when the NIC holds an IPv4 or IPv6 default route, the route
 * back to the controller or the address $SSH_CONNECTION came in on.
 */
int agent_sysfs__guard(const struct sysfs_switch *sw, char **err);
/* A sysfs file's first line, trimmed; NULL when unreadable. */
char *agent_sysfs__read(const char *path);

#endif /* IOMMU_BENCH_AGENT_SYSFS_H */
