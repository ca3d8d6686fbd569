/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mode.sysfs's parts, for its unit test: one group switch, and the guard
 * that refuses to unbind what the agent's own life depends on.
 */
#ifndef IOMMU_BENCH_AGENT_SYSFS_H
#define IOMMU_BENCH_AGENT_SYSFS_H

#include <jansson.h>
#include <stdbool.h>

struct sysfs_switch {
	const char *root; /* "" for the real /sys */
	const char *nic, *type;
	json_t *guard; /* args' "guard": {"refuse_if_carries": ["ssh"]} */
	/* found */
	char *pci, *group, *driver, *before, *after, *operstate;
	bool unbound;
	long long elapsed_ms;
	json_t *steps; /* [{"write": path, "value": v}] in order */
};

/* Switch @sw->nic's group to @sw->type. 0 or -errno with *err set. */
int agent_sysfs__switch(struct sysfs_switch *sw, int timeout_ms, char **err);
void agent_sysfs__release(struct sysfs_switch *sw);
/*
 * Refuse (-EBUSY, *err naming the device) to unbind @sw->pci when it
 * holds the root filesystem, when another device of its group has a
 * driver, or, when the guard asks for "ssh", when the NIC holds the
 * default route or the address $SSH_CONNECTION names.
 */
int agent_sysfs__guard(const struct sysfs_switch *sw, char **err);
/* A sysfs file's first line, trimmed; NULL when unreadable. */
char *agent_sysfs__read(const char *path);

#endif /* IOMMU_BENCH_AGENT_SYSFS_H */
