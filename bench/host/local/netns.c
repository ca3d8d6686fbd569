// SPDX-License-Identifier: GPL-2.0-only
/*
 * Namespaces and veth pairs through ip(8), as argument vectors. The
 * ownership marker keeps the tool's hands off namespaces it did not
 * make, yet lets a resumed run clear what a killed one left behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/host/host-priv.h"
#include "bench/host/local/netns.h"
#include "errmsg.h"
#include "log.h"
#include "subprocess.h"
#include "util.h"

#define IP_TIMEOUT_MS 10000

/*
 * `ip [-n NETNS] ARGS...`: 0, or a negative errno and, where @errp asks,
 * the command line with ip's words.
 */
static int ip_run(const char *netns, const char *const *args, char **errp)
{
	struct strvec a = { 0 };
	char *err = NULL;
	size_t i;
	int ret;

	strvec__push(&a, "ip");
	if (netns) {
		strvec__push(&a, "-n");
		strvec__push(&a, netns);
	}
	for (i = 0; args[i]; i++)
		strvec__push(&a, args[i]);
	ret = host__cmd(strvec__argv(&a), IP_TIMEOUT_MS, NULL, &err, NULL);
	if (ret && errp) {
		char *line;
		size_t len = 0;

		for (i = 0; i < a.nr; i++)
			len += strlen(a.v[i]) + 1;
		line = xcalloc(1, len + 1);
		for (i = 0; i < a.nr; i++) {
			strcat(line, a.v[i]);
			if (i + 1 < a.nr)
				strcat(line, " ");
		}
		errmsg__set(errp, ret, "`%s`: %s", line, err);
		free(line);
	}
	free(err);
	strvec__release(&a);
	return ret;
}

bool netns__exists(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	return access(path, F_OK) == 0;
}

static char *marker_path(const char *name)
{
	return xasprintf("%s/%s", NETNS_MARKER_DIR, name);
}

enum marker_state { MARKER_NONE, MARKER_MINE, MARKER_LIVE, MARKER_DEAD };

static enum marker_state marker__read(const char *name, pid_t *pidp)
{
	char *path = marker_path(name), *buf = NULL;
	unsigned long long st = 0, now;
	enum marker_state s = MARKER_NONE;
	long pid = 0;
	size_t len;

	if (read_file(path, &buf, &len))
		goto out;
	s = MARKER_DEAD;
	if (sscanf(buf, "%ld %llu", &pid, &st) != 2 || pid <= 0)
		goto out;
	*pidp = (pid_t)pid;
	if (proc__starttime((pid_t)pid, &now) || now != st)
		goto out;
	s = pid == getpid() ? MARKER_MINE : MARKER_LIVE;
out:
	free(buf);
	free(path);
	return s;
}

static int marker__write(const char *name, char **err)
{
	char *path = marker_path(name), *tmp = NULL, line[64];
	unsigned long long st;
	int ret, fd, len;

	ret = proc__starttime(getpid(), &st);
	if (ret)
		goto out;
	ret = host__state_dir(NULL, "netns", &tmp, err);
	if (ret)
		goto out;
	free(tmp);
	len = snprintf(line, sizeof(line), "%d %llu\n", (int)getpid(), st);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, line, len) != len)
		ret = -errno;
	if (fd >= 0)
		close(fd);
	if (ret)
		errmsg__set(err, ret, "cannot write %s: %s", path,
			    strerror(-ret));
out:
	free(path);
	return ret;
}

static void marker__remove(const char *name)
{
	char *path = marker_path(name);

	unlink(path);
	free(path);
}

bool netns__is_mine(const char *name)
{
	pid_t pid;

	return netns__exists(name) && marker__read(name, &pid) == MARKER_MINE;
}

static int netns__delete(const char *name, char **err)
{
	const char *args[] = { "netns", "delete", name, NULL };

	return ip_run(NULL, args, err);
}

/*
 * Every connection in the namespace starts from the same TCP state: no
 * ssthresh or RTT cached from the last one to the same address (the
 * kernel's tcp_metrics). With them, consecutive trials of one cell fell
 * into regimes 40% apart (docs/testbed-noise.md). The namespace is the
 * tool's own, so its sysctls are too.
 */
static int fresh_tcp(const char *name, char **errp)
{
	const char *argv[] = { "ip",
			       "netns",
			       "exec",
			       name,
			       "sysctl",
			       "-qw",
			       "net.ipv4.tcp_no_metrics_save=1",
			       NULL };
	char *err = NULL;
	int ret;

	ret = host__cmd(argv, IP_TIMEOUT_MS, NULL, &err, NULL);
	if (ret)
		errmsg__set(errp, ret,
			    "network namespace '%s': cannot set "
			    "net.ipv4.tcp_no_metrics_save: %s",
			    name, err);
	free(err);
	return ret;
}

