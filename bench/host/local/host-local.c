// SPDX-License-Identifier: GPL-2.0-only
/*
 * The controller itself as a host: the agent is a plain child. A veth
 * end it has in a link is made by its netns peer (bench/host/local/host-netns.c),
 * which removes it with its namespace.
 */
#include <errno.h>

#include "bench/agent-client/agent-conn.h"
#include "bench/host/host.h"
#include "log.h"
#include "util.h"

static int local__open(struct host *h)
{
	(void)h;
	return 0;
}

static int local__agent(struct host *h, struct agent_conn **out)
{
	const char *argv[] = { host__self_exe(), "agent", "serve", NULL };

	return agent_conn__spawn(argv, NULL, h->m->name, out);
}

static int local__wait_boot(struct host *h, const char *old_boot_id,
			    uint64_t timeout_ms, char **err)
{
	(void)old_boot_id;
	(void)timeout_ms;
	*err = xasprintf("host %s: a local host is the controller itself and "
			 "is never rebooted by the tool",
			 h->m->name);
	return -EOPNOTSUPP;
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
