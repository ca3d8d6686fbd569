/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ssh transport's room: a lab machine reached over OpenSSH
 * (host-ssh.c), its reboot awaited (ssh-boot.c) while its serial
 * console's log is watched (ssh-console.c), and its matrix keys
 * (ssh-keys.c).
 */
#ifndef IOMMU_BENCH_SSH_H
#define IOMMU_BENCH_SSH_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bench/host/host.h"
#include "strvec.h"

/* The ssh host's own, shared by its ops and its reboot wait. */
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
/* host_ssh_ops.wait_boot, in ssh-boot.c. */
int ssh_host__wait_boot(struct host *h, const char *old_boot_id,
			uint64_t timeout_ms, char **err);
/* Ask the ControlMaster to exit (best effort). */
void ssh__exit_master(struct host *h);

/* The console's log (console = PATH): its size now, in *@at, what a
 * later look starts from. */
int console__mark(const char *path, off_t *at);

/*
 * The whole lines logged since *@at, looked through: *@line as
 * console__stopped() (host-console.h), and *@at moved past them. 0, or
 * a negative errno when the log cannot be read.
 */
int console__look(const char *path, off_t *at, char **line);

#endif /* IOMMU_BENCH_SSH_H */
