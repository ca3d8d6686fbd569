// SPDX-License-Identifier: GPL-2.0-only
/*
 * An agent started in a network namespace by agent_conn__spawn(), as the
 * netns transport starts it, must see that namespace's interfaces in
 * /sys (setns() alone would leave it the host's), including a veth moved
 * in after it started; and the host's /sys must stay as it was. Real namespaces, made with ip(8) argument vectors and removed
 * however the test ends (a guardian child waits for our death).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent-test.h"
#include "bench/agent-client/agent-conn.h"
#include "errmsg.h"
#include "subprocess.h"
#include "tap.h"
#include "util.h"

static char bin[PATH_MAX], ns[32], if_host[16], if_ns[16];

static int ip(const char *const *argv)
{
	struct spawn sp;
	int ret = spawn__run(&sp, argv,
			     &(struct spawn_opts){ .flags = SPAWN_NULL_OUT |
							    SPAWN_CAPTURE_ERR },
			     10000);

	if (!ret && !spawn__succeeded(&sp)) {
		tap_diag("%s %s %s: %s", argv[0], argv[1], argv[2],
			 sp.err ? sp.err : "");
		ret = -EIO;
	}
	spawn__release(&sp);
	return ret;
}

static void cleanup(void)
{
	ip((const char *const[]){ "ip", "link", "del", if_host, NULL });
	ip((const char *const[]){ "ip", "netns", "del", ns, NULL });
}

/* Removes the namespace after we die, whatever kills us. */
static void guardian(void)
{
	int fd[2], null;
	char c;

	/* Close-on-exec, so that only this process holds the write end. */
	if (pipe2(fd, O_CLOEXEC) < 0)
		return;
	if (fork() == 0) {
		close(fd[1]);
		while (read(fd[0], &c, 1) > 0)
			;
		null = open("/dev/null", O_WRONLY);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		cleanup();
		_exit(0);
	}
	close(fd[0]);
}

static bool have_iface(const char *name)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/class/net/%s", name);
	return !stat(path, &st);
}

int main(void)
{
	const char *argv[] = { bin, "agent", "serve", NULL };
	struct agent_conn *c = NULL;
	json_t *args, *r = NULL;
	char *err = NULL;
	int ret;

	if (geteuid())
		tap_skip_all("needs root for network namespaces");
	if (agent_test__find_bin(bin, sizeof(bin)))
		tap_skip_all("no iommu-bench binary (set IOMMU_BENCH)");
	snprintf(ns, sizeof(ns), "iba-ns-%d", (int)getpid());
	snprintf(if_host, sizeof(if_host), "iba-h%d", (int)getpid() % 100000);
	snprintf(if_ns, sizeof(if_ns), "iba-n%d", (int)getpid() % 100000);
	if (ip((const char *const[]){ "ip", "netns", "add", ns, NULL }))
		tap_skip_all("ip netns add failed: no network namespaces");
	guardian();

	ret = agent_conn__spawn(argv, ns, "netns-test", &c);
	if (!is_int(ret, 0, "an agent starts in namespace %s", ns))
		goto out;
	/* Only lo in there yet, as when the transport starts it early. */
	is_int(agent_conn__call(c, "hello", NULL, 5000, &r, &err), 0,
	       "it answers hello");
	json_decref(r);
	errmsg__clear(&err);
	ret = ip((const char *const[]){ "ip", "link", "add", if_host, "type",
					"veth", "peer", "name", if_ns, "netns",
					ns, NULL });
	if (!is_int(ret, 0, "a veth end is moved into the namespace"))
		goto out;
	args = json_pack("{s:s}", "nic", if_ns);
	ret = agent_conn__call(c, "policy", args, 10000, &r, &err);
	is_int(ret, 0, "policy finds %s, moved in after the agent started (%s)",
	       if_ns, err ? err : "ok");
	json_decref(r);
	errmsg__clear(&err);
	json_decref(args);
	args = json_pack("{s:s}", "nic", if_host);
	ret = agent_conn__call(c, "policy", args, 10000, &r, &err);
	ok(ret < 0 && err && strstr(err, if_host),
	   "the host's end is not in the agent's view (%s)",
	   err ? err : "found");
	json_decref(r);
	errmsg__clear(&err);
	json_decref(args);
	ok(have_iface(if_host) && !have_iface(if_ns),
	   "the host's /sys still shows the host's interfaces");
out:
	agent_conn__close(c);
	cleanup();
	return tap_done();
}
