// SPDX-License-Identifier: GPL-2.0-only
/*
 * Save and restore an interface's addresses, MTU, admin state and
 * routes over rtnetlink. mode.sysfs unbinds a NIC's device to switch
 * its IOMMU group; the rebind makes a new netdev, with the old name (no
 * udev renames in the testbed guest, and udev gives the same name back
 * elsewhere) but none of the old addresses. Nothing here knows about
 * IOMMUs: it is the `ip addr save | ip addr restore` the agent needs,
 * without a shell and without ip(8) on the host.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "bench/agent/agent-netaddr.h"
#include "bench/agent/agent.h"
#include "clock.h"
#include "errmsg.h"
#include "util.h"

/* A dump's datagrams are at most 32 KiB; twice that never truncates. */
#define NL_BUF_SIZE 65536
/* The kernel answers at once; this only keeps a wedged socket finite. */
#define NL_TIMEOUT_S 5
#define POLL_MS 50
#define FOREVER 0xffffffffu
/* The IFA_F_* a request may carry; the kernel sets the others itself. */
#define SETTABLE_FLAGS                                           \
	(IFA_F_NODAD | IFA_F_HOMEADDRESS | IFA_F_NOPREFIXROUTE | \
	 IFA_F_MANAGETEMPADDR | IFA_F_MCAUTOJOIN)

struct nl {
	int fd;
	unsigned int seq;
	char *buf;
};

/* One request: a header, its family header, a few attributes. */
struct nl_msg {
	union {
		struct nlmsghdr h;
		char buf[512];
	};
};

struct link_info {
	int index;
	unsigned int flags, mtu;
	bool found;
};

struct dump_ctx {
	int index;
	struct netaddr_set *s;
};

struct dad_ctx {
	int index;
	const struct netaddr_set *s;
	size_t pending;
	const struct netaddr *failed;
};

static size_t addr_len(int family)
{
	return family == AF_INET ? 4 : 16;
}

static int nl__open(struct nl *nl)
{
	struct timeval tv = { .tv_sec = NL_TIMEOUT_S };

	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (nl->fd < 0)
		return -errno;
	setsockopt(nl->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	nl->seq = (unsigned int)time(NULL);
	nl->buf = xmalloc(NL_BUF_SIZE);
	return 0;
}

static void nl__close(struct nl *nl)
{
	close(nl->fd);
	free(nl->buf);
}

static void *msg__init(struct nl_msg *m, int type, int flags, size_t hdrlen)
{
	memset(m, 0, sizeof(*m));
	m->h.nlmsg_len = NLMSG_LENGTH(hdrlen);
	m->h.nlmsg_type = type;
	m->h.nlmsg_flags = NLM_F_REQUEST | flags;
	return NLMSG_DATA(&m->h);
}

static void msg__attr(struct nl_msg *m, int type, const void *data, size_t len)
{
	size_t off = NLMSG_ALIGN(m->h.nlmsg_len);
	struct rtattr *rta = (struct rtattr *)(m->buf + off);

	/* Every request here is a handful of small attributes. */
	if (off + RTA_SPACE(len) > sizeof(m->buf))
		abort();
	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	m->h.nlmsg_len = off + RTA_SPACE(len);
}

/*
 * Send @m and read the answer up to its end (NLMSG_DONE of a dump, or
 * the ack), handing every message of ours to @fn. The first error wins:
 * the kernel's, else @fn's.
 */
static int nl__talk(struct nl *nl, struct nl_msg *m,
		    int (*fn)(struct nlmsghdr *h, void *data), void *data)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int ret = 0;

	m->h.nlmsg_seq = ++nl->seq;
	if (sendto(nl->fd, m, m->h.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		return -errno;
	for (;;) {
		struct iovec iov = { nl->buf, NL_BUF_SIZE };
		struct msghdr mh = { .msg_name = &sa,
				     .msg_namelen = sizeof(sa),
				     .msg_iov = &iov,
				     .msg_iovlen = 1 };
		struct nlmsghdr *h;
		ssize_t n = recvmsg(nl->fd, &mh, 0);
		int len;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if (mh.msg_flags & MSG_TRUNC)
			return -EMSGSIZE;
		if (sa.nl_pid)
			continue; /* not from the kernel */
		len = (int)n;
		for (h = (struct nlmsghdr *)nl->buf; NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len)) {
			int *e = NLMSG_DATA(h);

			if (h->nlmsg_seq != nl->seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE) {
				/* A dump that failed half way says so here. */
				if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int)) &&
				    *e < 0)
					return *e;
				return ret;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				if (h->nlmsg_len <
				    NLMSG_LENGTH(sizeof(struct nlmsgerr)))
					return -EPROTO;
				return *e ? *e : ret;
			}
			if (fn && !ret)
				ret = fn(h, data);
		}
	}
}

