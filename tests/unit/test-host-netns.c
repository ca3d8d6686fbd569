// SPDX-License-Identifier: GPL-2.0-only
/*
 * The netns transport against this kernel: real namespaces, a real veth
 * pair, a real agent in each. Also that a namespace somebody else made
 * is refused and left alone, and that one a killed run left is replaced.
 */
#include <errno.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/agent-client/agent-conn.h"
#include "bench/host/host-priv.h"
#include "bench/host/host.h"
#include "netns.h"
#include "bench/matrix/matrix.h"
#include "matrix-load.h"
#include "tap.h"
#include "util.h"

static char ns_a[64], ns_b[64];

static struct matrix *netns_matrix(void)
{
	struct matrix *m;
	char *toml;

	/* Names with our PID: parallel test runs never meet. */
	snprintf(ns_a, sizeof(ns_a), "ibt-a-%d", (int)getpid());
	snprintf(ns_b, sizeof(ns_b), "ibt-b-%d", (int)getpid());
	toml = xasprintf(
		"[run]\nmodes = [\"current\"]\n[hosts.sut]\ntransport = \"netns\"\nrole = \"sut\"\n"
		"netns = \"%s\"\naddress = \"10.79.0.1/24\"\n"
		"nic = \"veth-sut\"\nlink = \"peer\"\n"
		"[hosts.peer]\ntransport = \"netns\"\n"
		"netns = \"%s\"\naddress = \"10.79.0.2/24\"\n"
		"[[workloads]]\nname = \"w\"\nserver = \"sut\"\n"
		"client = \"peer\"\n",
		ns_a, ns_b);
	m = load(toml);
	free(toml);
	return m;
}

/* The IPv4 address of @ifname in @ns as "a.b.c.d/len", from ip -j. */
static char *addr_of(const char *ns, const char *ifname)
{
	const char *argv[] = { "ip", "-n", ns, "-j", "addr", "show", NULL };
	json_t *root, *link, *ai;
	char *out = NULL, *res = NULL;
	size_t i, j;

	if (host__cmd(argv, 5000, &out, NULL, NULL))
		return NULL;
	root = json_loads(out, 0, NULL);
	free(out);
	json_array_foreach(root, i, link) {
		const char *name =
			json_string_value(json_object_get(link, "ifname"));

		if (!name || strcmp(name, ifname))
			continue;
		json_array_foreach(json_object_get(link, "addr_info"), j, ai) {
			const char *fam = json_string_value(
				json_object_get(ai, "family"));

			if (fam && !strcmp(fam, "inet") && !res)
				res = xasprintf(
					"%s/%lld",
					json_string_value(
						json_object_get(ai, "local")),
					json_integer_value(json_object_get(
						ai, "prefixlen")));
		}
	}
	json_decref(root);
	return res;
}

/*
 * Connect from inside @ns to a closed port at @addr: a refusal (RST)
 * proves the packet crossed the veth and the other end answered.
 */
