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

#include "bench/host/host.h"
#include "bench/host/local/local.h"
#include "netns.h"
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
	.agent = local__agent,
	.wait_boot = local__wait_boot,
	.close = netns_host__close,
};