static int nl__dump(struct nl *nl, int type, size_t hdrlen,
		    int (*fn)(struct nlmsghdr *h, void *data), void *data)
{
	struct nl_msg m;

	/* The family header's first byte, AF_UNSPEC: every family. */
	msg__init(&m, type, NLM_F_DUMP, hdrlen);
	return nl__talk(nl, &m, fn, data);
}

static void parse_attrs(struct nlmsghdr *h, size_t hdrlen, struct rtattr **tb,
			int max)
{
	struct rtattr *rta =
		(struct rtattr *)((char *)NLMSG_DATA(h) + NLMSG_ALIGN(hdrlen));
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(hdrlen);

	memset(tb, 0, sizeof(*tb) * (max + 1));
	for (; len > 0 && RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
		if (rta->rta_type <= max)
			tb[rta->rta_type] = rta;
}

static bool attr_copy(const struct rtattr *a, void *dst, size_t len)
{
	if (!a || RTA_PAYLOAD(a) < len)
		return false;
	memcpy(dst, RTA_DATA(a), len);
	return true;
}

static int link_cb(struct nlmsghdr *h, void *data)
{
	struct ifinfomsg *ifi = NLMSG_DATA(h);
	struct link_info *li = data;
	struct rtattr *tb[IFLA_MAX + 1];

	if (h->nlmsg_type != RTM_NEWLINK ||
	    h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)) ||
	    ifi->ifi_index != li->index)
		return 0;
	parse_attrs(h, sizeof(*ifi), tb, IFLA_MAX);
	li->flags = ifi->ifi_flags;
	attr_copy(tb[IFLA_MTU], &li->mtu, sizeof(li->mtu));
	li->found = true;
	return 0;
}

static int link_get(struct nl *nl, int index, struct link_info *li)
{
	struct nl_msg m;
	struct ifinfomsg *ifi =
		msg__init(&m, RTM_GETLINK, NLM_F_ACK, sizeof(*ifi));
	int ret;

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = index;
	memset(li, 0, sizeof(*li));
	li->index = index;
	ret = nl__talk(nl, &m, link_cb, li);
	if (!ret && !li->found)
		ret = -ENODEV;
	return ret;
}

/* MTU when @mtu, admin up when @up: one change per request, one error. */
static int link_set(struct nl *nl, int index, unsigned int mtu, bool up)
{
	struct nl_msg m;
	struct ifinfomsg *ifi =
		msg__init(&m, RTM_NEWLINK, NLM_F_ACK, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = index;
	if (up) {
		ifi->ifi_flags = IFF_UP;
		ifi->ifi_change = IFF_UP;
	}
	if (mtu)
		msg__attr(&m, IFLA_MTU, &mtu, sizeof(mtu));
	return nl__talk(nl, &m, NULL, NULL);
}

/* An address message's address, flags and family; false: not ours. */
static bool addr_parse(struct nlmsghdr *h, int index, struct rtattr **tb,
		       struct netaddr *a, unsigned int *flags)
{
	struct ifaddrmsg *ifa = NLMSG_DATA(h);
	size_t len;

	if (h->nlmsg_type != RTM_NEWADDR ||
	    h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)) ||
	    (int)ifa->ifa_index != index ||
	    (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6))
		return false;
	memset(a, 0, sizeof(*a));
	len = addr_len(ifa->ifa_family);
	parse_attrs(h, sizeof(*ifa), tb, IFA_MAX);
	/* IFA_LOCAL is the address when it has a peer (IPv4: always). */
	if (!attr_copy(tb[IFA_ADDRESS], a->peer, len))
		return false;
	if (!attr_copy(tb[IFA_LOCAL], a->local, len))
		memcpy(a->local, a->peer, len);
	*flags = ifa->ifa_flags;
	attr_copy(tb[IFA_FLAGS], flags, sizeof(*flags));
	a->family = ifa->ifa_family;
	a->prefixlen = ifa->ifa_prefixlen;
	a->scope = ifa->ifa_scope;
	return true;
}