static int ping_from(const char *ns, const char *addr)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(9) };
	struct timeval tv = { .tv_sec = 2 };
	char path[128];
	int status, fd, s;
	pid_t pid;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	inet_pton(AF_INET, addr, &sin.sin_addr);
	pid = fork();
	if (pid == 0) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWNET))
			_exit(2);
		s = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (connect(s, (struct sockaddr *)&sin, sizeof(sin)) &&
		    errno == ECONNREFUSED)
			_exit(0);
		_exit(1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void check_hello(struct host *h)
{
	struct agent_conn *c = NULL;
	json_t *res = NULL;
	char *err = NULL;
	int ret;

	ret = h->ops->agent(h, &c, NULL);
	is_int(ret, 0, "%s: the agent starts in its namespace", h->m->name);
	if (ret)
		return;
	ret = agent_conn__call(c, "hello", NULL, 10000, &res, &err);
	is_int(ret, 0, "%s: it answers hello", h->m->name);
	if (ret)
		printf("#   %s\n", err ? err : "");
	ok(json_integer_value(json_object_get(res, "protocol")) > 0,
	   "%s: hello carries a protocol", h->m->name);
	json_decref(res);
	free(err);
	agent_conn__close(c);
}

static void test_open_close(struct matrix *m)
{
	struct host hosts[2] = { 0 };
	char *a;
	int i;

	for (i = 0; i < 2; i++) {
		hosts[i].m = &m->hosts[i];
		hosts[i].matrix = m;
		hosts[i].ops = host_ops__find(m->hosts[i].transport);
		is_int(hosts[i].ops->open(&hosts[i], NULL), 0, "open %s",
		       m->hosts[i].name);
	}
	ok(netns__exists(ns_a) && netns__exists(ns_b), "both namespaces exist");
	a = addr_of(ns_a, "veth-sut");
	is_str(a, "10.79.0.1/24", "the sut's veth end (nic) has its address");
	free(a);
	a = addr_of(ns_b, "ib-peer");
	is_str(a, "10.79.0.2/24", "the peer's derived end has its address");
	free(a);
	ok(!ping_from(ns_b, "10.79.0.1"), "the peer reaches the sut over it");
	for (i = 0; i < 2; i++)
		check_hello(&hosts[i]);
	{
		char *why = NULL;

		is_int(hosts[0].ops->wait_boot(&hosts[0], "x", 1000, &why),
		       -EOPNOTSUPP, "a namespace is never rebooted");
		free(why);
	}
	for (i = 2; i-- > 0;)
		hosts[i].ops->close(&hosts[i]);
	ok(!netns__exists(ns_a) && !netns__exists(ns_b),
	   "close removes both namespaces");
}

static int ip_netns(const char *verb, const char *ns)
{
	const char *argv[] = { "ip", "netns", verb, ns, NULL };

	return host__cmd(argv, 5000, NULL, NULL, NULL);
}

static void test_foreign(struct matrix *m)
{
	struct host h = { .m = &m->hosts[0], .matrix = m };
	char *err = NULL;

	h.ops = host_ops__find(h.m->transport);
	if (!is_int(ip_netns("add", ns_a), 0, "a foreign namespace made"))
		return;
	is_int(h.ops->open(&h, &err), -EEXIST,
	       "open refuses a foreign namespace");
	has_str(err, "was not created by iommu-bench", "saying whose it is");
	free(err);
	ok(netns__exists(ns_a), "and leaves it alone");
	h.ops->close(&h);
	ok(netns__exists(ns_a), "close leaves it alone too");
	ip_netns("delete", ns_a);
}

static void test_stale(struct matrix *m)
{
	struct host h = { .m = &m->hosts[0], .matrix = m };
	char *path = xasprintf("%s/%s", NETNS_MARKER_DIR, ns_a);
	pid_t pid = fork();
	int fd;

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	h.ops = host_ops__find(h.m->transport);
	ip_netns("add", ns_a);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	/* A dead child's PID: what a SIGKILLed run leaves behind. */
	ok(fd >= 0 && dprintf(fd, "%d 1\n", (int)pid) > 0, "stale marker");
	if (fd >= 0)
		close(fd);
	is_int(h.ops->open(&h, NULL), 0,
	       "open replaces a stale namespace of ours");
	ok(netns__is_mine(ns_a), "which is now this run's");
	h.ops->close(&h);
	ok(!netns__exists(ns_a), "and close removes it");
	free(path);
}

int main(void)
{
	struct matrix *m;

	if (geteuid())
		tap_skip_all("needs root for network namespaces");
	if (access("/proc/self/ns/net", F_OK))
		tap_skip_all("no network namespaces in this kernel");
	if (!getenv("IOMMU_BENCH"))
		tap_skip_all("IOMMU_BENCH (the binary under test) not set");
	m = netns_matrix();
	if (!ok(m, "the matrix loads"))
		return tap_done();
	test_open_close(m);
	test_foreign(m);
	test_stale(m);
	ip_netns("delete", ns_a);
	ip_netns("delete", ns_b);
	matrix__free(m);
	return tap_done();
}
