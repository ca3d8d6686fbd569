// SPDX-License-Identifier: GPL-2.0-only
/*
 * What mode.sysfs's rebind does to an interface, done to a veth in a
 * private network namespace: addresses (with a peer, a label, a
 * lifetime, one under duplicate address detection) and routes saved,
 * the link deleted and made again under the same name, the state put
 * back. The namespace dies with this process, so nothing is left over
 * however the test ends. ip(8) only builds the scene; the code under
 * test speaks rtnetlink itself.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_addr.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/agent/agent-netaddr.h"
#include "subprocess.h"
#include "tap.h"
#include "util.h"

/* Run ip(8) with @argv; its stdout into *out when @out. */
static int ipv(const char *const *argv, char **out)
{
	struct spawn sp;
	unsigned int fl = SPAWN_CAPTURE_ERR |
			  (out ? SPAWN_CAPTURE_OUT : SPAWN_NULL_OUT);
	int ret = spawn__run(&sp, argv, &(struct spawn_opts){ .flags = fl },
			     10000);

	if (!ret && !spawn__succeeded(&sp)) {
		tap_diag("ip %s %s %s: %s", argv[1], argv[2], argv[3],
			 sp.err ? sp.err : "");
		ret = -EIO;
	}
	if (out)
		*out = xstrdup(sp.out ? sp.out : "");
	spawn__release(&sp);
	return ret;
}

#define IP(...) ipv((const char *const[]){ "ip", __VA_ARGS__, NULL }, NULL)

/* Every address, then every route, one per line: easy to search. */
static char *describe(const struct netaddr_set *s)
{
	char *all = xstrdup(""), *one, *next;
	size_t i;

	for (i = 0; i < s->nr_addrs + s->nr_routes; i++) {
		one = i < s->nr_addrs ?
			      netaddr__str(&s->addrs[i]) :
			      netroute__str(&s->routes[i - s->nr_addrs]);
		next = xasprintf("%s%s\n", all, one);
		free(one);
		free(all);
		all = next;
	}
	return all;
}

static const struct netaddr *find_addr(const struct netaddr_set *s,
				       const char *str)
{
	const struct netaddr *hit = NULL;
	size_t i;

	for (i = 0; i < s->nr_addrs && !hit; i++) {
		char *a = netaddr__str(&s->addrs[i]);

		if (!strcmp(a, str))
			hit = &s->addrs[i];
		free(a);
	}
	return hit;
}

/*
 * settle's contract, as mode.sysfs keeps it: the link is up (carrier
 * and all) before it is called. /sys shows the namespace that mounted
 * it, not ours: ask the kernel by ioctl.
 */
static bool wait_running(const char *ifname)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), i;
	bool up = false;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	for (i = 0; fd >= 0 && i < 100 && !up; i++) {
		up = !ioctl(fd, SIOCGIFFLAGS, &ifr) &&
		     ifr.ifr_flags & IFF_RUNNING;
		if (!up)
			usleep(50 * 1000);
	}
	if (fd >= 0)
		close(fd);
	return up;
}

static int make_veth(void)
{
	int ret = IP("link", "add", "nb0", "type", "veth", "peer", "name",
		     "nb0p");

	if (!ret)
		ret = IP("link", "set", "nb0p", "up");
	return ret;
}

static void build_scene(void)
{
	ok(!IP("link", "set", "nb0", "mtu", "1400", "up"), "nb0: mtu, up");
	ok(!IP("addr", "add", "192.0.2.10/24", "dev", "nb0"), "an IPv4");
	ok(!IP("addr", "add", "198.18.0.1", "peer", "198.18.0.2/32", "dev",
	       "nb0", "label", "nb0:p"),
	   "a point-to-point IPv4 with a label");
	ok(!IP("addr", "add", "2001:db8::10/64", "dev", "nb0", "nodad"),
	   "an IPv6, no DAD");
	ok(!IP("addr", "add", "2001:db8:2::10/64", "dev", "nb0", "valid_lft",
	       "3600", "preferred_lft", "1800"),
	   "an IPv6 with DAD and a lifetime");
	ok(!IP("route", "add", "198.51.100.0/24", "via", "192.0.2.1", "dev",
	       "nb0", "metric", "7"),
	   "an IPv4 route via a gateway");
	ok(!IP("-6", "route", "add", "2001:db8:1::/64", "via", "2001:db8::1",
	       "dev", "nb0"),
	   "an IPv6 route via a gateway");
}

static void check_set(const struct netaddr_set *s, const char *when)
{
	const struct netaddr *a;
	char *d = describe(s);

	tap_diag("%s:\n%s", when, d);
	ok(s->up, "%s: up", when);
	is_int(s->mtu, 1400, "%s: MTU", when);
	is_int(s->nr_addrs, 4, "%s: four addresses, no link-local", when);
	ok(!strstr(d, "fe80:"), "%s: ... no fe80::", when);
	has_str(d, "192.0.2.10/24\n", "%s: the IPv4", when);
	a = find_addr(s, "198.18.0.1 peer 198.18.0.2/32");
	ok(a, "%s: the point-to-point one", when);
	is_str(a ? a->label : NULL, "nb0:p", "%s: ... with its label", when);
	has_str(d, "2001:db8::10/64\n", "%s: the IPv6", when);
	a = find_addr(s, "2001:db8:2::10/64");
	ok(a && a->valid_lft <= 3600 && a->preferred_lft <= 1800,
	   "%s: the IPv6 with its lifetime left", when);
	is_int(s->nr_routes, 2, "%s: two routes", when);
	has_str(d, "198.51.100.0/24 via 192.0.2.1 metric 7\n",
		"%s: the IPv4 route", when);
	has_str(d, "2001:db8:1::/64 via 2001:db8::1", "%s: the IPv6 route",
		when);
	free(d);
}