static bool is_link_local6(const unsigned char *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

static int addr_cb(struct nlmsghdr *h, void *data)
{
	struct dump_ctx *c = data;
	struct rtattr *tb[IFA_MAX + 1];
	struct ifa_cacheinfo ci;
	struct netaddr a;
	unsigned int flags;

	if (!addr_parse(h, c->index, tb, &a, &flags))
		return 0;
	/*
	 * The kernel makes these again: link-local from the MAC, temporary
	 * ones from their public parent. A failed one is no address.
	 */
	if (a.family == AF_INET6 &&
	    (is_link_local6(a.local) || flags & IFA_F_TEMPORARY))
		return 0;
	if (flags & IFA_F_DADFAILED)
		return 0;
	a.flags = flags & SETTABLE_FLAGS;
	a.has_brd = a.family == AF_INET &&
		    attr_copy(tb[IFA_BROADCAST], a.brd, addr_len(a.family));
	/* Only an alias label is worth keeping; the default is the name. */
	if (a.family == AF_INET && tb[IFA_LABEL]) {
		snprintf(a.label, sizeof(a.label), "%.*s",
			 (int)RTA_PAYLOAD(tb[IFA_LABEL]),
			 (char *)RTA_DATA(tb[IFA_LABEL]));
		if (!strcmp(a.label, c->s->ifname))
			a.label[0] = '\0';
	}
	a.valid_lft = a.preferred_lft = FOREVER;
	if (attr_copy(tb[IFA_CACHEINFO], &ci, sizeof(ci))) {
		a.valid_lft = ci.ifa_valid;
		a.preferred_lft = ci.ifa_prefered;
	}
	if (!a.valid_lft)
		return 0; /* expires this instant; the kernel would refuse it */
	c->s->addrs = xrealloc(c->s->addrs,
			       (c->s->nr_addrs + 1) * sizeof(*c->s->addrs));
	c->s->addrs[c->s->nr_addrs++] = a;
	return 0;
}

static int route_cb(struct nlmsghdr *h, void *data)
{
	struct rtmsg *rtm = NLMSG_DATA(h);
	struct rtattr *tb[RTA_MAX + 1];
	struct dump_ctx *c = data;
	struct netroute r = { 0 };
	unsigned int table, oif = 0;
	size_t len;

	if (h->nlmsg_type != RTM_NEWROUTE ||
	    h->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm)) ||
	    (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6) ||
	    rtm->rtm_type != RTN_UNICAST || rtm->rtm_flags & RTM_F_CLONED)
		return 0;
	/*
	 * Prefix routes come back with their addresses, RA's with the
	 * next advertisement: only what someone added by hand or by DHCP.
	 */
	if (rtm->rtm_protocol == RTPROT_KERNEL ||
	    rtm->rtm_protocol == RTPROT_REDIRECT ||
	    rtm->rtm_protocol == RTPROT_RA)
		return 0;
	parse_attrs(h, sizeof(*rtm), tb, RTA_MAX);
	table = rtm->rtm_table;
	attr_copy(tb[RTA_TABLE], &table, sizeof(table));
	/*
	 * Multipath, nexthop objects and IPv6 gateways of IPv4 routes are
	 * more than one interface's state: left to whoever made them.
	 */
	if (table != RT_TABLE_MAIN || tb[RTA_MULTIPATH] || tb[RTA_NH_ID] ||
	    tb[RTA_VIA] || !attr_copy(tb[RTA_OIF], &oif, sizeof(oif)) ||
	    (int)oif != c->index)
		return 0;
	len = addr_len(rtm->rtm_family);
	r.family = rtm->rtm_family;
	r.dst_len = rtm->rtm_dst_len;
	r.tos = rtm->rtm_tos;
	r.protocol = rtm->rtm_protocol;
	r.scope = rtm->rtm_scope;
	if (r.dst_len && !attr_copy(tb[RTA_DST], r.dst, len))
		return 0;
	r.has_gw = attr_copy(tb[RTA_GATEWAY], r.gw, len);
	r.has_prefsrc = attr_copy(tb[RTA_PREFSRC], r.prefsrc, len);
	r.has_priority =
		attr_copy(tb[RTA_PRIORITY], &r.priority, sizeof(r.priority));
	c->s->routes = xrealloc(c->s->routes,
				(c->s->nr_routes + 1) * sizeof(*c->s->routes));
	c->s->routes[c->s->nr_routes++] = r;
	return 0;
}

