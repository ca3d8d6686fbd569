// SPDX-License-Identifier: GPL-2.0-only
/*
 * The controller itself as a host: the agent is a plain child. A veth
 * end it has in a link is made by its netns peer (bench/host/local/host-netns.c),
 * which removes it with its namespace.
 */
#include <errno.h>
#include <string.h>

#include "bench/agent-client/agent-conn.h"
#include "bench/host/host.h"
#include "errmsg.h"
#include "log.h"
#include "util.h"

static int local__open(struct host *h, char **err)
{
	(void)h;
	(void)err;
	return 0;
}

static int local__agent(struct host *h, struct agent_conn **out, char **err)
{
	const char *argv[] = { host__self_exe(), "agent", "serve", NULL };
	int ret;

	ret = agent_conn__spawn(argv, NULL, h->m->name, out);
	if (ret)
		errmsg__set(err, ret, "host %s: cannot start its agent: %s",
			    h->m->name, strerror(-ret));
	return ret;
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