static void test_save_restore(void)
{
	struct netaddr_set s, now;
	char *err = NULL, *out = NULL;

	build_scene();
	is_int(netaddr__save("nb0", &s), 0, "saved");
	check_set(&s, "saved");

	ok(!IP("link", "del", "nb0"), "nb0 deleted");
	ok(!make_veth(), "nb0 made again");
	is_int(netaddr__save("nb0", &now), 0, "the new nb0 read");
	ok(!now.up && now.mtu == 1500 && !now.nr_addrs && !now.nr_routes,
	   "... down, MTU 1500, no address, no route");
	netaddr__release(&now);

	is_int(netaddr__restore(&s, 3000, &err), 0, "restored (%s)",
	       err ? err : "ok");
	ok(wait_running("nb0"), "nb0 running");
	/* DAD takes a second at least: settle has something to wait for. */
	ipv((const char *const[]){ "ip", "-6", "addr", "show", "dev", "nb0",
				   "scope", "global", "tentative", NULL },
	    &out);
	has_str(out, "2001:db8:2::10", "before settle, one is tentative");
	free(out);
	is_int(netaddr__settle(&s, 5000, &err), 0, "settled (%s)",
	       err ? err : "ok");
	/* The kernel's own link-local may still be: not ours to wait for. */
	ipv((const char *const[]){ "ip", "-6", "addr", "show", "dev", "nb0",
				   "scope", "global", "tentative", NULL },
	    &out);
	is_str(out, "", "no restored address left tentative after settle");
	free(out);
	is_int(netaddr__save("nb0", &now), 0, "read back");
	check_set(&now, "restored");
	netaddr__release(&now);

	is_int(netaddr__restore(&s, 3000, &err), 0,
	       "restoring over what is there is fine (%s)", err ? err : "ok");
	is_int(netaddr__settle(&s, 5000, &err), 0, "... and its routes too");
	is_int(netaddr__save("nb0", &now), 0, "read back again");
	is_int(now.nr_addrs, 4, "... still four addresses");
	netaddr__release(&now);
	netaddr__release(&s);
	free(err);
}

static void test_dad_failed(void)
{
	struct netaddr_set s = { .ifname = "nb0" };
	struct netaddr a = { .family = AF_INET6, .prefixlen = 64 };
	char *err = NULL;
	int ret;

	/* The peer holds it already: nb0's probe for it is answered. */
	ok(!IP("addr", "add", "2001:db8:3::10/64", "dev", "nb0p", "nodad"),
	   "the peer has 2001:db8:3::10");
	inet_pton(AF_INET6, "2001:db8:3::10", a.local);
	memcpy(a.peer, a.local, 16);
	a.valid_lft = a.preferred_lft = 0xffffffffu;
	s.addrs = &a;
	s.nr_addrs = 1;
	s.up = true;
	is_int(netaddr__restore(&s, 3000, &err), 0, "a duplicate is added");
	ok(wait_running("nb0"), "nb0 running");
	ret = netaddr__settle(&s, 8000, &err);
	is_int(ret, -EADDRINUSE, "... and settle reports it");
	has_str(err, "2001:db8:3::10/64", "... naming the address");
	free(err);
}

static void test_missing(void)
{
	struct netaddr_set s = { .ifname = "nbgone", .up = true };
	char *err = NULL;

	is_int(netaddr__save("nbgone", &s), -ENODEV, "no such interface");
	is_int(netaddr__save("../nb0", &s), -EINVAL, "a name with a slash");
	snprintf(s.ifname, sizeof(s.ifname), "nbgone");
	is_int(netaddr__restore(&s, 200, &err), -ETIMEDOUT,
	       "an interface that never comes back times out");
	has_str(err, "nbgone", "... naming it");
	free(err);
}

static void test_route_dev(void)
{
	char dev[IFNAMSIZ] = "";

	is_int(netaddr__route_dev("192.0.2.99", dev), 0, "route to an IPv4");
	is_str(dev, "nb0", "... out of nb0");
	dev[0] = '\0';
	is_int(netaddr__route_dev("2001:db8::99", dev), 0, "to an IPv6");
	is_str(dev, "nb0", "... out of nb0");
	dev[0] = '\0';
	is_int(netaddr__route_dev("::ffff:192.0.2.99", dev), 0,
	       "to an IPv4-mapped IPv6, as sshd may report it");
	is_str(dev, "nb0", "... out of nb0");
	is_int(netaddr__route_dev("203.0.113.1", dev), -ENETUNREACH,
	       "no route to elsewhere: no default route here");
	is_int(netaddr__route_dev("nb0", dev), -EINVAL, "not an address");
}

int main(void)
{
	char *why;

	if (geteuid())
		tap_skip_all("needs root for a private network namespace");
	if (unshare(CLONE_NEWNET) < 0) {
		why = xasprintf("unshare(CLONE_NEWNET): %s", strerror(errno));
		tap_skip_all(why);
	}
	if (make_veth())
		tap_skip_all("cannot make a veth pair (no veth driver?)");
	test_save_restore();
	test_route_dev();
	test_dad_failed();
	test_missing();
	return tap_done();
}