int netaddr__save(const char *ifname, struct netaddr_set *out)
{
	struct dump_ctx c = { .s = out };
	struct link_info li;
	struct nl nl;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!name_is_safe(ifname) || strlen(ifname) >= IFNAMSIZ)
		return -EINVAL;
	snprintf(out->ifname, sizeof(out->ifname), "%s", ifname);
	c.index = (int)if_nametoindex(ifname);
	if (!c.index)
		return -ENODEV;
	ret = nl__open(&nl);
	if (ret)
		return ret;
	ret = link_get(&nl, c.index, &li);
	if (ret)
		goto out;
	out->up = li.flags & IFF_UP;
	out->mtu = li.mtu;
	ret = nl__dump(&nl, RTM_GETADDR, sizeof(struct ifaddrmsg), addr_cb, &c);
	if (!ret)
		ret = nl__dump(&nl, RTM_GETROUTE, sizeof(struct rtmsg),
			       route_cb, &c);
out:
	nl__close(&nl);
	if (ret)
		netaddr__release(out);
	return ret;
}

static int addr_add(struct nl *nl, int index, const struct netaddr *a)
{
	struct nl_msg m;
	struct ifaddrmsg *ifa;
	size_t len = addr_len(a->family);
	unsigned int flags = a->flags;

	/* REPLACE: an address a network manager put back first is fine. */
	ifa = msg__init(&m, RTM_NEWADDR,
			NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE, sizeof(*ifa));
	ifa->ifa_family = a->family;
	ifa->ifa_prefixlen = a->prefixlen;
	ifa->ifa_flags = flags & 0xff;
	ifa->ifa_scope = a->scope;
	ifa->ifa_index = index;
	msg__attr(&m, IFA_LOCAL, a->local, len);
	msg__attr(&m, IFA_ADDRESS, a->peer, len);
	if (a->has_brd)
		msg__attr(&m, IFA_BROADCAST, a->brd, len);
	if (a->label[0])
		msg__attr(&m, IFA_LABEL, a->label, strlen(a->label) + 1);
	msg__attr(&m, IFA_FLAGS, &flags, sizeof(flags));
	if (a->valid_lft != FOREVER) {
		struct ifa_cacheinfo ci = { .ifa_prefered = a->preferred_lft,
					    .ifa_valid = a->valid_lft };

		msg__attr(&m, IFA_CACHEINFO, &ci, sizeof(ci));
	}
	return nl__talk(nl, &m, NULL, NULL);
}

static int route_add(struct nl *nl, int index, const struct netroute *r)
{
	size_t len = addr_len(r->family);
	unsigned int oif = index;
	struct rtmsg *rtm;
	struct nl_msg m;

	rtm = msg__init(&m, RTM_NEWROUTE,
			NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE, sizeof(*rtm));
	rtm->rtm_family = r->family;
	rtm->rtm_dst_len = r->dst_len;
	rtm->rtm_tos = r->tos;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = r->protocol;
	rtm->rtm_scope = r->scope;
	rtm->rtm_type = RTN_UNICAST;
	if (r->dst_len)
		msg__attr(&m, RTA_DST, r->dst, len);
	if (r->has_gw)
		msg__attr(&m, RTA_GATEWAY, r->gw, len);
	if (r->has_prefsrc)
		msg__attr(&m, RTA_PREFSRC, r->prefsrc, len);
	if (r->has_priority)
		msg__attr(&m, RTA_PRIORITY, &r->priority, sizeof(r->priority));
	msg__attr(&m, RTA_OIF, &oif, sizeof(oif));
	return nl__talk(nl, &m, NULL, NULL);
}

static int wait_index(const char *ifname, long long end)
{
	unsigned int index;

	for (;;) {
		index = if_nametoindex(ifname);
		if (index)
			return (int)index;
		if (mono_ms() >= end)
			return -ETIMEDOUT;
		usleep(POLL_MS * 1000);
	}
}

