/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An interface's layer-3 state, saved over rtnetlink before mode.sysfs
 * unbinds its device and put back on the new netdev that the rebind
 * creates: a host with no network manager (the testbed guest) would
 * otherwise come back with a bare link and the next iperf3 would fail.
 * Plain NETLINK_ROUTE sockets, no libnl and no ip(8).
 */
#ifndef IOMMU_BENCH_AGENT_NETADDR_H
#define IOMMU_BENCH_AGENT_NETADDR_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>

struct netaddr {
	unsigned char family; /* AF_INET or AF_INET6 */
	unsigned char prefixlen;
	unsigned char scope;
	unsigned int flags; /* the IFA_F_* a request may set */
	unsigned char local[16];
	unsigned char peer[16]; /* point-to-point peer, else == local */
	unsigned char brd[16];	/* IPv4 broadcast, when has_brd */
	bool has_brd;
	char label[IFNAMSIZ]; /* IPv4 alias label ("eth0:1"), or "" */
	/* Seconds left when saved; 0xffffffff: forever. */
	unsigned int valid_lft, preferred_lft;
};

/* A route of the main table out of the interface, not one the kernel made. */
struct netroute {
	unsigned char family, dst_len, tos, protocol, scope;
	unsigned char dst[16], gw[16], prefsrc[16];
	bool has_gw, has_prefsrc, has_priority;
	unsigned int priority;
};

struct netaddr_set {
	char ifname[IFNAMSIZ];
	bool up; /* administratively */
	unsigned int mtu;
	struct netaddr *addrs;
	size_t nr_addrs;
	struct netroute *routes;
	size_t nr_routes;
};

/*
 * Record @ifname's admin state, MTU, addresses (IPv6 link-local and
 * temporary ones excepted: the kernel makes those itself) and routes.
 * 0, or a negative errno (-ENODEV: no such interface).
 */
int netaddr__save(const char *ifname, struct netaddr_set *out);
/*
 * Wait (at most @timeout_ms) for an interface named @s->ifname, then
 * give it the MTU, the admin state and the addresses of @s. Addresses
 * that are already there (a network manager was quicker) are fine.
 * 0, or a negative errno with *err set.
 */
int netaddr__restore(const struct netaddr_set *s, int timeout_ms, char **err);
/*
 * Once the link is up: wait (at most @timeout_ms) until duplicate
 * address detection has passed for the restored IPv6 addresses (a
 * tentative address is no source, and no route may prefer it), then
 * put the routes back. 0, or a negative errno with *err set.
 */
int netaddr__settle(const struct netaddr_set *s, int timeout_ms, char **err);
void netaddr__release(struct netaddr_set *s);

/* "192.0.2.1/24", "2001:db8::1/64", "10.0.0.1 peer 10.0.0.2/32". */
char *netaddr__str(const struct netaddr *a);
/* "default via 192.0.2.1", "198.51.100.0/24 via 192.0.2.1 metric 10". */
char *netroute__str(const struct netroute *r);

/*
 * The interface the kernel would send a packet to @addr (IPv4 or IPv6
 * text) out of, into @ifname. 0, or a negative errno.
 */
int netaddr__route_dev(const char *addr, char ifname[IFNAMSIZ]);

#endif /* IOMMU_BENCH_AGENT_NETADDR_H */
