/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the transports share and nobody else needs: running short helper
 * commands (ip, ssh, scp) with their output captured for the error
 * message, and the ssh and reboot internals.
 */
#ifndef IOMMU_BENCH_HOST_PRIV_H
#define IOMMU_BENCH_HOST_PRIV_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "bench/host/host.h"
#include "strvec.h"

/*
 * Run @argv for at most @timeout_ms. 0 when it exited 0; otherwise a
 * negative errno, and *@err (when @err is non-NULL) says what went wrong
 * in words, its stderr's last line included. *@out gets stdout (may be
 * NULL). Exit status in *@status when non-NULL (-1: did not exit).
 */
int host__cmd(const char *const *argv, int timeout_ms, char **out, char **err,
	      int *status);

/* ssh transport internals, shared with the reboot wait (host-boot.c). */
struct ssh_priv {
	char *ctl_dir; /* ControlPath sockets */
	char *base;    /* the tool's folder there, relative to $HOME */
	char *dir;     /* the agent's folder there: base/agent-ID */
	char *remote;  /* the agent there: dir/iommu-bench */
	char *libdir;  /* its libraries there: dir, beside it */
};

/*
 * The words that run the agent there with @verb: its libraries first
 * in the loader's path (and named, so that it drops them for what it
 * runs), appended to @a.
 */
void ssh__agent_words(struct host *h, struct strvec *a, const char *verb);

/*
 * `ssh [options] -- ADDRESS REMOTE agent hello` within @timeout_ms;
 * @connect_s: ConnectTimeout; @mux: through the ControlMaster. 0 and
 * the parsed answer in *@hello; otherwise a negative errno, the reason
 * in *@err, and the remote exit status in *@status (127: no agent).
 */
int ssh__hello(struct host *h, int connect_s, bool mux, int timeout_ms,
	       json_t **hello, char **err, int *status);
/* host_ssh_ops.wait_boot, in host-boot.c. */
int ssh_host__wait_boot(struct host *h, const char *old_boot_id,
			uint64_t timeout_ms, char **err);
/* Ask the ControlMaster to exit (best effort). */
void ssh__exit_master(struct host *h);

#endif /* IOMMU_BENCH_HOST_PRIV_H */