int netaddr__restore(const struct netaddr_set *s, int timeout_ms, char **err)
{
	long long end = mono_ms() + timeout_ms;
	struct link_info li;
	struct nl nl;
	int index, ret;
	size_t i;

	index = wait_index(s->ifname, end);
	if (index < 0)
		return errmsg__set(
			err, index,
			"no interface named %s appeared within %d ms",
			s->ifname, timeout_ms);
	ret = nl__open(&nl);
	if (ret)
		return errmsg__set(err, ret, "rtnetlink: %s", strerror(-ret));
	ret = link_get(&nl, index, &li);
	if (ret) {
		errmsg__set(err, ret, "reading %s back: %s", s->ifname,
			    strerror(-ret));
		goto out;
	}
	if (s->mtu && li.mtu != s->mtu) {
		ret = link_set(&nl, index, s->mtu, false);
		if (ret) {
			errmsg__set(err, ret,
				    "setting the MTU of %s back to %u: %s",
				    s->ifname, s->mtu, strerror(-ret));
			goto out;
		}
	}
	if (s->up && !(li.flags & IFF_UP)) {
		ret = link_set(&nl, index, 0, true);
		if (ret) {
			errmsg__set(err, ret, "setting %s up: %s", s->ifname,
				    strerror(-ret));
			goto out;
		}
	}
	for (i = 0; i < s->nr_addrs; i++) {
		ret = addr_add(&nl, index, &s->addrs[i]);
		if (ret) {
			char *a = netaddr__str(&s->addrs[i]);

			errmsg__set(err, ret, "adding %s back to %s: %s", a,
				    s->ifname, strerror(-ret));
			free(a);
			goto out;
		}
	}
out:
	nl__close(&nl);
	return ret;
}

static int dad_cb(struct nlmsghdr *h, void *data)
{
	struct dad_ctx *c = data;
	struct rtattr *tb[IFA_MAX + 1];
	struct netaddr a;
	unsigned int flags;
	size_t i;

	if (!addr_parse(h, c->index, tb, &a, &flags) || a.family != AF_INET6)
		return 0;
	for (i = 0; i < c->s->nr_addrs; i++) {
		const struct netaddr *w = &c->s->addrs[i];

		if (w->family != AF_INET6 || memcmp(w->local, a.local, 16))
			continue;
		if (flags & IFA_F_DADFAILED)
			c->failed = w;
		else if (flags & IFA_F_TENTATIVE)
			c->pending++;
	}
	return 0;
}

static bool needs_dad(const struct netaddr_set *s)
{
	size_t i;

	for (i = 0; i < s->nr_addrs; i++)
		if (s->addrs[i].family == AF_INET6 &&
		    !(s->addrs[i].flags & IFA_F_NODAD))
			return true;
	return false;
}

static int wait_dad(struct nl *nl, const struct netaddr_set *s, int index,
		    int timeout_ms, char **err)
{
	long long end = mono_ms() + timeout_ms;
	struct dad_ctx c = { .index = index, .s = s };
	struct link_info li;
	char *a;
	int ret;

	for (;;) {
		ret = link_get(nl, index, &li);
		if (ret)
			return errmsg__set(err, ret, "reading %s back: %s",
					   s->ifname, strerror(-ret));
		/* Without a carrier DAD does not even start. */
		if (!(li.flags & IFF_RUNNING))
			return 0;
		c.pending = 0;
		c.failed = NULL;
		ret = nl__dump(nl, RTM_GETADDR, sizeof(struct ifaddrmsg),
			       dad_cb, &c);
		if (ret)
			return errmsg__set(err, ret,
					   "listing the addresses of %s: %s",
					   s->ifname, strerror(-ret));
		if (c.failed) {
			a = netaddr__str(c.failed);
			ret = errmsg__set(err, -EADDRINUSE,
					  "%s on %s failed duplicate address "
					  "detection: another host has it",
					  a, s->ifname);
			free(a);
			return ret;
		}
		if (!c.pending)
			return 0;
		if (mono_ms() >= end)
			return errmsg__set(err, -ETIMEDOUT,
					   "%zu address(es) of %s still "
					   "tentative (duplicate address "
					   "detection) after %d ms",
					   c.pending, s->ifname, timeout_ms);
		usleep(POLL_MS * 1000);
	}
}

