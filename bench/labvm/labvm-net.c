// SPDX-License-Identifier: GPL-2.0-only
/*
 * A lab machine's network: a tap link from this machine, 10.91.N.1, to
 * the VM's NIC, and a dnsmasq of its own on that link leasing the VM
 * 10.91.N.2 by its MAC, as a lab's DHCP server does. The image holds no
 * address, so any number of lab machines run from one image, each on
 * its own /24.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netns.h"
#include "bench/labvm/labvm-priv.h"
#include "errmsg.h"
#include "log.h"
#include "subprocess.h"
#include "util.h"

#define SUBNETS 256
#define IP_TIMEOUT_MS 10000
#define DNSMASQ_TIMEOUT_MS 10000

/* Whether any interface here has an address in 10.91.@n.0/24. */
static bool subnet_used(const char *addrs, unsigned int n)
{
	char needle[24];

	snprintf(needle, sizeof(needle), " 10.91.%u.", n);
	return strstr(addrs, needle);
}

int labvm_net__plan(const char *name, unsigned int subnet, struct labvm_net *n,
		    char **err)
{
	struct spawn sp;
	unsigned int i;
	char *addrs;
	int ret;

	(void)name;
	memset(n, 0, sizeof(*n));
	ret = spawn__run(&sp,
			 (const char *const[]){ "ip", "-o", "-4", "addr",
						"show", NULL },
			 &(struct spawn_opts){ .flags = SPAWN_CAPTURE_OUT |
							SPAWN_NULL_ERR },
			 IP_TIMEOUT_MS);
	addrs = !ret && sp.out ? xstrdup(sp.out) : xstrdup("");
	spawn__release(&sp);
	if (subnet != -1u) {
		if (subnet >= SUBNETS)
			ret = errmsg__set(err, -EINVAL,
					  "subnet %u: expected 0 to 255 "
					  "(10.91.N.0/24)",
					  subnet);
		else if (subnet_used(addrs, subnet))
			ret = errmsg__set(err, -EADDRINUSE,
					  "10.91.%u.0/24 is in use on this "
					  "machine already (ip -4 addr)",
					  subnet);
	} else {
		for (i = 0; i < SUBNETS && subnet_used(addrs, i); i++)
			;
		subnet = i;
		if (i == SUBNETS)
			ret = errmsg__set(err, -EADDRINUSE,
					  "every 10.91.N.0/24 is in use on "
					  "this machine");
	}
	free(addrs);
	if (ret)
		return ret;
	n->subnet = subnet;
	snprintf(n->tap, sizeof(n->tap), "iblab%u", subnet & 0xff);
	snprintf(n->mac, sizeof(n->mac), "52:54:00:91:%02x:02", subnet & 0xff);
	snprintf(n->host_ip, sizeof(n->host_ip), "10.91.%u.1", subnet & 0xff);
	snprintf(n->vm_ip, sizeof(n->vm_ip), "10.91.%u.2", subnet & 0xff);
	return 0;
}

int labvm_net__up(struct labvm_net *n, const char *dir, char **err)
{
	char *cidr = xasprintf("%s/24", n->host_ip);
	char *iface = xasprintf("--interface=%s", n->tap);
	char *range = xasprintf("--dhcp-range=10.91.%u.0,static", n->subnet);
	char *host = xasprintf("--dhcp-host=%s,%s,infinite", n->mac, n->vm_ip);
	char *pid = xasprintf("--pid-file=%s/dnsmasq.pid", dir);
	char *log = xasprintf("--log-facility=%s/dnsmasq.log", dir);
	struct veth_end e = { .ifname = n->tap, .cidr = cidr };
	char how[96], last[256];
	struct spawn sp;
	int ret;

	ret = tap__create(&e, err);
	if (ret)
		goto out;
	/*
	 * DHCP only (no DNS: --port=0), on this link alone, the one lease
	 * fixed; it runs as root so that it can write its pid file in
	 * our state folder, and goes into the background by itself.
	 */
	ret = spawn__run(
		&sp,
		(const char *const[]){ "dnsmasq", "--conf-file=/dev/null",
				       "--no-resolv", "--no-hosts", "--port=0",
				       iface, "--bind-interfaces", range, host,
				       "--dhcp-authoritative", "--leasefile-ro",
				       "--user=root", "--group=root",
				       "--log-dhcp", log, pid, NULL },
		&(struct spawn_opts){ .flags = SPAWN_NULL_OUT |
					       SPAWN_CAPTURE_ERR },
		DNSMASQ_TIMEOUT_MS);
	if (ret || !spawn__succeeded(&sp))
		ret = errmsg__set(err, ret ? ret : -EIO,
				  "dnsmasq (DHCP on %s) did not start: %s: %s",
				  n->tap,
				  ret ? strerror(-ret) :
					spawn__describe(&sp, how, sizeof(how)),
				  spawn__last_line(sp.err, last, sizeof(last)));
	spawn__release(&sp);
	if (!ret) {
		char *path = xasprintf("%s/dnsmasq.pid", dir);

		n->dnsmasq_pid = labvm__pidfile(path);
		n->dnsmasq_start = labvm__starttime(n->dnsmasq_pid);
		free(path);
	}
	if (ret)
		link__delete(NULL, n->tap);
out:
	free_all(cidr, iface, range, host, pid, log);
	return ret;
}

void labvm_net__down(const struct labvm_net *n)
{
	if (n->dnsmasq_pid > 0 &&
	    labvm__alive(n->dnsmasq_pid, n->dnsmasq_start))
		kill(n->dnsmasq_pid, SIGTERM);
	if (n->tap[0])
		link__delete(NULL, n->tap);
}
