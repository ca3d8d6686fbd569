// SPDX-License-Identifier: GPL-2.0-only
/*
 * The controller itself as a host, and a network namespace on it: the
 * agent is a plain child, in the namespace for a netns host, and the
 * kernel is the controller's, never rebooted. A veth end the controller
 * has in a link is made by its netns peer (host-netns.c), which removes
 * it with its namespace.
 */
#include <errno.h>
#include <string.h>

#include "bench/agent-client/agent-conn.h"
#include "bench/host/host.h"
#include "bench/host/local/local.h"
#include "errmsg.h"
#include "util.h"

static int local__open(struct host *h, char **err)
{
	(void)h;
	(void)err;
	return 0;
}

int local__agent(struct host *h, struct agent_conn **out, char **err)
{
	const char *argv[] = { host__self_exe(), "agent", "serve", NULL };
	const char *netns = h->m->transport == HOST_NETNS ? h->m->netns : NULL;
	int ret;

	ret = agent_conn__spawn(argv, netns, h->m->name, out);
	if (ret)
		errmsg__set(err, ret, "host %s: cannot start its agent: %s",
			    h->m->name, strerror(-ret));
	return ret;
}

int local__wait_boot(struct host *h, const char *old_boot_id,
		     uint64_t timeout_ms, char **err)
{
	(void)old_boot_id;
	(void)timeout_ms;
	return errmsg__set(err, -EOPNOTSUPP, "host %s: %s", h->m->name,
			   h->m->transport == HOST_NETNS ?
				   "a namespace shares the controller's "
				   "kernel and cannot be rebooted" :
				   "a local host is the controller itself "
				   "and is never rebooted by the tool");
}

static void local__close(struct host *h)
{
	(void)h;
}

const struct host_ops host_local_ops = {
	.name = "local",
	.open = local__open,
	.agent = local__agent,
	.wait_boot = local__wait_boot,
	.close = local__close,
};
