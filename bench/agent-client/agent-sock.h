/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An agent on a VM's virtio-serial port, which QEMU wires to a unix
 * socket on this machine, or one that dials us (a LAVA device): whoever
 * started that machine (the tool itself, or a LAVA lab) is asked by
 * callback whether it still runs.
 */
#ifndef IOMMU_BENCH_AGENT_SOCK_H
#define IOMMU_BENCH_AGENT_SOCK_H

#include "bench/agent-client/agent-conn.h"

struct agent_sock_watch {
	/*
	 * 0 while the machine may still answer; a negative errno and
	 * *@err (new) once it cannot (QEMU exited, the job ended).
	 */
	int (*gone)(void *arg, char **err);
	/* The console's last lines, for a timeout's message (new). */
	char *(*console)(void *arg);
	void *arg;
};

/*
 * Connect to @path and say hello until the guest's agent answers, @w
 * says the machine is gone, or @timeout_ms passes. A request sent while
 * the guest's agent restarts (between two connections) is dropped by
 * virtio-console, so hello is retried on a short timeout; late answers
 * are skipped by their id. An answer from boot @old_boot (a kexec not
 * yet jumped) does not count. 0 and *@out, or a negative errno and
 * *@err: -ECHILD gone, -ETIMEDOUT with the console's tail.
 */
int agent_sock__wait(const char *path, const char *host, int timeout_ms,
		     const char *old_boot, const struct agent_sock_watch *w,
		     struct agent_conn **out, char **err);

/*
 * How agent__wait() reaches an agent: a new connection in *@out (0), or
 * a negative errno when there is none yet (it is asked again shortly;
 * what it cannot reach it says itself, once).
 */
struct agent_dial {
	int (*dial)(void *arg, struct agent_conn **out);
	void *arg;
};

/* agent_sock__wait() through @d: a socket here or a listener's accept. */
int agent__wait(const struct agent_dial *d, int timeout_ms,
		const char *old_boot, const struct agent_sock_watch *w,
		struct agent_conn **out, char **err);

#endif /* IOMMU_BENCH_AGENT_SOCK_H */
