/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the collector and iperf3 unit tests: a guardian process that
 * cleans up whatever way a test ends, two network namespaces joined by
 * a veth pair (made with `ip`, an argument vector, never a shell), a
 * scratch store with one trial, and stderr capture for error messages.
 * Header-only, as tap.h: each test is one translation unit.
 */
#ifndef IOMMU_BENCH_COLLECTORS_TEST_H
#define IOMMU_BENCH_COLLECTORS_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture.h"
#include "scratch-store.h"
#include "store/store.h"
#include "subprocess.h"
#include "tap.h"
#include "util.h"

static char ct_tmpdir[] = "/tmp/iommu-bench-ct.XXXXXX";
static char ct_ns_a[32], ct_ns_b[32], ct_addr_a[32], ct_addr_b[32];
static char ct_if_a[16], ct_if_b[16];
static int ct_have_netns;

static inline int ct_run(const char *const *argv)
{
	struct spawn sp;
	int err = spawn__run(&sp, argv,
			     &(struct spawn_opts){
				     .flags = SPAWN_CAPTURE_OUT |
					      SPAWN_CAPTURE_ERR,
			     },
			     10000);

	if (!err && !spawn__succeeded(&sp)) {
		char how[96];

		tap_diag("%s %s: %s: %s", argv[0], argv[1] ? argv[1] : "",
			 spawn__describe(&sp, how, sizeof(how)),
			 sp.err ? sp.err : "");
		err = -EIO;
	}
	spawn__release(&sp);
	return err;
}

static inline void ct_netns_del1(const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	if (!access(path, F_OK))
		ct_run((const char *const[]){ "ip", "netns", "del", name,
					      NULL });
}

static inline void ct_netns_del(void)
{
	if (!ct_have_netns)
		return;
	ct_netns_del1(ct_ns_a);
	ct_netns_del1(ct_ns_b);
}

static inline void ct_rmdir(void)
{
	ct_run((const char *const[]){ "rm", "-rf", "--", ct_tmpdir, NULL });
}

/*
 * Run the tests in a child; whatever happens to it (a failed assert, a
 * sanitizer abort, a signal) this process removes the namespaces and
 * the scratch directory, and exits with the child's status.
 */
static inline void ct_guard(void)
{
	pid_t pid;
	int status;

	if (!mkdtemp(ct_tmpdir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		exit(1);
	}
	snprintf(ct_ns_a, sizeof(ct_ns_a), "ibu-a-%d", (int)getpid());
	snprintf(ct_ns_b, sizeof(ct_ns_b), "ibu-b-%d", (int)getpid());
	snprintf(ct_if_a, sizeof(ct_if_a), "vua%d", (int)getpid() % 100000);
	snprintf(ct_if_b, sizeof(ct_if_b), "vub%d", (int)getpid() % 100000);
	snprintf(ct_addr_a, sizeof(ct_addr_a), "10.198.%d.1",
		 (int)getpid() % 250);
	snprintf(ct_addr_b, sizeof(ct_addr_b), "10.198.%d.2",
		 (int)getpid() % 250);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		printf("Bail out! fork: %s\n", strerror(errno));
		exit(1);
	}
	if (pid == 0)
		return;
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	ct_have_netns = 1; /* the child may have made them: try anyway */
	ct_netns_del();
	ct_rmdir();
	if (WIFSIGNALED(status)) {
		printf("not ok - the test process died of signal %d\n",
		       WTERMSIG(status));
		exit(1);
	}
	exit(WEXITSTATUS(status));
}

/* Skips the whole test (exit) when this machine cannot make namespaces. */
static inline void ct_netns_pair(void)
{
	const char *const add_a[] = { "ip", "netns", "add", ct_ns_a, NULL };
	const char *const add_b[] = { "ip", "netns", "add", ct_ns_b, NULL };
	char a[48], b[48];

	if (geteuid() != 0)
		tap_skip_all("network namespaces need root");
	if (access("/sbin/ip", X_OK) && access("/usr/sbin/ip", X_OK) &&
	    access("/bin/ip", X_OK) && access("/usr/bin/ip", X_OK))
		tap_skip_all("iproute2 (ip) is not installed");
	if (ct_run(add_a) || (ct_have_netns = 1, ct_run(add_b)))
		tap_skip_all("cannot create network namespaces here");
	snprintf(a, sizeof(a), "%s/24", ct_addr_a);
	snprintf(b, sizeof(b), "%s/24", ct_addr_b);
	if (ct_run((const char *const[]){ "ip", "link", "add", ct_if_a, "netns",
					  ct_ns_a, "type", "veth", "peer",
					  "name", ct_if_b, "netns", ct_ns_b,
					  NULL }) ||
	    ct_run((const char *const[]){ "ip", "-n", ct_ns_a, "addr", "add", a,
					  "dev", ct_if_a, NULL }) ||
	    ct_run((const char *const[]){ "ip", "-n", ct_ns_b, "addr", "add", b,
					  "dev", ct_if_b, NULL }) ||
	    ct_run((const char *const[]){ "ip", "-n", ct_ns_a, "link", "set",
					  ct_if_a, "up", NULL }) ||
	    ct_run((const char *const[]){ "ip", "-n", ct_ns_b, "link", "set",
					  ct_if_b, "up", NULL }) ||
	    ct_run((const char *const[]){ "ip", "-n", ct_ns_a, "link", "set",
					  "lo", "up", NULL }) ||
	    ct_run((const char *const[]){ "ip", "-n", ct_ns_b, "link", "set",
					  "lo", "up", NULL })) {
		printf("Bail out! cannot set up the veth pair\n");
		exit(1);
	}
}

/* What the trial of a collector's or a workload's scratch store names. */
static const struct scratch_trial ct_trial = { "t",    "machine-1", "boot-1",
					       "6.18", "running",   "lazy",
					       "key-1" };

/* A store in the scratch directory with one running trial. */
static inline struct store *ct_store(int64_t *run_id, int64_t *trial_id)
{
	char *path = xasprintf("%s/results.db", ct_tmpdir);
	struct store *st;

	if (scratch_store__open(path, &ct_trial, &st, run_id, trial_id)) {
		printf("Bail out! cannot create a scratch store\n");
		exit(1);
	}
	free(path);
	return st;
}

static char ct_err_path[4200];

/* pr_err() output between begin and end, for has_str(). */

static inline void ct_capture_begin(void)
{
	snprintf(ct_err_path, sizeof(ct_err_path), "%s/stderr", ct_tmpdir);
	capture__begin(ct_err_path);
}

#define ct_capture_end capture__end

#endif /* IOMMU_BENCH_COLLECTORS_TEST_H */
