// SPDX-License-Identifier: GPL-2.0-only
/*
 * A network namespace on the controller as a host. open() claims the
 * namespace; the veth pair of a link is made by whichever of the two
 * linked hosts is opened second (a local peer is always there), so that
 * per-host open() in any order builds each pair once. close() deletes
 * the namespace, and with it the pair.
 */
#include <errno.h>
#include <string.h>

#include "bench/agent-client/agent-conn.h"
#include "bench/host/host.h"
#include "bench/host/local/netns.h"
#include "errmsg.h"
#include "log.h"
#include "util.h"

static int netns__end(const struct matrix_host *m, char *ifname, size_t size,
		      struct veth_end *e, char **err)
{
	int ret = netns__ifname(m->nic, m->name, ifname, size, err);

	e->netns = m->transport == HOST_NETNS ? m->netns : NULL;
	e->ifname = ifname;
	e->cidr = m->address;
	e->mtu = 0;
	return ret;
}

static int netns__link(struct host *h, char **err)
{
	char a_if[NETNS_IFNAME_MAX + 1], b_if[NETNS_IFNAME_MAX + 1];
	const struct matrix_host *peer;
	struct veth_end a, b;
	char *why = NULL;
	int ret;

	if (!h->m->has_link || !h->matrix)
		return 0;
	peer = &h->matrix->hosts[h->m->link];
	if (peer->transport == HOST_NETNS) {
		if (!netns__is_mine(peer->netns))
			return 0; /* it makes the pair when opened */
	} else if (peer->transport != HOST_LOCAL) {
		return 0; /* a qemu peer wires its own tap */
	}
	ret = netns__end(h->m, a_if, sizeof(a_if), &a, err);
	if (!ret)
		ret = netns__end(peer, b_if, sizeof(b_if), &b, err);
	if (ret)
		return ret;
	ret = veth__create(&a, &b, &why);
	if (ret)
		errmsg__set(err, ret,
			    "host %s: cannot link it to host %s by a veth "
			    "pair: %s",
			    h->m->name, peer->name, why);
	free(why);
	return ret;
}

static int netns_host__open(struct host *h, char **err)
{
	int ret;

	ret = netns__claim(h->m->netns, err);
	if (ret)
		return ret;
	ret = netns__link(h, err);
	if (ret)
		netns__release(h->m->netns, NULL);
	return ret;
}

static int netns_host__agent(struct host *h, struct agent_conn **out,
			     char **err)
{
	const char *argv[] = { host__self_exe(), "agent", "serve", NULL };
	int ret;

	ret = agent_conn__spawn(argv, h->m->netns, h->m->name, out);
	if (ret)
		errmsg__set(err, ret, "host %s: cannot start its agent: %s",
			    h->m->name, strerror(-ret));
	return ret;
}

static int netns_host__wait_boot(struct host *h, const char *old_boot_id,
				 uint64_t timeout_ms, char **err)
{
	(void)old_boot_id;
	(void)timeout_ms;
	*err = xasprintf("host %s: a namespace shares the controller's kernel "
			 "and cannot be rebooted",
			 h->m->name);
	return -EOPNOTSUPP;
}

static void netns_host__close(struct host *h)
{
	char *err = NULL;

	if (netns__release(h->m->netns, &err))
		pr_warn("host %s: %s", h->m->name, err);
	free(err);
}

const struct host_ops host_netns_ops = {
	.name = "netns",
	.open = netns_host__open,
	.agent = netns_host__agent,
	.wait_boot = netns_host__wait_boot,
	.close = netns_host__close,
};