int netns__claim(const char *name, char **err)
{
	const char *add[] = { "netns", "add", name, NULL };
	const char *lo[] = { "link", "set", "lo", "up", NULL };
	pid_t pid = 0;
	int ret;

	if (!name_is_safe(name))
		return errmsg__set(err, -EINVAL,
				   "'%s' is not a usable namespace name "
				   "(expected [A-Za-z0-9._-], at most 64 "
				   "bytes)",
				   name);
	switch (marker__read(name, &pid)) {
	case MARKER_NONE:
		if (netns__exists(name))
			return errmsg__set(err, -EEXIST,
					   "network namespace '%s' exists and "
					   "was not created by iommu-bench; "
					   "remove it with `ip netns del %s` "
					   "or set another netns name",
					   name, name);
		break;
	case MARKER_LIVE:
		return errmsg__set(err, -EBUSY,
				   "network namespace '%s' is in use by "
				   "another iommu-bench run (PID %d)",
				   name, (int)pid);
	case MARKER_DEAD:
	case MARKER_MINE:
		if (netns__exists(name)) {
			pr_info("network namespace '%s': left by an earlier "
				"run (PID %d), replacing it",
				name, (int)pid);
			ret = netns__delete(name, err);
			if (ret)
				return ret;
		}
		marker__remove(name);
		break;
	}
	/* The marker first: a crash between the two leaves a stale one. */
	ret = marker__write(name, err);
	if (ret)
		return ret;
	ret = ip_run(NULL, add, err);
	if (ret) {
		marker__remove(name);
		return ret;
	}
	ret = ip_run(name, lo, err);
	if (!ret)
		ret = fresh_tcp(name, err);
	if (ret)
		netns__release(name, NULL);
	return ret;
}

int netns__release(const char *name, char **err)
{
	pid_t pid;
	int ret = 0;

	if (marker__read(name, &pid) != MARKER_MINE)
		return 0;
	if (netns__exists(name))
		ret = netns__delete(name, err);
	if (!ret)
		marker__remove(name);
	return ret;
}

static int veth__setup(const struct veth_end *e, char **err)
{
	const char *up[] = { "link", "set", e->ifname, "up", NULL };
	/* IPv6 duplicate address detection would hold the address back. */
	bool v6 = e->cidr && strchr(e->cidr, ':');
	const char *addr[] = { "addr", "add",	  e->cidr,
			       "dev",  e->ifname, v6 ? "nodad" : NULL,
			       NULL };
	char mtu[16];
	const char *set_mtu[] = { "link", "set", e->ifname, "mtu", mtu, NULL };
	int ret = 0;

	if (e->mtu) {
		snprintf(mtu, sizeof(mtu), "%u", e->mtu);
		ret = ip_run(e->netns, set_mtu, err);
	}
	if (!ret && e->cidr)
		ret = ip_run(e->netns, addr, err);
	if (!ret)
		ret = ip_run(e->netns, up, err);
	return ret;
}

/* One end's words of `ip link add`: its name, and its namespace. */
static void veth_end__words(const struct veth_end *e, struct strvec *args)
{
	strvec__push(args, e->ifname);
	if (e->netns) {
		strvec__push(args, "netns");
		strvec__push(args, e->netns);
	}
}

int veth__create(const struct veth_end *a, const struct veth_end *b, char **err)
{
	static const char *const peer[] = { "type", "veth", "peer", "name" };
	struct strvec args = { 0 };
	size_t i;
	int ret;

	/* Made straight inside the namespaces, so that two hosts' names
	 * never meet in the root namespace. */
	strvec__push(&args, "link");
	strvec__push(&args, "add");
	veth_end__words(a, &args);
	for (i = 0; i < ARRAY_SIZE(peer); i++)
		strvec__push(&args, peer[i]);
	veth_end__words(b, &args);
	ret = ip_run(NULL, strvec__argv(&args), err);
	strvec__release(&args);
	if (!ret)
		ret = veth__setup(a, err);
	if (!ret)
		ret = veth__setup(b, err);
	return ret;
}

int tap__create(const struct veth_end *e, char **err)
{
	const char *add[] = { "tuntap", "add", "dev", e->ifname,
			      "mode",	"tap", NULL };
	const char *del[] = { "link", "del", e->ifname, NULL };
	int ret;

	/* One left by a killed run holds the name: ours by its prefix. */
	if (!ip_run(e->netns,
		    (const char *const[]){ "link", "show", e->ifname, NULL },
		    NULL))
		ip_run(e->netns, del, NULL);
	ret = ip_run(e->netns, add, err);
	if (!ret)
		ret = veth__setup(e, err);
	if (ret)
		ip_run(e->netns, del, NULL);
	return ret;
}

int link__delete(const char *netns, const char *ifname)
{
	return ip_run(netns,
		      (const char *const[]){ "link", "del", ifname, NULL },
		      NULL);
}

static bool ifname_ok(const char *s)
{
	return name_is_safe(s) && strlen(s) <= NETNS_IFNAME_MAX;
}

int netns__ifname(const char *nic, const char *host, char *buf, size_t size,
		  char **err)
{
	if (nic) {
		if (!ifname_ok(nic))
			return errmsg__set(err, -EINVAL,
					   "host %s: nic '%s' is not a usable "
					   "veth name (expected "
					   "[A-Za-z0-9._-], at most %d bytes)",
					   host, nic, NETNS_IFNAME_MAX);
		snprintf(buf, size, "%s", nic);
		return 0;
	}
	snprintf(buf, size, "ib-%.*s", NETNS_IFNAME_MAX - 3, host);
	if (!ifname_ok(buf))
		return errmsg__set(err, -EINVAL,
				   "host %s: no usable veth name derives from "
				   "it; set nic",
				   host);
	return 0;
}