int netaddr__settle(const struct netaddr_set *s, int timeout_ms, char **err)
{
	struct nl nl;
	int index, ret;
	size_t i;

	index = (int)if_nametoindex(s->ifname);
	if (!index)
		return errmsg__set(err, -ENODEV, "%s is gone again", s->ifname);
	ret = nl__open(&nl);
	if (ret)
		return errmsg__set(err, ret, "rtnetlink: %s", strerror(-ret));
	if (needs_dad(s)) {
		ret = wait_dad(&nl, s, index, timeout_ms, err);
		if (ret)
			goto out;
	}
	for (i = 0; i < s->nr_routes; i++) {
		ret = route_add(&nl, index, &s->routes[i]);
		if (ret) {
			char *r = netroute__str(&s->routes[i]);

			errmsg__set(err, ret,
				    "adding the route %s back to %s: %s", r,
				    s->ifname, strerror(-ret));
			free(r);
			goto out;
		}
	}
out:
	nl__close(&nl);
	return ret;
}

void netaddr__release(struct netaddr_set *s)
{
	free(s->addrs);
	free(s->routes);
	s->addrs = NULL;
	s->routes = NULL;
	s->nr_addrs = 0;
	s->nr_routes = 0;
}

char *netaddr__str(const struct netaddr *a)
{
	char l[INET6_ADDRSTRLEN] = "?", p[INET6_ADDRSTRLEN] = "?";

	inet_ntop(a->family, a->local, l, sizeof(l));
	if (!memcmp(a->local, a->peer, addr_len(a->family)))
		return xasprintf("%s/%u", l, a->prefixlen);
	inet_ntop(a->family, a->peer, p, sizeof(p));
	return xasprintf("%s peer %s/%u", l, p, a->prefixlen);
}

char *netroute__str(const struct netroute *r)
{
	char d[INET6_ADDRSTRLEN] = "?", g[INET6_ADDRSTRLEN] = "?";
	char s[INET6_ADDRSTRLEN] = "?", m[24] = "";
	char *dst, *str;

	inet_ntop(r->family, r->dst, d, sizeof(d));
	inet_ntop(r->family, r->gw, g, sizeof(g));
	inet_ntop(r->family, r->prefsrc, s, sizeof(s));
	dst = r->dst_len ? xasprintf("%s/%u", d, r->dst_len) :
			   xstrdup("default");
	if (r->has_priority)
		snprintf(m, sizeof(m), " metric %u", r->priority);
	str = xasprintf("%s%s%s%s%s%s", dst, r->has_gw ? " via " : "",
			r->has_gw ? g : "", r->has_prefsrc ? " src " : "",
			r->has_prefsrc ? s : "", m);
	free(dst);
	return str;
}

static int oif_cb(struct nlmsghdr *h, void *data)
{
	struct rtattr *tb[RTA_MAX + 1];

	if (h->nlmsg_type != RTM_NEWROUTE ||
	    h->nlmsg_len < NLMSG_LENGTH(sizeof(struct rtmsg)))
		return 0;
	parse_attrs(h, sizeof(struct rtmsg), tb, RTA_MAX);
	attr_copy(tb[RTA_OIF], data, sizeof(unsigned int));
	return 0;
}

int netaddr__route_dev(const char *addr, char ifname[IFNAMSIZ])
{
	static const unsigned char v4mapped[12] = { [10] = 0xff, [11] = 0xff };
	unsigned char a[16];
	unsigned int oif = 0;
	int family = AF_INET;
	struct rtmsg *rtm;
	struct nl_msg m;
	struct nl nl;
	int ret;

	if (inet_pton(AF_INET, addr, a) != 1) {
		family = AF_INET6;
		if (inet_pton(AF_INET6, addr, a) != 1)
			return -EINVAL;
		/* sshd on a dual-stack socket reports IPv4 peers this way. */
		if (!memcmp(a, v4mapped, sizeof(v4mapped))) {
			memmove(a, a + 12, 4);
			family = AF_INET;
		}
	}
	ret = nl__open(&nl);
	if (ret)
		return ret;
	rtm = msg__init(&m, RTM_GETROUTE, NLM_F_ACK, sizeof(*rtm));
	rtm->rtm_family = family;
	rtm->rtm_dst_len = family == AF_INET ? 32 : 128;
	msg__attr(&m, RTA_DST, a, addr_len(family));
	ret = nl__talk(&nl, &m, oif_cb, &oif);
	nl__close(&nl);
	if (ret)
		return ret;
	if (!oif)
		return -ENETUNREACH;
	return if_indextoname(oif, ifname) ? 0 : -ENODEV;
}
