/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Network namespaces and veth pairs the tool makes for netns hosts.
 *
 * A namespace is the tool's only while a marker says so:
 * /run/iommu-bench/netns/NAME holds "PID STARTTIME" of the process that
 * made it. A namespace without a marker belongs to someone else and is
 * never touched; one whose marker names a dead process was left by a
 * crashed run and is replaced. All functions return 0 or a negative
 * errno, and those with a char **err its words (naming the namespace,
 * or the ip(8) command line and what ip said); NULL drops them.
 */
#ifndef IOMMU_BENCH_NETNS_H
#define IOMMU_BENCH_NETNS_H

#include <stdbool.h>
#include <stddef.h>

#define NETNS_STATE_DIR "/run/iommu-bench"
#define NETNS_MARKER_DIR NETNS_STATE_DIR "/netns"
#define NETNS_IFNAME_MAX 15 /* IFNAMSIZ - 1 */

/* /run/netns/@name exists. */
bool netns__exists(const char *name);
/* It exists and this process made it. */
bool netns__is_mine(const char *name);
/*
 * Make namespace @name ours: created, loopback up, marker written. A
 * foreign one is -EEXIST, one in use by a live run -EBUSY; a stale one
 * of ours is deleted first.
 */
int netns__claim(const char *name, char **err);
/* Delete @name if this process made it (its veths go with it). */
int netns__release(const char *name, char **err);

/* One end of a veth pair: @netns NULL is the root namespace. */
struct veth_end {
	const char *netns;
	const char *ifname;
	const char *cidr; /* NULL: no address */
	unsigned int mtu; /* 0: the kernel's default */
};

/* Create the pair, each end in its namespace, addressed and up. */
int veth__create(const struct veth_end *a, const struct veth_end *b,
		 char **err);

/*
 * A persistent tap device @e->ifname in @e->netns, addressed and up: the
 * controller's side of a qemu host's link (QEMU opens it by name). One
 * of that name already there is replaced.
 */
int tap__create(const struct veth_end *e, char **err);
/* `ip link del`, quietly: 0, or a negative errno when it was not there. */
int link__delete(const char *netns, const char *ifname);

/*
 * The interface name for a host's veth end: @nic when given, else one
 * derived from @host ("ib-" and as much of it as fits). Into @buf of
 * NETNS_IFNAME_MAX + 1 bytes; -EINVAL when nothing safe results.
 */
int netns__ifname(const char *nic, const char *host, char *buf, size_t size,
		  char **err);

#endif /* IOMMU_BENCH_NETNS_H */
